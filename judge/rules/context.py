"""The immutable input every rule reads: step, result, and facts derived from them once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from judge.diff import MalformedPatch, PatchFacts, parse_patch
from judge.models import ExecuteStepResult, ExecutionEvidence, Step
from judge.paths import normalize_path

if TYPE_CHECKING:
    from judge.evidence.workspace import WorkspaceFacts

__all__ = ["RuleContext"]


@dataclass(frozen=True)
class RuleContext:
    """Derived facts are computed on first use, so a rule that rejects early never pays for a parse."""

    step: Step
    result: ExecuteStepResult
    workspace: WorkspaceFacts | None = None  # gathered once by the pipeline when the caller gives a workspace
    executions: tuple[ExecutionEvidence, ...] = ()  # execution evidence records attached by the caller

    @property
    def has_patch(self) -> bool:
        return bool(self.result.patch and self.result.patch.strip())

    @cached_property
    def _parsed(self) -> tuple[PatchFacts | None, MalformedPatch | None]:
        if not self.has_patch:
            return None, None
        try:
            return parse_patch(self.result.patch or ""), None
        except MalformedPatch as exc:
            return None, exc

    @property
    def patch(self) -> PatchFacts | None:
        """The parsed patch; None when there is none or it is malformed."""
        return self._parsed[0]

    @property
    def patch_error(self) -> MalformedPatch | None:
        return self._parsed[1]

    @cached_property
    def apply_patch(self) -> PatchFacts | None:
        """The earlier apply step's patch, when the step gives one that parses."""
        if not (self.step.apply_patch and self.step.apply_patch.strip()):
            return None
        try:
            return parse_patch(self.step.apply_patch)
        except MalformedPatch:
            return None

    @cached_property
    def files_written(self) -> tuple[str, ...]:
        return _normalized(self.result.files_written)

    @cached_property
    def files_touched(self) -> tuple[str, ...]:
        return _normalized(self.result.files_touched)

    @cached_property
    def patch_paths(self) -> tuple[str, ...]:
        return tuple(normalize_path(p) for p in self.patch.paths) if self.patch else ()

    @cached_property
    def claimed_paths(self) -> tuple[str, ...]:
        """Every path the result writes to or claims to: patch headers, filesWritten, filesTouched."""
        return tuple(dict.fromkeys(self.patch_paths + self.files_written + self.files_touched))


def _normalized(paths: tuple[str, ...] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(normalize_path(p) for p in paths or ()))
