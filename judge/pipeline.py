"""Runs the stages in order — contract, workspace facts, deterministic rules, semantic review — and builds the Verdict once."""

from __future__ import annotations

import time
from typing import Any, NamedTuple, Sequence

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.context import StepContext
from judge.contract.gates import COMMAND_GATE_TYPES
from judge.contract.models import ExecuteStepResult, ExecutionEvidence, Step
from judge.contract.schema import parse_execution_evidence, parse_result, parse_step
from judge.errors import ContractViolation, InputError
from judge.rules.registry import run_rules
from judge.runs.keys import configured_key
from judge.gates.spec import GateSpec, gate_spec
from judge.gates.templates import load_template
from judge.gates.policies import command_denial, contradiction, policy_warnings
from judge.verdict import Finding, GateResult, Outcome, SemanticReport, StageReport, Verdict
from judge.version import __version__
from judge.workspace.confine import is_inside
from judge.workspace.facts import Workspace

__all__ = ["NOT_VERIFIED", "avalidate", "run_sync", "validate"]

# The semantic stage's skip reason when no model is set: the rules passed, but nobody judged the implementation.
NOT_VERIFIED = "step implementation not verified: no model configured"
_PASSED = "passed every deterministic check (mode, outcome, patch structure, paths, declarations, scope, impact)"
_NOT_REACHED = StageReport(stage="semantic", status="skipped", detail="not reached: an earlier stage rejected")
# Rejections a new attempt by the executor cannot fix: the orchestrator, the environment or judge must act.
# (Findings judge makes with retryable=False say so themselves; these are the ones made before that flag existed.)
_DIAGNOSE = frozenset({ids.WORKSPACE_UNREADABLE, ids.JUDGE_ERROR, ids.LLM_UNAVAILABLE})
_DEFAULT_CONFIG = JudgeConfig()  # frozen, and built from defaults alone: one serves every call without a config


def validate(step: Any, result: Any, *, config: JudgeConfig | None = None, workspace: Workspace | None = None,
             evidence: Sequence[Any] = ()) -> Verdict:
    """Judge one executor ``result`` for one ``step`` (dicts or models). Never raises; fails closed.

    ``workspace`` adds the git, evidence-file and ledger checks (read once, before any rule);
    ``evidence`` attaches execution evidence records (ExecutionEvidence or their JSON dicts, as
    `judge run` writes them).
    """
    config = config or _DEFAULT_CONFIG
    try:
        judgement = _deterministic(step, result, config, workspace, evidence)
        if judgement.pending:
            judgement = run_sync(_semantic(judgement, config))
        return judgement.verdict()
    except Exception as exc:  # fail closed: a bug in judge must never read as "valid"
        return _judge_error(exc)


async def avalidate(step: Any, result: Any, *, config: JudgeConfig | None = None, workspace: Workspace | None = None,
                    evidence: Sequence[Any] = (), semantic_slots: Any = None) -> Verdict:
    """``validate`` for async callers: the CPU-bound checks run in a worker thread, the LLM calls on the loop.

    ``semantic_slots`` (an asyncio.Semaphore) bounds the semantic reviews of several calls at once without
    holding back their deterministic checks: a case the rules decide never waits for the model."""
    import asyncio
    import contextlib

    config = config or _DEFAULT_CONFIG
    try:
        judgement = await asyncio.to_thread(_deterministic, step, result, config, workspace, evidence)
        if judgement.pending:
            async with semantic_slots or contextlib.nullcontext():
                judgement = await _semantic(judgement, config)
        return judgement.verdict()
    except Exception as exc:
        return _judge_error(exc)


