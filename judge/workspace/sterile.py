"""git with nothing the judged repository controls: a temporary, config-less GIT_DIR and an environment built from scratch.

The repository's own .git is never given to git: its config (filters, hooks, includes,
core.worktree, promisor remotes, fsmonitor) would be honoured. Here git sees only a scratch
directory judge made, holding objects judge verified and wrote there itself, and an
environment with no user or system config, no hooks, no replace refs, no network protocol
and none of judge's own variables (its API keys stay out of every child process).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from judge.errors import InputError

__all__ = ["SterileGit"]

_TIMEOUT_S = 120
# Belt and braces: the scratch GIT_DIR has no config, so none of these could be set by the repository anyway.
_CONFIG = (
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "protocol.allow=never",
    "-c", "core.attributesFile=/dev/null", "-c", "core.excludesFile=/dev/null", "-c", "core.ignoreCase=false",
    "-c", "core.autocrlf=false", "-c", "core.symlinks=true", "-c", "core.fileMode=true",
    "-c", "core.untrackedCache=false", "-c", "core.splitIndex=false", "-c", "index.sparse=false",
)


class SterileGit:
    """A scratch GIT_DIR (``objects`` holds only what judge writes there) and a git that runs inside it.

    Use as a context manager; the directory is removed on exit.
    """

    def __init__(self, outside: str | None = None) -> None:
        """``outside``: the judged repository, which the scratch directory must never be inside."""
        scratch = os.path.realpath(tempfile.gettempdir())
        if outside is not None and (scratch + os.sep).startswith(os.path.realpath(outside) + os.sep):
            raise InputError(f"the temporary directory {scratch} is inside the repository; judge never writes there: "
                             "set TMPDIR to a directory outside it", field="repo")
        self.path = Path(tempfile.mkdtemp(prefix="judge-git-", dir=scratch))
        for name in ("objects", "refs", "info"):
            (self.path / name).mkdir()
        (self.path / "HEAD").write_text("ref: refs/heads/judge\n", encoding="ascii")
        self._env = _environment(self.path)

    @property
    def objects(self) -> str:
        return str(self.path / "objects")

    def __enter__(self) -> "SterileGit":
        return self

    def __exit__(self, *exc: object) -> None:
        shutil.rmtree(self.path, ignore_errors=True)

    def run(self, *args: str, data: bytes | None = None, index: str | None = None,
            work_tree: str | None = None, literal: bool = True) -> subprocess.CompletedProcess[bytes]:
        """git ``args`` in the scratch GIT_DIR; ``index`` names the index file, ``work_tree`` a directory to list.

        ``literal`` False: no GIT_LITERAL_PATHSPECS, for the one command that refuses it (check-ignore)."""
        env = dict(self._env)
        if not literal:
            del env["GIT_LITERAL_PATHSPECS"]
        env["GIT_INDEX_FILE"] = index or str(self.path / "index")
        if work_tree is not None:
            env["GIT_WORK_TREE"] = work_tree
        try:
            return subprocess.run(["git", *_CONFIG, *args], input=data, capture_output=True, env=env,
                                  cwd=str(self.path), timeout=_TIMEOUT_S,
                                  stdin=None if data is not None else subprocess.DEVNULL)
        except FileNotFoundError:
            raise InputError("git is not installed or not on PATH; judge needs it to check a workspace") from None
        except subprocess.TimeoutExpired:
            raise InputError(f"git {args[0]} took longer than {_TIMEOUT_S} s; check the repository and try again") from None


def _environment(scratch: Path) -> dict[str, str]:
    """Only what git needs, and every knob that could make it read something else set to nothing."""
    return {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(scratch),
        "XDG_CONFIG_HOME": str(scratch),
        "LC_ALL": "C",
        "GIT_DIR": str(scratch),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_ATTR_NOSYSTEM": "1",
        "GIT_NO_REPLACE_OBJECTS": "1",
        "GIT_NO_LAZY_FETCH": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_LITERAL_PATHSPECS": "1",
        "GIT_PROTOCOL_FROM_USER": "0",
        "GIT_ALLOW_PROTOCOL": "",
    }
