"""Execution evidence as data (seed 001): the output cut, the evidence hash, and the status a record's facts mean.

Pure functions: the same output always gives the same text and the same ``evidenceHash``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Sequence

__all__ = ["DEFAULT_LIMIT", "TRUNCATED", "derived_status", "evidence_hash", "truncate_output"]

DEFAULT_LIMIT = 64 * 1024  # bytes kept per stream
TRUNCATED = "[TRUNCATED]"


def truncate_output(data: bytes, limit: int = DEFAULT_LIMIT) -> str:
    """``data`` as text; when longer than ``limit`` bytes, its first and last halves around a [TRUNCATED] line."""
    if len(data) <= limit:
        return data.decode("utf-8", "replace")
    head, tail = data[: limit // 2], data[len(data) - (limit - limit // 2):]
    return f"{head.decode('utf-8', 'replace')}\n{TRUNCATED}\n{tail.decode('utf-8', 'replace')}"


def evidence_hash(command: Sequence[str], stdout: str, stderr: str, exit_code: int | None) -> str:
    """sha256 over command, stdout, stderr and exit code, encoded as one JSON array so no two inputs collide."""
    canonical = json.dumps([list(command), stdout, stderr, exit_code], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def derived_status(exit_code: int | None, timed_out: bool, error: str | None) -> str:
    """The status a record's facts mean: NO_EVIDENCE (not started), SUCCESS (exit 0 in time), else FAILURE.

    ``status`` is outside ``evidenceHash``, so a reader derives it from exitCode (hashed) and
    timedOut/error instead of trusting it.
    """
    if error is not None:
        return "NO_EVIDENCE"
    return "SUCCESS" if exit_code == 0 and not timed_out else "FAILURE"
