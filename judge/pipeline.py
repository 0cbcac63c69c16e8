"""A tuple of stages — contract, rules, gates, semantic — run over one Request; the Verdict is built once."""

from __future__ import annotations

import time
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

from judge import rule_ids as ids
from judge.context import StepContext
from judge.contract.gate_types import COMMAND_GATE_TYPES
from judge.errors import CheckFailed
from judge.findings import Finding, Outcome, StageName, StageReport
from judge.gates.policies import command_denial, contradiction, policy_warnings
from judge.intake import Request, take
from judge.rules.registry import run_rules
from judge.text_cache import forget
from judge.version import __version__

if TYPE_CHECKING:  # pydantic's models: built only for a full verdict, a gate or a semantic review
    from judge.config import JudgeConfig
    from judge.contract.models import ExecutionEvidence
    from judge.gates.spec import GateSpec
    from judge.verdict import GateResult, SemanticReport, Verdict
    from judge.workspace.facts import Workspace

__all__ = ["STAGES", "Judgement", "ajudge", "avalidate", "decide", "judge", "run_sync", "unverified", "validate"]

_NOT_VERIFIED = "step implementation not verified: no model configured"
_PASSED = "passed every deterministic check (mode, outcome, patch structure, paths, declarations, scope, impact)"
_NOT_REACHED = StageReport(stage="semantic", status="skipped", detail="not reached: an earlier stage rejected")
# Rejections a new attempt by the executor cannot fix: the orchestrator, the environment or judge must act.
# (Findings judge makes with retryable=False say so themselves; these are the ones made before that flag existed.)
_DIAGNOSE = frozenset({ids.WORKSPACE_UNREADABLE, ids.JUDGE_ERROR, ids.LLM_UNAVAILABLE})


@cache
def _default_config() -> JudgeConfig:
    """The config of a call without one: frozen, and built from defaults alone, so one serves every call."""
    from judge.config import JudgeConfig

    return JudgeConfig()


def validate(step: Any, result: Any, *, config: JudgeConfig | None = None, workspace: Workspace | None = None,
             records: Sequence[Any] = (), evidence: Sequence[Any] = ()) -> Verdict:
    """Judge one executor ``result`` for one ``step`` (dicts or models). Never raises; fails closed.

    ``workspace`` adds the git, evidence-file and ledger checks (read once, before any rule); ``records`` attaches
    execution records (ExecutionEvidence or their JSON, as `judge run` writes them; ``evidence`` is their older
    name). Input an interface would refuse (a workspace or evidence key that cannot be opened) is a verdict here.
    """
    config = config or _default_config()
    try:
        request = _two_names(records, evidence) or take(step, result, records=records or evidence,
                                                        workspace=workspace, config=config)
    except Exception as exc:  # fail closed: a bug in judge must never read as "valid"
        return _crashed(Judgement(), "contract", exc).verdict()
    return judge(request, config)


async def avalidate(step: Any, result: Any, *, config: JudgeConfig | None = None, workspace: Workspace | None = None,
                    records: Sequence[Any] = (), evidence: Sequence[Any] = (), semantic_slots: Any = None) -> Verdict:
    """``validate`` for async callers: reading and the deterministic stages run in a worker thread, the LLM calls
    on the loop. ``semantic_slots`` (an asyncio.Semaphore) bounds the semantic reviews of several calls at once
    without holding back their deterministic checks: a case the rules decide never waits for the model."""
    import asyncio

    config = config or _default_config()
    try:
        request = _two_names(records, evidence) or await asyncio.to_thread(
            take, step, result, records=records or evidence, workspace=workspace, config=config)
    except Exception as exc:
        return _crashed(Judgement(), "contract", exc).verdict()
    return await ajudge(request, config, semantic_slots=semantic_slots)


def _two_names(records: Sequence[Any], evidence: Sequence[Any]) -> Request | None:
    """A Request whose contract is broken when records come under both their names; None otherwise."""
    if not (records and evidence):
        return None
    from judge.errors import ContractViolation

    return Request(violation=ContractViolation("request", "validate-request.schema.json", "$.evidence",
                                               "records and evidence are one thing under two names; give only "
                                               "records"))


def judge(request: Request, config: JudgeConfig) -> Verdict:
    """The verdict on a Request an interface read with judge.intake.take. Never raises; fails closed."""
    return _verdict_of(decide(request, config))


def decide(request: Request, config: JudgeConfig) -> Judgement:
    """What ``judge`` decides, before its Verdict is built: for a caller that needs only the decision (`judge
    validate` prints ``contract()``), so that no pydantic model is built. Never raises; fails closed."""
    try:
        judgement = _deterministic(request, config)
        if judgement.pending:
            judgement = run_sync(_semantic(judgement, config))
        return judgement
    except Exception as exc:
        return _crashed(Judgement(), "rules", exc)


