"""Directories walked and written through file descriptors, never through a symlink: a link swapped in is refused, not followed.

A path is re-read by the kernel at every use, so a command that renames a directory and leaves a
link in its place redirects any later write made by path. Here each level is opened relative to
the one above with O_NOFOLLOW, files are created relative to their directory's descriptor, and a
descriptor can be checked to still be the directory its name leads to.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterable

from judge.errors import InputError

__all__ = ["open_real_dir", "open_child_dir", "still_named", "create_new_file", "entry_exists"]

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
_NEW_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def open_real_dir(path: str | os.PathLike[str], *, create: bool) -> int:
    """A descriptor on directory ``path``, opened one component at a time from ``/`` or the working
    directory; InputError when any component is a symlink. Missing components are made when ``create``."""
    if os.open not in os.supports_dir_fd or not hasattr(os, "O_NOFOLLOW"):
        raise InputError("this platform cannot open directories without following symlinks; judge run needs POSIX")
    given = Path(path)
    fd = os.open(given.anchor or ".", _DIR_FLAGS)
    shown = Path(given.anchor)
    try:
        for part in given.parts[1:] if given.anchor else given.parts:
            shown = shown / part
            child = open_child_dir(fd, part, create=create, shown=shown)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_child_dir(parent_fd: int, name: str, *, create: bool, shown: str | os.PathLike[str]) -> int:
    """A descriptor on directory ``name`` inside ``parent_fd``, made when missing and ``create``; ``shown`` names it."""
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        if not create:
            raise InputError(f"{shown}: no such directory") from None
    except OSError as exc:
        raise _refusal(parent_fd, name, shown, exc) from None
    try:
        os.mkdir(name, dir_fd=parent_fd)
    except FileExistsError:
        pass  # made meanwhile by someone else: opened below with no-follow like any other
    except OSError as exc:
        raise InputError(f"{shown}: cannot create it ({exc.strerror or exc})") from None
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except OSError as exc:
        raise _refusal(parent_fd, name, shown, exc) from None


def entry_exists(parent_fd: int, name: str) -> bool:
    """Whether anything (a link included) is named ``name`` inside ``parent_fd``."""
    try:
        os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def still_named(fd: int, parent_fd: int, name: str) -> bool:
    """Whether ``name`` inside ``parent_fd`` is still the very directory ``fd`` is open on (not moved, not replaced)."""
    try:
        named = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return False
    held = os.fstat(fd)
    return stat.S_ISDIR(named.st_mode) and (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def create_new_file(dir_fd: int, name: str, pieces: Iterable[bytes], *, shown: str) -> None:
    """Create ``name`` inside ``dir_fd`` (never an existing file, never through a link) and write ``pieces`` to it."""
    try:
        fd = os.open(name, _NEW_FILE_FLAGS, 0o644, dir_fd=dir_fd)
    except OSError as exc:
        raise InputError(f"{shown}: cannot create it ({exc.strerror or exc})") from None
    with os.fdopen(fd, "wb") as handle:
        for piece in pieces:
            handle.write(piece)


def _refusal(parent_fd: int, name: str, shown: str | os.PathLike[str], exc: OSError) -> InputError:
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=parent_fd, follow_symlinks=False).st_mode)
    except OSError:
        is_link = False
    if is_link or exc.errno == errno.ELOOP:
        return InputError(f"{shown}: is a symlink; judge writes artifacts only under real directories, "
                          "never through a link: remove it, or give the directory it points to")
    if exc.errno == errno.ENOTDIR:
        return InputError(f"{shown}: is not a directory; give a directory")
    return InputError(f"{shown}: cannot open it ({exc.strerror or exc})")
