"""The workspace a step ran in (where to look), and the facts judge reads from it once, before any rule runs.

Rules stay pure: they see only the frozen WorkspaceFacts. Everything that touches the disk
(git, the evidence file, the ledger) happens here, in Workspace.read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from judge.errors import InputError, WorkspaceRefused, field_ref
from judge.workspace.evidence_file import EvidenceFileFacts, read_evidence_file
from judge.workspace.git import GitFacts, read_git_facts, resolve_repository
from judge.workspace.ledger import LedgerFacts, check_ledger, read_ledger, refuse_inside_repository

__all__ = ["Workspace", "WorkspaceFacts"]


@dataclass(frozen=True)
class WorkspaceFacts:
    """What the workspace showed: git's view (with the evidence file) and the ledger's, each None when not asked."""

    git: GitFacts | None = None
    evidence_file: EvidenceFileFacts | None = None
    ledger: LedgerFacts | None = None


@dataclass(frozen=True)
class Workspace:
    """Where to look. ``repo`` and ``base`` go together (the commit the step started from).

    ``ledger``, when given, must record a ``ledger_op`` operation for ``ledger_id`` (default: the step's id).
    """

    repo: str | os.PathLike[str] | None = None
    base: str | None = None
    ledger: str | os.PathLike[str] | None = None
    ledger_op: str = "close"
    ledger_id: str | None = None

    def check(self) -> None:
        """InputError (with its field) when the repository, the base or the ledger cannot be read."""
        self.check_arguments()
        if self.repo is not None:
            resolve_repository(self.repo, self.base)  # type: ignore[arg-type]
        if self.ledger is not None:
            check_ledger(self.ledger)

    def read(self, step_id: str, patch: str | None) -> WorkspaceFacts:
        """Every workspace fact for the step ``step_id`` whose result carries ``patch``; InputError as check()."""
        self.check_arguments()
        git = read_git_facts(self.repo, self.base, patch) if self.repo is not None else None  # type: ignore[arg-type]
        evidence = _evidence_file(git, step_id) if git is not None else None
        ledger = None
        if self.ledger is not None:
            target = self.ledger_id or step_id
            if not target:
                raise _ledger_needs()
            ledger = read_ledger(self.ledger, self.ledger_op, target)
        return WorkspaceFacts(git, evidence, ledger)

    def check_arguments(self) -> None:
        """WorkspaceRefused when the arguments do not go together (before anything is read)."""
        if (self.repo is None) != (self.base is None):
            raise WorkspaceRefused(f"and {field_ref('base')} go together: give the repository and the commit the step "
                             "started from", field="repo")
        if self.ledger is not None and not self.ledger_op:
            raise _ledger_needs()
        if self.ledger is not None and self.repo is not None:
            refuse_inside_repository(self.ledger, self.repo)


def _ledger_needs() -> InputError:
    return WorkspaceRefused(f"needs an operation ({field_ref('ledger_op')}) and an id ({field_ref('ledger_id')}, "
                      "default the step id)", field="ledger")


def _evidence_file(git: GitFacts, step_id: str) -> EvidenceFileFacts | None:
    facts = read_evidence_file(git.root, step_id)
    # A committed evidence file that this step did not touch was left by an earlier run: it proves nothing now.
    if facts is not None and facts.valid and facts.path not in git.changed and facts.path in git.base_paths:
        return replace(facts, problem="it is unchanged since base, so an earlier run left it")
    return facts
