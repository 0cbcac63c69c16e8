"""Pydantic models of seed 004's contracts: gates and their parameters, the step's evidenceSchema, policies, step
templates, and the EvidenceSchema document an agent submits (schemas/gate.schema.json and its siblings)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PrivateAttr, StrictBool,
                      StrictInt, StrictStr, ValidationError, model_validator)
from pydantic_core import PydanticCustomError

from judge.contract.patterns import regex_problem, schema_problem
from judge.patch.globs import MAX_GLOB_CHARS, glob_problem
from judge.patch.paths import normalize_path, unsafe_reason

__all__ = [
    "COMMAND_GATE_TYPES", "EVIDENCE_FIELDS", "FILE_GATE_TYPES", "GATE_TYPES", "TEMPLATE_NAME", "PRESETS", "EvidenceDoc", "EvidenceSchemaSpec", "Gate", "PolicyLayer",
    "StepTemplate",
]

# Seed 004's catalogue, in its order: the contract's list. The order gates are evaluated in is judge.gates.registry's.
GATE_TYPES: tuple[str, ...] = (
    "command_exit_0", "command_output_contains", "command_output_regex", "file_exists", "file_not_exists",
    "changed_files_allowlist", "changed_files_minimum", "forbid_paths", "diff_max_lines", "diff_min_lines",
    "json_schema_valid", "criteria_checklist_complete", "patch_applies_cleanly", "no_uncommitted_changes",
    "tests_passed", "lint_passed", "human_approval",
)

# The gates that run a command, and those that read a work-tree file named by their `path`.
COMMAND_GATE_TYPES: frozenset[str] = frozenset({"command_exit_0", "command_output_contains", "command_output_regex"})
FILE_GATE_TYPES: frozenset[str] = frozenset({"file_exists", "file_not_exists", "json_schema_valid"})
# A step template's name (schemas/step.schema.json's `template`): looked up as NAME.json, NAME.yaml, NAME.yml.
TEMPLATE_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$"

# The EvidenceSchema document's fields, seed 004's snake_case names (other tools write them).
EVIDENCE_FIELDS: tuple[str, ...] = (
    "changed_files", "diff_summary", "commands_run", "tests_run", "tests_passed", "lint_run", "lint_passed",
    "artifacts_created", "criteria_checklist", "notes",
)

_MAX_ITEMS = 10_000
_MAX_TEXT = 100_000


def _refuse(kind: str, text: str) -> PydanticCustomError:
    # The text goes in as context, not as the template: user text with braces must not be read as placeholders.
    return PydanticCustomError(kind, "{text}", {"text": text})


def _compilable_glob(pattern: str) -> str:
    problem = glob_problem(pattern)
    if problem:
        raise _refuse("glob", f"the glob {pattern[:80]!r} {problem}")
    return pattern


def _safe_relative_path(path: str) -> str:
    problem = unsafe_reason(path)
    if problem:
        raise _refuse("path", f"{path[:80]!r} {problem}: give a path relative to the repository's top")
    return normalize_path(path)


def _splittable_command(command: str) -> str:
    import shlex

    # Python's idea of whitespace, as schemas/gate.schema.json's pattern "\S" is read by jsonschema (pydantic's own
    # `pattern` would read it with Rust's regex, which disagrees on characters like \x1c).
    if not re.search(r"\S", command):
        raise _refuse("command", "the command holds no word to run")
    try:
        words = shlex.split(command)
    except ValueError as exc:  # an unclosed quote: the argv judge would run is not what the author meant
        raise _refuse("command", f"the command {command[:80]!r} cannot be split into arguments ({exc})") from None
    if not words:
        raise _refuse("command", f"the command {command[:80]!r} holds no word to run")
    return command


def _compilable_regex(pattern: str) -> str:
    problem = regex_problem(pattern)  # RE2's syntax: the gate matches with RE2 (judge.contract.patterns)
    if problem:
        raise _refuse("regex", f"the regular expression {pattern[:80]!r} {problem}")
    return pattern


def _json_schema(schema: dict) -> dict:
    problem = schema_problem(schema)
    if problem:
        raise _refuse("json_schema", problem)
    return schema


Glob = Annotated[StrictStr, Field(min_length=1, max_length=MAX_GLOB_CHARS), AfterValidator(_compilable_glob)]
Globs = Annotated[tuple[Glob, ...], Field(min_length=1, max_length=_MAX_ITEMS)]
RepoPath = Annotated[StrictStr, Field(min_length=1, max_length=4096), AfterValidator(_safe_relative_path)]
Command = Annotated[StrictStr, Field(min_length=1, max_length=10_000), AfterValidator(_splittable_command)]


def _integral(value: Any) -> Any:
    # JSON has one number type: 200.0 is the integer 200 to JSON Schema, so the model takes it as 200 too.
    return int(value) if isinstance(value, float) and value.is_integer() else value


Count = Annotated[StrictInt, BeforeValidator(_integral)]
Text = Annotated[StrictStr, Field(max_length=_MAX_TEXT)]


class _Parameters(BaseModel):
    # A misspelt parameter (`min_cout`) must not leave a gate that checks nothing: unknown keys are refused.
    # Built on first use (defer_build): a step without gates never validates a gate's parameters.
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class _NoParameters(_Parameters):
    pass


class _CommandParameters(_Parameters):
    command: Command


class _ContainsParameters(_CommandParameters):
    contains: Annotated[StrictStr, Field(min_length=1, max_length=_MAX_TEXT)]


class _RegexParameters(_CommandParameters):
    pattern: Annotated[StrictStr, Field(min_length=1, max_length=10_000), AfterValidator(_compilable_regex)]


class _PathParameters(_Parameters):
    path: RepoPath


class _AllowedParameters(_Parameters):
    allowed: Globs


class _MinimumParameters(_Parameters):
    paths: Globs
    min_count: Count = Field(default=1, ge=1, description="At least 1: a minimum of 0 would always pass.")


class _ForbidParameters(_Parameters):
    paths: Globs


class _MaxLinesParameters(_Parameters):
    max: Count = Field(ge=0)


class _MinLinesParameters(_Parameters):
    min: Count = Field(default=1, ge=1, description="At least 1: a minimum of 0 would always pass.")


class _SchemaParameters(_Parameters):
    path: RepoPath
    schema_: Annotated[dict, AfterValidator(_json_schema)] = Field(alias="schema")


class _PatchParameters(_Parameters):
    patch: Optional[Annotated[StrictStr, Field(min_length=1, max_length=64 * 1024 * 1024)]] = None


PARAMETERS: dict[str, type[_Parameters]] = {
    "command_exit_0": _CommandParameters,
    "command_output_contains": _ContainsParameters,
    "command_output_regex": _RegexParameters,
    "file_exists": _PathParameters,
    "file_not_exists": _PathParameters,
    "changed_files_allowlist": _AllowedParameters,
    "changed_files_minimum": _MinimumParameters,
    "forbid_paths": _ForbidParameters,
    "diff_max_lines": _MaxLinesParameters,
    "diff_min_lines": _MinLinesParameters,
    "json_schema_valid": _SchemaParameters,
    "criteria_checklist_complete": _NoParameters,
    "patch_applies_cleanly": _PatchParameters,
    "no_uncommitted_changes": _NoParameters,
    "tests_passed": _NoParameters,
    "lint_passed": _NoParameters,
    "human_approval": _NoParameters,
}
assert tuple(PARAMETERS) == GATE_TYPES


class Gate(BaseModel):
    """One check a step requires (seed 004): its type, the type's parameters (checked here), and why."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: Literal[GATE_TYPES]  # type: ignore[valid-type]
    parameters: dict[StrictStr, Any] = Field(default_factory=dict)
    description: Text = ""
    _checked: Any = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _parameters_fit_the_type(self) -> "Gate":
        try:
            self._checked = PARAMETERS[self.type].model_validate(self.parameters)
        except ValidationError as exc:
            error = exc.errors()[0]
            where = ".".join(str(part) for part in error["loc"])
            raise _refuse("gate_parameters", f"gate {self.type}: parameters.{where}: {error['msg']}") from None
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

    changed_files: Names = Field(default=None, max_length=_MAX_ITEMS)
    diff_summary: Optional[Text] = None
    commands_run: Names = Field(default=None, max_length=1000)
    tests_run: Names = Field(default=None, max_length=1000)
    tests_passed: Optional[StrictBool] = None
    lint_run: Optional[Union[StrictBool, tuple[Annotated[StrictStr, Field(max_length=10_000)], ...]]] = None
    lint_passed: Optional[StrictBool] = None
    artifacts_created: Names = Field(default=None, max_length=_MAX_ITEMS)
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
