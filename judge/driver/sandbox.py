"""The bubblewrap sandbox an executor runs in under ``judge drive --sandbox``: the workspace its only writable path,
the system read-only, judge's state and the user's home not there, its own PID namespace (it cannot see judge's
processes, and everything in it ends with it), and no network unless asked.

bubblewrap is Debian's ``bubblewrap`` package (``bwrap``); where it is missing or cannot make namespaces, the
sandbox is refused with one line, never silently skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Sequence

from judge.errors import InputError

__all__ = ["Sandbox", "SYSTEM_PATHS"]

# Read-only in the sandbox: what programs need to run. /home, /root, /run, /var and /tmp are not there.
SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
_PROBE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Sandbox:
    """Where the executor may write (``workspace``), what else it may read (``readable``), and its network."""

    workspace: str
    readable: tuple[str, ...] = ()
    network: bool = False

    def checked(self, program: str) -> "Sandbox":
        """This sandbox with absolute paths, once bubblewrap works here and ``program`` (an absolute path) is inside
        it. InputError otherwise."""
        if not os.path.isdir(self.workspace):
            raise InputError(f"{self.workspace} is not a directory; give the executor's workspace", field="repo")
        for path in self.readable:
            if not os.path.exists(path):
                raise InputError(f"{path} does not exist; give a file or directory to show the executor",
                                 field="sandbox_read")
        sandbox = Sandbox(os.path.abspath(self.workspace), tuple(map(os.path.abspath, self.readable)), self.network)
        if not any(program == place or program.startswith(place.rstrip(os.sep) + os.sep)
                   for place in (sandbox.workspace, *sandbox.readable, *SYSTEM_PATHS)):
            raise InputError(f"the executor {program} is not inside the sandbox; add --sandbox-read with its "
                             "directory", field="sandbox")
        _check_bwrap()
        return sandbox

    def mounted(self) -> list[str]:
        """Every path the executor can see, its workspace first."""
        return [self.workspace, *self.readable, *(p for p in SYSTEM_PATHS if os.path.exists(p))]

    def argv(self, command: Sequence[str]) -> list[str]:
        """bwrap's command line running ``command`` in the sandbox, in the workspace."""
        argv = [_bwrap(), "--unshare-all", "--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev",
                "--tmpfs", "/tmp"]
        if self.network:
            argv.append("--share-net")
        for path in SYSTEM_PATHS:
            if os.path.islink(path):  # /bin -> usr/bin on a merged-/usr system
                argv += ["--symlink", os.readlink(path), path]
            elif os.path.exists(path):
                argv += ["--ro-bind", path, path]
        for path in self.readable:
            argv += ["--ro-bind", path, path]
        argv += ["--bind", self.workspace, self.workspace, "--chdir", self.workspace,
                 "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp", "--", *command]
        return argv


def _bwrap() -> str:
    found = shutil.which("bwrap")
    if found is None:
        raise InputError("needs bubblewrap, which is not installed: install it (Debian: apt-get install bubblewrap), "
                         "or drive without --sandbox", field="sandbox")
    return found


def _check_bwrap() -> None:
    """InputError when bwrap is missing or cannot make its namespaces here (e.g. user namespaces are off)."""
    probe = [_bwrap(), "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "true"]
    try:
        run = subprocess.run(probe, capture_output=True, timeout=_PROBE_TIMEOUT_S, env={"PATH": os.defpath})
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"bubblewrap could not be run ({exc}); check the bwrap install, or drive without --sandbox",
                         field="sandbox") from None
    if run.returncode != 0:
        said = run.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        raise InputError(f"bubblewrap cannot make a sandbox here ({said[0][:200]}); allow unprivileged user "
                         "namespaces, or drive without --sandbox", field="sandbox")
