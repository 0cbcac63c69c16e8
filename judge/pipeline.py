"""Runs the stages in order: contract, deterministic rules, semantic review; builds the Verdict."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Sequence

from judge.config import JudgeConfig
from judge.contract import ContractViolation, parse_execution_evidence, parse_result, parse_step
from judge.errors import InputError
from judge.evidence.workspace import Workspace, WorkspaceFacts, gather_workspace
from judge.llm.report import SemanticReport
from judge.models import ExecuteStepResult, ExecutionEvidence, Step
from judge.rules.context import RuleContext
from judge.rules.registry import run_rules
from judge.rules.workspace import work_evidence_method
from judge.verdict import Finding, StageReport, Verdict
from judge.version import __version__

__all__ = ["validate", "avalidate"]

_PASSED = "passed every deterministic check (mode, outcome, patch structure, paths, declarations, scope, impact)"


def validate(step: Any, result: Any, *, config: JudgeConfig | None = None,
             workspace: Workspace | WorkspaceFacts | None = None, evidence: Sequence[Any] = ()) -> Verdict:
    """Judge one executor ``result`` for one ``step`` (dicts or models). Never raises; fails closed.

    ``workspace`` adds the git, evidence-file and ledger checks; ``evidence`` attaches execution
    evidence records (ExecutionEvidence or their JSON dicts, as `judge run` writes them).
    """
    config = config or JudgeConfig()
    try:
        early = _deterministic(step, result, config, workspace, evidence)
        return early if isinstance(early, Verdict) else _run(_semantic(early, config))
    except Exception as exc:  # fail closed: a bug in judge must never read as "valid"
        return _judge_error(exc)


async def avalidate(step: Any, result: Any, *, config: JudgeConfig | None = None,
                    workspace: Workspace | WorkspaceFacts | None = None, evidence: Sequence[Any] = ()) -> Verdict:
    """``validate`` for async callers: the CPU-bound checks run in a worker thread, the LLM calls on the loop."""
    config = config or JudgeConfig()
    try:
        early = await asyncio.to_thread(_deterministic, step, result, config, workspace, evidence)
        return early if isinstance(early, Verdict) else await _semantic(early, config)
    except Exception as exc:
        return _judge_error(exc)


@dataclass(frozen=True)
class _Pending:
    """Everything the rules let through, waiting for the semantic review."""

    ctx: RuleContext
    findings: tuple[Finding, ...]
    stages: tuple[StageReport, ...]


def _deterministic(step: Any, result: Any, config: JudgeConfig, workspace: Workspace | WorkspaceFacts | None = None,
                   evidence: Sequence[Any] = ()) -> Verdict | _Pending:
    stages: list[StageReport] = []
    started = time.perf_counter()
    try:
        step_model = step if isinstance(step, Step) else parse_step(step)
        result_model = result if isinstance(result, ExecuteStepResult) else parse_result(result)
        records = tuple(r if isinstance(r, ExecutionEvidence) else parse_execution_evidence(r) for r in evidence)
    except ContractViolation as violation:
        finding = Finding(rule="schema_invalid", stage="contract", message=violation.message)
        stages.append(StageReport(stage="contract", status="rejected", detail=violation.message, duration_ms=_ms(started)))
        return _reject(finding, (finding,), stages)
    stages.append(StageReport(stage="contract", status="passed", duration_ms=_ms(started)))

    started = time.perf_counter()
    facts = _workspace_facts(workspace, step_model, result_model)
    if isinstance(facts, Finding):
        stages.append(StageReport(stage="rules", status="rejected", detail=facts.rule, duration_ms=_ms(started)))
        return _with_evidence(_reject(facts, (facts,), stages), None, records)
    ctx = RuleContext(step_model, result_model, facts, records)
    findings = run_rules(ctx)
    deciding = next((f for f in findings if f.severity == "reject"), None)
    if deciding is not None:
        stages.append(StageReport(stage="rules", status="rejected", detail=deciding.rule, duration_ms=_ms(started)))
        return _with_evidence(_reject(deciding, findings, stages), ctx)
    stages.append(StageReport(stage="rules", status="passed", detail=_PASSED, duration_ms=_ms(started)))

    skipped = _skip_reason(ctx, config)
    if skipped is None:
        return _Pending(ctx, findings, tuple(stages))
    if config.semantic == "required" and not config.model:
        finding = Finding(
            rule="llm_unavailable",
            stage="semantic",
            message="the semantic review is required but no model is configured. "
            "Set --model or JUDGE_MODEL (any litellm model string), or run with semantic auto.",
        )
        stages.append(StageReport(stage="semantic", status="error", detail="no model configured"))
        return _with_evidence(_verdict(False, finding.reason, finding, findings + (finding,), stages), ctx)
    stages.append(StageReport(stage="semantic", status="skipped", detail=skipped))
    return _with_evidence(_verdict(True, f"valid: {_PASSED}; {skipped}.", None, findings, stages), ctx)


def _skip_reason(ctx: RuleContext, config: JudgeConfig) -> str | None:
    """Why the semantic stage does not run, or None when it must."""
    if config.semantic == "off":
        return "semantic review off"
    if not config.model:
        return "semantic review skipped: no model configured"
    if not ctx.result.success:
        return "semantic review skipped: the step reports failure, there is no change to judge"
    if not ctx.has_patch:
        return "semantic review skipped: there is no patch to judge"
    return None


async def _semantic(pending: _Pending, config: JudgeConfig) -> Verdict:
    from judge.llm.stage import review  # here, not at the top: litellm is only for runs that get this far

    started = time.perf_counter()
    signals = tuple(f for f in pending.findings if f.severity == "signal")
    outcome = await review(pending.ctx, signals, config)
    report = outcome.report
    status = "passed" if outcome.valid else ("error" if outcome.finding and outcome.finding.rule == "llm_unavailable" else "rejected")
    detail = f"{report.model}: {len(report.samples)} sample(s), agreement {report.agreement:.0%}, {len(report.calls)} call(s)"
    stages = pending.stages + (StageReport(stage="semantic", status=status, detail=detail, duration_ms=_ms(started)),)
    findings = pending.findings + ((outcome.finding,) if outcome.finding else ())
    if outcome.valid:
        reason = f"valid: {_PASSED}; semantic review by {report.model}: {outcome.reason[:500]}"
        return _with_evidence(_verdict(True, reason, None, findings, list(stages), report), pending.ctx)
    return _with_evidence(_verdict(False, outcome.reason, outcome.finding, findings, list(stages), report), pending.ctx)


def _run(coroutine: Any) -> Verdict:
    """Run the semantic stage from sync code, also when the caller already has an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _reject(deciding: Finding, findings: tuple[Finding, ...], stages: list[StageReport]) -> Verdict:
    stages.append(StageReport(stage="semantic", status="skipped", detail="not reached: a deterministic rule rejected"))
    return _verdict(False, deciding.reason, deciding, findings, stages)


