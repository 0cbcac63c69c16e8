"""Seed 004's truthfulness rule, made strict: a claim that rests on a command is believed only when the command is
in ``commands_run`` and a verified execution record of exactly that command, for this step, shows exit 0."""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from judge.contract.models import ExecutionEvidence
from judge.runs.keys import mac_problem
from judge.runs.observe import failure_class
from judge.runs.record import derived_status, evidence_hash

__all__ = ["Backing", "backing", "intact", "run_hint"]


@dataclass(frozen=True)
class Backing:
    """What the records say of one command: the record that backs it, or why none does."""

    command: str
    record: ExecutionEvidence | None  # a verified record with exit 0
    problem: str | None  # None when ``record`` backs the command
    failure: ExecutionEvidence | None = None  # a verified record showing the command fail: refuted, not unproven


def intact(record: ExecutionEvidence, step_id: str, key: bytes | None = None) -> bool:
    """The record is for this step, its hash covers what it says (command, output, exit code) and, when judge has
    an evidence ``key``, it carries that key's MAC (an unkeyed hash anyone can recompute)."""
    return record.step_id == step_id and \
        record.evidence_hash == evidence_hash(record.command, record.stdout, record.stderr, record.exit_code) and \
        (key is None or mac_problem(key, record) is None)


def backing(command: str, records: tuple[ExecutionEvidence, ...], step_id: str,
            commands_run: tuple[str, ...] | None = None, key: bytes | None = None) -> Backing:
    """Whether ``command`` (as a string, split like a shell would, never run by one) is backed by ``records``.

    ``commands_run``: the agent's list, when the claim must also name the command there (None: not checked).
    ``key``: judge's evidence key, when records must be signed with it.
    """
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        return Backing(command, None, f"`{command[:120]}` cannot be split into arguments ({exc})")
    if commands_run is not None and command not in commands_run and \
            not any(_same_argv(argv, listed) for listed in commands_run):
        return Backing(command, None, f"`{_shown(command)}` is not in commands_run: list every command the step ran")
    matching = [r for r in records if r.command == argv]
    verified = [r for r in matching if intact(r, step_id, key)]
    passed = [r for r in verified if derived_status(r.exit_code, r.timed_out, r.error) == "SUCCESS"]
    if passed:
        return Backing(command, passed[-1], None)
    if verified:
        record = verified[-1]
        return Backing(command, None, f"the record of `{_shown(command)}` (run {record.run_id}) shows it "
                                      f"{_how(record)} ({failure_class(record)})", failure=record)
    if matching:
        unsigned = " or is not signed with judge's evidence key" if key is not None else ""
        return Backing(command, None, f"the only record of `{_shown(command)}` is for another step or was edited "
                                      f"(its evidenceHash does not match){unsigned}")
    return Backing(command, None, f"no execution record of `{_shown(command)}` for step {step_id!r}")


def run_hint(command: str, step_id: str) -> str:
    """How to make the record that would back ``command``."""
    try:
        argv = shlex.join(shlex.split(command))  # quoted as one argv: pasted into a shell it stays one command
    except ValueError:
        argv = shlex.quote(command)
    return f"run `judge run --step {shlex.quote(step_id)} -- {_shown(argv)}` and attach its evidence.json (--evidence)"


def _same_argv(argv: tuple[str, ...], listed: str) -> bool:
    try:
        return tuple(shlex.split(listed)) == argv
    except ValueError:
        return False


def _how(record: ExecutionEvidence) -> str:
    if record.error is not None:
        return "could not run"
    if record.timed_out:
        return "timed out"
    return f"exited {record.exit_code}"


def _shown(command: str) -> str:
    return command if len(command) <= 160 else command[:157] + "..."
