"""Ending every process an executor attempt or a gate's command leaves behind, so that nothing writes after a verdict.

Killing the executor's process group is not enough: a child that called ``setsid`` (or double-forked into a
group of its own) leaves it. So the process that runs executors makes itself a Linux child subreaper
(prctl PR_SET_CHILD_SUBREAPER): an orphan of the executor's tree is re-parented to it instead of to init, and
once the attempt is over every such orphan is killed and reaped, again and again until none is left (killing
one re-parents its own children). Orphans are told from judge's own children by their session: a process can
leave a session but never join another one that exists, so none of the executor's can be in judge's; and by
being new since the attempt began. Attempts run one at a time in a process (``contained``; re-entrant, so a
gate's command run while an attempt is contained nests), so that one attempt's sweep never ends another's
executor.

Where prctl is missing (not Linux), only the process group is killed; ``--sandbox`` (a PID namespace) ends
everything there too.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from typing import Iterator

__all__ = ["children", "contained", "end_orphans"]

_PR_SET_CHILD_SUBREAPER = 36
_ONE_AT_A_TIME = threading.RLock()


@contextlib.contextmanager
def contained() -> Iterator[None]:
    """Around one attempt: judge is a subreaper, no other attempt runs in this process, and on the way out every
    process the attempt left (children new since it began, outside judge's session) is killed and reaped."""
    with _ONE_AT_A_TIME:
        _become_subreaper()
        before = children()
        try:
            yield
        finally:
            end_orphans(before)


def end_orphans(before: frozenset[int] = frozenset()) -> int:
    """Kill and reap this process's children that are not in ``before`` and not in its own session, until none is
    left; how many were ended. No round limit: each round kills every orphan there is, and only a process that
    forked before its kill landed can leave one for the next."""
    ended = 0
    while True:
        orphans = children() - before
        if not orphans:
            return ended
        killed = set()
        for pid in orphans:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
        for pid in orphans:  # once reaped, its own children are re-parented to us: the next round sees them
            with contextlib.suppress(ChildProcessError):
                # one that could not be signalled (a set-uid child) is not waited for: it may never end
                os.waitpid(pid, 0 if pid in killed else os.WNOHANG)
            ended += 1
        before = before | (orphans - killed)  # never a round spent again on what cannot be killed


def children() -> frozenset[int]:
    """This process's children outside its session (judge's own, e.g. git, stay in it), from /proc."""
    me, session = os.getpid(), os.getsid(0)
    found = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return frozenset()
    for name in names:
        if not name.isdigit():
            continue
        stat = _stat(name)
        if stat is not None and int(stat[1]) == me and int(stat[3]) != session:
            found.add(int(name))
    return frozenset(found)


def _become_subreaper() -> None:
    prctl = _prctl()
    if prctl is not None:
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _prctl():  # type: ignore[no-untyped-def]
    if not os.path.isdir("/proc/self"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _stat(pid: str) -> list[str] | None:
    """state, ppid, pgrp, session, ... of /proc/<pid>/stat (after the command name, which may hold spaces)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].decode("ascii", "replace").split()
    except (OSError, IndexError):
        return None
