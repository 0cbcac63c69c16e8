"""Runs the stages in order: contract, deterministic rules, semantic review; builds the Verdict."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from judge.config import JudgeConfig
from judge.contract import ContractViolation, parse_result, parse_step
from judge.models import ExecuteStepResult, Step
from judge.rules.context import RuleContext
from judge.rules.registry import run_rules
from judge.verdict import Finding, StageReport, Verdict
from judge.version import __version__

__all__ = ["validate", "avalidate"]

_PASSED = "passed every deterministic check (mode, outcome, patch structure, paths, declarations, scope, impact)"


def validate(step: Any, result: Any, *, config: JudgeConfig | None = None) -> Verdict:
    """Judge one executor ``result`` for one ``step`` (dicts or models). Never raises; fails closed."""
    try:
        return _validate(step, result, config or JudgeConfig())
    except Exception as exc:  # fail closed: a bug in judge must never read as "valid"
        finding = Finding(
            rule="judge_error",
            stage="rules",
            message=f"judge could not finish checking this result ({type(exc).__name__}: {str(exc)[:200]}). "
            "The step is not accepted; report this to judge's maintainers.",
        )
        return Verdict(valid=False, reason=finding.reason, rule=finding.rule, findings=(finding,), judge_version=__version__)


async def avalidate(step: Any, result: Any, *, config: JudgeConfig | None = None) -> Verdict:
    """``validate`` for async callers: the CPU-bound checks run in a worker thread."""
    return await asyncio.to_thread(validate, step, result, config=config)


def _validate(step: Any, result: Any, config: JudgeConfig) -> Verdict:
    stages: list[StageReport] = []
    started = time.perf_counter()
    try:
        step_model = step if isinstance(step, Step) else parse_step(step)
        result_model = result if isinstance(result, ExecuteStepResult) else parse_result(result)
    except ContractViolation as violation:
        finding = Finding(rule="schema_invalid", stage="contract", message=violation.message)
        stages.append(StageReport(stage="contract", status="rejected", detail=violation.message, duration_ms=_ms(started)))
        return _reject(finding, (finding,), stages)
    stages.append(StageReport(stage="contract", status="passed", duration_ms=_ms(started)))

    started = time.perf_counter()
    findings = run_rules(RuleContext(step_model, result_model))
    deciding = next((f for f in findings if f.severity == "reject"), None)
    if deciding is not None:
        stages.append(StageReport(stage="rules", status="rejected", detail=deciding.rule, duration_ms=_ms(started)))
        return _reject(deciding, findings, stages)
    stages.append(StageReport(stage="rules", status="passed", detail=_PASSED, duration_ms=_ms(started)))

    skipped = "semantic review off" if config.semantic == "off" else "semantic review skipped: no model configured"
    stages.append(StageReport(stage="semantic", status="skipped", detail=skipped))
    return Verdict(
        valid=True,
        reason=f"valid: {_PASSED}; {skipped}.",
        findings=findings,
        stages=tuple(stages),
        judge_version=__version__,
    )


def _reject(deciding: Finding, findings: tuple[Finding, ...], stages: list[StageReport]) -> Verdict:
    stages.append(StageReport(stage="semantic", status="skipped", detail="not reached: a deterministic rule rejected"))
    return Verdict(
        valid=False,
        reason=deciding.reason,
        rule=deciding.rule,
        findings=findings,
        stages=tuple(stages),
        judge_version=__version__,
    )


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
