"""Seed 001: the execution records a caller gives must be intact, about this step, and agree with a claimed success.

A failed run is named by its observer class (judge.runs.observe), which says who must act.

Only command, stdout, stderr and exitCode are hashed, so a record's ``status`` is never trusted:
success is read from exitCode (hashed), timedOut and error, and a status that disagrees with
them makes the record invalid. The hash is unkeyed: it catches accidental and naive edits, not
a forger who recomputes it. With an evidence key configured (judge.runs.keys), every record must
also carry the key's evidenceMac: one made elsewhere, or rebuilt with a recomputed hash, is caught.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Iterator

from judge import rule_ids as ids
from judge.runs.keys import mac_problem
from judge.runs.observe import CLASS_MEANING, ENVIRONMENT_CLASSES, NOT_RETRYABLE_CLASSES, failure_class, output_tail
from judge.runs.record import derived_status, evidence_hash
from judge.context import StepContext
from judge.findings import Finding

if TYPE_CHECKING:  # records are pydantic models; a run without any never loads them
    from judge.contract.models import ExecutionEvidence

__all__ = ["execution_evidence_invalid", "execution_failed"]



def execution_evidence_invalid(ctx: StepContext) -> Iterator[Finding]:
    for record in ctx.executions:
        problem = _problem(record, ctx)
        if problem:
            yield Finding(
                rule=ids.EXECUTION_EVIDENCE_INVALID,
                message=f"the execution evidence of run {record.run_id} (`{_command(record)}`) {problem}. "
                "Attach the evidence.json that `judge run` wrote for this step, unedited.",
            )


def execution_failed(ctx: StepContext) -> Iterator[Finding]:
    if not ctx.result.success:
        return
    for record in ctx.executions:
        kind = failure_class(record)
        if kind is None or _problem(record, ctx):
            continue
        yield Finding(
            rule=ids.EXECUTION_FAILED,
            message=f"the result reports success: true but `{_command(record)}` {_how_it_ended(record)} ({kind}) "
            f"(run {record.run_id}){output_tail(record)}. {_advice(kind)}",
            retryable=kind not in NOT_RETRYABLE_CLASSES,
        )


def _advice(kind: str) -> str:
    if kind in ENVIRONMENT_CLASSES:  # no change to the step's work can make such a run pass
        return (f"It is the environment, not the step, that needs fixing: {CLASS_MEANING[kind]}. "
                "Until then, report success: false with the reason.")
    return "Fix what it reports and run it again, or report success: false with the reason."


def _problem(record: ExecutionEvidence, ctx: StepContext) -> str | None:
    step_id, key = ctx.step.id, ctx.evidence_key
    expected = evidence_hash(record.command, record.stdout, record.stderr, record.exit_code)
    if record.evidence_hash != expected:
        return "does not match its evidenceHash: its command, output or exit code was edited"
    unsigned = mac_problem(key.secret, record) if key is not None else None
    if key is not None and unsigned:
        return (f"is not signed with this judge's evidence key ({key.path}): it was made elsewhere, or forged "
                f"(it {unsigned}); make it with `{key.run_hint()}`")
    status = _status(record)
    if record.status != status:
        return (f"says status {record.status} but {_why(record)}, which means {status} "
                "(status is not covered by evidenceHash, so it is read from the exit code)")
    if record.step_id != step_id:
        return f"is for step {record.step_id!r}, not this step {step_id!r}"
    return None


def _status(record: ExecutionEvidence) -> str:
    return derived_status(record.exit_code, record.timed_out, record.error)


def _why(record: ExecutionEvidence) -> str:
    if record.error is not None:
        return f"it records that the command could not be run ({record.error[:100]})"
    if record.timed_out:
        return f"it timed out (exit code {record.exit_code})"
    return f"its exit code is {record.exit_code}" if record.exit_code is not None else "it has no exit code"


def _how_it_ended(record: ExecutionEvidence) -> str:
    if _status(record) == "NO_EVIDENCE":
        return f"could not be run ({record.error or 'no reason recorded'})"
    if record.timed_out:
        return f"timed out after {record.duration_seconds:g} s"
    return f"exited {record.exit_code}" if record.exit_code is not None else "recorded no exit code"


def _command(record: ExecutionEvidence) -> str:
    text = shlex.join(record.command)
    return text if len(text) <= 120 else text[:117] + "..."
