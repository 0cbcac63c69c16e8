"""The retry loop: ask the executor, judge its result, feed a rejection's reason back as a fix_regression, until
the step is accepted, a rejection cannot be fixed by retrying, or the attempts, time or tokens run out."""

from __future__ import annotations

import asyncio
import copy
import inspect
import os
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Literal, Sequence, Union

from judge.config import JudgeConfig
from judge.contract.models import Step
from judge.contract.schema import parse_step
from judge.driver.executor import CommandExecutor, Reply, reply_of_call
from judge.driver.reach import check_out_of_reach
from judge.driver.request import ApplyWork, apply_work, given_apply, judged_step, request_for
from judge.driver.transcript import Attempt, Stop, Transcript, step_sha256
from judge.errors import ContractViolation, InputError, field_ref
from judge.pipeline import avalidate, run_sync
from judge.runs.keys import KEY_FILE
from judge.verdict import Outcome, StageReport, Verdict
from judge.version import __version__
from judge.workspace.facts import Workspace

__all__ = ["DriveOutcome", "Executor", "adrive", "drive"]

# What a fix's scope check leaves to the judgement of the whole work: the step's gates and evidence requirements,
# the policies, and the semantic review (whose fix_regression questions are about a fix's diff, not the whole work)
_STEP_REQUIREMENTS = ("gates", "evidenceSchema", "policies", "template")
_RULES_ONLY = {"semantic": "off", "policies": None, "policy_overrides": None}

Executor = Union[CommandExecutor, Callable[[dict], Any], Callable[[dict], Awaitable[Any]]]


@dataclass(frozen=True)
class DriveOutcome:
    """How a drive ended: ``accepted`` when an attempt's verdict was valid and the step done; every attempt made.

    ``rejudged``: on resume of a drive its transcript says was accepted, the verdict on the work judged again;
    ``stopped`` is then "not_confirmed" when that verdict does not accept it."""

    accepted: bool
    stopped: Union[Stop, Literal["not_confirmed"]]
    attempts: tuple[Attempt, ...]
    rejudged: Verdict | None = None

    @property
    def verdict(self) -> Verdict:
        """The verdict the outcome rests on: the work judged again on resume, else the last attempt's."""
        return self.rejudged if self.rejudged is not None else self.attempts[-1].verdict


def drive(step: Any, executor: Executor, *, max_attempts: int = 3, config: JudgeConfig | None = None,
          workspace: Workspace | None = None, evidence: Sequence[Any] = (), time_budget: float | None = None,
          token_budget: int | None = None, transcript: str | None = None, resume: bool = False,
          on_attempt: Callable[[Attempt], None] | None = None) -> DriveOutcome:
    """Run ``executor`` on ``step`` until judge accepts its result (see adrive); for sync callers."""
    coroutine = adrive(step, executor, max_attempts=max_attempts, config=config, workspace=workspace,
                       evidence=evidence, time_budget=time_budget, token_budget=token_budget, transcript=transcript,
                       resume=resume, on_attempt=on_attempt)
    return run_sync(coroutine)


