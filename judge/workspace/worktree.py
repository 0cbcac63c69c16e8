"""The work tree as raw bytes: which paths to look at, and each one's mode and content, read without following a link or running anything.

Files are hashed by judge itself, byte for byte and case-sensitively, with their real
executable bit and symlink status: no filter, no attribute, no core.* setting can make a
change look like none. Only listing the files not ignored by a .gitignore is left to git
(its ignore rules are the reference), in the sterile GIT_DIR, which never reads a file's content.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from judge.errors import InputError
from judge.workspace.objects import FileState, ObjectStore, read_head
from judge.workspace.plainfile import read_open, read_plain
from judge.workspace.sterile import SterileGit

__all__ = ["GITLINK", "MAX_FILE_BYTES", "WorkFile", "WorkTree", "blob_id", "is_binary"]

GITLINK = 0o160000
MAX_FILE_BYTES = 1 << 30
_SYMLINK = 0o120000
_GITIGNORE = ".gitignore"
# The `*` .gitignore a tool writes into its own cache directory, byte for byte, by the directory's name
# (None: any directory holding a pyvenv.cfg). Running pytest is no change to report; a marker copied
# into any other directory, or with other bytes, still is.
_TOOL_CACHES = {
    b"# Created by pytest automatically.\n*\n": ".pytest_cache",
    b"# Automatically created by mypy\n*\n": ".mypy_cache",
    b"# Automatically created by ruff.\n*\n": ".ruff_cache",
    b"# Created by venv; see https://docs.python.org/3/library/venv.html\n*\n": None,
    b"# created by virtualenv automatically\n*\n": None,
}


@dataclass(frozen=True)
class WorkFile:
    """One path's state in the work tree; ``data`` is the content (None for a submodule's commit)."""

    mode: int
    object_id: str
    data: bytes | None

    @property
    def state(self) -> FileState:
        return self.mode, self.object_id


def blob_id(data: bytes) -> str:
    """git's object id for a blob holding ``data``."""
    digest = hashlib.sha1(b"blob %d\0" % len(data))
    digest.update(data)
    return digest.hexdigest()


def is_binary(data: bytes) -> bool:
    """git's test: a NUL byte in the first 8,000 bytes."""
    return b"\0" in data[:8000]


