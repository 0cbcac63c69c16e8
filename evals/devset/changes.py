"""Real changes and their diffs: a step's edit made in a fresh repository and recorded
with `git diff` (or GNU `diff -u` for the plain-diff cases), checked to apply."""
from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .gitrepo import FIXED_EPOCH, Repo, deterministic_env, run


@dataclass
class Change:
    """One real change: the patch, the files it names, where it applies."""
    repo: Repo
    patch: str
    files: list[str]
    base: str
    after: str
    checked: bool = True


class ChangeMaker:
    """Makes every change of the set inside one temporary workspace; projects maps a
    short project name to (files, executables) to seed each new repository with."""

    def __init__(self, workspace: Path, projects: dict) -> None:
        self.workspace = workspace
        self.projects = projects

    def _repo(self, project: str) -> Repo:
        files, executables = self.projects[project]
        return Repo(self.workspace, project, files, executables)

    def change(self, project: str, ops, flags=(), setup=None, check=True) -> Change:
        """ops applied to a fresh copy of project (after the setup ops, committed first);
        check=False only for `Binary files ... differ`, which git cannot apply."""
        repo = self._repo(project)
        if setup:
            repo.apply_ops(setup)
            repo.git("add", "-A")
            repo.commit("setup")
        base = repo.head()
        repo.apply_ops(ops)
        patch, files = repo.staged(*flags)
        assert patch.strip(), f"empty diff for {project} {ops[:1]}"
        after = repo.commit("change")
        if check:
            repo.check_apply(patch, base)
        return Change(repo, patch, files, base, after, check)

    def followup(self, prev: Change, ops, flags=()) -> Change:
        """A second change on top of prev (a fix_regression step)."""
        repo = prev.repo
        repo.git("checkout", "-q", prev.after)
        repo.apply_ops(ops)
        patch, files = repo.staged(*flags)
        after = repo.commit("fix")
        repo.check_apply(patch, prev.after)
        return Change(repo, patch, files, prev.after, after)

    def reverse(self, prev: Change) -> Change:
        """`git diff -R` of prev: the exact undo of that change."""
        repo = prev.repo
        patch, files = repo.diff(prev.base, prev.after, "-R")
        repo.check_apply(patch, prev.after)
        return Change(repo, patch, files, prev.after, prev.base)

    def labelled_diff(self, items) -> str:
        """`diff -u --label OLD --label NEW` over (old_label, new_label, old, new)
        tuples; old None means a new file. Used for paths outside any repo."""
        snap = Path(tempfile.mkdtemp(prefix="abs-", dir=self.workspace))
        env = deterministic_env(str(self.workspace))
        chunks = []
        for n, (la, lb, old, new) in enumerate(items):
            fa, fb = snap / f"{n}.old", snap / f"{n}.new"
            fa.write_text(old or "", encoding="utf-8")
            fb.write_text(new, encoding="utf-8")
            cmd = ["diff", "-u", "--label", la if old is not None else "/dev/null",
                   "--label", lb, str(fa.name), str(fb.name)]
            chunks.append(run(cmd, snap, env, ok=(1,)))
        return b"".join(chunks).decode("utf-8")

    def plain(self, project: str, ops, paths, recursive=False, labels=False) -> Change:
        """A change recorded with GNU `diff -u` (no git headers), -p1 style: paths are
        copied to a/ before and b/ after the ops, with a fixed mtime for the headers."""
        repo = self._repo(project)
        base = repo.head()
        snap = Path(tempfile.mkdtemp(prefix="plain-", dir=self.workspace))
        _copy_existing(repo.dir, paths, snap / "a")
        repo.apply_ops(ops)
        _copy_existing(repo.dir, paths, snap / "b")
        for f in sorted(snap.rglob("*")):
            os.utime(f, (FIXED_EPOCH, FIXED_EPOCH))
        patch = self._diff_u(snap, paths, recursive, labels)
        repo.git("add", "-A")
        after = repo.commit("change")
        repo.check_apply(patch, base)
        return Change(repo, patch, list(paths), base, after)

    def _diff_u(self, snap: Path, paths, recursive: bool, labels: bool) -> str:
        """`diff -ruN a b`, or one `diff -u a/P b/P` per path (with --label: no mtimes)."""
        env = deterministic_env(str(self.workspace))
        if recursive:
            return run(["diff", "-ruN", "a", "b"], snap, env, ok=(1,)).decode("utf-8")
        chunks = []
        for p in paths:
            cmd = ["diff", "-u"]
            if labels:
                cmd += ["--label", f"a/{p}", "--label", f"b/{p}"]
            chunks.append(run(cmd + [f"a/{p}", f"b/{p}"], snap, env, ok=(1,)))
        return b"".join(chunks).decode("utf-8")


def _copy_existing(root: Path, paths, side: Path) -> None:
    """Copy each of paths that exists under root to the same place under side."""
    for p in paths:
        src = root / p
        if src.exists():
            dst = side / p
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
