"""Seed 004's truthfulness rule, made strict: a claim that rests on a command is believed only when the command is
in ``commands_run`` and a verified execution record of exactly that command, for this step, made on the judged
work and signed with judge's key, shows exit 0."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

from judge.context import StepContext
from judge.contract.models import ExecutionEvidence
from judge.gates.context import GateContext
from judge.runs.binding import ANOTHER_TREE, WorkBinding, binding_problem
from judge.runs.keys import mac_problem
from judge.runs.observe import failure_class
from judge.runs.record import derived_status, evidence_hash
from judge.workspace.work_hash import tree_work_hash

__all__ = ["Backing", "RecordTrust", "backing", "intact", "judged_work", "record_trust", "run_hint", "trust_problem"]


@dataclass(frozen=True)
class Backing:
    """What the records say of one command: the record that backs it, or why none does."""

    command: str
    record: ExecutionEvidence | None  # a verified record with exit 0
    problem: str | None  # None when ``record`` backs the command
    failure: ExecutionEvidence | None = None  # a verified record showing the command fail: refuted, not unproven


@dataclass(frozen=True)
class RecordTrust:
    """What a record must show to back a claim: this step, judge's ``key`` (None: judge has none), the ``work``
    judged (None: no workspace), unless ``accept_unsigned`` (the policy) or judge ``made`` it in this validation."""

    step_id: str
    key: bytes | None
    work: WorkBinding | None
    accept_unsigned: bool = False
    made: frozenset[str] = frozenset()  # evidence hashes of the records judge's own command gates made


def record_trust(g: GateContext) -> RecordTrust:
    """The trust the gates of ``g`` give a record."""
    key = g.step.evidence_key
    return RecordTrust(g.step.step.id, key.secret if key is not None else None, judged_work(g.step),
                       g.spec.policies.accept_unsigned_records, g.made)


def judged_work(ctx: StepContext) -> WorkBinding | None:
    """The work judged, as a record names the work it ran on; None without a workspace."""
    git = ctx.git
    if git is None:
        return None
    return WorkBinding(os.path.realpath(git.root), git.base, tree_work_hash(git, ctx.step.id))


def intact(record: ExecutionEvidence, step_id: str, key: bytes | None = None) -> bool:
    """The record is for this step, its hash covers what it says (command, output, exit code) and, when judge has
    an evidence ``key``, it carries that key's MAC (an unkeyed hash anyone can recompute)."""
    return record.step_id == step_id and \
        record.evidence_hash == evidence_hash(record.command, record.stdout, record.stderr, record.exit_code) and \
        (key is None or mac_problem(key, record) is None)


def trust_problem(record: ExecutionEvidence, trust: RecordTrust) -> str | None:
    """Why ``record`` backs no claim under ``trust``, or None when it may."""
    if not intact(record, trust.step_id):
        return "is for another step or was edited (its evidenceHash does not match)"
    if record.evidence_hash in trust.made or trust.accept_unsigned:
        return None
    if trust.key is None:
        return ("cannot be verified: judge has no evidence key (make records with `judge run`, which makes the key "
                "in judge's state directory, or set policy accept_unsigned_records)")
    unsigned = mac_problem(trust.key, record)
    if unsigned is not None:
        return f"{unsigned}: an unsigned record backs no claim unless policy accept_unsigned_records says so"
    return binding_problem(record, trust.work)


def backing(command: str, records: tuple[ExecutionEvidence, ...], trust: RecordTrust,
            commands_run: tuple[str, ...] | None = None) -> Backing:
    """Whether ``command`` (as a string, split like a shell would, never run by one) is backed by ``records``.

    ``commands_run``: the agent's list, when the claim must also name the command there (None: not checked).
    """
    try:
        argv = tuple(shlex.split(command))
    except ValueError as exc:
        return Backing(command, None, f"`{command[:120]}` cannot be split into arguments ({exc})")
    if commands_run is not None and command not in commands_run and \
            not any(_same_argv(argv, listed) for listed in commands_run):
        return Backing(command, None, f"`{_shown(command)}` is not in commands_run: list every command the step ran")
    matching = [(r, trust_problem(r, trust)) for r in records if r.command == argv]
    verified = [r for r, problem in matching if problem is None]
    passed = [r for r in verified if derived_status(r.exit_code, r.timed_out, r.error) == "SUCCESS"]
    if passed:
        return Backing(command, passed[-1], None)
    if verified:
        record = verified[-1]
        return Backing(command, None, f"the record of `{_shown(command)}` (run {record.run_id}) shows it "
                                      f"{_how(record)} ({failure_class(record)})", failure=record)
    if matching:
        record, problem = matching[-1]
        joint = ": " if problem == ANOTHER_TREE else " "  # a sentence of its own, quoted as users will search it
        return Backing(command, None, f"the record of `{_shown(command)}` (run {record.run_id}){joint}{problem}")
    return Backing(command, None, f"no execution record of `{_shown(command)}` for step {trust.step_id!r}")


def run_hint(command: str, step_id: str, base: str | None = None) -> str:
    """How to make the record that would back ``command`` (``base``: the judged work's, when judge knows it)."""
    try:
        argv = shlex.join(shlex.split(command))  # quoted as one argv: pasted into a shell it stays one command
    except ValueError:
        argv = shlex.quote(command)
    # `--evidence` (the old name of --record, still read) stays in the reason: a verdict's words do not change
    return (f"run `judge run --step {shlex.quote(step_id)} --base {base or 'BASE'} -- {_shown(argv)}` in the work "
            "tree and attach its evidence.json (--evidence)")


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