class _Judgement(NamedTuple):
    """What the stages decided so far; each stage returns a new one, and ``verdict()`` builds the Verdict.

    A tuple, so that a stage's copy with changes (``_replace``) costs little: a call makes a few.
    """

    stages: tuple[StageReport, ...] = ()
    findings: tuple[Finding, ...] = ()
    valid: bool = False
    reason: str = ""
    deciding: Finding | None = None
    ctx: StepContext | None = None
    records: tuple[ExecutionEvidence, ...] = ()  # the attached execution evidence, then the records gates made
    report: SemanticReport | None = None
    gates: tuple[GateResult, ...] = ()
    missing_fields: tuple[str, ...] = ()
    pending: bool = False  # the rules let it through and the semantic stage must run

    def rejected(self, deciding: Finding, stage: StageReport, *more: StageReport) -> "_Judgement":
        return self._replace(stages=self.stages + (stage, *more), valid=False, reason=deciding.reason,
                       deciding=deciding, pending=False)

    def verdict(self) -> Verdict:
        return Verdict(
            valid=self.valid,
            reason=self.reason,
            rule=self.deciding.rule if self.deciding else None,
            findings=self.findings,
            stages=self.stages,
            judge_version=__version__,
            semantic_review=self.report,
            evidence_method=self.ctx.evidence_method if self.ctx else None,
            execution_evidence=self.records,
            gates=self.gates,
            outcome=self.outcome(),
        )

    def outcome(self) -> Outcome:
        """Seed 004's outcome: accepted, what is missing, every rejection, and what the orchestrator does next."""
        reasons = tuple(f.reason for f in self.findings if f.severity == "reject")
        if self.valid and self.ctx is not None and not self.ctx.result.success:
            # a well-formed failure report: valid as a report, but the step was not done
            return Outcome(accepted=False, next_action="diagnose")
        if self.valid:
            action = "advance"
        elif self.deciding is not None and self.deciding.rule == ids.HUMAN_APPROVAL_PENDING:
            action = "pause_for_human"
        elif self.deciding is None or not self.deciding.retryable or self.deciding.rule in _DIAGNOSE:
            action = "diagnose"
        else:
            action = "retry"
        return Outcome(accepted=self.valid, missing_fields=self.missing_fields, next_action=action,
                       rejection_reasons=reasons or ((self.reason,) if not self.valid else ()))


def _deterministic(step: Any, result: Any, config: JudgeConfig, workspace: Workspace | None,
                   evidence: Sequence[Any]) -> _Judgement:
    started = time.perf_counter()
    try:
        step_model = step if isinstance(step, Step) else parse_step(step)
        result_model = result if isinstance(result, ExecuteStepResult) else parse_result(result)
        records = tuple(r if isinstance(r, ExecutionEvidence) else parse_execution_evidence(r) for r in evidence)
        judged = workspace.repo if workspace is not None else None
        template = load_template(step_model.template, config.templates_dir, judged) if step_model.template else None
        spec = gate_spec(step_model, result_model.evidence, template, (("judge.toml", config.policies),),
                         config.policy_overrides)
    except ContractViolation as violation:
        # the orchestrator's step is at fault: a new attempt by the executor cannot fix it
        finding = Finding(rule=ids.SCHEMA_INVALID, stage="contract", message=violation.message,
                          retryable=not violation.path.startswith("$.step"))
        stage = StageReport(stage="contract", status="rejected", detail=violation.message, duration_ms=_ms(started))
        return _Judgement(findings=(finding,)).rejected(finding, stage, _NOT_REACHED)
    runnable = _runnable_commands(spec) if workspace is not None and workspace.repo is not None else 0
    impossible = contradiction(spec.policies, len(records), runnable)
    if impossible:
        finding = Finding(rule=ids.POLICY_CONTRADICTION, stage="contract", message=impossible, retryable=False)
        stage = StageReport(stage="contract", status="rejected", detail=finding.rule, duration_ms=_ms(started))
        return _Judgement(findings=(finding,), records=records).rejected(finding, stage, _NOT_REACHED)
    warnings = tuple(Finding(rule=ids.POLICY_WARNING, stage="contract", severity="signal", message=warning)
                     for warning in policy_warnings(spec.policies, (s.gate for s in spec.gates)))
    judgement = _Judgement(stages=(StageReport(stage="contract", status="passed", duration_ms=_ms(started)),),
                           records=records, findings=warnings)

    started = time.perf_counter()
    try:
        key = configured_key(config.evidence_key, config.artifacts_root)
    except InputError as exc:
        # the orchestrator's configuration is at fault, and no record can be trusted until it is fixed
        finding = Finding(rule=ids.EXECUTION_EVIDENCE_INVALID, retryable=False,
                          message=f"judge could not read its evidence key ({exc}), so no execution record can be "
                                  "verified. Fix the key file or the evidence_key setting and validate again.")
        stage = StageReport(stage="rules", status="rejected", detail=finding.rule, duration_ms=_ms(started))
        return judgement._replace(findings=judgement.findings + (finding,)).rejected(finding, stage, _NOT_REACHED)
    try:
        facts = workspace.read(step_model.id, result_model.patch) if workspace is not None else None
    except InputError as exc:
        finding = Finding(
            rule=ids.WORKSPACE_UNREADABLE,
            message=f"judge could not read the workspace ({exc}). The step is not accepted until its evidence can be checked.",
        )
        stage = StageReport(stage="rules", status="rejected", detail=finding.rule, duration_ms=_ms(started))
        return judgement._replace(findings=(finding,)).rejected(finding, stage, _NOT_REACHED)
    if key is not None and facts is not None and facts.git is not None and is_inside(key.path, facts.git.root):
        finding = Finding(rule=ids.EXECUTION_EVIDENCE_INVALID, retryable=False,
                          message=f"the evidence key {key.path} is inside the judged repository {facts.git.root}, "
                                  "where the executor can read it and sign a forged record. Keep the key (and the "
                                  "artifacts root) outside the repository.")
        stage = StageReport(stage="rules", status="rejected", detail=finding.rule, duration_ms=_ms(started))
        return judgement._replace(findings=judgement.findings + (finding,)).rejected(finding, stage, _NOT_REACHED)
    ctx = StepContext(step_model, result_model, facts, records, key)
    judgement = judgement._replace(ctx=ctx, findings=judgement.findings + run_rules(ctx))
    deciding = next((f for f in judgement.findings if f.severity == "reject"), None)
    if deciding is not None:
        stage = StageReport(stage="rules", status="rejected", detail=deciding.rule, duration_ms=_ms(started))
        return judgement.rejected(deciding, stage, _NOT_REACHED)
    judgement = judgement._replace(stages=judgement.stages + (
        StageReport(stage="rules", status="passed", detail=_PASSED, duration_ms=_ms(started)),))
    judgement = _gates(judgement, spec, result_model, config)
    if judgement.deciding is not None:
        return judgement
    return _without_semantic(judgement, config)