async def adrive(step: Any, executor: Executor, *, max_attempts: int = 3, config: JudgeConfig | None = None,
                 workspace: Workspace | None = None, evidence: Sequence[Any] = (), time_budget: float | None = None,
                 token_budget: int | None = None, transcript: str | None = None, resume: bool = False,
                 on_attempt: Callable[[Attempt], None] | None = None) -> DriveOutcome:
    """Attempt 1 asks ``executor`` to apply ``step``; each rejected attempt is followed by a fix_regression request
    carrying the verdict's reason, until a verdict accepts the step, one says a retry cannot help (next_action
    diagnose or pause_for_human), or ``max_attempts``, ``time_budget`` (seconds) or ``token_budget`` is reached.

    ``executor``: a CommandExecutor, or a callable (sync or async) taking the request dict and returning the
    result dict. ``transcript``: a JSONL file written as the drive goes; with ``resume``, a drive of this step
    continues after the attempts it holds (without, a transcript that holds any is refused: nothing is
    overwritten or mixed; ``time_budget`` counts this call's time, the token budget every attempt's).
    ``on_attempt`` is called after each attempt is judged and written. A transcript is never trusted: on resume,
    an acceptance it holds is confirmed by judging the work again (with the workspace and evidence given now).
    InputError for a bad step, bad limits, an unusable transcript, or judge's state (transcript, evidence key,
    approvals) where a command executor could rewrite it; an executor that crashes, hangs or returns garbage is a
    rejected attempt, never an exception.
    """
    step_data = _checked_step(step)
    if max_attempts < 1:
        raise InputError(f"{max_attempts} is below 1", field="max_attempts")
    for name, budget in (("time_budget", time_budget), ("token_budget", token_budget)):
        if budget is not None and not budget > 0:
            raise InputError(f"{budget} is not above 0", field=name)
    if workspace is not None:
        workspace.check()
    if isinstance(executor, CommandExecutor):
        executor = executor.checked()  # a program that cannot run is bad input, not max_attempts failed attempts
    _check_state_out_of_reach(transcript, config, workspace, executor)
    sha = step_sha256(step_data)
    log = Transcript(transcript) if transcript is not None else None
    attempts, stop = log.read(sha) if log is not None else ([], None)
    if attempts and not resume:
        raise InputError(f"{transcript} already holds {len(attempts)} attempt(s) of this step: add "
                         f"{field_ref('resume')} to continue that drive, or give a new transcript file", field="transcript")
    if attempts and stop is None:  # resumed with a lower limit than the drive had: it is already spent
        stop = _stop(attempts, max_attempts, 0.0, time_budget, token_budget)
    if stop == "accepted":
        return await _confirmed(step_data, attempts, config, workspace, evidence)
    if stop is not None:
        return DriveOutcome(False, stop, tuple(attempts))
    if log is not None:
        log.check_writable()  # not after the executor has done attempt 1's work
    apply = given_apply(step_data) or _last_apply_work(attempts)
    started = time.monotonic()
    while True:
        previous = attempts[-1].verdict if attempts else None
        request = request_for(step_data, len(attempts) + 1, previous.reason if previous else None, apply)
        attempt = await _attempt(request, executor, config, workspace, evidence)
        attempts.append(attempt)
        if apply is None and request["mode"] == "apply":
            apply = apply_work(attempt.result, attempt.verdict)
        stop = _stop(attempts, max_attempts, time.monotonic() - started, time_budget, token_budget)
        if log is not None:
            log.append(attempt, sha, stop)
        if on_attempt is not None:  # after the transcript: a callback that raises loses no attempt
            on_attempt(attempt)
        if stop is not None:
            return DriveOutcome(stop == "accepted", stop, tuple(attempts))


async def _confirmed(step: dict, attempts: list[Attempt], config: JudgeConfig | None, workspace: Workspace | None,
                     evidence: Sequence[Any]) -> DriveOutcome:
    """A resumed drive whose transcript says it was accepted: the last attempt's result judged again, as the step's
    whole work, against the workspace as it is now. The transcript is a file the executor may have reached: its
    verdicts are history, never proof."""
    request = request_for(step, len(attempts), None, given_apply(step))
    result = attempts[-1].result
    claim = {**result, "mode": request["mode"]} if isinstance(result, dict) else result
    verdict = await avalidate(judged_step(request), claim, config=config, workspace=workspace, records=evidence)
    accepted = verdict.valid and verdict.outcome is not None and verdict.outcome.accepted
    return DriveOutcome(accepted, "accepted" if accepted else "not_confirmed", tuple(attempts), rejudged=verdict)


def _check_state_out_of_reach(transcript: str | None, config: JudgeConfig | None, workspace: Workspace | None,
                              executor: Executor) -> None:
    """InputError when judge's state is where a command executor could rewrite it (see judge.driver.reach)."""
    config = config or JudgeConfig()
    key = config.evidence_key or os.path.join(config.artifacts_root, KEY_FILE)
    state = {"transcript": transcript, "evidence_key": key,
             "approvals": config.approvals, "artifacts_root": config.artifacts_root,
             "templates_dir": config.templates_dir,
             "ledger": os.fspath(workspace.ledger) if workspace and workspace.ledger else None}
    places = [("the drive's workspace", os.fspath(workspace.repo) if workspace and workspace.repo else None)]
    if isinstance(executor, CommandExecutor):
        places.append(("the executor's working directory", executor.cwd or os.getcwd()))
        if executor.sandbox is not None:
            places += [("a path the sandbox shows the executor", p) for p in executor.sandbox.mounted()]
    check_out_of_reach(state, places)


def _checked_step(step: Any) -> dict:
    """The step as a JSON dict, checked against its contract; a broken step is bad input, not an attempt."""
    data = step.model_dump(mode="json", by_alias=True, exclude_none=True) if isinstance(step, Step) else step
    try:
        parse_step(data)
    except ContractViolation as violation:
        raise InputError(f"breaks its contract: {violation.message}; fix the step", field="step") from None
    return data


def _last_apply_work(attempts: list[Attempt]) -> ApplyWork | None:
    """On resume: the apply work the last fix_regression repaired, or the last apply attempt's."""
    for attempt in reversed(attempts):
        request = attempt.request
        if request["mode"] == "fix_regression":
            return ApplyWork(tuple(request["applyFiles"] or ()), request["applyPatch"])
        work = apply_work(attempt.result, attempt.verdict)
        if work is not None:
            return work
    return None


