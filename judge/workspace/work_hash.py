"""The work hash: the one sha256 that names the judged work, which approvals and execution records are bound to.

With a workspace it covers every changed file's path, mode and full blob id against base (git's diff shows a
binary file by an abbreviated id only), so two tree states with the same base hash the same exactly when their
files are the same. The step's own evidence file is left out: it is written after the tests ran, to report them,
and proves the work rather than being it. Without a workspace, the work is the patch's text.
"""

from __future__ import annotations

import hashlib
import os

from judge.runs.binding import WorkBinding
from judge.workspace.evidence_file import evidence_path
from judge.workspace.git import GitFacts, read_git_facts

__all__ = ["approval_hash", "patch_work_hash", "tree_work_hash", "work_binding"]


def tree_work_hash(git: GitFacts, step_id: str) -> str:
    """The hash of the work tree ``git`` read, against its base, for step ``step_id``."""
    return _files_hash(b"judge work v1\0", git, leave_out=evidence_path(step_id))


def approval_hash(git: GitFacts) -> str:
    """What a person approves: the work tree against base, the base itself and every changed file, the step's own
    evidence file included (for a step that changed nothing else, that file is the work the person saw)."""
    return _files_hash(f"judge approval v1\0{git.base}\0".encode("ascii"), git)


def _files_hash(prefix: bytes, git: GitFacts, leave_out: str | None = None) -> str:
    """sha256 of ``prefix`` then every changed file's path, mode and full blob id but ``leave_out``."""
    digest = hashlib.sha256(prefix)
    for path, mode, blob in git.work_states:
        if path != leave_out:
            digest.update(f"{path}\0{mode:o}\0{blob}\0".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def patch_work_hash(work_text: str) -> str:
    """The hash of work known only as a patch."""
    return hashlib.sha256(work_text.encode("utf-8", "surrogateescape")).hexdigest()


def work_binding(repo: str | os.PathLike[str], base: str, step_id: str) -> WorkBinding:
    """What a record of a command run now in ``repo`` is bound to: the work tree's top, ``base``'s full id and the
    tree's work hash for step ``step_id``; InputError when the repository or base cannot be read."""
    git = read_git_facts(repo, base)
    return WorkBinding(os.path.realpath(git.root), git.base, tree_work_hash(git, step_id))
