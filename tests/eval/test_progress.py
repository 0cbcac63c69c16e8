"""judge eval's progress display (judge/eval/progress.py, judge/eval/terminal_bar.py): a rich bar on a terminal,
the plain line every 10 s elsewhere, rich imported only for the bar.

The terminal is real where it matters: rich's own Console forced to a terminal, and `judge eval` run with its
stderr on a pseudo-terminal. Model answers come from a SYNTHETIC loopback server (tests/helpers/loopback.py).
"""

from __future__ import annotations

import asyncio
import fcntl
import io
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.console import Console

from helpers.builders import diff, make_case
from judge.eval.progress import Progress
from helpers.loopback import CASE_TAG, Reply, content

ROOT = Path(__file__).resolve().parents[2]
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
HIDE_CURSOR, SHOW_CURSOR = "\x1b[?25l", "\x1b[?25h"
APPROVED = content(True, "the patch does what the step asks")  # SYNTHETIC


class _Clock:
    """A clock the test moves by hand: the ETA is arithmetic on it, never a wall-clock measurement."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _terminal(width: int = 120) -> tuple[Console, io.StringIO]:
    screen = io.StringIO()
    return Console(file=screen, force_terminal=True, width=width, color_system="standard"), screen


def _last_frame(written: str) -> str:
    """What the terminal shows last: the text after the last erase-line, colours taken out."""
    return ANSI.sub("", written.rsplit("\x1b[2K", 1)[-1])


def _plain_terminal_env(monkeypatch: pytest.MonkeyPatch, term: str) -> None:
    """No variable that would make rich decide for itself what the terminal is."""
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", term)


# --- the bar, drawn by rich on a terminal ------------------------------------------------------


def test_the_bar_shows_cases_model_calls_cache_errors_and_judges_eta() -> None:
    """100 quick cases (3 of them from the cache), then 60 model cases at 1/s, one an error with a retry: the
    bar's last frame has each count, and the ETA is judge's own (40 s left), not rich's (15 s at the plain rate)."""
    console, screen = _terminal()
    clock = _Clock()
    progress = Progress(200, model_configured=True, clock=clock, console=console)
    for n in range(100):
        progress.advance(cached=n < 3)
    for n in range(60):
        clock.now += 1
        progress.advance(model=True, calls=2 if n == 7 else 1, error=n == 7)
    progress.finish()
    written = screen.getvalue()
    assert written.startswith(HIDE_CURSOR) and written.endswith(SHOW_CURSOR)  # the cursor comes back at the end
    frame = _last_frame(written)
    # the last frame stays, on its own line
    assert re.fullmatch(r"━+╺━+ 160/200 model 60 · calls 61 · cached 3 · errors 1 0:01:00 ETA 40s\n", frame)
    assert "\x1b[1;31merrors 1" in written  # errors are red once there are any


def test_the_bar_draws_errors_plainly_while_there_are_none() -> None:
    console, screen = _terminal()
    progress = Progress(2, console=console)
    progress.advance(calls=1, model=True)
    progress.finish()
    assert "errors 0" in _last_frame(screen.getvalue()) and "31m" not in screen.getvalue()


def test_a_note_is_printed_above_the_bar_on_its_own_line_unchanged() -> None:
    console, screen = _terminal()
    progress = Progress(3, console=console)
    progress.advance()
    progress.note("cache x.sqlite: 1 unreadable entry [bold] treated as a miss")
    progress.advance()
    progress.finish()
    text = ANSI.sub("", screen.getvalue())
    lines = [line for line in re.split(r"[\r\n]", text) if line]
    assert "judge: cache x.sqlite: 1 unreadable entry [bold] treated as a miss" in lines  # no markup read into it
    assert re.fullmatch(r"[━╸╺]+ 2/3 model 0 · calls 0 · cached 0 · errors 0 0:00:00 ETA \S+", lines[-1].rstrip())
    assert text.index("judge: cache") < text.rindex("2/3")  # the bar goes on below the note


def test_stored_cases_add_no_calls_or_cache_hits_but_their_errors_count() -> None:
    """A resumed run: the calls an earlier run made are not this run's; an error it stored is still an error."""
    console, screen = _terminal()
    progress = Progress(3, model_configured=True, console=console)
    progress.stored_ahead = 2
    progress.advance(stored=True, calls=5, cached=True)
    progress.advance(stored=True, calls=1, error=True)
    progress.advance(model=True, calls=1)
    progress.finish()
    assert (progress.calls, progress.cache_hits, progress.errors) == (1, 0, 1)
    assert "3/3 model 1 · calls 1 · cached 0 · errors 1" in _last_frame(screen.getvalue())