async def _attempt(request: dict, executor: Executor, config: JudgeConfig | None, workspace: Workspace | None,
                   evidence: Sequence[Any]) -> Attempt:
    started_at = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    reply = await _ask(executor, request)
    began = time.monotonic()
    if reply.failure is not None:
        verdict = _failed_attempt(reply)
    elif request["mode"] == "fix_regression" and request["step"].get("mode") != "fix_regression":
        verdict = await _judged_fix(request, reply.result, config or JudgeConfig(), workspace, evidence)
    else:
        verdict = await avalidate(judged_step(request), reply.result, config=config, workspace=workspace,
                                  records=evidence)
    return Attempt(number=request["attempt"], request=request, result=reply.result, verdict=verdict,
                   started_at=started_at, executor_seconds=reply.seconds,
                   judge_seconds=round(time.monotonic() - began, 3), exit_code=reply.exit_code,
                   timed_out=reply.timed_out, stderr_tail=reply.stderr_tail,
                   tokens=_judge_tokens(verdict) + _executor_tokens(reply.result))


async def _judged_fix(request: dict, result: Any, config: JudgeConfig, workspace: Workspace | None,
                      evidence: Sequence[Any]) -> Verdict:
    """A fix the driver asked for, judged twice: first as a fix_regression of the apply attempt (its mode, and its
    files inside applyFiles; deterministic, the claim alone), then its result as the step's whole work, with every
    rule, gate and the semantic review, as the apply attempt was judged."""
    as_fix = {k: v for k, v in judged_step(request).items() if k not in _STEP_REQUIREMENTS}
    claim = {k: v for k, v in result.items() if k != "evidence"} if isinstance(result, dict) else result
    scope = await avalidate(as_fix, claim, config=config.model_copy(update=_RULES_ONLY))
    if not scope.valid:
        return scope
    whole = {**result, "mode": "apply"}
    return await avalidate(judged_step({**request, "mode": "apply"}), whole, config=config, workspace=workspace,
                           records=evidence)


async def _ask(executor: Executor, request: dict) -> Reply:
    """The executor's reply; an exception from a callable is a failed attempt, never the drive's."""
    if isinstance(executor, CommandExecutor):
        cancel = threading.Event()
        try:
            return await asyncio.to_thread(executor, request, cancel)
        finally:
            cancel.set()  # cancelled (Ctrl-C): its process group is killed now, not at its --timeout
    began = time.monotonic()
    request = copy.deepcopy(request)  # the executor's own copy: what it changes is not what judge records or judges
    try:
        if inspect.iscoroutinefunction(executor) or inspect.iscoroutinefunction(getattr(executor, "__call__", None)):
            value = await executor(request)  # type: ignore[misc]
        else:
            value = await asyncio.to_thread(executor, request)
            if inspect.isawaitable(value):
                value = await value
    except Exception as exc:  # the executor's failure is this attempt's, not the drive's
        return reply_of_call(error=exc, seconds=round(time.monotonic() - began, 3))
    return reply_of_call(value, seconds=round(time.monotonic() - began, 3))


def _failed_attempt(reply: Reply) -> Verdict:
    """The verdict on an attempt that gave no result: the executor's finding decides, and a retry may help."""
    finding = reply.failure
    assert finding is not None
    stage = StageReport(stage="executor", status="error", detail=finding.rule)
    return Verdict(valid=False, reason=finding.reason, rule=finding.rule, findings=(finding,), stages=(stage,),
                   judge_version=__version__,
                   outcome=Outcome(accepted=False, rejection_reasons=(finding.reason,), next_action="retry"))


def _stop(attempts: list[Attempt], max_attempts: int, seconds: float, time_budget: float | None,
          token_budget: int | None) -> Stop | None:
    outcome = attempts[-1].verdict.outcome
    if outcome is not None and outcome.accepted:
        return "accepted"
    if outcome is None or outcome.next_action != "retry":
        return "not_retryable"
    if len(attempts) >= max_attempts:
        return "max_attempts"
    if time_budget is not None and seconds >= time_budget:
        return "time_budget"
    if token_budget is not None and sum(a.tokens for a in attempts) >= token_budget:
        return "token_budget"
    return None


def _judge_tokens(verdict: Verdict) -> int:
    report = verdict.semantic_review
    return report.prompt_tokens + report.completion_tokens if report is not None else 0


def _executor_tokens(result: dict | None) -> int:
    """What the executor says it spent (``usage.totalTokens``): low trust, used only to stop early."""
    usage = result.get("usage") if isinstance(result, dict) else None
    tokens = usage.get("totalTokens") if isinstance(usage, dict) else None
    return tokens if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0 else 0