async def ajudge(request: Request, config: JudgeConfig, *, semantic_slots: Any = None) -> Verdict:
    """``judge`` for async callers (see ``avalidate``)."""
    import asyncio
    import contextlib

    try:
        judgement = await asyncio.to_thread(_deterministic, request, config)
        if judgement.pending:
            async with semantic_slots or contextlib.nullcontext():
                judgement = await _semantic(judgement, config)
    except Exception as exc:
        judgement = _crashed(Judgement(), "rules", exc)
    return _verdict_of(judgement)


def _verdict_of(judgement: Judgement) -> Verdict:
    try:
        return judgement.verdict()
    except Exception as exc:
        return _crashed(Judgement(), "rules", exc).verdict()


def unverified(verdict: Verdict | Judgement, config: JudgeConfig) -> bool:
    """True when a valid verdict was given with no semantic review because no model is configured (not because
    the review is off): nobody judged whether the step was implemented."""
    return verdict.valid and config.semantic != "off" and not config.model


class Judgement(NamedTuple):
    """What the stages decided so far; each stage returns a new one, and ``verdict()`` builds the Verdict.

    A tuple, so that a stage's copy with changes (``_replace``) costs little: a call makes a few. Its findings and
    stage reports are judge.findings' plain records; ``verdict()`` builds their pydantic models.
    """

    stages: tuple[StageReport, ...] = ()
    findings: tuple[Finding, ...] = ()
    valid: bool = False
    reason: str = ""
    deciding: Finding | None = None
    ctx: StepContext | None = None
    records: tuple[ExecutionEvidence, ...] = ()  # the attached execution records, then the records gates made
    report: SemanticReport | None = None
    gates: tuple[GateResult, ...] = ()
    missing_fields: tuple[str, ...] = ()
    pending: bool = False  # the rules let it through and the semantic stage must run

    @property
    def decided(self) -> bool:
        return self.deciding is not None or self.valid or self.pending

    def rejected(self, deciding: Finding, stage: StageReport, *more: StageReport) -> "Judgement":
        return self._replace(stages=self.stages + (stage, *more), valid=False, reason=deciding.reason,
                             deciding=deciding, pending=False)

    def passed(self, stage: StageReport) -> "Judgement":
        return self._replace(stages=self.stages + (stage,))

    def contract(self) -> dict:
        """The strict output, exactly ``{"valid": bool, "reason": str}``: the Verdict's ``contract()``."""
        return {"valid": self.valid, "reason": self.reason}

    def verdict(self) -> Verdict:
        from judge import verdict as full

        # One validation of the whole verdict, its findings, stage reports and outcome given as their fields: pydantic
        # builds the nested models in the same call, where a model built apiece costs a call of its own.
        return full.Verdict.model_validate({
            "valid": self.valid,
            "reason": self.reason,
            "rule": self.deciding.rule if self.deciding else None,
            "findings": tuple(finding.fields() for finding in self.findings),
            "stages": tuple(stage.fields() for stage in self.stages),
            "judge_version": __version__,
            "semantic_review": self.report,
            "evidence_method": self.ctx.evidence_method if self.ctx else None,
            "execution_evidence": self.records,
            "gates": self.gates,
            "outcome": self.outcome().fields(),
        })

    def outcome(self) -> Outcome:
        """What the orchestrator does next: accepted, what is missing, every rejection, the next action."""
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


class Stage(NamedTuple):
    """One stage: its name (as the verdict's stage reports say it) and what it does to the judgement so far."""

    name: StageName
    run: Callable[[Judgement, Request, JudgeConfig, float], Judgement]


def _deterministic(request: Request, config: JudgeConfig) -> Judgement:
    """Every stage in order until one decides; a stage that fails names itself (and its rule) in a judge_error."""
    judgement = Judgement(records=request.records)
    for stage in STAGES:
        started = time.perf_counter()
        try:
            judgement = stage.run(judgement, request, config, started)
        except Exception as exc:  # fail closed, keeping the stages already run
            return _crashed(judgement, stage.name, exc, started)
        if judgement.decided:
            break
    return judgement


