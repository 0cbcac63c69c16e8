"""`judge eval` as a harness: bounded concurrency, resume after kill -9, shards and merge, the verdict
cache, one shared pause after a 429, progress, record/replay, bad lines and refused resumes.

Every model answer here comes from a SYNTHETIC OpenAI-compatible server on 127.0.0.1 (tests/helpers/loopback.py,
the ``scripted_server`` fixture): it tags each request with the case it is for (``[case ID]`` in the step
description), holds it for a fixed latency, counts requests in flight and answers with a scripted verdict.
Nothing is a recording of a real model; what is real is the transport (litellm over a socket) and the CLI.
"""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from helpers.builders import diff, make_case
from judge.cli.main import main
from judge.eval.progress import Progress

from helpers.loopback import LoopbackServer, Reply, Request, content

pytestmark = [pytest.mark.loopback, pytest.mark.usefixtures("eval_sandbox")]

VALID = content(True, "the patch does what the step asks")  # SYNTHETIC, like every answer here


# --- eval sets -----------------------------------------------------------------------------------


def _line(case_id: str, tag: str | None = None, *, patch: str | None = None, valid: bool = True,
          rule: str | None = None) -> str:
    """A case that passes the rules (so it needs the model), its step tagged ``[case TAG]`` for the server."""
    description = f"Add input validation to parse_port() in src/app.py [case {tag or case_id}]"
    step, result = make_case(step={"description": description}) if patch is None else \
        make_case(patch, step={"description": description})
    expected: dict = {"valid": valid, **({"rule": rule} if rule else {})}
    return json.dumps({"id": case_id, "step": step, "result": result, "expected": expected}, sort_keys=True)


def _tags(count: int, prefix: str = "c") -> list[str]:
    return [f"{prefix}{n:03d}" for n in range(count)]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _model_set(tmp_path: Path, count: int, name: str = "set.jsonl") -> tuple[Path, list[str]]:
    tags = _tags(count)
    return _write(tmp_path / name, [_line(f"valid/{tag}", tag) for tag in tags]), [f"valid/{tag}" for tag in tags]


# --- running judge eval ----------------------------------------------------------------------------


def _flags(server: LoopbackServer, tmp_path: Path, out: str = "out.json", *extra: str) -> list[str]:
    return ["--model", "openai/t", "--api-base", server.api_base, "--output-mode", "none",
            "--store", str(tmp_path / "store.sqlite"), "--out", str(tmp_path / out), *extra]


