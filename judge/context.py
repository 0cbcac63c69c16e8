"""StepContext: the frozen input both judging stages read — step, result, workspace facts, execution records and
the key they must be signed with — and every fact derived from them, each computed once, on first use."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from judge.errors import MalformedPatch
from judge.patch.model import PatchFacts, fact
from judge.patch.parse import parse_patch
from judge.patch.paths import normalize_path, unquote_git_path, unsafe_reason

if TYPE_CHECKING:  # the types of what the caller hands in; their modules are for runs that read a workspace or keys
    from judge.code.change import ChangeModel
    from judge.contract.models import ExecuteStepResult, ExecutionEvidence, Step
    from judge.runs.keys import EvidenceKey
    from judge.workspace.facts import WorkspaceFacts
    from judge.workspace.git import GitFacts

__all__ = ["EvidenceMethod", "StepContext"]

EvidenceMethod = Literal["file_changes", "evidence_file", "expects_no_changes", "none"]


@dataclass(frozen=True)
class StepContext:
    """A rule that rejects early never pays for the facts it did not read (a patch parse, say)."""

    step: Step
    result: ExecuteStepResult
    workspace: WorkspaceFacts | None = None  # read once by the pipeline when the caller gives a workspace
    executions: tuple[ExecutionEvidence, ...] = ()  # execution evidence records attached by the caller
    evidence_key: EvidenceKey | None = None  # set: every record must carry this key's evidenceMac

    @property
    def has_patch(self) -> bool:
        patch = self.result.patch  # more than white space: isspace() stops at the first other character, strip() copies
        return bool(patch) and not patch.isspace()  # type: ignore[union-attr]

    @fact
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

    @fact
    def apply_patch(self) -> PatchFacts | None:
        """The earlier apply step's patch, when the step gives one that parses."""
        if not (self.step.apply_patch and self.step.apply_patch.strip()):
            return None
        try:
            return parse_patch(self.step.apply_patch)
        except MalformedPatch:
            return None

    @fact
    def files_written(self) -> tuple[str, ...]:
        return _normalized(self.result.files_written)

    @fact
    def files_touched(self) -> tuple[str, ...]:
        return _normalized(self.result.files_touched)

    @property
    def patch_paths(self) -> tuple[str, ...]:
        """Every path the patch writes to (paths are normalised when the patch is parsed)."""
        return self.patch.paths if self.patch else ()

    @fact
    def written_paths(self) -> tuple[str, ...]:
        """Files the result says it writes: patch headers and filesWritten (filesTouched may include reads)."""
        return tuple(dict.fromkeys(self.patch_paths + self.files_written))

    @fact
    def claimed_paths(self) -> tuple[str, ...]:
        """Every path the result writes to or claims to: patch headers, filesWritten, filesTouched."""
        return tuple(dict.fromkeys(self.written_paths + self.files_touched))

    @fact
    def unsafe_paths(self) -> dict[str, str]:
        """Each unsafe path among ``claimed_paths`` and ``work_paths``, in that order, with why it is unsafe."""
        return {path: why for path in dict.fromkeys(self.claimed_paths + self.work_paths) if (why := unsafe_reason(path))}

    @property
    def git(self) -> GitFacts | None:
        return self.workspace.git if self.workspace else None

    @fact
    def work_files(self) -> tuple[str, ...]:
        """Files git shows changed that are work: the step's own evidence file proves work but is not the work itself
        (any other file under .orchestrator/evidence/ is work like any file: code could import it)."""
        changed = self.git.changed if self.git else ()
        return tuple(path for path in changed if path != self._evidence_file)

    @property
    def _evidence_file(self) -> str:
        from judge.workspace.evidence_file import evidence_path  # a workspace was read: its module is loaded

        return evidence_path(self.step.id)

    @fact
    def work(self) -> PatchFacts | None:
        """What the step changed, the thing to judge: git's diff from base to the work tree when a workspace was
        read (evidence files left out), else the executor's patch. None when there is no change to judge."""
        if self.git is None:
            return self.patch
        files = tuple(change for change in self.git.work.files
                      if not all(path == self._evidence_file for path in change.paths))
        return PatchFacts(files) if files else None

    @fact
    def changes(self) -> ChangeModel | None:
        """The work read once for every code detector: each file's hunk sides, whole texts (with a workspace) and
        what they define (judge/code/change.py). None when there is no change to judge."""
        from judge.code.change import ChangeModel  # here: a change with no code to read never loads the code models

        work = self.work
        return ChangeModel(work, self.texts if self.git is not None else None) if work is not None else None

    @fact
    def _texts(self) -> dict[str, tuple[str | None, str | None]]:
        return {path: (old, new) for path, old, new in self.git.texts} if self.git is not None else {}

    def texts(self, path: str) -> tuple[str | None, str | None]:
        """A changed file's whole text at base and in the work tree (None where judge cannot see it: no workspace,
        no such file on that side, binary, or too large); detectors fall back to the hunks then."""
        return self._texts.get(path, (None, None))

    @fact
    def work_text(self) -> str:
        """The text of ``work``: git's diff of the work files, or the executor's patch."""
        return self.git.diff(self.work_files) if self.git is not None else (self.result.patch or "")

    @fact
    def work_paths(self) -> tuple[str, ...]:
        """Every path the step changed by git (with a workspace) and every path the result says it writes."""
        return tuple(dict.fromkeys((self.work.paths if self.work else ()) + self.written_paths))

    @fact
    def evidence_method(self) -> EvidenceMethod | None:
        """How the step proved it worked (seed 000's order); None when no repository was given."""
        if self.git is None:
            return None
        if self.work_files:
            return "file_changes"
        evidence = self.workspace.evidence_file  # type: ignore[union-attr]
        if evidence is not None and evidence.valid:
            return "evidence_file"
        return "expects_no_changes" if self.step.expects_no_changes else "none"


def _normalized(paths: tuple[str, ...] | None) -> tuple[str, ...]:
    # An executor may copy a name from `git status`, which quotes unusual names: unquoted once, here.
    return tuple(dict.fromkeys(normalize_path(unquote_git_path(p)) for p in paths or ()))
