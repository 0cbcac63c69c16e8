"""The reported patch checked against the work: applied to base by git in the sterile GIT_DIR, then compared file by file with the work tree's bytes."""

from __future__ import annotations

from dataclasses import dataclass

import pygit2

from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from judge.patch.transport import undo_transport_crlf
from judge.workspace.git import Mismatch
from judge.workspace.objects import FileState, ObjectStore
from judge.workspace.sterile import SterileGit
from judge.workspace.worktree import GITLINK, WorkFile, WorkTree

__all__ = ["ReportedPatchCheck", "check_reported_patch"]

_SHOWN_LINES = 3
_SHOWN_CHARS = 240


@dataclass(frozen=True)
class ReportedPatchCheck:
    patch_error: str | None  # why the patch does not apply to base; None when it does (or cannot be read at all)
    mismatches: tuple[Mismatch, ...] = ()


def check_reported_patch(git: SterileGit, store: ObjectStore, base_tree: pygit2.Tree, base: dict[str, FileState],
                work: dict[str, WorkFile | None], tree: WorkTree, patch: str) -> ReportedPatchCheck:
    """Apply ``patch`` to ``base_tree`` and compare each file it names or changes with the work tree.

    ``work`` holds the files that differ from ``base`` (None: gone), already read from ``tree``.

    A bare ``Binary files ... differ`` line carries no content, so git does not apply it; the
    malformed_patch rule rejects such a patch before this check is ever read.
    """
    text = undo_transport_crlf(patch)
    index_path = str(git.path / "claim-index")
    index = pygit2.Index(index_path)
    index.read_tree(base_tree)
    index.write()
    paths: set[str] = set()
    if text.strip():
        try:
            data = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:  # a lone surrogate such as \ud800: no bytes on disk can match it
            return ReportedPatchCheck(f"the patch holds {text[exc.start]!r} at character {exc.start}, which is not valid "
                              "UTF-8 text")
        try:
            paths = {p for change in parse_patch(text).files for p in (change.old_path, change.new_path) if p}
        except MalformedPatch:
            return ReportedPatchCheck(None)  # the malformed_patch rule says why, with the line
        error = _apply(git, store, base, paths, data, index_path)
        if error is not None:
            return ReportedPatchCheck(error)
    claimed = pygit2.Index(index_path)
    deltas = list(base_tree.diff_to_index(claimed).deltas)
    touched = {d.new_file.path for d in deltas} | {d.old_file.path for d in deltas}
    mismatches = []
    # Every file the patch names, not only those it changes: a header whose hunks cancel out must not
    # stand for a file the work tree changed.
    for path in sorted(paths | touched):
        gives = (int(claimed[path].mode), str(claimed[path].id)) if path in claimed else None
        found = work[path] if path in work else tree.read(path)  # an ignored file, such as evidence, is read too
        holds = found.state if found else None
        if gives != holds:
            mismatches.append(_mismatch(store, path, gives, found, holds))
    return ReportedPatchCheck(None, tuple(mismatches))


def _apply(git: SterileGit, store: ObjectStore, base: dict[str, FileState], paths: set[str], data: bytes,
           index_path: str) -> str | None:
    """Applies the patch to the index of base at ``index_path``; why it does not apply, or None."""
    for path in paths:
        state = base.get(path)
        if state is not None and state[0] != GITLINK:
            store.write_blob(store.blob(state[1]))  # verified here, so git reads only checked content
    proc = git.run("apply", "--cached", "--whitespace=nowarn", "-", data=data, index=index_path)
    if proc.returncode != 0 and b"\ndiff --git " not in b"\n" + data:
        # a plain `diff -u` patch may carry no a/ b/ prefixes: try it as written before calling it broken
        retry = git.run("apply", "--cached", "--whitespace=nowarn", "-p0", "-", data=data, index=index_path)
        proc = proc if retry.returncode != 0 else retry
    if proc.returncode != 0:
        return _first_lines(proc.stderr) or f"git apply exited {proc.returncode}"
    return None


def _mismatch(store: ObjectStore, path: str, claimed: FileState | None, found: WorkFile | None,
              holds: FileState | None) -> Mismatch:
    """What differs: presence, mode, a submodule's commit, or the first lines that differ."""
    if claimed is None or holds is None:
        return Mismatch(path, 0, "no file" if claimed is None else "a file", "no file" if holds is None else "a file")
    if claimed[0] != holds[0]:
        return Mismatch(path, 0, f"mode {claimed[0]:o}", f"mode {holds[0]:o}")
    if claimed[0] == GITLINK:
        return Mismatch(path, 0, f"commit {claimed[1]}", f"commit {holds[1]}")
    actual = found.data if found is not None and found.data is not None else store.blob(holds[1])
    diff = pygit2.Patch.create_from(store.blob(claimed[1]), actual, context_lines=0)
    for hunk in diff.hunks:
        gives = [line.content for line in hunk.lines if line.origin == "-"]
        holds = [line.content for line in hunk.lines if line.origin == "+"]
        return Mismatch(path, max(hunk.old_start, 1), _excerpt(gives), _excerpt(holds))
    return Mismatch(path, 0, "other bytes", "other bytes")  # e.g. binary content


def _excerpt(lines: list[str]) -> str:
    if not lines:
        return "nothing"
    shown = "".join(lines[:_SHOWN_LINES]).rstrip("\n")
    more = f" (+{len(lines) - _SHOWN_LINES} more lines)" if len(lines) > _SHOWN_LINES else ""
    return repr(shown[:_SHOWN_CHARS]) + more


def _first_lines(stderr: bytes, limit: int = 3) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return "; ".join(lines[:limit])[:500]
