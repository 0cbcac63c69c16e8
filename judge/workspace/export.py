"""The judged tree written out for judge's commands: base plus the judged change, from verified objects, in a scratch
directory — never the executor's work tree, whose ignored files (bytecode, hidden modules, a conftest.py) were never
judged and would run with it.

Base's files come from the repository's objects, each checked against its id by libgit2. A changed file comes from
the same objects when they hold it (committed or staged work), else from the work tree, read again and accepted only
when its bytes still have the id judge judged: a file changed since judging is refused, never run. Submodules are
empty directories (judge reads no submodule's files). The directory is removed when the block ends.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from typing import Iterator

import pygit2

from judge.errors import InputError
from judge.workspace.git import GitFacts
from judge.workspace.objects import FileState, ObjectStore, git_dir
from judge.workspace.reader import refuse_outside_paths
from judge.workspace.sterile import SterileGit
from judge.workspace.worktree import GITLINK, WorkTree

__all__ = ["exported_tree"]

_SYMLINK = 0o120000


@contextmanager
def exported_tree(facts: GitFacts) -> Iterator[str]:
    """A scratch directory holding exactly the tree judge judged (``facts``), removed on exit; InputError when a
    file of it can no longer be read as judged."""
    target = _scratch_directory(facts.root)
    try:
        _write_tree(facts, target)
        yield target
    finally:
        _remove(target)


def _scratch_directory(root: str) -> str:
    scratch = os.path.realpath(tempfile.gettempdir())
    if (scratch + os.sep).startswith(os.path.realpath(root) + os.sep):
        raise InputError(f"the temporary directory {scratch} is inside the repository; judge never writes there: "
                         "set TMPDIR to a directory outside it", field="repo")
    return tempfile.mkdtemp(prefix="judge-tree-", dir=scratch)


def _write_tree(facts: GitFacts, target: str) -> None:
    with SterileGit(outside=facts.root) as git:
        store = ObjectStore(git_dir(facts.root), git.objects)
        files: dict[str, FileState] = store.files(store.resolve_base(facts.base)[1])
        for path, mode, object_id in facts.work_states:
            if mode:
                files[path] = (mode, object_id)
            else:
                files.pop(path, None)
        refuse_outside_paths(set(files))
        tree = WorkTree(facts.root)
        # Links last: no file or directory is ever written through a link the tree itself holds.
        for path in sorted(files, key=lambda p: (files[p][0] == _SYMLINK, p)):
            mode, object_id = files[path]
            _write(target, path, mode, None if mode == GITLINK else _content(store, tree, path, mode, object_id))


def _content(store: ObjectStore, tree: WorkTree, path: str, mode: int, object_id: str) -> bytes:
    found = store.get(object_id)
    if isinstance(found, pygit2.Blob):
        return found.data
    now = tree.read(path)
    if now is None or now.state != (mode, object_id) or now.data is None:
        raise InputError(f"{path} changed in the work tree after judge read it; judge runs commands only on the tree "
                         "it judged: leave the work tree alone while judge runs, and judge again", field="repo")
    return now.data


def _write(target: str, path: str, mode: int, data: bytes | None) -> None:
    full = os.path.join(target, *path.split("/"))
    try:
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if mode == GITLINK:
            os.mkdir(full)
        elif mode == _SYMLINK:
            os.symlink(data, full)  # type: ignore[arg-type]
        else:
            fd = os.open(full, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if mode & 0o100 else 0o644)
            try:
                view = memoryview(data)  # type: ignore[arg-type]
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
    except OSError as exc:
        raise InputError(f"{path} cannot be written to the scratch copy of the judged tree ({exc.strerror}); the "
                         "tree names one path twice or as both a file and a folder", field="repo") from None


def _remove(target: str) -> None:
    """The scratch tree, whatever the command left in it (a folder it made unreadable included)."""
    def unlock(function, path, _exc) -> None:  # type: ignore[no-untyped-def]
        try:
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            function(path)
        except OSError:
            pass
    shutil.rmtree(target, onerror=unlock)
    if os.path.lexists(target):
        shutil.rmtree(target, ignore_errors=True)
