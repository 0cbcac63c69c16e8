"""Execution evidence as data (seed 001): the output cut, the evidence hash, and the status a record's facts mean.

Pure functions: the same output always gives the same text and the same ``evidenceHash``.
"""

from __future__ import annotations

import hashlib
import json
from itertools import chain
from typing import Sequence

from judge.runs.json_stream import string_pieces

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "TRUNCATED", "derived_status", "evidence_hash", "truncate_output"]

DEFAULT_LIMIT = 64 * 1024  # bytes kept per stream
# At most 16 MiB per stream: escaped as JSON (up to 6 bytes a byte), both outputs still fit the
# 256 MiB that `judge validate --record` reads, and judge's own memory stays a small multiple of it.
MAX_LIMIT = 16 * 1024 * 1024
TRUNCATED = "[TRUNCATED]"


def truncate_output(data: bytes, limit: int = DEFAULT_LIMIT) -> str:
    """``data`` as text; when longer than ``limit`` bytes, its first and last halves around a [TRUNCATED] line."""
    if len(data) <= limit:
        return data.decode("utf-8", "replace")
    head, tail = data[: limit // 2], data[len(data) - (limit - limit // 2):]
    return f"{head.decode('utf-8', 'replace')}\n{TRUNCATED}\n{tail.decode('utf-8', 'replace')}"


def evidence_hash(command: Sequence[str], stdout: str, stderr: str, exit_code: int | None) -> str:
    """sha256 over command, stdout, stderr and exit code, encoded as one JSON array so no two inputs collide."""
    digest = hashlib.sha256()
    argv = json.dumps(list(command), ensure_ascii=True, separators=(",", ":"))
    # the compact array, streamed: an output is escaped a slice at a time, never as one big string
    for piece in chain(("[", argv, ","), string_pieces(stdout), (",",), string_pieces(stderr),
                       (",", json.dumps(exit_code), "]")):
        digest.update(piece.encode("ascii"))
    return digest.hexdigest()


def derived_status(exit_code: int | None, timed_out: bool, error: str | None) -> str:
    """The status a record's facts mean: NO_EVIDENCE (not started), SUCCESS (exit 0 in time), else FAILURE.

    ``status`` is outside ``evidenceHash``, so a reader derives it from exitCode (hashed) and
    timedOut/error instead of trusting it.
    """
    if error is not None:
        return "NO_EVIDENCE"
    return "SUCCESS" if exit_code == 0 and not timed_out else "FAILURE"
