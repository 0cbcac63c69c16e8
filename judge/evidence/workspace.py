"""The workspace a step ran in, and the facts judge reads from it once, before any rule runs.

Rules stay pure: they see only the frozen WorkspaceFacts. Everything that touches the disk
(git, the evidence file, the ledger) happens here, in gather_workspace.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any

from judge.errors import InputError
from judge.evidence.files import EvidenceFileFacts, read_evidence_file
from judge.evidence.git import GitFacts, read_git_facts, tracked_at
from judge.evidence.ledger import LedgerFacts, read_ledger

__all__ = ["Workspace", "WorkspaceFacts", "gather_workspace"]


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


@dataclass(frozen=True)
class WorkspaceFacts:
    """What the workspace showed: git's view (with the evidence file) and the ledger's, each None when not asked."""

    git: GitFacts | None = None
    evidence_file: EvidenceFileFacts | None = None
    ledger: LedgerFacts | None = None


def gather_workspace(workspace: Workspace, step: Any, result: Any) -> WorkspaceFacts:
    """Read every workspace fact for ``step`` and ``result`` (models or raw dicts); InputError on bad input."""
    if (workspace.repo is None) != (workspace.base is None):
        raise InputError("--repo and --base go together: give the repository and the commit the step started from")
    step_id = _field(step, "id")
    git = read_git_facts(workspace.repo, workspace.base, _field(result, "patch")) if workspace.repo is not None else None
    evidence = _evidence_file(git, step_id) if git is not None else None
    ledger = None
    if workspace.ledger is not None:
        target = workspace.ledger_id or step_id
        if not target or not workspace.ledger_op:
            raise InputError("--ledger needs an operation (--ledger-op) and an id (--ledger-id, default the step id)")
        ledger = read_ledger(workspace.ledger, workspace.ledger_op, target)
    return WorkspaceFacts(git, evidence, ledger)


def _evidence_file(git: GitFacts, step_id: str) -> EvidenceFileFacts | None:
    facts = read_evidence_file(git.root, step_id)
    # A committed evidence file that this step did not touch was left by an earlier run: it proves nothing now.
    if facts is not None and facts.valid and facts.path not in git.changed and tracked_at(git.root, git.base, facts.path):
        return replace(facts, problem="it is unchanged since base, so an earlier run left it")
    return facts


def _field(data: Any, name: str) -> str:
    """A string field of a model or of a raw dict; "" when absent or not a string (the contract stage judges that)."""
    value = data.get(name) if isinstance(data, dict) else getattr(data, name, None)
    return value if isinstance(value, str) else ""
