"""What gates read from a work tree beyond the diff: one path's kind and bytes, and whether a patch applies to the
files as the step left them — read without following a link, checked by git in a scratch directory, never in the tree."""

from __future__ import annotations

import os
import stat

from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from judge.workspace.sterile import SterileGit
from judge.workspace.worktree import WorkTree

__all__ = ["patch_error_on_work_tree", "probe_path"]


def probe_path(root: str, path: str, limit: int) -> tuple[str, bytes | None]:
    """(kind, bytes): kind is file, missing, symlink, directory, other or "too large" (a file over ``limit`` bytes)."""
    early = _kind_before_reading(root, path, limit)
    if early is not None:
        return early, None
    found = WorkTree(root).read(path)
    if found is not None:
        if found.mode == 0o120000:
            return "symlink", None
        if found.data is None:
            return "directory", None
        return ("too large", None) if len(found.data) > limit else ("file", found.data)
    try:
        info = os.lstat(os.path.join(root, path))
    except OSError:
        return "missing", None
    if stat.S_ISDIR(info.st_mode):
        return "directory", None
    # a link on the way, a fifo, a socket: nothing a file gate may accept
    return ("other", None) if not stat.S_ISLNK(info.st_mode) else ("symlink", None)


def _kind_before_reading(root: str, path: str, limit: int) -> str | None:
    """What lstat alone tells, walking from ``root`` with no link followed: a file too large to read is never read."""
    where = root
    for part in path.split("/")[:-1]:
        where = os.path.join(where, part)
        try:
            info = os.lstat(where)
        except OSError:
            return "missing"
        if not stat.S_ISDIR(info.st_mode):
            return "missing" if not stat.S_ISLNK(info.st_mode) else "other"  # a link on the way leads elsewhere
    try:
        info = os.lstat(os.path.join(root, path))
    except OSError:
        return "missing"
    return "too large" if stat.S_ISREG(info.st_mode) and info.st_size > limit else None


def patch_error_on_work_tree(root: str, patch: str) -> str | None:
    """Why ``patch`` does not apply to the work tree's current files, or None when it applies cleanly."""
    try:
        paths = parse_patch(patch).paths
    except MalformedPatch as exc:
        return f"it is not a patch git would read: {exc}"
    tree = WorkTree(root)
    with SterileGit(outside=root) as git:
        for path in paths:
            found = tree.read(path)
            if found is None or found.data is None:
                continue  # absent here: a patch that creates it applies, one that changes it does not
            blob = git.run("hash-object", "-w", "--stdin", data=found.data)
            entry = f"{found.mode:o},{blob.stdout.decode().strip()},{path}"
            git.run("update-index", "--add", "--cacheinfo", entry)
        proc = git.run("apply", "--cached", "--check", "--whitespace=nowarn", "-",
                       data=patch.encode("utf-8", "surrogateescape"))
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return "; ".join(lines[:3]) or f"git apply exited {proc.returncode}"
    return None
