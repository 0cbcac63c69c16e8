"""The repository's objects and refs read as untrusted data: libgit2 on the object database alone, every object verified against its id.

Why libgit2 (pygit2) and not git: git always reads the repository's config, and the config is
the executor's to write (filters, hooks, includes, promisor fetches, core.worktree). Opened on
its object database alone, libgit2 reads no config, runs no program, fetches nothing, knows no
replace refs or grafts, and checks every object it reads against its id, so a forged object is
an error rather than a fact. HEAD, the refs and the index are small files judge reads itself,
refusing anything that is not a plain file.
"""

from __future__ import annotations

import hashlib
import os
import stat
import struct
import zlib
from pathlib import Path
from typing import Any

import pygit2

from judge.errors import InputError, WorkspaceRefused, field_ref
from judge.lazy_pattern import lazy_compile
from judge.workspace.git import EMPTY_TREE
from judge.workspace.plainfile import TooLarge, read_plain

# libgit2's default, set anyway: judge's trust in an object rests on it matching its id.
pygit2.settings.enable_strict_hash_verification(True)

__all__ = ["FileState", "ObjectStore", "git_dir", "read_head", "read_index"]

_FULL_ID = lazy_compile(r"[0-9a-f]{40}")
_REF_NAME = lazy_compile(r"refs/[A-Za-z0-9._/+@-]+")
_TREE = 0o040000
_ALTERNATES_DEPTH = 5  # libgit2's own limit
_SMALL_FILE_LIMIT = 64 * 1024 * 1024  # packed-refs of a huge repository stays well under this

# (mode, object id): one path's content in a tree, the index or the work tree.
FileState = tuple[int, str]


def git_dir(root: str) -> Path:
    """``root``/.git, when it is a plain directory; InputError otherwise (a .git file or link is never followed)."""
    path = Path(root) / ".git"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise WorkspaceRefused(f"{root}: not the top of a git work tree (it has no .git directory)",
                               field="repo") from None
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "a file"
        raise WorkspaceRefused(f"{root}: .git is {kind}, not a directory; judge does not follow it to another git "
                         "directory (it could lead to a decoy). Judge a clone whose .git is a plain directory",
                         field="repo")
    return path


