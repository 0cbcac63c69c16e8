"""Running one real command for execution evidence (seed 001), without a shell: what it really did.

Exit code 0 only means "did not crash" (seed 003's trust gradient), so the record keeps the
output too. Output is read as it arrives and only its first and last ``limit // 2`` bytes are
kept, so a chatty command costs bounded memory; the cut is a pure function of the bytes,
so the same output always gives the same text and the same ``evidenceHash``.

Once the command exits, its pipes are read only while they are still being written: a process
that left the command's process group (``setsid``) can hold them open forever, and must not
hold judge. Nothing is read past the timeout.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Mapping, Sequence

from judge.errors import InputError, field_ref
from judge.contract.models import ExecutionEvidence
from judge.runs.contain import contained_argv
from judge.runs.reaper import contained
from judge.runs.record import DEFAULT_LIMIT, MAX_LIMIT, TRUNCATED, derived_status, evidence_hash

__all__ = ["DEFAULT_TIMEOUT_S", "ProcessRun", "check_run_inputs", "run_command", "run_process"]

DEFAULT_TIMEOUT_S = 600.0
_CHUNK = 64 * 1024
_DRAIN_GRACE_S = 5.0  # after the exit, how long the command's leftover children may still write
_QUIET_S = 0.2  # after the exit, with its process group gone: pipes silent this long are done
_POLL_S = 0.1  # how often the exit and the timeout are checked while the pipes are silent


def check_run_inputs(command: Sequence[str], timeout: float, limit: int) -> list[str]:
    """The argv as strings; InputError for an empty command, a timeout not above 0, or a limit outside 2..MAX_LIMIT."""
    argv = [os.fspath(part) for part in command]
    if not argv:
        raise InputError("no command given: put it after --, e.g. judge run --step step-1 -- pytest -q")
    if not timeout > 0 or limit < 2:
        raise InputError(f"must be above 0 seconds and {field_ref('limit')} at least 2 bytes", field="timeout")
    if limit > MAX_LIMIT:
        raise InputError(f"{limit} is above the cap of {MAX_LIMIT} bytes (16 MiB) per stream; "
                         "give at most that (the middle of longer output becomes [TRUNCATED])", field="limit")
    return argv


def run_command(
    command: Sequence[str],
    *,
    step_id: str,
    run_id: str,
    timeout: float = DEFAULT_TIMEOUT_S,
    limit: int = DEFAULT_LIMIT,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    cpu_seconds: float | None = None,
) -> ExecutionEvidence:
    """Run ``command`` (an argv, no shell) and return its evidence record, with no artifacts yet.

    ``env``: the command's whole environment (None: judge's own); ``cpu_seconds``: see run_process."""
    argv = check_run_inputs(command, timeout, limit)
    run = run_process(argv, timeout=timeout, limit=limit, cwd=cwd, env=env, cpu_seconds=cpu_seconds)
    return _record(argv, step_id, run_id, run)


@dataclass(frozen=True)
class ProcessRun:
    """How one process ran: its exit code (None when it could not start), whether it was killed at the timeout,
    why it could not start, and its two captured streams."""

    exit_code: int | None
    timed_out: bool
    error: str | None
    stdout: "_Capture"
    stderr: "_Capture"
    started_at: str
    seconds: float


def run_process(argv: Sequence[str], *, timeout: float, limit: int, input: bytes | None = None,
                cwd: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None,
                cancel: threading.Event | None = None, kill_leftovers: bool = False,
                cpu_seconds: float | None = None) -> ProcessRun:
    """Run ``argv`` (no shell) in its own session, feeding it ``input`` on stdin (None: no stdin), reading both
    streams bounded by ``limit`` each, and killing its process group at ``timeout`` seconds, or as soon as
    ``cancel`` is set (then it counts as timed out). ``kill_leftovers``: once it is done, kill what is left of its
    process group too (children it left running, e.g. still writing to a work tree judge is about to read).
    ``cpu_seconds``: run it contained (judge.runs.contain): each of its processes may use that much CPU time, and
    every descendant, even one that left its session, is killed when it ends."""
    if cpu_seconds is None:
        return _run_process(argv, timeout=timeout, limit=limit, input=input, cwd=cwd, env=env, cancel=cancel,
                            kill_leftovers=kill_leftovers)
    # The launcher ends what it started, but the command can kill the launcher first: judge itself is then the
    # subreaper its escaped descendants fall to, and ends them too.
    with contained():
        return _run_process(contained_argv(argv, cpu_seconds=cpu_seconds, timeout=timeout, cwd=cwd, env=env),
                            timeout=timeout, limit=limit, input=input, cwd=cwd, env=env, cancel=cancel,
                            kill_leftovers=True)


def _run_process(argv: Sequence[str], *, timeout: float, limit: int, input: bytes | None,
                 cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None,
                 cancel: threading.Event | None, kill_leftovers: bool) -> ProcessRun:
    started_at, started = _now(), time.monotonic()
    captures = (_Capture(limit), _Capture(limit))
    try:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL if input is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, start_new_session=True,
                                env=dict(env) if env is not None else None)
    except OSError as exc:
        return ProcessRun(None, False, _start_error(list(argv), cwd, exc), *captures, started_at,
                          round(time.monotonic() - started, 3))
    if input is not None:
        # a thread, so a process that writes before it reads all of its stdin cannot deadlock with judge
        threading.Thread(target=_feed, args=(proc.stdin, input), daemon=True).start()
    timed_out = _collect(proc, captures, deadline=started + timeout, cancel=cancel)
    if kill_leftovers and _group_alive(proc):
        _kill_group(proc)
    return ProcessRun(proc.returncode, timed_out, None, *captures, started_at, round(time.monotonic() - started, 3))


def _feed(stdin: IO[bytes], data: bytes) -> None:
    try:
        stdin.write(data)
        stdin.close()
    except (BrokenPipeError, OSError):  # the process exited or closed stdin without reading it all: its business
        pass


class _Capture:
    """The first and last ``limit // 2`` bytes of a stream, and its total length; gives truncate_output's text.

    Once full, the tail is a ring overwritten in place: trimming a bytearray from its front makes
    a later append copy all of it, 8 MiB every few chunks at the cap (3.4x slower over 200 MiB).
    """

    def __init__(self, limit: int) -> None:
        self.head_limit, self.tail_limit = limit // 2, limit - limit // 2
        self.head, self.tail, self.total = bytearray(), bytearray(), 0
        self._oldest = 0  # where the tail's oldest byte is once the ring is full

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        data = memoryview(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        room = self.tail_limit - len(self.tail)
        if room > 0:
            self.tail += data[:room]
            data = data[room:]
        if data:
            self._overwrite_oldest(data[-self.tail_limit:])

    def _overwrite_oldest(self, data: memoryview) -> None:
        start, first = self._oldest, min(len(data), self.tail_limit - self._oldest)
        self.tail[start:start + first] = data[:first]
        self.tail[:len(data) - first] = data[first:]
        self._oldest = (start + len(data)) % self.tail_limit

    def text(self) -> str:
        tail = self.tail[self._oldest:] + self.tail[:self._oldest]
        if self.total <= self.head_limit + self.tail_limit:
            return (self.head + tail).decode("utf-8", "replace")
        return f"{self.head.decode('utf-8', 'replace')}\n{TRUNCATED}\n{tail.decode('utf-8', 'replace')}"


def _collect(proc: subprocess.Popen[bytes], captures: tuple[_Capture, _Capture], deadline: float,
             cancel: threading.Event | None) -> bool:
    """Read both pipes until the command is done with them (see the module docstring); True when it timed out
    or was cancelled."""
    timed_out, exited_at, heard_at = False, None, time.monotonic()
    with selectors.DefaultSelector() as selector:
        for stream, capture in zip((proc.stdout, proc.stderr), captures):
            selector.register(stream, selectors.EVENT_READ, capture)
        while selector.get_map():
            now = time.monotonic()
            if cancel is not None and cancel.is_set():
                _kill_group(proc)
                proc.wait()
                timed_out = True
                break
            if exited_at is None and proc.poll() is None and now >= deadline:
                _kill_group(proc)
                proc.wait()
                timed_out = True
            if exited_at is None and proc.returncode is not None:
                exited_at = heard_at = now
            if exited_at is not None and _done_after_exit(proc, now, exited_at, heard_at, deadline):
                break
            for key, _ in selector.select(_POLL_S if exited_at is None else min(_POLL_S, _QUIET_S)):
                chunk = os.read(key.fd, _CHUNK)
                if chunk:
                    key.data.feed(chunk)
                    heard_at = time.monotonic()
                else:
                    selector.unregister(key.fileobj)
    proc.stdout.close()
    proc.stderr.close()
    return _wait(proc, deadline, cancel) or timed_out


def _done_after_exit(proc: subprocess.Popen[bytes], now: float, exited_at: float, heard_at: float,
                     deadline: float) -> bool:
    """Whether to stop reading pipes that stay open after the command exited."""
    # a quiet window at least after a kill at the timeout; never past the timeout otherwise
    if now >= min(exited_at + _DRAIN_GRACE_S, max(deadline, exited_at + _QUIET_S)):
        _kill_group(proc)  # a leftover child in the command's group still holds the pipes
        return True
    # only a process that left the group (setsid) holds them: it must not hold judge
    return now - heard_at >= _QUIET_S and not _group_alive(proc)


def _wait(proc: subprocess.Popen[bytes], deadline: float, cancel: threading.Event | None) -> bool:
    """Wait for the command (it may have closed its pipes and run on); at ``deadline`` or on ``cancel`` kill its
    group: then True."""
    while proc.poll() is None:
        if time.monotonic() >= deadline or (cancel is not None and cancel.is_set()):
            _kill_group(proc)
            proc.wait()
            return True
        try:
            proc.wait(min(_POLL_S, max(deadline - time.monotonic(), 0)))
        except subprocess.TimeoutExpired:
            pass
    return False


def _group_alive(proc: subprocess.Popen[bytes]) -> bool:
    """Whether any process is left in the command's process group (its own session, see Popen)."""
    if not hasattr(os, "killpg"):
        return False
    try:
        os.killpg(proc.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)  # the command ran in its own session: its children go too
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def _start_error(argv: list[str], cwd: str | os.PathLike[str] | None, exc: OSError) -> str:
    """Why the command could not start; a working directory that failed is named, so that the observer
    (judge.runs.observe) never reads it as a program that does not exist."""
    if cwd is not None and exc.filename is not None and os.fspath(exc.filename) == os.fspath(cwd) != argv[0]:
        return f"cannot run {argv[0]!r} in {os.fspath(cwd)!r}: {exc.strerror or exc}"
    return f"cannot run {argv[0]!r}: {exc.strerror or exc}"


def _record(argv: list[str], step_id: str, run_id: str, run: ProcessRun) -> ExecutionEvidence:
    stdout, stderr = run.stdout.text(), run.stderr.text()
    status = derived_status(run.exit_code, run.timed_out, run.error)
    return ExecutionEvidence.model_validate({
        "version": 1, "stepId": step_id, "runId": run_id, "command": argv, "exitCode": run.exit_code,
        "stdout": stdout, "stderr": stderr, "stdoutBytes": run.stdout.total, "stderrBytes": run.stderr.total,
        "startedAt": run.started_at, "finishedAt": _now(), "durationSeconds": run.seconds,
        "timedOut": run.timed_out, "status": status, "evidenceHash": evidence_hash(argv, stdout, stderr, run.exit_code),
        "artifacts": [], "error": run.error,
    })


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
