"""Pydantic models of the JSON contracts in schemas/ (a test keeps the two in step)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import (AfterValidator, AliasChoices, BaseModel, ConfigDict, Field, StrictBool, StrictInt, StrictStr,
                      model_validator)
from pydantic_core import PydanticCustomError

from judge.contract.gates import TEMPLATE_NAME, EvidenceDoc, EvidenceSchemaSpec, Gate, PolicyLayer
from judge.contract.plain import MAX_FILES as _MAX_FILES
from judge.contract.plain import MAX_PATCH as _MAX_PATCH
from judge.contract.plain import MODES
from judge.patch.globs import MAX_GLOB_CHARS, glob_problem

__all__ = [
    "EvalCase", "EvidenceFile", "Expected", "ExecuteStepResult", "ExecutionEvidence", "Mode", "Step", "VerdictContract",
    "MODES",
]

Mode = Literal["apply", "fix_regression"]  # MODES (judge.contract.plain, which reads a step without this model)


Path = Annotated[StrictStr, Field(min_length=1)]


def _compilable_glob(pattern: str) -> str:
    problem = glob_problem(pattern)
    if problem:
        shown = repr(pattern) if len(pattern) <= 80 else f"{pattern[:80]!r}..."
        # The text goes in as context, not as the template: a glob's braces must not be read as placeholders.
        raise PydanticCustomError("glob", "{text}", {"text": f"the glob {shown} {problem}"})
    return pattern


# A gitignore-style glob (judge.patch.globs); one that cannot be compiled breaks the step's contract.
Glob = Annotated[StrictStr, Field(min_length=1, max_length=MAX_GLOB_CHARS), AfterValidator(_compilable_glob)]

# ISO 8601 date and time with a zone; the same pattern as the schemas'.
Timestamp = Annotated[
    StrictStr, Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$")
]


class _Input(BaseModel):
    # Unknown keys are kept (orchestrators add their own) but never trusted; only the
    # camelCase names of the contract fill fields (`files_written` is just an unknown key).
    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=False)


class Step(_Input):
    """What the orchestrator asked for (trusted)."""

    id: StrictStr = Field(min_length=1, max_length=200)
    description: StrictStr = Field(min_length=1, max_length=100_000)
    mode: Optional[Mode] = Field(default=None, description="The intended mode of this call.")
    allowed_files: Optional[tuple[Glob, ...]] = Field(default=None, alias="allowedFiles", max_length=_MAX_FILES)
    excluded_paths: Optional[tuple[Glob, ...]] = Field(default=None, alias="excludedPaths", max_length=_MAX_FILES)
    apply_files: Optional[tuple[Path, ...]] = Field(default=None, alias="applyFiles", max_length=_MAX_FILES)
    apply_patch: Optional[StrictStr] = Field(default=None, alias="applyPatch", max_length=_MAX_PATCH)
    expects_no_changes: Optional[StrictBool] = Field(
        default=None, alias="expectsNoChanges", description="The step may legitimately change no file."
    )
    gates: Optional[tuple[Gate, ...]] = Field(default=None, max_length=1000)
    evidence_schema: Optional[EvidenceSchemaSpec] = Field(default=None, alias="evidenceSchema")
    policies: Optional[PolicyLayer] = None
    template: Optional[StrictStr] = Field(default=None, pattern=TEMPLATE_NAME)

    @model_validator(mode="after")
    def _fix_needs_apply_files(self) -> "Step":
        if self.mode == "fix_regression" and self.apply_files is None:
            raise ValueError("a fix_regression step needs applyFiles (the files the apply step changed)")
        return self


class ExecuteStepResult(_Input):
    """What the executor says it did (untrusted)."""

    mode: Any = Field(description="Any value may arrive; rule invalid_mode judges it.")
    success: StrictBool
    patch: Optional[StrictStr] = Field(default=None, max_length=_MAX_PATCH)
    files_written: Optional[tuple[StrictStr, ...]] = Field(default=None, alias="filesWritten", max_length=_MAX_FILES)
    files_touched: Optional[tuple[StrictStr, ...]] = Field(default=None, alias="filesTouched", max_length=_MAX_FILES)
    summary: Optional[StrictStr] = Field(default=None, max_length=100_000)
    evidence: Optional[EvidenceDoc] = Field(
        default=None, description="The agent's evidence document (the EvidenceSchema of the step's gates).")


class VerdictContract(BaseModel):
    """The strict answer: exactly ``valid`` and ``reason``."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)  # built on first use: validate needs none

    valid: StrictBool
    reason: StrictStr = Field(min_length=1)


class Expected(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)  # eval's: built on first use

    valid: StrictBool
    rule: Optional[StrictStr] = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")