def _eval(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["eval", *argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, out, err


def _report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _verdicts(report: dict) -> dict[str, tuple]:
    return {c["id"]: (c["valid"], c["rule"], c["reason"], c["decidedBy"]) for c in report["cases"]}


def _stored(store: Path, run_id: str) -> list[str]:
    """Case ids the store holds for a run, read-only (another process may be writing)."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return [row[0] for row in db.execute("SELECT case_id FROM results WHERE run_id = ?", (run_id,))]
    except sqlite3.OperationalError:  # not created yet
        return []


# --- concurrency ---------------------------------------------------------------------------------


def test_concurrency_bounds_the_requests_in_flight(scripted_server, tmp_path: Path, capsys) -> None:
    server = scripted_server([VALID], latency=0.2)
    source, ids = _model_set(tmp_path, 12)
    code, _, _ = _eval(capsys, str(source), "--concurrency", "4", "--no-cache", *_flags(server, tmp_path))
    assert code == 0
    assert server.count == 12
    assert 1 < server.max_in_flight <= 4


# --- resume after kill -9 ------------------------------------------------------------------------


def test_resume_after_sigkill_judges_every_case_exactly_once(scripted_server, tmp_path: Path, capsys) -> None:
    server = scripted_server([VALID], latency=0.3)
    source, ids = _model_set(tmp_path, 24)
    store = tmp_path / "store.sqlite"
    argv = [str(source), "--concurrency", "4", "--no-cache", *_flags(server, tmp_path)]
    command = [sys.executable, "-c", "import sys; from judge.cli.main import main; sys.exit(main())", "eval", *argv]
    proc = subprocess.Popen(command + ["--run-id", "killed"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120  # a margin, not a timing: the child imports litellm on a loaded machine
        while not 4 <= len(_stored(store, "killed")) < len(ids):
            assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read()!r}"
            assert time.monotonic() < deadline, "no rows stored within 120 s"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    before = set(_stored(store, "killed"))
    assert 0 < len(before) < len(ids)

    code, _, _ = _eval(capsys, *argv, "--resume", "killed")

    assert code == 0
    stored = _stored(store, "killed")
    assert sorted(stored) == sorted(ids)  # every case, each exactly once
    report = _report(tmp_path / "out.json")
    assert sorted(c["id"] for c in report["cases"]) == sorted(ids)
    assert report["resumed"] == len(before)
    asked = server.per_tag()
    tag_of = {case_id: case_id.split("/")[1] for case_id in ids}
    assert all(asked[tag_of[case_id]] == 1 for case_id in before), asked  # stored before the kill: never asked again
    twice = [case_id for case_id in ids if asked[tag_of[case_id]] != 1]
    assert all(asked[tag_of[case_id]] == 2 for case_id in twice), asked
    assert len(twice) <= 4  # only what was in flight at the kill


# --- shards and merge ----------------------------------------------------------------------------


def _mixed_set(tmp_path: Path) -> tuple[Path, list[str]]:
    """30 cases: the model says valid for even tags and rejects odd ones; 6 are decided by the rules."""
    lines = [_line(f"valid/{tag}", tag) for tag in _tags(24)]
    lines += [_line(f"undeclared_file/u{n}", f"u{n}", patch=diff("hidden_extra_file.diff"), valid=False,
                    rule="undeclared_file") for n in range(6)]
    return _write(tmp_path / "mixed.jsonl", lines), [json.loads(line)["id"] for line in lines]


def _even_valid(index: int, request: Request) -> Reply:
    tag = request.tag
    number = int(tag[1:]) if tag and tag[1:].isdigit() else 0
    if number % 2:
        return content(False, f"the step is only partly done ({tag})")
    return content(True, f"the step is done ({tag})")


def _comparable(metrics: Any) -> Any:
    """Metrics without what depends on timing (latency percentiles)."""
    if isinstance(metrics, dict):
        return {k: _comparable(v) for k, v in metrics.items() if "latency" not in k.lower()}
    if isinstance(metrics, list):
        return [_comparable(v) for v in metrics]
    return metrics


def test_shards_partition_the_set_and_merge_equals_one_full_run(scripted_server, tmp_path: Path, capsys) -> None:
    server = scripted_server(_even_valid)
    source, ids = _mixed_set(tmp_path)
    assert _eval(capsys, str(source), "--no-cache", *_flags(server, tmp_path, "full.json"))[0] == 0
    parts = []
    for index in (1, 2, 3):
        code, _, _ = _eval(capsys, str(source), "--no-cache", "--shard", f"{index}/3",
                           *_flags(server, tmp_path, f"p{index}.json"))
        assert code == 0
        parts.append(tmp_path / f"p{index}.json")
    shards = [[c["id"] for c in _report(part)["cases"]] for part in parts]
    assert all(shards), shards  # 30 cases: no shard is empty
    assert sum(len(s) for s in shards) == len(ids)
    assert set().union(*shards) == set(ids)

    code, _, _ = _eval(capsys, "merge", *map(str, parts), "--out", str(tmp_path / "all.json"))

    assert code == 0
    full, merged = _report(tmp_path / "full.json"), _report(tmp_path / "all.json")
    assert _verdicts(merged) == _verdicts(full)
    assert len({v for v in _verdicts(full).values()}) > 2  # valid, rejected by the model, by the rules
    assert _comparable(merged["metrics"]) == _comparable(full["metrics"])


# --- the verdict cache ---------------------------------------------------------------------------


def test_unchanged_rerun_makes_no_model_request_and_no_cache_asks_again(scripted_server, tmp_path: Path,
                                                                        capsys) -> None:
    server = scripted_server([VALID])
    source, ids = _model_set(tmp_path, 5)
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    assert _eval(capsys, str(source), *cache, *_flags(server, tmp_path, "first.json"))[0] == 0
    assert server.count == 5
    assert not any(c["cached"] for c in _report(tmp_path / "first.json")["cases"])

    assert _eval(capsys, str(source), *cache, *_flags(server, tmp_path, "second.json"))[0] == 0
    assert server.count == 5
    second = _report(tmp_path / "second.json")
    assert all(c["cached"] and c["llmCalls"] == 0 for c in second["cases"])
    assert _verdicts(second) == _verdicts(_report(tmp_path / "first.json"))

    assert _eval(capsys, str(source), *cache, "--no-cache", *_flags(server, tmp_path, "third.json"))[0] == 0
    assert server.count == 10
    assert not any(c["cached"] for c in _report(tmp_path / "third.json")["cases"])


def test_summary_counts_model_calls_and_cache_hits(scripted_server, tmp_path: Path, capsys) -> None:
    """Issue 14: 3 cases the model judges and 1 the rules decide; a re-run answers the 3 from the cache."""
    server = scripted_server([VALID])
    source = _write(tmp_path / "set.jsonl", [_line(f"valid/{tag}", tag) for tag in _tags(3)] + [
        _line("undeclared", "u", patch=diff("hidden_extra_file.diff"), valid=False, rule="undeclared_file")])
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    _, out, _ = _eval(capsys, str(source), *cache, *_flags(server, tmp_path, "first.json"))
    assert "LLM calls: 3 made, 1 saved by the rules; cache hits: 0; could not judge: none" in out.splitlines()
    _, out, _ = _eval(capsys, str(source), *cache, *_flags(server, tmp_path, "second.json"))
    assert "LLM calls: 0 made, 1 saved by the rules; cache hits: 3; could not judge: none" in out.splitlines()
    assert server.count == 3


def test_llm_unavailable_is_not_cached(scripted_server, tmp_path: Path, capsys) -> None:
    """The run that could not judge exits 1 (issue 14) and says so; the cache keeps nothing of it."""
    server = scripted_server([Reply(500, {"error": {"message": "synthetic outage"}})])
    source, ids = _model_set(tmp_path, 3)
    flags = ["--cache", str(tmp_path / "cache.sqlite"), "--retries", "0"]
    code, out, err = _eval(capsys, str(source), *flags, *_flags(server, tmp_path, "first.json"))
    assert code == 1 and "judge: 3 case(s) could not be judged (llm_unavailable 3)" in err
    assert "LLM calls: 3 made, 0 saved by the rules; cache hits: 0; could not judge: 3 (llm_unavailable 3)" in out
    assert server.count == 3
    assert {c["rule"] for c in _report(tmp_path / "first.json")["cases"]} == {"llm_unavailable"}

    _eval(capsys, str(source), *flags, *_flags(server, tmp_path, "second.json"))

    assert server.count == 6
    assert not any(c["cached"] for c in _report(tmp_path / "second.json")["cases"])


@pytest.mark.parametrize("changed", [["--model", "openai/other"], ["--samples", "3"], ["--temperature", "0.5"]],
                         ids=["model", "samples", "temperature"])
def test_changed_model_or_prompt_settings_miss_the_cache(scripted_server, tmp_path: Path, capsys,
                                                         changed: list[str]) -> None:
    server = scripted_server([VALID])
    source, ids = _model_set(tmp_path, 3)
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    assert _eval(capsys, str(source), *cache, *_flags(server, tmp_path, "first.json"))[0] == 0
    assert server.count == 3

    assert _eval(capsys, str(source), *cache, *_flags(server, tmp_path, "second.json"), *changed)[0] == 0

    samples = int(changed[1]) if changed[0] == "--samples" else 1
    assert server.count == 3 + 3 * samples
    assert not any(c["cached"] for c in _report(tmp_path / "second.json")["cases"])


# --- one shared pause after a 429 ----------------------------------------------------------------


def test_a_429_pauses_every_worker_then_all_complete(scripted_server, tmp_path: Path, capsys) -> None:
    first_is_429 = Reply(429, {"error": {"message": "synthetic rate limit"}}, headers=(("Retry-After", "1"),))
    server = scripted_server([first_is_429, VALID], latency=0.3)
    source, ids = _model_set(tmp_path, 24)

    code, _, _ = _eval(capsys, str(source), "--concurrency", "8", "--no-cache", *_flags(server, tmp_path))

    assert code == 0
    report = _report(tmp_path / "out.json")
    assert all(c["valid"] and c["decidedBy"] == "semantic" for c in report["cases"])
    assert server.count == 25  # every case once, the rate-limited one twice
    limited = server.requests[0].at
    later = [s.at - limited for s in server.requests[8:]]  # after the first wave of 8
    assert min(later) >= 0.9, sorted(later)[:5]  # nobody asked while the provider said wait


# --- progress ------------------------------------------------------------------------------------


def test_short_run_on_a_non_tty_prints_nothing_to_stderr(scripted_server, tmp_path: Path, capsys) -> None:
    server = scripted_server([VALID])
    source, _ = _model_set(tmp_path, 3)
    code, _, err = _eval(capsys, str(source), "--no-cache", *_flags(server, tmp_path))
    assert code == 0
    assert err == ""


# The bar on a terminal, drawn by rich, is tested in tests/eval/test_progress.py.


def test_progress_off_a_tty_writes_plain_lines_now_and_then() -> None:
    stream = io.StringIO()
    progress = Progress(4, stream=stream, every_seconds=0)
    progress.advance()
    progress.finish()
    text = stream.getvalue()
    assert "\r" not in text and "[" not in text
    assert text.startswith("judged 1/4") and "ETA" in text and text.endswith("\n")


class _Clock:
    """A clock the test moves by hand: the ETA is arithmetic on it, never a wall-clock measurement."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _settle(progress: Progress, clock: _Clock, fast: int = 0, model: int = 0, stored: int = 0,
            model_seconds: float = 1.0) -> None:
    """Settle cases as a run would: quick ones at once, then each model case ``model_seconds`` after the last."""
    for _ in range(stored):
        progress.advance(stored=True)
    for _ in range(fast):
        progress.advance()
    for _ in range(model):
        clock.now += model_seconds
        progress.advance(model=True)


def test_eta_ignores_deterministic_cases_settled_first() -> None:
    """Issue 14: 100 cases the rules decide at once, then model cases at 1/s. After 60 of those, 40 are left: 40 s.
    (The plain rate, 160 cases in 60 s, would say 15 s.)"""
    clock = _Clock()
    progress = Progress(200, io.StringIO(), model_configured=True, clock=clock)
    _settle(progress, clock, fast=100)
    assert progress.seconds_left() is None  # no model case has settled yet: unknown, not "0s"
    _settle(progress, clock, model=60)
    assert progress.seconds_left() == pytest.approx(40.0)


def test_eta_ignores_the_cases_a_resumed_run_takes_from_the_store() -> None:
    """100 of 200 cases stored: after 20 model cases in 20 s, 80 are left at 1/s (the plain rate would say 13 s)."""
    clock = _Clock()
    progress = Progress(200, io.StringIO(), model_configured=True, clock=clock)
    progress.stored_ahead = 100
    _settle(progress, clock, stored=100, model=20)
    assert progress.seconds_left() == pytest.approx(80.0)


def test_eta_of_a_mixed_set_counts_only_the_share_that_needs_the_model() -> None:
    """Half the cases need the model, evenly mixed: after 20 of each in 20 s, 60 are left, 30 of them model cases."""
    clock = _Clock()
    progress = Progress(100, io.StringIO(), model_configured=True, clock=clock)
    for _ in range(20):
        _settle(progress, clock, fast=1, model=1)
    assert progress.seconds_left() == pytest.approx(30.0)


def test_eta_without_a_model_is_the_plain_rate() -> None:
    clock = _Clock()
    progress = Progress(10, io.StringIO(), clock=clock)
    clock.now = 2.0
    _settle(progress, clock, fast=4)
    assert progress.seconds_left() == pytest.approx(3.0)  # 6 left at 2 cases/s


def test_the_progress_line_shows_the_eta() -> None:
    clock = _Clock()
    stream = io.StringIO()
    progress = Progress(200, stream, model_configured=True, clock=clock, every_seconds=0)
    _settle(progress, clock, fast=100, model=60)
    assert stream.getvalue().splitlines()[0].endswith("ETA --")
    assert stream.getvalue().splitlines()[-1] == "judged 160/200 (80%), 2.7 cases/s, ETA 40s"


def test_the_runner_tells_progress_which_cases_needed_the_model(scripted_server, tmp_path: Path) -> None:
    """6 cases the rules decide and 4 the model judges: the progress counts 4 model cases of 10 judged."""
    import asyncio

    from judge.config import JudgeConfig
    from judge.eval.cases import EvalSet
    from judge.eval.runner import run_eval

    server = scripted_server([VALID])
    lines = [_line(f"valid/{tag}", tag) for tag in _tags(4)]
    lines += [_line(f"undeclared_file/u{n}", f"u{n}", patch=diff("hidden_extra_file.diff"), valid=False,
                    rule="undeclared_file") for n in range(6)]
    source = _write(tmp_path / "set.jsonl", lines)
    config = JudgeConfig(model="openai/t", api_base=server.api_base, output_mode="none")
    progress = Progress(10, io.StringIO(), model_configured=True)
    asyncio.run(run_eval(EvalSet(str(source)), config, progress=progress))
    assert (progress.done, progress.judged, progress.model_done) == (10, 10, 4)
    assert server.count == 4


# --- record and replay ---------------------------------------------------------------------------


def test_record_then_replay_offline_gives_the_same_verdicts(scripted_server, tmp_path: Path, capsys,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGE_API_KEY", "sk-synthetic-secret-4242")
    server = scripted_server(_even_valid)
    source, ids = _model_set(tmp_path, 4)
    cassette = tmp_path / "cassette"
    flags = _flags(server, tmp_path, "recorded.json")
    assert _eval(capsys, str(source), "--record", str(cassette), *flags)[0] == 0
    assert server.count == 4
    server.close()
    connects: list[Any] = []
    blocked_connect = socket.socket.connect

    def counting(sock: socket.socket, address: Any) -> Any:
        if sock.family != socket.AF_UNIX:
            connects.append(address)
        return blocked_connect(sock, address)

    monkeypatch.setattr(socket.socket, "connect", counting)

    code, _, _ = _eval(capsys, str(source), "--replay", str(cassette), *_flags(server, tmp_path, "replayed.json"))

    assert code == 0
    assert connects == []
    recorded, replayed = _report(tmp_path / "recorded.json"), _report(tmp_path / "replayed.json")
    assert {v[1] for v in _verdicts(recorded).values()} == {None, "step_not_implemented"}
    assert _verdicts(replayed) == _verdicts(recorded)
    setup = (cassette / "recording.json").read_text(encoding="utf-8")
    assert "sk-synthetic-secret-4242" not in setup and "api_key" not in json.loads(setup)
    assert "sk-synthetic-secret-4242" not in (cassette / "traffic.yaml").read_text(encoding="utf-8")


# --- bad input and refused resumes ---------------------------------------------------------------


def test_bad_lines_are_reported_by_number_and_the_rest_runs(scripted_server, tmp_path: Path, capsys) -> None:
    server = scripted_server([VALID])
    lines = [_line("valid/a", "a"), _line("valid/b", "b"), '{"id": "broken", "step": ',
             _line("valid/c", "c"), json.dumps({"id": "no-label", "step": {}, "result": {}}),
             _line("valid/a", "a-again")]
    source = _write(tmp_path / "bad.jsonl", lines)

    code, out, _ = _eval(capsys, str(source), "--no-cache", *_flags(server, tmp_path))

    assert code == 2
    report = _report(tmp_path / "out.json")
    assert [c["id"] for c in report["cases"]] == ["valid/a", "valid/b", "valid/c"]
    assert server.per_tag() == Counter({"a": 1, "b": 1, "c": 1})
    assert [b["line"] for b in report["badLines"]] == [3, 5, 6]
    assert "duplicate" in report["badLines"][2]["problem"]
    for number in (3, 5, 6):
        assert f"line {number}" in out


def test_resume_with_other_settings_is_refused_in_one_line(scripted_server, tmp_path: Path, capsys) -> None:
    server = scripted_server([VALID])
    source, _ = _model_set(tmp_path, 2)
    assert _eval(capsys, str(source), "--no-cache", "--run-id", "r1", *_flags(server, tmp_path))[0] == 0
    count = server.count

    code, out, err = _eval(capsys, str(source), "--no-cache", "--resume", "r1", "--temperature", "0.5",
                           *_flags(server, tmp_path))

    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("judge: --resume r1")
    assert server.count == count


@pytest.mark.parametrize("resume", [["--resume"], ["--resume", "never-ran"]], ids=["latest", "named"])
def test_resume_with_no_earlier_run_is_refused(tmp_path: Path, capsys, resume: list[str]) -> None:
    source, _ = _model_set(tmp_path, 2)
    code, out, err = _eval(capsys, str(source), *resume, "--store", str(tmp_path / "store.sqlite"),
                           "--out", str(tmp_path / "out.json"))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("judge: --resume")
    assert not (tmp_path / "out.json").exists()


def test_resume_rejudges_a_case_whose_inputs_changed_and_takes_labels_from_the_file(tmp_path, capsys):
    """Review finding: a stored verdict was reused by id alone, even after the case was edited."""
    from helpers.builders import make_case, run_cli

    step, result = make_case()
    case = {"id": "c1", "step": step, "result": result, "expected": {"valid": True}}
    source = tmp_path / "set.jsonl"
    source.write_text(json.dumps(case) + "\n")
    common = ["--store", str(tmp_path / "s.sqlite"), "--no-cache", "--out", str(tmp_path / "r.json")]
    assert run_cli(capsys, "eval", str(source), "--run-id", "r1", *common)[0] == 0
    edited = dict(case, result=dict(result, filesWritten=[]), expected={"valid": False, "rule": "missing_files_written"})
    source.write_text(json.dumps(edited) + "\n")
    assert run_cli(capsys, "eval", str(source), "--resume", "r1", *common)[0] == 0
    report = json.loads((tmp_path / "r.json").read_text())
    (only,) = report["cases"]
    assert (only["valid"], only["rule"], only["expectedValid"]) == (False, "missing_files_written", False)
    assert report["resumed"] == 0
