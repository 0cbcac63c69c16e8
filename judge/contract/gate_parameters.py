"""The parameters each gate type takes (schemas/gate.schema.json), as pydantic models: judge.contract.gates' Gate
checks a gate's parameters with its type's model. Imported when the first gate is checked: a step without gates
never builds these models.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Optional

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StrictInt, StrictStr
from pydantic_core import PydanticCustomError

from judge.contract.gates import MAX_ITEMS, MAX_TEXT, GATE_TYPES
from judge.contract.patterns import regex_problem, schema_problem
from judge.patch.globs import MAX_GLOB_CHARS, glob_problem
from judge.patch.paths import normalize_path, unsafe_reason

__all__ = ["PARAMETERS", "refuse"]


def refuse(kind: str, text: str) -> PydanticCustomError:
    # The text goes in as context, not as the template: user text with braces must not be read as placeholders.
    return PydanticCustomError(kind, "{text}", {"text": text})


def _compilable_glob(pattern: str) -> str:
    problem = glob_problem(pattern)
    if problem:
        raise refuse("glob", f"the glob {pattern[:80]!r} {problem}")
    return pattern


def _safe_relative_path(path: str) -> str:
    problem = unsafe_reason(path)
    if problem:
        raise refuse("path", f"{path[:80]!r} {problem}: give a path relative to the repository's top")
    return normalize_path(path)


def _splittable_command(command: str) -> str:
    import shlex

    # Python's idea of whitespace, as schemas/gate.schema.json's pattern "\S" is read by jsonschema (pydantic's own
    # `pattern` would read it with Rust's regex, which disagrees on characters like \x1c).
    if not re.search(r"\S", command):
        raise refuse("command", "the command holds no word to run")
    try:
        words = shlex.split(command)
    except ValueError as exc:  # an unclosed quote: the argv judge would run is not what the author meant
        raise refuse("command", f"the command {command[:80]!r} cannot be split into arguments ({exc})") from None
    if not words:
        raise refuse("command", f"the command {command[:80]!r} holds no word to run")
    return command


def _compilable_regex(pattern: str) -> str:
    problem = regex_problem(pattern)  # RE2's syntax: the gate matches with RE2 (judge.contract.patterns)
    if problem:
        raise refuse("regex", f"the regular expression {pattern[:80]!r} {problem}")
    return pattern


def _json_schema(schema: dict) -> dict:
    problem = schema_problem(schema)
    if problem:
        raise refuse("json_schema", problem)
    return schema


Glob = Annotated[StrictStr, Field(min_length=1, max_length=MAX_GLOB_CHARS), AfterValidator(_compilable_glob)]
Globs = Annotated[tuple[Glob, ...], Field(min_length=1, max_length=MAX_ITEMS)]
RepoPath = Annotated[StrictStr, Field(min_length=1, max_length=4096), AfterValidator(_safe_relative_path)]
Command = Annotated[StrictStr, Field(min_length=1, max_length=10_000), AfterValidator(_splittable_command)]


def _integral(value: Any) -> Any:
    # JSON has one number type: 200.0 is the integer 200 to JSON Schema, so the model takes it as 200 too.
    return int(value) if isinstance(value, float) and value.is_integer() else value


Count = Annotated[StrictInt, BeforeValidator(_integral)]


class _Parameters(BaseModel):
    # A misspelt parameter (`min_cout`) must not leave a gate that checks nothing: unknown keys are refused.
    model_config = ConfigDict(frozen=True, extra="forbid")


class _NoParameters(_Parameters):
    pass


class _CommandParameters(_Parameters):
    command: Command


class _ContainsParameters(_CommandParameters):
    contains: Annotated[StrictStr, Field(min_length=1, max_length=MAX_TEXT)]


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
