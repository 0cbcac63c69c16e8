"""GateContext: the frozen input every gate reads — the step's context, what the step requires, the agent's
evidence, the execution records, and what judge read from disk for the gates (files, patches, approvals)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

from judge import rule_ids as ids
from judge.context import StepContext
from judge.contract.gates import EvidenceDoc
from judge.contract.models import ExecutionEvidence
from judge.gates.spec import GateSpec
from judge.patch.model import PatchFacts
from judge.workspace.approvals import ApprovalFacts
from judge.workspace.work_hash import approval_hash, patch_work_hash

__all__ = ["FileProbe", "GateCheck", "GateContext"]


@dataclass(frozen=True)
class GateCheck:
    """One gate's answer: passed, or the rule and message of why not (``retryable`` False: the executor cannot fix it)."""

    passed: bool
    message: str
    rule: str = ids.GATE_FAILED
    retryable: bool = True

    @classmethod
    def ok(cls, message: str) -> "GateCheck":
        return cls(True, message, rule="")


@dataclass(frozen=True)
class FileProbe:
    """A work-tree path as a file gate sees it: a regular file with its bytes, something else, or nothing."""

    kind: str  # "file", "missing", "symlink", "directory", "other", "too large"
    data: bytes | None = None


@dataclass(frozen=True)
class GateContext:
    step: StepContext
    spec: GateSpec
    evidence: EvidenceDoc | None
    records: tuple[ExecutionEvidence, ...] = ()  # attached by the caller, then made by command gates
    made: frozenset[str] = frozenset()  # evidence hashes of the records judge's command gates made
    files: Mapping[str, FileProbe] = field(default_factory=dict)  # only with a workspace
    patch_errors: Mapping[str, str | None] = field(default_factory=dict)  # a gate's patch -> why it does not apply
    approvals: ApprovalFacts | None = None

    @property
    def has_workspace(self) -> bool:
        return self.step.git is not None

    @cached_property
    def changed_files(self) -> tuple[str, ...]:
        """The files the step changed, from the highest-trust source: git with a workspace, else the patch."""
        return self.step.work.paths if self.step.work else ()

    @cached_property
    def change_as_written(self) -> PatchFacts | None:
        """The work as file changes: with a workspace, the executor's patch when it gives exactly the work tree (the
        rules have checked that), since git's diff of the work tree finds no renames and would show a moved file as
        a deletion and an addition; otherwise the work itself."""
        git, patch = self.step.git, self.step.patch
        exact = git is not None and patch is not None and not git.patch_error and not git.mismatches
        return patch if exact else self.step.work

    @cached_property
    def changed_lines(self) -> int:
        """Added plus removed lines, a rename counted as `git diff -M` counts it."""
        counted = self.change_as_written
        return (counted.added_count + counted.removed_count) if counted else 0

    @cached_property
    def approval_hash(self) -> str:
        """sha256 of the work a person approves (judge/workspace/work_hash.py): base and every changed file, the
        step's evidence file too; without a workspace, the patch."""
        git = self.step.git
        return approval_hash(git) if git is not None else patch_work_hash(self.step.work_text)
