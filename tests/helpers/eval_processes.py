"""`judge eval` as a process of its own, for the tests that share a store between processes or kill one:
started with the judge under test on its path, and waited on with a bound."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

import judge

ROOT = Path(judge.__file__).resolve().parents[1]  # the judge under test, for the processes the tests start


def spawn_eval(argv: list[str], cwd: Path) -> subprocess.Popen:
    """`judge eval ARGV` started in ``cwd``, its stdout and stderr piped."""
    command = [sys.executable, "-c", "import sys; from judge.cli.main import main; sys.exit(main())", "eval", *argv]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_for(condition: Callable[[], bool], what: str, proc: subprocess.Popen | None = None,
             seconds: float = 60) -> None:
    """Until ``condition()`` holds; an AssertionError naming ``what`` after ``seconds``, or when ``proc`` ends first."""
    deadline = time.monotonic() + seconds
    while not condition():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"{what}: the process ended first: {proc.stderr.read().decode()!r}")
        assert time.monotonic() < deadline, f"{what}: not within {seconds} s"
        time.sleep(0.01)