def _contract(judgement: Judgement, request: Request, config: JudgeConfig, started: float) -> Judgement:
    # what every interface refuses comes first here too (the API never refuses: it rejects)
    refused = request.refusal()
    if refused is not None:
        finding = _key_unreadable(refused) if refused is request.key_problem else _workspace_unreadable(refused)
        stage = StageReport(stage="contract", status="rejected", detail=finding.rule, duration_ms=_ms(started))
        return judgement._replace(findings=(finding,)).rejected(finding, stage, _NOT_REACHED)
    violation = request.violation
    if violation is not None:
        # only the executor's own result is its to fix; a step, template or record at fault is the orchestrator's
        finding = Finding(rule=ids.SCHEMA_INVALID, stage="contract", message=violation.message,
                          retryable=violation.path.startswith("$.result"))
        stage = StageReport(stage="contract", status="rejected", detail=violation.message, duration_ms=_ms(started))
        return judgement._replace(findings=(finding,)).rejected(finding, stage, _NOT_REACHED)
    spec: GateSpec = request.spec  # type: ignore[assignment]
    runnable = _runnable_commands(spec) if request.has_repository else 0
    impossible = contradiction(spec.policies, len(request.records), runnable)
    if impossible:
        finding = Finding(rule=ids.POLICY_CONTRADICTION, stage="contract", message=impossible, retryable=False)
        stage = StageReport(stage="contract", status="rejected", detail=finding.rule, duration_ms=_ms(started))
        return judgement._replace(findings=(finding,)).rejected(finding, stage, _NOT_REACHED)
    warnings = tuple(Finding(rule=ids.POLICY_WARNING, stage="contract", severity="signal", message=warning)
                     for warning in policy_warnings(spec.policies, (s.gate for s in spec.gates)))
    return judgement._replace(findings=warnings).passed(
        StageReport(stage="contract", status="passed", duration_ms=_ms(started)))


def _rules(judgement: Judgement, request: Request, config: JudgeConfig, started: float) -> Judgement:
    problem = _unusable(request)
    if problem is not None:
        stage = StageReport(stage="rules", status="rejected", detail=problem.rule, duration_ms=_ms(started))
        return judgement._replace(findings=judgement.findings + (problem,)).rejected(problem, stage, _NOT_REACHED)
    forget()  # nothing read from the text of an earlier change is kept for this one
    ctx = StepContext(request.step, request.result, request.workspace, request.records,  # type: ignore[arg-type]
                      request.key)
    judgement = judgement._replace(ctx=ctx, findings=judgement.findings + run_rules(ctx))
    deciding = next((f for f in judgement.findings if f.severity == "reject"), None)
    if deciding is not None:
        stage = StageReport(stage="rules", status="rejected", detail=deciding.rule, duration_ms=_ms(started))
        return judgement.rejected(deciding, stage, _NOT_REACHED)
    return judgement.passed(StageReport(stage="rules", status="passed", detail=_PASSED, duration_ms=_ms(started)))


def _unusable(request: Request) -> Finding | None:
    """The finding when the workspace could not be read through, or the key lies where the executor can read it;
    None when the rules can run. (An unreadable key or refused workspace arguments stopped the contract stage.)
    Raises judge's own failure met while reading the workspace."""
    if request.failure is not None:
        raise request.failure
    if request.workspace_problem is not None:
        return _workspace_unreadable(request.workspace_problem)
    if request.key_in_repository is not None and request.key is not None:
        return Finding(rule=ids.EXECUTION_EVIDENCE_INVALID, retryable=False,
                       message=f"the evidence key {request.key.path} is inside the judged repository "
                               f"{request.key_in_repository}, where the executor can read it and sign a forged "
                               "record. Keep the key (and the artifacts root) outside the repository.")
    return None


def _key_unreadable(problem: Exception) -> Finding:
    # the orchestrator's configuration is at fault, and no record can be trusted until it is fixed
    return Finding(rule=ids.EXECUTION_EVIDENCE_INVALID, retryable=False,
                   message=f"judge could not read its evidence key ({problem}), so no execution record can be "
                           "verified. Fix the key file or the evidence_key setting and validate again.")


def _workspace_unreadable(problem: Exception) -> Finding:
    return Finding(rule=ids.WORKSPACE_UNREADABLE,
                   message=f"judge could not read the workspace ({problem}). The step is not accepted until its "
                           "evidence can be checked.")