def _verdict(valid: bool, reason: str, deciding: Finding | None, findings: tuple[Finding, ...],
             stages: list[StageReport], report: SemanticReport | None = None) -> Verdict:
    return Verdict(
        valid=valid,
        reason=reason,
        rule=deciding.rule if deciding else None,
        findings=findings,
        stages=tuple(stages),
        judge_version=__version__,
        semantic_review=report,
    )


def _judge_error(exc: Exception) -> Verdict:
    finding = Finding(
        rule="judge_error",
        stage="rules",
        message=f"judge could not finish checking this result ({type(exc).__name__}: {str(exc)[:200]}). "
        "The step is not accepted; report this to judge's maintainers.",
    )
    return _verdict(False, finding.reason, finding, (finding,), [])


def _workspace_facts(workspace: Workspace | WorkspaceFacts | None, step: Step,
                     result: ExecuteStepResult) -> WorkspaceFacts | Finding | None:
    """The workspace facts, gathered once before any rule runs; a workspace that cannot be read fails closed."""
    if workspace is None or isinstance(workspace, WorkspaceFacts):
        return workspace
    try:
        return gather_workspace(workspace, step, result)
    except InputError as exc:
        return Finding(
            rule="workspace_unreadable",
            message=f"judge could not read the workspace ({exc}). The step is not accepted until its evidence can be checked.",
        )


def _with_evidence(verdict: Verdict, ctx: RuleContext | None, records: tuple[ExecutionEvidence, ...] = ()) -> Verdict:
    """The verdict with how the step proved its work and the execution evidence it was judged with."""
    if ctx is None:
        return verdict.model_copy(update={"execution_evidence": records}) if records else verdict
    method = work_evidence_method(ctx)
    if method is None and not ctx.executions:
        return verdict
    return verdict.model_copy(update={"evidence_method": method, "execution_evidence": ctx.executions})


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
