"""The gates' only I/O, done before they are evaluated: the work-tree files and patches file gates read, the
approvals file, and the command runs of command gates (policies and a workspace permitting, never a shell)."""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

from judge.context import StepContext
from judge.contract.gates import COMMAND_GATE_TYPES, FILE_GATE_TYPES
from judge.contract.models import ExecutionEvidence
from judge.errors import InputError
from judge.gates.context import FileProbe
from judge.gates.hygiene import patch_key
from judge.gates.policies import command_denial
from judge.gates.spec import GateSpec
from judge.gates.truth import intact, judged_work
from judge.runs.binding import binding_problem
from judge.runs.artifacts import new_run_id, record_execution
from judge.workspace.confine import is_inside
from judge.workspace.approvals import ApprovalFacts, read_approvals
from judge.workspace.export import exported_tree
from judge.workspace.probe import patch_error_on_work_tree, probe_path

__all__ = ["GateIO", "read_approvals_for", "read_files", "read_patches", "run_commands"]

_MAX_JSON_BYTES = 16 * 1024 * 1024
# A gate's command is the workspace's code: it gets what a program needs to run, never judge's own settings or
# secrets (API keys, JUDGE_*). It runs in a scratch copy of the judged tree, so what it writes there goes with it;
# PYTHONDONTWRITEBYTECODE only spares that copy the writes.
_PASSED_ON = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TERM")


def _command_environment() -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name in _PASSED_ON or name.startswith("LC_")}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1"}


@dataclass(frozen=True)
class GateIO:
    """Where the gates' I/O goes: the artifacts root of command runs, their limits, the approvals file."""

    artifacts_root: str = ".judge"
    approvals: str = ".judge/approvals.jsonl"
    timeout: float = 600.0
    max_output: int = 64 * 1024


def read_files(ctx: StepContext, spec: GateSpec) -> dict[str, FileProbe]:
    if ctx.git is None:
        return {}
    wanted = dict.fromkeys(g.gate.param("path") for g in spec.gates if g.gate.type in FILE_GATE_TYPES)
    return {path: FileProbe(*probe_path(ctx.git.root, path, _MAX_JSON_BYTES)) for path in wanted}


def read_patches(ctx: StepContext, spec: GateSpec) -> dict[str, str | None]:
    if ctx.git is None:
        return {}
    patches = dict.fromkeys(g.gate.param("patch") for g in spec.gates if g.gate.type == "patch_applies_cleanly")
    return {patch_key(p): patch_error_on_work_tree(ctx.git.root, p) for p in patches if p is not None}


def read_approvals_for(ctx: StepContext, spec: GateSpec, io: GateIO) -> ApprovalFacts | None:
    """The step's approvals when it has a human gate; an approvals file inside the judged repository is refused:
    the executor could write its own approval there."""
    if not any(g.gate.type == "human_approval" for g in spec.gates):
        return None
    if ctx.git is not None:
        _refuse_inside(io.approvals, ctx.git.root, "approvals file", "the executor could write its own approval there")
    return read_approvals(io.approvals, ctx.step.id)


def run_commands(ctx: StepContext, spec: GateSpec, records: tuple[ExecutionEvidence, ...],
                 io: GateIO) -> tuple[ExecutionEvidence, ...]:
    """Run each command gate's command once when the policies allow it and none of the caller's ``records`` of it is
    signed with judge's evidence key (an unkeyed record could be forged: judge prefers its own run). Commands the
    executor named (tests_run, commands_run) are never run: they are claims.
    Every command runs in a scratch copy of exactly the judged tree (judge.workspace.export), never in the work tree,
    whose ignored files judge did not judge; each of its processes may use ``io.timeout`` seconds of CPU, and all of
    them end with it (judge.runs.contain).
    Each record is signed with judge's evidence key when it has one (never made here: a key that appeared mid-way
    would check this validation's attached records by hash only and the next one's by key)."""
    if ctx.git is None:
        return ()
    key = ctx.evidence_key.secret if ctx.evidence_key else None
    work = judged_work(ctx)  # a signed record of another tree state says nothing of this one: judge runs it again
    known = {record.command for record in records
             if key is not None and intact(record, ctx.step.id, key) and binding_problem(record, work) is None}
    commands = dict.fromkeys(g.gate.param("command") for g in spec.gates if g.gate.type in COMMAND_GATE_TYPES)
    wanted = [argv for command, argv in ((c, shlex.split(c)) for c in commands)
              if tuple(argv) not in known and command_denial(command, spec.policies) is None]
    if not wanted:
        return ()
    _refuse_inside(io.artifacts_root, ctx.git.root, "artifacts root", "the command could rewrite its own evidence")
    run_id, made = new_run_id(), []
    with exported_tree(ctx.git) as tree:
        for number, argv in enumerate(wanted, 1):
            # a run id per command: each gets its own artifacts/<run>/<step>/ directory
            made.append(record_execution(argv, step_id=ctx.step.id, root=io.artifacts_root,
                                         run_id=f"{run_id}-{number}", timeout=io.timeout, limit=io.max_output,
                                         cwd=tree, env=_command_environment(), key=key, cpu_seconds=io.timeout))
    return tuple(made)


def _refuse_inside(path: str, repo: str, what: str, why: str) -> None:
    if is_inside(path, repo):
        raise InputError(f"the {what} {path} is inside the judged repository {repo}: {why}; keep it outside")