def test_a_narrow_terminal_wraps_the_counts_but_keeps_the_eta_whole() -> None:
    console, screen = _terminal(width=60)
    clock = _Clock()
    progress = Progress(10, clock=clock, console=console)
    clock.now = 2.0
    progress.advance(4)
    progress.finish()
    frame = ANSI.sub("", screen.getvalue().rsplit("\x1b[1A", 1)[-1])
    assert "ETA 3s" in frame and "4/10" in frame and "errors 0" in frame
    assert all(len(line) <= 60 for line in frame.splitlines())


def test_a_run_that_never_finishes_gives_the_cursor_back_at_exit(tmp_path: Path) -> None:
    """An error ends the run before finish(): the bar is stopped at exit, so the shell gets its cursor back."""
    script = ("import sys\nfrom rich.console import Console\nfrom judge.eval.progress import Progress\n"
              "progress = Progress(3, console=Console(file=sys.stdout, force_terminal=True, width=100))\n"
              "progress.advance()\nraise SystemExit(2)\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stderr == ""
    assert proc.stdout.startswith(HIDE_CURSOR) and proc.stdout.endswith(SHOW_CURSOR)
    assert "1/3" in _last_frame(proc.stdout)


# --- off a terminal: the plain line, as before ---------------------------------------------------


def test_off_a_terminal_the_line_every_so_often_is_unchanged() -> None:
    stream = io.StringIO()
    clock = _Clock()
    progress = Progress(200, stream, model_configured=True, clock=clock, every_seconds=10)
    for _ in range(100):
        progress.advance(cached=True)
    for _ in range(60):
        clock.now += 1
        progress.advance(model=True, calls=1, error=True)
    progress.note("a note")
    progress.finish()
    # every 10 s; the ETA: the cases left x the share of the last 50 judged that needed the model, at 1/s
    assert stream.getvalue().splitlines() == [
        "judged 110/200 (55%), 11.0 cases/s, ETA 18s",  # 90 left x 10/50
        "judged 120/200 (60%), 6.0 cases/s, ETA 32s",
        "judged 130/200 (65%), 4.3 cases/s, ETA 42s",
        "judged 140/200 (70%), 3.5 cases/s, ETA 48s",
        "judged 150/200 (75%), 3.0 cases/s, ETA 50s",  # 50 left x 50/50
        "judged 160/200 (80%), 2.7 cases/s, ETA 40s",
        "judge: a note",
    ]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_dumb_terminal_gets_the_plain_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """TERM=dumb cannot redraw a line in place: rich says so, and the plain lines are drawn instead."""
    _plain_terminal_env(monkeypatch, "dumb")
    stream = _Terminal()
    progress = Progress(4, stream, every_seconds=0)
    progress.advance()
    progress.finish()
    assert re.fullmatch(r"judged 1/4 \(25%\), [\d.]+ cases/s, ETA \S+\n", stream.getvalue())
    assert not progress.live


def test_a_stream_that_is_a_terminal_gets_rich_s_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    _plain_terminal_env(monkeypatch, "xterm-256color")
    stream = _Terminal()
    progress = Progress(2, stream)
    progress.advance()
    progress.advance()
    progress.finish()
    assert stream.getvalue().startswith(HIDE_CURSOR) and "2/2 model 0" in _last_frame(stream.getvalue())


# --- the runner feeds the counts -----------------------------------------------------------------


def _case(case_id: str) -> str:
    """``m*``: a case the model judges (its step tagged for the server); ``u*``: one the rules reject."""
    if case_id.startswith("m"):
        step, result = make_case(step={"description": f"Add input validation to parse_port() [case {case_id}]"})
        expected: dict = {"valid": True}
    else:
        step, result = make_case(diff("hidden_extra_file.diff"))
        expected = {"valid": False, "rule": "undeclared_file"}
    return json.dumps({"id": case_id, "step": step, "result": result, "expected": expected})


def _answers(index: int, request) -> Reply:
    """SYNTHETIC: case m3's every call fails (HTTP 500); the others are approved."""
    return Reply(500, {"error": {"message": "synthetic"}}) if request.tag == "m3" else APPROVED


@pytest.mark.loopback
def test_the_runner_counts_calls_cache_hits_and_errors_as_the_report_does(scripted_server, tmp_path: Path) -> None:
    from judge.config import JudgeConfig
    from judge.eval.cache import VerdictCache
    from judge.eval.cases import EvalSet
    from judge.eval.runner import run_eval

    server = scripted_server(_answers)
    lines = [_case(f"m{n}") for n in range(4)] + [_case(f"u{n}") for n in range(3)]
    source = tmp_path / "set.jsonl"
    source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    config = JudgeConfig(model="openai/t", api_base=server.api_base, output_mode="none", retries=1)
    counts = []
    for _ in range(2):  # the second run takes what the cache holds
        cache = VerdictCache(tmp_path / "cache.sqlite")
        progress = Progress(7, io.StringIO(), model_configured=True)
        result = asyncio.run(run_eval(EvalSet(str(source)), config, cache=cache, progress=progress))
        cache.close()
        records = result.records
        assert progress.calls == sum(r.llm_calls for r in records)
        assert progress.cache_hits == sum(r.cached for r in records)
        assert progress.errors == sum(r.error is not None for r in records)
        counts.append((progress.done, progress.model_done, progress.calls, progress.cache_hits, progress.errors))
    assert counts[0] == (7, 4, 3 + 2, 0, 1)  # m3 asked twice (one retry), fails: llm_unavailable
    assert counts[1] == (7, 1, 2, 3, 1)  # approvals from the cache; the error is never cached: asked again
    assert server.per_tag()["m3"] == 4


# --- rich is imported only for the bar ------------------------------------------------------------


def _imports_rich(tmp_path: Path, argv: list[str]) -> bool:
    script = ("import contextlib, io, sys\nfrom judge.cli.main import main\n"
              "with contextlib.redirect_stdout(io.StringIO()):\n    main(sys.argv[1:])\n"
              "print('rich' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path, env=env, stdin=subprocess.DEVNULL)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.stdout.strip().splitlines()[-1] == "True"


def test_validate_and_eval_off_a_terminal_do_not_import_rich(tmp_path: Path) -> None:
    step, result = make_case()
    (tmp_path / "step.json").write_text(json.dumps(step), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    (tmp_path / "set.jsonl").write_text(
        json.dumps({"id": "ok", "step": step, "result": result, "expected": {"valid": True}}) + "\n", encoding="utf-8")
    assert not _imports_rich(tmp_path, ["validate", "--step", "step.json", "--result", "result.json"])
    assert not _imports_rich(tmp_path, ["eval", "set.jsonl", "--out", "metrics.json"])


# --- `judge eval` on a real pseudo-terminal --------------------------------------------------------


def _run_on_a_pty(argv: list[str], cwd: Path, columns: int = 120) -> tuple[int, str, str]:
    """Run the CLI with stderr on a pseudo-terminal ``columns`` wide and stdout on a pipe."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    env = {k: v for k, v in os.environ.items()
           if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm-256color", LITELLM_LOCAL_MODEL_COST_MAP="True")
    proc = subprocess.Popen([sys.executable, "-m", "judge.cli.main", *argv], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    screen = b""
    while True:  # read as it is written: a full pty would block the child
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError(f"no output for 60 s; so far: {screen!r}")
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    out = proc.stdout.read().decode()
    proc.stdout.close()
    return proc.wait(timeout=60), out, screen.decode()


@pytest.mark.loopback
def test_judge_eval_on_a_terminal_draws_rich_s_bar_and_leaves_stdout_alone(scripted_server, tmp_path: Path) -> None:
    server = scripted_server([APPROVED])
    lines = [_case(f"m{n}") for n in range(2)] + [_case(f"u{n}") for n in range(3)]
    (tmp_path / "set.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, screen = _run_on_a_pty(["eval", "set.jsonl", "--model", "openai/t", "--api-base", server.api_base,
                                       "--output-mode", "none", "--out", "metrics.json"], tmp_path)
    assert "Traceback" not in screen, screen
    assert code == 0
    assert screen.startswith(HIDE_CURSOR) and SHOW_CURSOR in screen  # the cursor is given back
    assert re.search(r"━+ 5/5 model 2 · calls 2 · cached 0 · errors 0 \d+:\d\d:\d\d ETA 0s", _last_frame(screen))
    assert "━" not in out and "\x1b" not in out and "cases" in out  # the report on stdout, no bar in it
    assert {CASE_TAG.search(json.dumps(r.body)).group(1) for r in server.requests} == {"m0", "m1"}