class WorkTree:
    """The directory the caller named, read as it is on disk."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._real_dirs: dict[str, bool] = {"": True}
        self._clean_submodules: set[tuple[str, str]] = set()

    def listed(self, git: SterileGit, tracked: set[str]) -> list[str]:
        """Paths not ignored by a .gitignore, nested repositories as ``dir/``.

        A .gitignore is listed even when it ignores itself (a planted ``*`` would otherwise hide
        itself and its neighbours), unless it is a tool's cache marker and not in ``tracked``.
        """
        proc = git.run("ls-files", "-z", "--others", f"--exclude-per-directory={_GITIGNORE}",
                       f"--exclude=!{_GITIGNORE}", work_tree=self.root, index=str(git.path / "empty-index"))
        if proc.returncode != 0:
            message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError(f"{self.root}: the work tree cannot be listed ({message[0] if message else 'git failed'})",
                             field="repo")
        listed = [p.decode("utf-8", "surrogateescape") for p in proc.stdout.split(b"\0") if p]
        return [p for p in listed if p in tracked or not self._tool_cache_marker(p)]

    def _tool_cache_marker(self, path: str) -> bool:
        folder, _, name = path.rpartition("/")
        if name != _GITIGNORE or not folder:
            return False
        data = _read_plain(os.path.join(self.root, path), path)
        if data not in _TOOL_CACHES:
            return False
        expected = _TOOL_CACHES[data]
        if expected is None:
            return os.path.isfile(os.path.join(self.root, folder, "pyvenv.cfg"))
        return folder.rpartition("/")[2] == expected

    def read(self, path: str, gitlink: FileState | None = None) -> WorkFile | None:
        """``path``'s state, or None when no file is there (a directory, a fifo, or a link on the way).

        ``gitlink`` is the submodule entry git tracks at ``path``: a directory there is that
        submodule, and its checked-out commit (not its files: judge does not recurse) is its state.
        """
        parent, _, _ = path.rpartition("/")
        if not self._real_dir(parent):
            return None
        full = os.path.join(self.root, path)
        try:
            # O_NOFOLLOW: a link is read as a link; O_NONBLOCK: a fifo cannot make judge wait.
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            if exc.errno != errno.ELOOP:
                raise InputError(f"{path} cannot be read ({exc.strerror})", field="repo") from None
            target = os.readlink(os.fsencode(full))
            return WorkFile(_SYMLINK, blob_id(target), target)
        try:
            info = os.fstat(fd)
            if stat.S_ISREG(info.st_mode):
                if info.st_size > MAX_FILE_BYTES:
                    raise InputError(f"{path} is {info.st_size} bytes, more than judge reads "
                                     f"({MAX_FILE_BYTES} bytes); keep files that large out of the work tree",
                                     field="repo")
                data = read_open(fd, info.st_size)
                return WorkFile(0o100755 if info.st_mode & 0o100 else 0o100644, blob_id(data), data)
        finally:
            os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            return self._submodule(path, gitlink)
        return None

    def _submodule(self, path: str, gitlink: FileState | None) -> WorkFile | None:
        dot_git = os.path.join(self.root, path, ".git")
        if not os.path.lexists(dot_git):
            # Not checked out (an empty directory): git counts that as unchanged, and so does judge.
            return WorkFile(GITLINK, gitlink[1], None) if gitlink else None
        gitdir = self._submodule_gitdir(path, dot_git)
        head = read_head(gitdir)
        if head is None:
            return WorkFile(GITLINK, gitlink[1], None) if gitlink else None
        if (path, head) not in self._clean_submodules:
            _refuse_dirty_submodule(os.path.join(self.root, path), path, gitdir, head)
            self._clean_submodules.add((path, head))
        return WorkFile(GITLINK, head, None)

    def _submodule_gitdir(self, path: str, dot_git: str) -> Path:
        """The submodule's git directory: its own .git, or the one its .git file names inside this repository's .git."""
        info = os.lstat(dot_git)
        if stat.S_ISDIR(info.st_mode):
            return Path(dot_git)
        data = _read_plain(dot_git, f"{path}/.git") if stat.S_ISREG(info.st_mode) else None
        text = (data or b"").decode("utf-8", "replace").strip()
        target = os.path.realpath(os.path.join(self.root, path, text[len("gitdir:"):].strip())) \
            if text.startswith("gitdir:") else ""
        modules = os.path.realpath(os.path.join(self.root, ".git", "modules"))
        if not target or not target.startswith(modules + os.sep):
            raise InputError(f"{path}/.git does not point inside the repository's .git/modules; judge does not follow "
                             "a submodule's .git elsewhere", field="repo")
        return Path(target)

    def _real_dir(self, relative: str) -> bool:
        """True when every component of ``relative`` is a real directory (no symbolic link on the way)."""
        known = self._real_dirs.get(relative)
        if known is not None:
            return known
        unknown = [relative]  # a loop, not recursion: a work tree may nest thousands deep
        while True:
            parent = unknown[-1].rpartition("/")[0]
            if parent in self._real_dirs:
                break
            unknown.append(parent)
        real = self._real_dirs[unknown[-1].rpartition("/")[0]]
        for path in reversed(unknown):
            if real:
                try:
                    real = stat.S_ISDIR(os.lstat(os.path.join(self.root, path)).st_mode)
                except OSError:
                    real = False
            self._real_dirs[path] = real
        return real

    def files_under(self, folder: str) -> list[str]:
        """Every file and link below ``folder`` (its own .git left out), links not followed."""
        found, pending = [], [folder]
        while pending:
            current = pending.pop()
            with os.scandir(os.path.join(self.root, current)) as entries:
                for entry in entries:
                    path = f"{current}/{entry.name}"
                    if entry.name == ".git":
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(path)
                    else:
                        found.append(path)
        return found


def _refuse_dirty_submodule(root: str, path: str, gitdir: Path, head: str) -> None:
    """A submodule is judged by its checked-out commit, so its work tree must hold exactly that commit: read with the
    same sterile reader (its objects verified, its files hashed by judge), any difference is refused."""
    with SterileGit(outside=root) as git:
        store = ObjectStore(gitdir, git.objects)
        files = store.files(store.commit_tree(head))
        tree = WorkTree(root)
        paths = set(files) | {p.rstrip("/") for p in tree.listed(git, set(files))}
        dirty = []
        for name in sorted(paths):
            tracked = files.get(name)
            found = tree.read(name, tracked if tracked and tracked[0] == GITLINK else None)
            if (found.state if found else None) != tracked:
                dirty.append(name)
    if dirty:
        shown = ", ".join(dirty[:5]) + (f" and {len(dirty) - 5} more" if len(dirty) > 5 else "")
        raise InputError(f"the submodule {path} has changes its checked-out commit {head[:12]} does not hold "
                         f"({shown}); judge judges a submodule by its commit: commit them inside the submodule (and "
                         "the new commit in the repository), or undo them", field="repo")


def _read_plain(full: str, path: str) -> bytes | None:
    """A plain file's bytes; None when nothing, a link, or something other than a plain file is there."""
    try:
        return read_plain(full)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None
        raise InputError(f"{path} cannot be read ({exc.strerror})", field="repo") from None
