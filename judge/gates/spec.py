"""What a step requires, all sources combined: its template's gates, its own, the gates policies and claims imply,
the evidence fields required, and the policies in force.

A template's gates come first, then the step's own; evidenceSchema's required and optional are
unions and criteriaChecklist is merged (the step's text wins for an id); the template's policies
sit below the step's. Then the implied gates, each once: ``tests_passed`` when the policies
require tests evidence or the evidence claims tests passed (a claim is checked like a gate),
``lint_passed`` when it claims lint passed, ``criteria_checklist_complete`` in strict evidence
mode when there are criteria.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from judge.errors import ContractViolation
from judge.gates.policies import Policies, resolve_policies

if TYPE_CHECKING:  # a step with no gates, evidence or policies is specified without loading pydantic's models
    from judge.contract.gates import EvidenceDoc, EvidenceSchemaSpec, Gate, PolicyLayer, StepTemplate
    from judge.contract.models import Step
    from judge.contract.plain import PlainStep

__all__ = ["GateSpec", "SpecGate", "gate_spec"]

Source = Literal["template", "step", "policy", "claim"]
_TESTS_FIELDS = ("tests_run", "tests_passed", "commands_run")
_STRICT_FIELDS = ("changed_files", "diff_summary", "commands_run")
_EVIDENCE_GATES = frozenset({"criteria_checklist_complete", "tests_passed", "lint_passed"})  # they read the evidence


@dataclass(frozen=True)
class SpecGate:
    index: int  # 1-based, as the reasons number gates
    gate: Gate
    source: Source


@dataclass(frozen=True)
class GateSpec:
    gates: tuple[SpecGate, ...]
    evidence_schema: EvidenceSchemaSpec | None
    required_fields: tuple[str, ...]  # what the evidence document must hold, in order, once each
    policies: Policies
    template: str | None = None

    @property
    def needs_evidence(self) -> bool:
        return bool(self.required_fields) or any(g.gate.type in _EVIDENCE_GATES for g in self.gates)

    @property
    def criteria(self) -> dict[str, str]:
        return dict(self.evidence_schema.criteria_checklist) if self.evidence_schema else {}


def gate_spec(step: Step | PlainStep, evidence: EvidenceDoc | None, template: StepTemplate | None,
              policy_layers: tuple[tuple[str, PolicyLayer | None], ...] = (),
              overrides: PolicyLayer | None = None) -> GateSpec:
    """The effective requirements of ``step``; ``policy_layers`` sit below the template's and the step's policies,
    ``overrides`` (flags) above them."""
    if template is None and evidence is None and overrides is None and not step.gates and step.policies is None \
            and step.evidence_schema is None and all(layer is None for _, layer in policy_layers):
        return GateSpec((), None, (), Policies(), step.template)  # the common step: it asks nothing, no policy is set
    policies = resolve_policies((*policy_layers, ("template", template.policies if template else None),
                                 ("step", step.policies), ("command line", overrides)))
    listed: list[tuple[Gate, Source]] = [(g, "template") for g in (template.gates if template else ())]
    listed += [(g, "step") for g in step.gates or ()]
    schema = _merged(template.evidence_schema if template else None, step.evidence_schema)
    types = {gate.type for gate, _ in listed}

    def imply(kind: str, source: Source, when: bool) -> None:
        if when and kind not in types:
            from judge.contract.gates import Gate

            listed.append((Gate(type=kind, description=_IMPLIED[kind, source]), source))
            types.add(kind)

    imply("tests_passed", "policy", policies.require_tests_evidence)
    imply("tests_passed", "claim", evidence is not None and evidence.tests_passed is True)
    imply("lint_passed", "claim", evidence is not None and evidence.lint_passed is True)
    imply("criteria_checklist_complete", "policy",
          policies.evidence_schema_mode == "strict" and bool(schema and schema.criteria_checklist))
    required = list(schema.required if schema else ())
    if policies.require_diff_summary:
        required.append("diff_summary")
    if "tests_passed" in types:
        required += _TESTS_FIELDS
    if policies.evidence_schema_mode == "strict":
        required += _STRICT_FIELDS
    gates = tuple(SpecGate(i, gate, source) for i, (gate, source) in enumerate(listed, 1))
    return GateSpec(gates, schema, tuple(dict.fromkeys(required)), policies, step.template)


_IMPLIED = {
    ("tests_passed", "policy"): "required by policy require_tests_evidence",
    ("tests_passed", "claim"): "the evidence claims tests_passed: true",
    ("lint_passed", "claim"): "the evidence claims lint_passed: true",
    ("criteria_checklist_complete", "policy"): "required by evidence_schema_mode strict",
}


def _merged(below: EvidenceSchemaSpec | None, above: EvidenceSchemaSpec | None) -> EvidenceSchemaSpec | None:
    if below is None or above is None:
        return above or below
    required = tuple(dict.fromkeys(below.required + above.required))
    optional = tuple(f for f in dict.fromkeys(below.optional + above.optional) if f not in required)
    criteria = {**below.criteria_checklist, **above.criteria_checklist}
    from pydantic import ValidationError

    from judge.contract.gates import EvidenceSchemaSpec

    try:
        return EvidenceSchemaSpec.model_validate({"required": required, "optional": optional,
                                                 "criteriaChecklist": criteria})
    except ValidationError as exc:  # each within its limits, the two together may not be
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        raise ContractViolation("step", "step.schema.json", "$.step.evidenceSchema",
                                f"merged with the template's, {where}: {error['msg']}") from None
