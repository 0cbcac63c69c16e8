"""Reading an append-only JSONL file one bounded line at a time: each line's JSON object, or None when it is not one.

A huge or endless line costs bounded memory: past the cap it is skipped unread into memory and
reported as not an object. Blank lines are skipped (a writer may leave one behind a torn line).
"""

from __future__ import annotations

import json
from typing import BinaryIO, Iterator

__all__ = ["MAX_LINE", "json_lines"]

MAX_LINE = 1024 * 1024


def json_lines(handle: BinaryIO) -> Iterator[tuple[int, dict | None]]:
    """(1-based line number, the line's JSON object or None) for every non-blank line."""
    for number, line in enumerate(_lines(handle), 1):
        if line is not None and not line.strip():
            continue
        yield number, _object(line) if line is not None else None


def _lines(handle: BinaryIO) -> Iterator[bytes | None]:
    """Each line's bytes, or None for a line longer than MAX_LINE (its rest is skipped unread into memory)."""
    while True:
        line = handle.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while (rest := handle.readline(MAX_LINE)) and not rest.endswith(b"\n"):
                pass
            yield None
            continue
        yield line


def _object(line: bytes) -> dict | None:
    try:
        value = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
