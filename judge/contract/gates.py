"""Pydantic models of seed 004's contracts: gates, the step's evidenceSchema, policies, step templates, and the
EvidenceSchema document an agent submits (schemas/gate.schema.json and its siblings). Each gate type's parameters
are judge.contract.gate_parameters', loaded when a gate is first checked."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, StrictStr, ValidationError, model_validator

from judge.contract.gate_types import COMMAND_GATE_TYPES, EVIDENCE_FIELDS, FILE_GATE_TYPES, GATE_TYPES, TEMPLATE_NAME

__all__ = [
    "COMMAND_GATE_TYPES", "EVIDENCE_FIELDS", "FILE_GATE_TYPES", "GATE_TYPES", "TEMPLATE_NAME", "PRESETS", "EvidenceDoc", "EvidenceSchemaSpec", "Gate", "PolicyLayer",
    "StepTemplate",
]

MAX_ITEMS = 10_000
MAX_TEXT = 100_000
Text = Annotated[StrictStr, Field(max_length=MAX_TEXT)]


class Gate(BaseModel):
    """One check a step requires (seed 004): its type, the type's parameters (checked here), and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[GATE_TYPES]  # type: ignore[valid-type]
    parameters: dict[StrictStr, Any] = Field(default_factory=dict)
    description: Text = ""
    _checked: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _parameters_fit_the_type(self) -> "Gate":
        from judge.contract.gate_parameters import PARAMETERS, refuse  # a step without gates never loads them

        try:
            self._checked = PARAMETERS[self.type].model_validate(self.parameters)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise refuse("gate_parameters", f"gate {self.type}: parameters.{where}: {error['msg']}") from None
        return self

    def param(self, name: str) -> Any:
        """A parameter as the type's model reads it (its default when absent)."""
        return getattr(self._checked, "schema_" if name == "schema" else name)


class EvidenceSchemaSpec(BaseModel):
    """What the agent's evidence document must hold: seed 004's evidence_schema of a step template."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=False)

    required: tuple[Annotated[StrictStr, Field(min_length=1, max_length=200)], ...] = Field(default=(), max_length=200)
    optional: tuple[Annotated[StrictStr, Field(min_length=1, max_length=200)], ...] = Field(default=(), max_length=200)
    criteria_checklist: dict[Annotated[StrictStr, Field(min_length=1, max_length=200)], Text] = Field(
        default_factory=dict, alias="criteriaChecklist", max_length=1000)


Preset = Literal["permissive", "strict", "audit"]

# Seed 004's three documented combinations; a layer's own keys override its preset's.
PRESETS: dict[str, dict[str, Any]] = {
    "permissive": {"require_tests_evidence": False, "enable_shell_gates": False},
    "strict": {"require_tests_evidence": True, "enable_shell_gates": True,
               "shell_gate_allowlist": ("*pytest*", "*npm test*", "*npm run test*")},
    "audit": {"require_tests_evidence": True, "require_diff_summary": True, "enable_shell_gates": True,
              "shell_gate_allowlist": ("*pytest*", "*npm test*", "*npm run lint*", "*npm run build*"),
              "evidence_schema_mode": "strict"},
}


class PolicyLayer(BaseModel):
    """Policies as one source states them (judge.toml, a step, flags): unset keys leave the layer below alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    preset: Optional[Preset] = None
    enable_shell_gates: Optional[StrictBool] = None
    shell_gate_allowlist: Optional[tuple[Annotated[StrictStr, Field(min_length=1, max_length=1000)], ...]] = Field(
        default=None, max_length=1000)
    require_tests_evidence: Optional[StrictBool] = None
    require_diff_summary: Optional[StrictBool] = None
    evidence_schema_mode: Optional[Literal["lenient", "strict"]] = None
    accept_unsigned_records: Optional[StrictBool] = None
    test_commands: Optional[tuple[Annotated[StrictStr, Field(min_length=1, max_length=1000)], ...]] = Field(
        default=None, max_length=1000)

    def stated(self) -> dict[str, Any]:
        """The keys this layer sets, its preset's first."""
        values = dict(PRESETS[self.preset]) if self.preset else {}
        values.update(self.model_dump(exclude_none=True, exclude={"preset"}))
        return values


class StepTemplate(BaseModel):
    """A reusable binding of gates and an evidence schema to a kind of step (a JSON or YAML file)."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=False, defer_build=True)

    description: Text = ""
    gates: tuple[Gate, ...] = Field(default=(), max_length=1000)
    evidence_schema: Optional[EvidenceSchemaSpec] = Field(default=None, alias="evidenceSchema")
    policies: Optional[PolicyLayer] = None


Names = Optional[tuple[Annotated[StrictStr, Field(max_length=10_000)], ...]]


class EvidenceDoc(BaseModel):
    """Seed 004's EvidenceSchema document: the agent's own account of its proof. Untrusted: every claim is checked.

    Unknown keys are kept (the seed's own good example carries `devlog_line`).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    changed_files: Names = Field(default=None, max_length=MAX_ITEMS)
    diff_summary: Optional[Text] = None
    commands_run: Names = Field(default=None, max_length=1000)
    tests_run: Names = Field(default=None, max_length=1000)
    tests_passed: Optional[StrictBool] = None
    lint_run: Optional[Union[StrictBool, tuple[Annotated[StrictStr, Field(max_length=10_000)], ...]]] = None
    lint_passed: Optional[StrictBool] = None
    artifacts_created: Names = Field(default=None, max_length=MAX_ITEMS)
    criteria_checklist: Optional[dict[StrictStr, StrictBool]] = Field(default=None, max_length=1000)
    notes: Optional[Text] = None

    def provided(self, name: str) -> bool:
        """Whether field ``name`` is there in substance: not absent, null, false, blank or empty (seed 004:
        a required field is missing "or false where applicable")."""
        value = getattr(self, name, None) if name in type(self).model_fields else (self.model_extra or {}).get(name)
        if value is None or value is False:
            return False
        if isinstance(value, str):
            return bool(value.strip())
        if isinstance(value, (list, tuple, dict)):
            return bool(value)
        return True
