"""Command gates (seed 004, 1-3): a command's exit code and output, read from a verified execution record — one
judge's gate made (policies permitting) or one the orchestrator attached — and named by the agent in commands_run."""

from __future__ import annotations

from judge import rule_ids as ids
from judge.contract.patterns import search
from judge.gates.context import GateCheck, GateContext
from judge.gates.spec import SpecGate
from judge.gates.truth import Backing, backing, record_trust, run_hint
from judge.gates.policies import command_denial
from judge.runs.observe import CLASS_MEANING, ENVIRONMENT_CLASSES, NOT_RETRYABLE_CLASSES, failure_class, output_tail

__all__ = ["command_exit_0", "command_output_contains", "command_output_regex"]



def command_exit_0(g: GateContext, spec: SpecGate) -> GateCheck:
    return _checked_run(g, spec, lambda stdout: None, "exits 0")


def command_output_contains(g: GateContext, spec: SpecGate) -> GateCheck:
    wanted = spec.gate.param("contains")

    def problem(stdout: str) -> str | None:
        return None if wanted in stdout else f"its stdout does not contain {wanted[:120]!r}"
    return _checked_run(g, spec, problem, f"exits 0 and its stdout contains {wanted[:60]!r}")


def command_output_regex(g: GateContext, spec: SpecGate) -> GateCheck:
    pattern = spec.gate.param("pattern")

    def problem(stdout: str) -> str | None:
        return None if search(pattern, stdout) else f"its stdout does not match /{pattern[:120]}/"
    return _checked_run(g, spec, problem, f"exits 0 and its stdout matches /{pattern[:60]}/")


def _checked_run(g: GateContext, spec: SpecGate, output_problem, passed: str) -> GateCheck:
    command, step_id = spec.gate.param("command"), g.step.step.id
    trust = record_trust(g)
    found = backing(command, g.records, trust)
    if found.failure is not None:
        return _failed(found)
    if found.record is None:
        denial = command_denial(command, g.spec.policies)
        if denial is not None:  # no record made or attached: a command the policies refuse is never run
            return GateCheck(False, f"`{command[:160]}` was not run: {denial}", rule=ids.COMMAND_NOT_ALLOWED,
                             retryable=False)
        if not g.has_workspace:
            return GateCheck(False, f"`{command[:160]}` can only run in the workspace and none was given: validate "
                                    f"with --repo PATH --base SHA, or {run_hint(command, step_id, _base(g))}",
                             rule=ids.UNVERIFIABLE_CLAIM, retryable=False)
        return GateCheck(False, f"{found.problem}: {run_hint(command, step_id, _base(g))}", rule=ids.UNVERIFIABLE_CLAIM)
    problem = output_problem(found.record.stdout)
    if problem:
        return GateCheck(False, f"`{command[:160]}` exited 0 but {problem} (run {found.record.run_id}){_tail(found)}; "
                                "make the step produce it")
    listed = g.evidence.commands_run if g.evidence else None
    claimed = backing(command, g.records, trust, commands_run=tuple(listed or ()))
    if claimed.record is None:
        return GateCheck(False, f"{claimed.problem} (a gate that depends on a command needs the exact command in "
                                "the evidence's commands_run)", rule=ids.UNVERIFIABLE_CLAIM)
    who = "judge ran it" if found.record.evidence_hash in g.made else "attached record"
    return GateCheck.ok(f"`{command[:120]}` {passed} ({who}, run {found.record.run_id}, "
                        f"sha256 {found.record.evidence_hash[:12]})")


def _failed(found: Backing) -> GateCheck:
    record = found.failure
    kind = failure_class(record)  # type: ignore[arg-type]
    environment = kind in ENVIRONMENT_CLASSES
    advice = CLASS_MEANING.get(kind, "") if environment else "fix what it reports so it passes"
    return GateCheck(False, f"{found.problem}{_tail(found)}; {advice}",
                     retryable=kind not in NOT_RETRYABLE_CLASSES)


def _tail(found: Backing) -> str:
    record = found.record or found.failure
    return output_tail(record) if record is not None else ""


def _base(g: GateContext) -> str | None:
    """The base `judge run --base` names, when judge knows it (with a workspace)."""
    return g.step.git.base if g.step.git is not None else None
