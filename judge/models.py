"""Pydantic models of the JSON contracts in schemas/ (a test keeps the two in step)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, model_validator

__all__ = ["EvalCase", "Expected", "ExecuteStepResult", "Mode", "Step", "VerdictContract", "MODES"]

Mode = Literal["apply", "fix_regression"]
MODES: tuple[str, ...] = ("apply", "fix_regression")

_MAX_PATCH = 64 * 1024 * 1024
_MAX_FILES = 10_000


Path = Annotated[StrictStr, Field(min_length=1)]


class _Input(BaseModel):
    # Unknown keys are kept (orchestrators add their own) but never trusted; only the
    # camelCase names of the contract fill fields (`files_written` is just an unknown key).
    model_config = ConfigDict(frozen=True, extra="allow", populate_by_name=False)


class Step(_Input):
    """What the orchestrator asked for (trusted)."""

    id: StrictStr = Field(min_length=1, max_length=200)
    description: StrictStr = Field(min_length=1, max_length=100_000)
    mode: Optional[Mode] = Field(default=None, description="The intended mode of this call.")
    allowed_files: Optional[tuple[Path, ...]] = Field(default=None, alias="allowedFiles", max_length=_MAX_FILES)
    excluded_paths: Optional[tuple[Path, ...]] = Field(default=None, alias="excludedPaths", max_length=_MAX_FILES)
    apply_files: Optional[tuple[Path, ...]] = Field(default=None, alias="applyFiles", max_length=_MAX_FILES)
    apply_patch: Optional[StrictStr] = Field(default=None, alias="applyPatch", max_length=_MAX_PATCH)

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


class VerdictContract(BaseModel):
    """The strict answer: exactly ``valid`` and ``reason``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    valid: StrictBool
    reason: StrictStr = Field(min_length=1)


class Expected(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    valid: StrictBool
    rule: Optional[StrictStr] = Field(default=None, pattern=r"^[a-z][a-z0-9_]*$")


class EvalCase(BaseModel):
    """One labelled case; step and result stay raw dicts because a case may hold bad input on purpose."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: StrictStr = Field(min_length=1)
    step: dict
    result: dict
    expected: Expected
    tags: tuple[StrictStr, ...] = ()
    notes: Optional[StrictStr] = None
