"""The gates stage: the evidence checks, then every gate in registry order — its I/O done
first, commands run only once the cheap gates passed, the human asked last — giving findings and one result per gate."""

from __future__ import annotations

from dataclasses import dataclass, replace

from judge import rule_ids as ids
from judge.context import StepContext
from judge.errors import CheckFailed
from judge.contract.gates import EvidenceDoc
from judge.contract.models import ExecutionEvidence
from judge.gates.context import GateCheck, GateContext
from judge.gates.evidence_doc import EVIDENCE_CHECKS, missing_fields
from judge.gates.prepare import GateIO, read_approvals_for, read_files, read_patches, run_commands
from judge.gates.registry import AFTER_COMMANDS, GATES, LAST
from judge.gates.spec import GateSpec, SpecGate
from judge.findings import Finding
from judge.verdict import GateResult

__all__ = ["GateStage", "run_gates"]


@dataclass(frozen=True)
class GateStage:
    findings: tuple[Finding, ...]
    results: tuple[GateResult, ...]
    missing_fields: tuple[str, ...]
    made: tuple[ExecutionEvidence, ...]  # the execution records judge's command gates made

    @property
    def deciding(self) -> Finding | None:
        return next((f for f in self.findings if f.severity == "reject"), None)


def run_gates(ctx: StepContext, spec: GateSpec, evidence: EvidenceDoc | None, io: GateIO) -> GateStage:
    """Evaluate what ``spec`` requires of the step in ``ctx``; InputError when the gates' own inputs cannot be read."""
    g = GateContext(ctx, spec, evidence, records=ctx.executions, files=read_files(ctx, spec),
                    patch_errors=read_patches(ctx, spec), approvals=read_approvals_for(ctx, spec, io))
    findings = [finding for check in EVIDENCE_CHECKS for finding in check(g)]
    results: dict[int, GateResult] = {}
    made: tuple[ExecutionEvidence, ...] = ()
    for position, gate in enumerate(GATES):
        rejected = any(f.severity == "reject" for f in findings)
        if position == AFTER_COMMANDS and not rejected:
            made = run_commands(ctx, spec, ctx.executions, io)
            ran = {record.command for record in made}  # for a command judge ran, its own run is the one that counts
            kept = tuple(record for record in ctx.executions if record.command not in ran)
            g = replace(g, records=kept + made, made=frozenset(r.evidence_hash for r in made))
        for spec_gate in (s for s in spec.gates if s.gate.type == gate.__name__):
            if rejected and position >= AFTER_COMMANDS:
                why = "the human is asked only about work that passes every other check" if position == LAST \
                    else "not evaluated: an earlier check failed" + ("" if made else ", so no command was run")
                results[spec_gate.index] = _result(spec_gate, "skipped", None, why)
                continue
            try:
                check = gate(g, spec_gate)
            except Exception as exc:  # judge's own failure: the pipeline names the gate in its judge_error
                raise CheckFailed("gate", spec_gate.gate.type) from exc
            results[spec_gate.index] = _result(spec_gate, _status(check), check.rule or None, check.message)
            if not check.passed:
                findings.append(Finding(rule=check.rule, stage="gates", retryable=check.retryable,
                                        message=f"{_name(spec_gate)}: {check.message}"))
    ordered = tuple(results[s.index] for s in sorted(spec.gates, key=lambda s: _order(s)))
    return GateStage(tuple(findings), ordered, missing_fields(g), made)


def _status(check: GateCheck) -> str:
    if check.passed:
        return "passed"
    return "pending" if check.rule == ids.HUMAN_APPROVAL_PENDING else "failed"


def _result(spec_gate: SpecGate, status: str, rule: str | None, message: str) -> GateResult:
    return GateResult(index=spec_gate.index, type=spec_gate.gate.type, description=spec_gate.gate.description,
                      source=spec_gate.source, status=status, rule=rule if status != "passed" else None,
                      message=message)


def _name(spec_gate: SpecGate) -> str:
    described = f" ({spec_gate.gate.description[:120]})" if spec_gate.gate.description else ""
    source = "" if spec_gate.source == "step" else f", from the {spec_gate.source}"
    return f"gate #{spec_gate.index} `{spec_gate.gate.type}`{described}{source}"


def _order(spec_gate: SpecGate) -> tuple[int, int]:
    names = [gate.__name__ for gate in GATES]
    return names.index(spec_gate.gate.type), spec_gate.index