class EvalCase(BaseModel):
    """One labelled case; step and result stay raw dicts because a case may hold bad input on purpose.

    ``executions`` (JSON ``records``, or its older name ``executions``) are parsed: a malformed record is a bad
    line of the set, not a case (a record whose hash does not match what it says is well-formed, and judged).
    Other keys (a source repository, a commit) are ignored: sets built elsewhere carry their own metadata.
    """

    # eval's, built on first use; by then ExecutionEvidence, which ``executions`` names, is defined
    model_config = ConfigDict(frozen=True, extra="ignore", defer_build=True)

    id: StrictStr = Field(min_length=1)
    step: dict
    result: dict
    expected: Expected
    executions: tuple["ExecutionEvidence", ...] = Field(default=(), validation_alias=AliasChoices("records",
                                                                                                  "executions"))
    tags: tuple[StrictStr, ...] = ()
    notes: Optional[StrictStr] = None

    @model_validator(mode="before")
    @classmethod
    def _records_under_one_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "records" in data and "executions" in data:
            raise ValueError("records and executions are one thing under two names; give only records")
        return data


def _refuse_boolean_version(cls: type, data: Any) -> Any:
    """Literal[1] would take True (and 1.0); the schemas' const takes 1.0 but never True."""
    if isinstance(data, dict) and isinstance(data.get("version"), bool):
        raise ValueError("version must be 1")
    return data


class EvidenceFile(_Input):
    """`.orchestrator/evidence/<stepId>.json`: the executor's proof of work that changed no tracked file."""

    model_config = ConfigDict(defer_build=True)  # _Input's, built on first use: only a workspace has one

    version: Literal[1]
    node_id: StrictStr = Field(alias="nodeId", min_length=1, max_length=200)
    timestamp: Timestamp
    summary: StrictStr = Field(min_length=1, max_length=100_000, pattern=r"\S")
    type: Optional[Literal["file_changes", "external_effect", "analysis", "validation"]] = None
    outcome: Optional[dict] = None

    _version_is_the_integer_one = model_validator(mode="before")(_refuse_boolean_version)


class ExecutionEvidence(BaseModel):
    """What one real command did (`judge run`); ``evidenceHash`` covers command, stdout, stderr and exitCode,
    ``evidenceMac`` (when signed) the hash and the rest of what happened, under a key the orchestrator keeps."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=False)

    version: Literal[1] = 1
    step_id: StrictStr = Field(alias="stepId", min_length=1, max_length=200)
    run_id: StrictStr = Field(alias="runId", min_length=1, max_length=200)
    command: tuple[StrictStr, ...] = Field(min_length=1)
    exit_code: Optional[StrictInt] = Field(alias="exitCode")
    stdout: StrictStr
    stderr: StrictStr
    stdout_bytes: StrictInt = Field(alias="stdoutBytes", ge=0)
    stderr_bytes: StrictInt = Field(alias="stderrBytes", ge=0)
    started_at: Timestamp = Field(alias="startedAt")
    finished_at: Timestamp = Field(alias="finishedAt")
    duration_seconds: float = Field(alias="durationSeconds", ge=0, strict=True)  # a JSON number: not "1", not true
    timed_out: StrictBool = Field(alias="timedOut")
    status: Literal["SUCCESS", "FAILURE", "NO_EVIDENCE"]
    evidence_hash: StrictStr = Field(alias="evidenceHash", pattern=r"^[0-9a-f]{64}$")
    artifacts: tuple[Path, ...]
    error: Optional[StrictStr] = None
    # HMAC-SHA256 under the orchestrator's evidence key (judge.runs.keys); absent on records made without one
    evidence_mac: Optional[StrictStr] = Field(default=None, alias="evidenceMac", pattern=r"^[0-9a-f]{64}$")
    # The work the command ran on (judge.runs.binding), covered by evidenceMac; absent on records of older judges,
    # which back no claim
    repository: Optional[StrictStr] = Field(default=None, min_length=1, max_length=4096)
    base: Optional[StrictStr] = Field(default=None, pattern=r"^[0-9a-f]{40}([0-9a-f]{24})?$")
    work_hash: Optional[StrictStr] = Field(default=None, alias="workHash", pattern=r"^[0-9a-f]{64}$")

    _version_is_the_integer_one = model_validator(mode="before")(_refuse_boolean_version)

    def to_json(self) -> dict:
        """The record as evidence.json holds it; an unsigned or unbound record has no evidenceMac or binding keys,
        as before keys and bindings existed."""
        data = self.model_dump(mode="json", by_alias=True)
        for name in ("evidenceMac", "repository", "base", "workHash"):
            if data[name] is None:
                del data[name]
        return data