def _gates(judgement: _Judgement, spec: GateSpec, result: ExecuteStepResult, config: JudgeConfig) -> _Judgement:
    """The gates stage, when the step has gates or evidence requirements or the result carries evidence."""
    if not (spec.gates or spec.needs_evidence or result.evidence is not None):
        return judgement
    if not result.success:  # a well-formed failure report claims no work: there is nothing for a gate to check
        return judgement._replace(stages=judgement.stages + (
            StageReport(stage="gates", status="skipped", detail="the step reports failure: no work to check"),))
    from judge.gates.prepare import GateIO
    from judge.gates.stage import run_gates

    started = time.perf_counter()
    io = GateIO(config.artifacts_root, config.approvals, config.gate_timeout, config.gate_max_output)
    try:
        outcome = run_gates(judgement.ctx, spec, result.evidence, io)  # type: ignore[arg-type]
    except InputError as exc:
        finding = Finding(rule=ids.GATE_FAILED, stage="gates", retryable=False,
                          message=f"judge could not prepare the gates ({exc}). Fix the configuration and validate again.")
        stage = StageReport(stage="gates", status="error", detail=str(exc)[:200], duration_ms=_ms(started))
        return judgement._replace(findings=judgement.findings + (finding,)).rejected(finding, stage, _NOT_REACHED)
    judgement = judgement._replace(findings=judgement.findings + outcome.findings, gates=outcome.results,
                        missing_fields=outcome.missing_fields, records=judgement.records + outcome.made)
    passed = sum(result.status == "passed" for result in outcome.results)
    detail = f"{passed} of {len(outcome.results)} gate(s) passed"
    deciding = outcome.deciding
    if deciding is not None:
        status = "rejected"
        stage = StageReport(stage="gates", status=status, detail=f"{deciding.rule}; {detail}", duration_ms=_ms(started))
        return judgement.rejected(deciding, stage, _NOT_REACHED)
    return judgement._replace(stages=judgement.stages + (
        StageReport(stage="gates", status="passed", detail=detail, duration_ms=_ms(started)),))


def _passed(judgement: _Judgement) -> str:
    """What a valid verdict passed: the deterministic checks, and the gates when the step had any."""
    if not judgement.gates:
        return _PASSED
    return f"{_PASSED} and all {len(judgement.gates)} gate(s) ({', '.join(g.type for g in judgement.gates)})"


def _runnable_commands(spec: GateSpec) -> int:
    """How many command gates the policies let judge run."""
    return sum(1 for s in spec.gates if s.gate.type in COMMAND_GATE_TYPES
               and command_denial(s.gate.param("command"), spec.policies) is None)