class ObjectStore:
    """The repository's objects (read-only, verified) behind a scratch object directory that takes every write."""

    def __init__(self, gitdir: Path, scratch_objects: str) -> None:
        objects = gitdir / "objects"
        _check_object_directories(objects)
        odb = pygit2.Odb(scratch_objects)
        odb.add_disk_alternate(str(objects))
        self.repo = pygit2.Repository()
        self.repo.set_odb(odb)
        self.odb = odb
        self._scratch = scratch_objects

    def resolve_base(self, base: str, unborn: bool = False) -> tuple[str, pygit2.Tree]:
        """(the commit or empty-tree id, its tree); InputError unless ``base`` is a full id naming a commit.

        ``unborn``: the repository has no commit yet, so the message points at the empty tree.
        """
        given = base.strip()
        empty = f" (the repository has no commits: give {field_ref('base')} {EMPTY_TREE}, git's empty tree)" \
            if unborn else ""
        if not _FULL_ID.fullmatch(given.lower()):
            raise WorkspaceRefused(f"{base[:80]!r} is not a full commit id: give the full 40-character id of the commit the "
                             f"step started from (`git rev-parse {given[:40] or 'HEAD'}` prints it){empty}. judge does "
                             "not resolve ref names or short ids, which the repository itself can redefine",
                             field="base")
        object_id = given.lower()
        if object_id == EMPTY_TREE:
            return object_id, self.repo[self.repo.TreeBuilder().write()]
        found = self.get(object_id, field="base")
        if found is None:
            raise WorkspaceRefused(f"{object_id}: no such commit in the repository; give the commit the step started "
                             f"from{empty}", field="base")
        if not isinstance(found, pygit2.Commit):
            raise WorkspaceRefused(f"{object_id} names a {found.type_str}, not a commit; give the commit the step started "
                             "from", field="base")
        return object_id, self.tree_of(found)

    def get(self, object_id: str, field: str = "repo") -> Any:
        """The object, None when the repository lacks it; InputError when it does not match its id."""
        try:
            return self.repo.get(object_id)
        except (pygit2.GitError, ValueError) as exc:
            raise InputError(f"object {object_id} cannot be read ({exc}); the repository is corrupt or was "
                             "tampered with", field=field) from None

    def tree_of(self, commit: pygit2.Commit) -> pygit2.Tree:
        try:
            return commit.tree
        except (pygit2.GitError, KeyError) as exc:
            raise InputError(f"the tree of commit {commit.id} cannot be read ({exc}); the repository is corrupt or "
                             "was tampered with", field="repo") from None

    def commit_tree(self, object_id: str | None) -> pygit2.Tree | None:
        """The tree of the commit ``object_id`` (None for None); InputError when it is missing or not a commit."""
        if object_id is None:
            return None
        found = self.get(object_id)
        if not isinstance(found, pygit2.Commit):
            raise InputError(f"HEAD names {object_id}, which is not a commit in the repository", field="repo")
        return self.tree_of(found)

    def files(self, tree: pygit2.Tree | None) -> dict[str, FileState]:
        """Every file of ``tree`` (gitlinks included) by path, each tree verified as it is read."""
        found: dict[str, FileState] = {}
        pending = [(tree, "")] if tree is not None else []
        while pending:  # a loop, not recursion: a tree may nest thousands deep
            current, prefix = pending.pop()
            try:
                for entry in current:
                    if entry.filemode == _TREE:
                        pending.append((self.repo[entry.id], f"{prefix}{entry.name}/"))
                    else:
                        found[prefix + entry.name] = (_normal_mode(entry.filemode), str(entry.id))
            except (pygit2.GitError, KeyError) as exc:
                raise InputError(f"tree {current.id} cannot be read ({exc}); the repository is corrupt or was "
                                 "tampered with", field="repo") from None
        return found

    def blob(self, object_id: str) -> bytes:
        found = self.get(object_id)
        if not isinstance(found, pygit2.Blob):
            raise InputError(f"blob {object_id} is missing from the repository", field="repo")
        return found.data

    def write_blob(self, data: bytes) -> str:
        """Stores ``data`` in the scratch object directory (never the repository's) as a loose object; its id.

        Written by hand: libgit2 skips a write when any backend, the repository's included, has
        the object, and git, which sees only the scratch directory, must find it there.
        """
        header = b"blob %d\0" % len(data)
        object_id = hashlib.sha1(header + data).hexdigest()
        folder = os.path.join(self._scratch, object_id[:2])
        path = os.path.join(folder, object_id[2:])
        if not os.path.exists(path):
            os.makedirs(folder, exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(zlib.compress(header + data, 1))
        return object_id


def read_head(gitdir: Path) -> str | None:
    """The commit HEAD names; None when HEAD is a branch with no commit yet (a new repository)."""
    if (gitdir / "reftable").exists():
        raise InputError(f"{gitdir}: the repository keeps its refs in a reftable, which judge cannot read yet",
                         field="repo")
    head = _read_small(gitdir / "HEAD").decode("ascii", "replace").strip()
    if head.startswith("ref:"):
        return _ref(gitdir, head[4:].strip())
    if _FULL_ID.fullmatch(head):
        return head
    raise InputError(f"{gitdir}/HEAD holds neither a ref nor a commit id", field="repo")


def read_index(gitdir: Path) -> dict[str, FileState]:
    """The staged files by path (every stage), or {} when there is no index.

    Read by judge (index versions 2 to 4): only paths, modes and ids are needed, and no
    extension is honoured (a split index's shared part is refused, not followed).
    """
    path = gitdir / "index"
    if not os.path.lexists(path):
        return {}
    data = _read_small(path, limit=None)
    try:
        return _index_entries(data)
    except (struct.error, ValueError, IndexError) as exc:
        raise InputError(f"{path} cannot be read ({exc}); judge reads the index to find staged files, so a "
                         "repository whose index it cannot read is refused", field="repo") from None


def _index_entries(data: bytes) -> dict[str, FileState]:
    signature, version, count = struct.unpack_from(">4sLL", data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise ValueError(f"not a git index of version 2, 3 or 4 (signature {signature!r}, version {version})")
    found: dict[str, FileState] = {}
    offset, previous = 12, b""
    for _ in range(count):
        start = offset
        mode, = struct.unpack_from(">L", data, offset + 24)
        object_id = data[offset + 40:offset + 60].hex()
        flags, = struct.unpack_from(">H", data, offset + 60)
        offset += 62
        if version >= 3 and flags & 0x4000:
            offset += 2  # extended flags (skip-worktree, intent-to-add): not trusted, not needed
        if version == 4:
            strip, offset = _varint(data, offset)
            if strip > len(previous):
                raise ValueError("a path prefix longer than the previous path")
            end = data.index(b"\0", offset)
            name = previous[:len(previous) - strip] + data[offset:end]
            offset = end + 1
        else:
            end = data.index(b"\0", offset)
            name = data[offset:end]
            offset = start + ((end - start) // 8 + 1) * 8  # NUL-padded to a multiple of 8
        if offset > len(data) - 20:
            raise ValueError("an entry runs past the end of the file")
        previous = name
        found[name.decode("utf-8", "surrogateescape")] = (_normal_mode(mode), object_id)
    return found


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset varint (index v4's prefix length)."""
    byte = data[offset]
    value = byte & 0x7F
    offset += 1
    while byte & 0x80:
        byte = data[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
        offset += 1
    return value, offset


def _ref(gitdir: Path, name: str) -> str | None:
    if not _REF_NAME.fullmatch(name) or ".." in name.split("/") or "//" in name:
        raise InputError(f"{gitdir}/HEAD names {name[:80]!r}, which is not a branch", field="repo")
    loose = gitdir / name
    if os.path.lexists(loose):
        value = _read_small(loose).decode("ascii", "replace").strip()
        if not _FULL_ID.fullmatch(value):
            raise InputError(f"{loose} holds no commit id", field="repo")
        return value
    packed = gitdir / "packed-refs"
    if os.path.lexists(packed):
        for line in _read_small(packed).decode("utf-8", "replace").splitlines():
            object_id, _, ref = line.partition(" ")
            if ref == name and _FULL_ID.fullmatch(object_id):
                return object_id
    return None


def _normal_mode(mode: int) -> int:
    """Trees may hold legacy modes such as 100664: git compares a regular file's mode by its executable bit only."""
    mode = int(mode)
    if stat.S_ISREG(mode):
        return 0o100755 if mode & 0o100 else 0o100644
    return mode


def _check_object_directories(objects: Path, depth: int = 0) -> None:
    """Refuses anything in an object directory (and its alternates) that is not a plain file or directory.

    libgit2 opens object files with a blocking open(): a fifo where an object or a pack should be
    would stop judge for good, so none may be there when it starts.
    """
    _plain_directory(objects)
    try:
        with os.scandir(objects) as entries:
            folders = [entry.path for entry in entries if entry.name != "info" and entry.is_dir(follow_symlinks=False)]
        for folder in folders:
            try:
                with os.scandir(folder) as files:
                    odd = next((item.path for item in files if not (item.is_file(follow_symlinks=False)
                                                                    or item.is_dir(follow_symlinks=False))), None)
            except FileNotFoundError:
                continue  # a `git gc` running beside judge packed and removed it: nothing left to block on
            if odd is not None:
                raise InputError(f"{odd} is not a plain file; judge reads only plain files in .git", field="repo")
    except OSError as exc:
        raise InputError(f"{objects} cannot be read ({exc.strerror})", field="repo") from None
    alternates = objects / "info" / "alternates"
    if not os.path.lexists(alternates):
        return
    if depth >= _ALTERNATES_DEPTH:
        raise InputError(f"{alternates}: alternates nest deeper than {_ALTERNATES_DEPTH}", field="repo")
    for line in _read_small(alternates).decode("utf-8", "surrogateescape").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            _check_object_directories(Path(os.path.join(objects, line)), depth + 1)


def _plain_directory(path: Path) -> None:
    try:
        info = os.stat(path)
    except OSError as exc:
        raise InputError(f"{path} cannot be read ({exc.strerror})", field="repo") from None
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path} is not a directory", field="repo")


def _read_small(path: Path, limit: int | None = _SMALL_FILE_LIMIT) -> bytes:
    """A plain file's bytes, without following a link or blocking on a fifo; InputError for anything else."""
    try:
        data = read_plain(path, limit)
    except OSError as exc:
        raise InputError(f"{path} cannot be read ({exc.strerror}); judge reads only plain files in .git",
                         field="repo") from None
    except TooLarge:
        raise InputError(f"{path} is larger than {limit} bytes", field="repo") from None
    if data is None:
        raise InputError(f"{path} is not a plain file; judge reads only plain files in .git", field="repo")
    return data
