"""What changed between a base commit and the work tree, read from the repository as untrusted data, with the executor's patch checked against it.

The repository is written by the executor judge is judging, so nothing in it is obeyed:
objects are read through libgit2 on the object database alone, each verified against its id
(judge/workspace/objects.py); work-tree files are hashed by judge as raw bytes
(judge/workspace/worktree.py); git runs only in a scratch GIT_DIR with no config
(judge/workspace/sterile.py). No filter, hook, attribute, include, core.* setting, replace
ref, graft or promisor remote of the repository has any effect, and nothing is written to it.

The diff from base to the work tree (committed, staged, unstaged and untracked-not-ignored
alike) is computed here: it is the work the rules judge. The reported patch is
applied to base and compared with the work tree file by file (judge/workspace/reported_patch.py).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING
from pathlib import Path

from judge.errors import WorkspaceRefused
from judge.patch.model import PatchFacts

if TYPE_CHECKING:
    from judge.workspace.ignored import IgnoredCode

__all__ = ["EMPTY_TREE", "GitFacts", "read_git_facts", "resolve_repository"]

# git's empty tree: the base to give for a repository that had no commits when the step began.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_PLACES = ("committed", "staged", "unstaged", "untracked")
TEXT_LIMIT = 1 << 20  # a changed file's side larger than this is read by its hunks only


@dataclass(frozen=True)
class Mismatch:
    """A file the patch and the work tree disagree on: where, what the patch gives, what the file holds."""

    path: str
    line: int  # 1-based line of the first difference in the file the patch gives (0: the file as a whole)
    claimed: str
    actual: str


@dataclass(frozen=True)
class GitFacts:
    """What changed between ``base`` and the work tree, where each change sits, and how the executor's patch compares."""

    root: str
    base: str  # the full object id of the base commit (or EMPTY_TREE)
    head: str | None  # None in a repository with no commits
    changed: tuple[str, ...]  # every path whose work-tree content or mode differs from base
    committed: tuple[str, ...] = ()  # of those: HEAD differs from base
    staged: tuple[str, ...] = ()  # the index differs from HEAD
    unstaged: tuple[str, ...] = ()  # the work tree differs from the index
    untracked: tuple[str, ...] = ()  # not in the index
    file_diffs: tuple[tuple[str, str], ...] = ()  # (path, its git diff from base to the work tree), by path
    work: PatchFacts = PatchFacts(())  # that diff, parsed
    patch_error: str | None = None  # why the result's patch does not apply to base; None if it does or there is none
    mismatches: tuple[Mismatch, ...] = ()  # files where the patch applied to base does not give the work tree's bytes
    base_paths: frozenset[str] = frozenset()  # every file in base's tree
    uncommitted: tuple[str, ...] = ()  # what `git status` shows: the index or the work tree differs from HEAD
    work_states: tuple[tuple[str, int, str], ...] = ()  # (path, mode, full blob id; 0 and "" when deleted) per change
    texts: tuple[tuple[str, str | None, str | None], ...] = ()  # (path, its text at base, in the work tree) per changed
    # text file up to TEXT_LIMIT bytes a side (None: no such file on that side); what code detectors read whole
    ignored_code: tuple["IgnoredCode", ...] = ()  # ignored files beside the judged tree that can run (reported)
    unjudged_head: tuple[str, ...] = ()  # files HEAD's commit (moved from base) holds as neither base nor the work tree

    def where(self, path: str) -> str:
        """``committed``, ``staged``, ``unstaged`` or ``untracked``: the first place the change shows."""
        return next((place for place in _PLACES if path in getattr(self, place)), "unchanged")

    def diff(self, paths: tuple[str, ...] | None = None) -> str:
        """The diff from base to the work tree, of ``paths`` only when given."""
        wanted = None if paths is None else set(paths)
        return "".join(text for path, text in self.file_diffs if wanted is None or path in wanted)


def read_git_facts(repo: str | os.PathLike[str], base: str, patch: str | None = None) -> GitFacts:
    """The facts for ``repo`` against ``base``; InputError when the repository or base cannot be read."""
    from judge.workspace.reader import read_workspace  # libgit2 loads only for runs with a workspace

    return read_workspace(_root(repo), base, patch)


def resolve_repository(repo: str | os.PathLike[str], base: str) -> tuple[str, str]:
    """(the work tree, the full id ``base`` names); InputError when either cannot be read."""
    from judge.workspace.objects import ObjectStore, git_dir, read_head
    from judge.workspace.sterile import SterileGit

    root = _root(repo)
    gitdir = git_dir(root)
    with SterileGit(outside=root) as git:
        return root, ObjectStore(gitdir, git.objects).resolve_base(base, unborn=read_head(gitdir) is None)[0]


def _root(repo: str | os.PathLike[str]) -> str:
    path = Path(repo)
    if not path.is_dir():
        raise WorkspaceRefused(f"{repo}: no such directory", field="repo")
    return os.path.abspath(path)
