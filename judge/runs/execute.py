"""Running one real command for execution evidence (seed 001), without a shell: what it really did.

Exit code 0 only means "did not crash" (seed 003's trust gradient), so the record keeps the
output too. Output is read as it arrives and only its first and last ``limit // 2`` bytes are
kept, so a chatty command costs bounded memory; the cut is a pure function of the bytes,
so the same output always gives the same text and the same ``evidenceHash``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from datetime import datetime, timezone
from typing import IO, Sequence

from judge.errors import InputError, field_ref
from judge.contract.models import ExecutionEvidence
from judge.runs.record import DEFAULT_LIMIT, TRUNCATED, derived_status, evidence_hash

__all__ = ["DEFAULT_TIMEOUT_S", "check_run_inputs", "run_command"]

DEFAULT_TIMEOUT_S = 600.0
_CHUNK = 64 * 1024
_DRAIN_GRACE_S = 5.0


def check_run_inputs(command: Sequence[str], timeout: float, limit: int) -> list[str]:
    """The argv as strings; InputError for an empty command, a timeout not above 0, or a limit under 2 bytes."""
    argv = [os.fspath(part) for part in command]
    if not argv:
        raise InputError("no command given: put it after --, e.g. judge run --step step-1 -- pytest -q")
    if not timeout > 0 or limit < 2:
        raise InputError(f"must be above 0 seconds and {field_ref('limit')} at least 2 bytes", field="timeout")
    return argv


def run_command(
    command: Sequence[str],
    *,
    step_id: str,
    run_id: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    limit: int = DEFAULT_LIMIT,
    cwd: str | os.PathLike[str] | None = None,
) -> ExecutionEvidence:
    """Run ``command`` (an argv, no shell) and return its evidence record, with no artifacts yet."""
    argv = check_run_inputs(command, timeout, limit)
    started_at, started = _now(), time.monotonic()
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=cwd, start_new_session=True)
    except OSError as exc:
        error = f"cannot run {argv[0]!r}: {exc.strerror or exc}"
        return _record(argv, step_id, run_id, (started_at, started), None, (_Capture(limit), _Capture(limit)),
                       timed_out=False, error=error)
    captures = (_Capture(limit), _Capture(limit))
    readers = [threading.Thread(target=_drain, args=(stream, capture), daemon=True)
               for stream, capture in zip((proc.stdout, proc.stderr), captures)]
    for reader in readers:
        reader.start()
    timed_out = _wait(proc, timeout)
    for reader in readers:
        reader.join(_DRAIN_GRACE_S)
    if any(reader.is_alive() for reader in readers):  # a leftover child still holds the pipes open
        _kill_group(proc)
        for reader in readers:
            reader.join(_DRAIN_GRACE_S)
    return _record(argv, step_id, run_id, (started_at, started), proc.returncode, captures, timed_out=timed_out)


class _Capture:
    """The first and last ``limit // 2`` bytes of a stream, and its total length; gives truncate_output's text."""

    def __init__(self, limit: int) -> None:
        self.head_limit, self.tail_limit = limit // 2, limit - limit // 2
        self.head, self.tail, self.total = bytearray(), bytearray(), 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        self.tail += chunk
        if len(self.tail) > self.tail_limit:
            del self.tail[: len(self.tail) - self.tail_limit]

    def text(self) -> str:
        if self.total <= self.head_limit + self.tail_limit:
            return bytes(self.head + self.tail).decode("utf-8", "replace")
        return f"{self.head.decode('utf-8', 'replace')}\n{TRUNCATED}\n{self.tail.decode('utf-8', 'replace')}"


def _drain(stream: IO[bytes], capture: _Capture) -> None:
    with stream:
        while chunk := os.read(stream.fileno(), _CHUNK):
            capture.feed(chunk)


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait for the command; past ``timeout`` kill its whole process group. True when it timed out."""
    try:
        proc.wait(timeout)
        return False
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.wait()
        return True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)  # the command ran in its own session: its children go too
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _record(argv, step_id, run_id, start, exit_code, captures, *, timed_out, error=None) -> ExecutionEvidence:
    (started_at, started), (out, err) = start, captures
    stdout, stderr = out.text(), err.text()
    status = derived_status(exit_code, timed_out, error)
    return ExecutionEvidence.model_validate({
        "version": 1, "stepId": step_id, "runId": run_id, "command": argv, "exitCode": exit_code,
        "stdout": stdout, "stderr": stderr, "stdoutBytes": out.total, "stderrBytes": err.total,
        "startedAt": started_at, "finishedAt": _now(), "durationSeconds": round(time.monotonic() - started, 3),
        "timedOut": timed_out, "status": status, "evidenceHash": evidence_hash(argv, stdout, stderr, exit_code),
        "artifacts": [], "error": error,
    })


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
