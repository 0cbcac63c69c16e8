"""A contained command (judge.runs.contain): its exit is reported as its own, each of its processes is held to the
CPU-time limit, and no descendant outlives it — not even one that left its session (setsid)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from judge.runs.execute import run_process

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="Linux: the launcher finds children in /proc")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _wait_for(path: Path) -> int:
    # the pid file is written before the command exits (it waits for it): no wall-clock assumption
    return int(path.read_text())


def test_exit_code_output_and_signal_are_the_commands_own():
    ran = run_process(["sh", "-c", "echo out; echo err >&2; exit 3"], timeout=60, limit=1000, cpu_seconds=30)
    assert (ran.exit_code, ran.stdout.text(), ran.stderr.text(), ran.timed_out) == (3, "out\n", "err\n", False)
    killed = run_process(["sh", "-c", "kill -TERM $$"], timeout=60, limit=1000, cpu_seconds=30)
    assert killed.exit_code == -signal.SIGTERM


def test_a_missing_program_is_reported_as_missing_not_as_an_exit_code():
    ran = run_process(["no-such-program-anywhere"], timeout=60, limit=1000, cpu_seconds=30)
    assert ran.exit_code is None and "no-such-program-anywhere" in (ran.error or "")


def test_a_process_past_its_cpu_time_is_stopped_long_before_the_wall_timeout():
    ran = run_process([sys.executable, "-c", "while True: pass"], timeout=600, limit=1000, cpu_seconds=1)
    assert not ran.timed_out  # ended by the CPU limit (SIGXCPU, or SIGKILL at the hard limit), not by the clock
    assert ran.exit_code in (-signal.SIGXCPU, -signal.SIGKILL)


@pytest.mark.parametrize("leaver, then", [
    ("setsid sh -c", "exit 0"),  # a grandchild that left the session
    ("sh -c", "exit 0"),  # a child left running in the background
    # the launcher is the command's parent, so the command can kill it: the escaped grandchild then falls to judge
    # (a subreaper while a contained command runs), which ends it before run_process returns
    ("setsid sh -c", "kill -9 $PPID; exit 0"),
], ids=["left-the-session", "in-the-background", "launcher-killed"])
def test_nothing_the_command_leaves_behind_outlives_it(tmp_path, leaver, then):
    pid_file, late = tmp_path / "pid", tmp_path / "written-after-the-verdict"
    script = (f"{leaver} 'echo $$ > {pid_file}; sleep 30; touch {late}' & "
              f"while [ ! -s {pid_file} ]; do sleep 0.05; done; {then}")
    run_process(["sh", "-c", script], timeout=120, limit=1000, cpu_seconds=30)
    pid = _wait_for(pid_file)
    assert not _alive(pid), f"{pid} ({leaver}) outlived the command"
    assert not late.exists()


def test_the_same_grandchild_is_killed_at_the_timeout(tmp_path):
    pid_file = tmp_path / "pid"
    script = f"setsid sh -c 'echo $$ > {pid_file}; sleep 60' & sleep 60"
    ran = run_process(["sh", "-c", script], timeout=3, limit=1000, cpu_seconds=30)
    assert ran.timed_out
    pid = _wait_for(pid_file)
    assert not _alive(pid), f"the setsid grandchild {pid} outlived the timeout"


def test_without_a_cpu_limit_the_command_runs_as_before():
    ran = run_process([sys.executable, "-c", "import os; print(os.getppid())"], timeout=60, limit=1000)
    assert ran.exit_code == 0 and int(ran.stdout.text()) == os.getpid()  # no launcher between judge and it


def test_with_a_cpu_limit_a_launcher_stands_between_judge_and_the_command():
    ran = run_process([sys.executable, "-c", "import os; print(os.getppid())"], timeout=60, limit=1000,
                      cpu_seconds=30)
    assert ran.exit_code == 0 and int(ran.stdout.text()) != os.getpid()