def _without_semantic(judgement: _Judgement, config: JudgeConfig) -> _Judgement:
    """The verdict when the semantic stage does not run, or the judgement marked pending when it must."""
    skipped = _skip_reason(judgement.ctx, config)  # type: ignore[arg-type]
    if skipped is None:
        return judgement._replace(pending=True)
    if config.semantic == "required" and not config.model:
        finding = Finding(
            rule=ids.LLM_UNAVAILABLE,
            stage="semantic",
            message="the semantic review is required but no model is configured. "
            "Set --model or JUDGE_MODEL (any litellm model string), or run with semantic auto.",
        )
        stage = StageReport(stage="semantic", status="error", detail="no model configured")
        return judgement._replace(findings=judgement.findings + (finding,)).rejected(finding, stage)
    stage = StageReport(stage="semantic", status="skipped", detail=skipped)
    if not judgement.ctx.result.success:  # type: ignore[union-attr]
        return judgement._replace(stages=judgement.stages + (stage,), valid=True, reason=_failure_report(judgement))
    return judgement._replace(stages=judgement.stages + (stage,), valid=True, reason=f"valid: {_passed(judgement)}; {skipped}.")


def _failure_report(judgement: _Judgement) -> str:
    """A valid failure report's reason: valid as a report, and plain that the step was not done."""
    summary = " ".join((judgement.ctx.result.summary or "").split())  # type: ignore[union-attr]
    shown = summary if len(summary) <= 200 else summary[:200] + "…"
    return (f"valid: a well-formed failure report: the executor says it could not do the step, so the step was not "
            f"done (its summary: {shown!r}); it {_passed(judgement)}.")


def _skip_reason(ctx: StepContext, config: JudgeConfig) -> str | None:
    """Why the semantic stage does not run, or None when it must."""
    if config.semantic == "off":
        return "semantic review off"
    if not config.model:
        return NOT_VERIFIED
    if not ctx.result.success:
        return "semantic review skipped: the step reports failure, there is no change to judge"
    if not ctx.work and config.semantic != "required" and ctx.evidence_method != "evidence_file":
        return f"semantic review skipped: there is no {'change' if ctx.git else 'patch'} to judge"
    # With nothing for the rules to reject (an evidence file, or no change at all under `required`), only the
    # model can say whether the step was done: it reviews the step against what the executor offers instead.
    return None


async def _semantic(judgement: _Judgement, config: JudgeConfig) -> _Judgement:
    from judge.llm.stage import review  # here, not at the top: litellm is only for runs that get this far

    started = time.perf_counter()
    signals = tuple(f for f in judgement.findings if f.severity == "signal")
    outcome = await review(judgement.ctx, signals, config)  # type: ignore[arg-type]
    report = outcome.report
    failed = outcome.finding is not None and outcome.finding.rule == ids.LLM_UNAVAILABLE
    status = "passed" if outcome.valid else ("error" if failed else "rejected")
    detail = f"{report.model}: {len(report.samples)} sample(s), agreement {report.agreement:.0%}, {len(report.calls)} call(s)"
    stage = StageReport(stage="semantic", status=status, detail=detail, duration_ms=_ms(started))
    judgement = judgement._replace(report=report, pending=False,
                        findings=judgement.findings + ((outcome.finding,) if outcome.finding else ()))
    if outcome.valid:
        reason = f"valid: {_passed(judgement)}; semantic review by {report.model}: {outcome.reason[:500]}"
        return judgement._replace(stages=judgement.stages + (stage,), valid=True, reason=reason)
    return judgement.rejected(outcome.finding, stage)._replace(reason=outcome.reason)  # type: ignore[arg-type]


def run_sync(coroutine: Any) -> Any:
    """Run ``coroutine`` (the semantic stage, a drive) from sync code, also when the caller already has an event loop."""
    import asyncio  # here: a verdict the rules decide never needs an event loop
    from concurrent.futures import ThreadPoolExecutor

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _judge_error(exc: Exception) -> Verdict:
    finding = Finding(
        rule=ids.JUDGE_ERROR,
        stage="rules",
        message=f"judge could not finish checking this result ({type(exc).__name__}: {str(exc)[:200]}). "
        "The step is not accepted; report this to judge's maintainers.",
    )
    return _Judgement(findings=(finding,), reason=finding.reason, deciding=finding).verdict()


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
