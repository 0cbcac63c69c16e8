"""A command's whole process tree held to judge's limits: CPU seconds per process, and every descendant killed when it
ends — also one that left the command's process group or session (``setsid``), which a group kill cannot reach.

A small launcher (this interpreter, isolated, no site) stands between judge and the command. It sets RLIMIT_CPU
(inherited by every descendant: SIGXCPU at the limit, SIGKILL a second later), makes itself the child subreaper
(Linux: an orphaned descendant is re-parented to it, not to init), runs the command, and once the command exits, or
at its own deadline a little before judge's, kills and reaps whatever is left below it. Its exit mirrors the
command's (the same code, or the same signal), so a record reads as if the command ran alone.
"""

from __future__ import annotations

import math
import os
import shutil
import sys
from typing import Mapping, Sequence

__all__ = ["contained_argv"]

# The launcher, run as `python -I -S -c _LAUNCHER CPU_SECONDS WALL_SECONDS -- ARGV...`.
_LAUNCHER = r"""
import ctypes, os, resource, signal, sys, time
cpu, wall, argv = int(sys.argv[1]), float(sys.argv[2]), sys.argv[4:]
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
try:
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
except (OSError, AttributeError):
    pass
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
pid = os.fork()
if pid == 0:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        os.write(2, f"cannot run {argv[0]!r}: {exc.strerror}\n".encode())
    os._exit(127)

def children():
    try:
        return [int(p) for t in os.listdir("/proc/self/task")
                for p in open(f"/proc/self/task/{t}/children").read().split()]
    except OSError:  # a kernel without CONFIG_PROC_CHILDREN: every process's parent, from its stat line
        me, found = os.getpid(), []
        for name in os.listdir("/proc"):
            try:
                if name.isdigit() and int(open(f"/proc/{name}/stat").read().rpartition(")")[2].split()[1]) == me:
                    found.append(int(name))
            except (OSError, ValueError, IndexError):
                pass
        return found

def reap():
    while True:
        try:
            if os.waitpid(-1, os.WNOHANG)[0] == 0:
                return True
        except ChildProcessError:
            return False

def kill_all():
    while True:
        kids = children()
        for kid in kids:
            try:
                os.kill(kid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if kids:
            time.sleep(0.01)
        if not reap() and not children():
            return

deadline, status = time.monotonic() + wall, None
while status is None:
    while True:
        try:
            got, code = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            got = 0
        if got == pid:
            status = code
        if got == 0 or status is not None:
            break
    left = deadline - time.monotonic()
    if status is None and left <= 0:
        kill_all()
        while True:
            time.sleep(3600)  # judge's own deadline is next: it kills this and counts the run as timed out
    if status is None:
        signal.sigtimedwait({signal.SIGCHLD}, min(left, 1.0))
kill_all()
if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
    os.kill(os.getpid(), sig)
os._exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


def contained_argv(argv: Sequence[str], *, cpu_seconds: float, timeout: float,
                   cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None) -> list[str]:
    """``argv`` run under the launcher; ``argv`` itself when its program cannot be found (so that starting it fails
    as it would alone, and the record says the program is missing) or the platform has no /proc to find children."""
    if not os.path.isdir("/proc/self/task") or not _findable(argv[0], cwd, env):
        return list(argv)
    # a little before judge's own deadline, so that the launcher, not judge's group kill, ends what is left
    wall = max(timeout - min(2.0, timeout / 10), timeout / 2)
    return [sys.executable, "-I", "-S", "-c", _LAUNCHER, str(max(1, math.ceil(cpu_seconds))), repr(wall), "--",
            *argv]


def _findable(program: str, cwd: str | os.PathLike[str] | None, env: Mapping[str, str] | None) -> bool:
    if os.sep in program:
        where = os.path.join(os.fspath(cwd), program) if cwd is not None else program
        return os.path.isfile(where) and os.access(where, os.X_OK)
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    return shutil.which(program, path=path) is not None