def _gates(judgement: Judgement, request: Request, config: JudgeConfig, started: float) -> Judgement:
    """The gates stage, when the step has gates or evidence requirements or the result carries evidence."""
    spec: GateSpec = request.spec  # type: ignore[assignment]
    result = request.result
    if not (spec.gates or spec.needs_evidence or result.evidence is not None):  # type: ignore[union-attr]
        return judgement
    if not result.success:  # type: ignore[union-attr]  # a failure report claims no work: no gate has one to check
        return judgement.passed(StageReport(stage="gates", status="skipped",
                                            detail="the step reports failure: no work to check"))
    from judge.errors import InputError
    from judge.gates.prepare import GateIO
    from judge.gates.stage import run_gates

    io = GateIO(config.artifacts_root, config.approvals, config.gate_timeout, config.gate_max_output)
    try:
        decision = run_gates(judgement.ctx, spec, result.evidence, io)  # type: ignore[arg-type,union-attr]
    except InputError as exc:
        finding = Finding(rule=ids.GATE_FAILED, stage="gates", retryable=False,
                          message=f"judge could not prepare the gates ({exc}). Fix the configuration and validate again.")
        stage = StageReport(stage="gates", status="error", detail=str(exc)[:200], duration_ms=_ms(started))
        return judgement._replace(findings=judgement.findings + (finding,)).rejected(finding, stage, _NOT_REACHED)
    judgement = judgement._replace(findings=judgement.findings + decision.findings, gates=decision.results,
                                   missing_fields=decision.missing_fields, records=judgement.records + decision.made)
    passed = sum(gate.status == "passed" for gate in decision.results)
    detail = f"{passed} of {len(decision.results)} gate(s) passed"
    deciding = decision.deciding
    if deciding is not None:
        stage = StageReport(stage="gates", status="rejected", detail=f"{deciding.rule}; {detail}",
                            duration_ms=_ms(started))
        return judgement.rejected(deciding, stage, _NOT_REACHED)
    return judgement.passed(StageReport(stage="gates", status="passed", detail=detail, duration_ms=_ms(started)))


def _semantic_or_skip(judgement: Judgement, request: Request, config: JudgeConfig, started: float) -> Judgement:
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
    return judgement._replace(stages=judgement.stages + (stage,), valid=True,
                              reason=f"valid: {_passed(judgement)}; {skipped}.")


STAGES: tuple[Stage, ...] = (
    Stage("contract", _contract),
    Stage("rules", _rules),
    Stage("gates", _gates),
    Stage("semantic", _semantic_or_skip),  # decides a skip here; a review the model must give runs after, async
)


def _passed(judgement: Judgement) -> str:
    """What a valid verdict passed: the deterministic checks, and the gates when the step had any."""
    if not judgement.gates:
        return _PASSED
    return f"{_PASSED} and all {len(judgement.gates)} gate(s) ({', '.join(g.type for g in judgement.gates)})"


def _runnable_commands(spec: GateSpec) -> int:
    """How many command gates the policies let judge run."""
    return sum(1 for s in spec.gates if s.gate.type in COMMAND_GATE_TYPES
               and command_denial(s.gate.param("command"), spec.policies) is None)


def _failure_report(judgement: Judgement) -> str:
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
        return _NOT_VERIFIED
    if not ctx.result.success:
        return "semantic review skipped: the step reports failure, there is no change to judge"
    if not ctx.work and config.semantic != "required" and ctx.evidence_method != "evidence_file":
        return f"semantic review skipped: there is no {'change' if ctx.git else 'patch'} to judge"
    # With nothing for the rules to reject (an evidence file, or no change at all under `required`), only the
    # model can say whether the step was done: it reviews the step against what the executor offers instead.
    return None


async def _semantic(judgement: Judgement, config: JudgeConfig) -> Judgement:
    from judge.llm.stage import review  # here, not at the top: litellm is only for runs that get this far

    started = time.perf_counter()
    try:
        signals = tuple(f for f in judgement.findings if f.severity == "signal")
        outcome = await review(judgement.ctx, signals, config)  # type: ignore[arg-type]
    except Exception as exc:
        return _crashed(judgement, "semantic", exc, started)
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


def _crashed(judgement: Judgement, stage: StageName, exc: Exception, started: float | None = None) -> Judgement:
    """judge_error: judge itself failed in ``stage`` (and in the rule or gate it names). The stages already run stay
    in the verdict; the step is not accepted."""
    rule = f", {exc.kind} {exc.name}" if isinstance(exc, CheckFailed) else ""
    cause = exc.__cause__ if isinstance(exc, CheckFailed) and exc.__cause__ is not None else exc
    what = f"{type(cause).__name__}: {str(cause)[:200]}"
    finding = Finding(
        rule=ids.JUDGE_ERROR,
        stage=stage,
        message=f"judge could not finish checking this result (the {stage} stage{rule} failed: {what}). "
        "The step is not accepted; report this to judge's maintainers.",
    )
    report = StageReport(stage=stage, status="error", detail=f"{rule[2:] + ': ' if rule else ''}{what}"[:300],
                         duration_ms=_ms(started) if started is not None else 0.0)
    later = (_NOT_REACHED,) if stage != "semantic" else ()
    return judgement._replace(findings=judgement.findings + (finding,), report=judgement.report).rejected(
        finding, report, *later)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
