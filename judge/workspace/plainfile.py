"""Reading one file in a directory the executor wrote: never through a link, never waiting on a fifo, never past a size limit."""

from __future__ import annotations

import os
import stat

__all__ = ["TooLarge", "read_open", "read_plain"]

# O_NOFOLLOW: a link is refused (ELOOP), not followed; O_NONBLOCK: opening a fifo cannot make judge wait.
_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK


class TooLarge(Exception):
    def __init__(self, size: int) -> None:
        super().__init__(f"{size} bytes")
        self.size = size


def read_plain(path: str | os.PathLike[str], limit: int | None = None) -> bytes | None:
    """The bytes of the plain file at ``path``; None when it is a directory, a fifo or a device.

    OSError when it cannot be opened (ELOOP for a link); TooLarge when it holds more than ``limit`` bytes.
    """
    fd = os.open(path, _FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None
        if limit is not None and info.st_size > limit:
            raise TooLarge(info.st_size)
        return read_open(fd, info.st_size)
    finally:
        os.close(fd)


def read_open(fd: int, size: int) -> bytes:
    """Everything an open file holds, ``size`` being what fstat said (it may have grown since)."""
    chunks = []
    while True:
        chunk = os.read(fd, max(size + 1, 65536))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
