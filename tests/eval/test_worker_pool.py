"""`judge eval --workers N` (issue 14, item 1): worker processes sharing one run's store and cache; kill -9 of the
parent or of one worker, then --resume, loses no case and judges none twice; connections kept alive; the rules
never wait for litellm; a 429 pauses every worker.

Every model answer comes from a SYNTHETIC OpenAI-compatible server on 127.0.0.1 (tests/helpers/loopback.py); it tags each
request with its case (``[case ID]`` in the step description) and counts the TCP connections it accepted. The
workers are real processes: the tests read their claims in the store to see them, and kill them with SIGKILL.
No test asserts a speed; where order matters, the server holds its answers until the test has seen what it
waits for.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.builders import diff, make_case, run_cli
from helpers.eval_processes import ROOT, spawn_eval, wait_for
from judge.config import JudgeConfig
from judge.eval.cases import EvalSet
from judge.eval.progress import Progress
from judge.eval.store import RunStore
from judge.eval.worker_pool import run_in_workers, split_concurrency

from helpers.loopback import Reply, Request, content

pytestmark = [pytest.mark.loopback, pytest.mark.usefixtures("eval_sandbox")]

VALID = content(True, "the patch does what the step asks")  # SYNTHETIC


def _line(tag: str, *, rules_reject: bool = False) -> str:
    """A case tagged for the server: one that needs the model, or one the rules reject (an undeclared file)."""
    description = f"Add input validation to parse_port() in src/app.py [case {tag}]"
    if rules_reject:
        step, result = make_case(diff("hidden_extra_file.diff"), step={"description": description})
        expected = {"valid": False, "rule": "undeclared_file"}
    else:
        step, result = make_case(step={"description": description})
        expected = {"valid": True}
    return json.dumps({"id": tag, "step": step, "result": result, "expected": expected})


def _set(tmp_path: Path, tags: list[str], rejected: frozenset[str] = frozenset()) -> Path:
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(_line(tag, rules_reject=tag in rejected) for tag in tags) + "\n", encoding="utf-8")
    return path


def _tags(count: int, prefix: str = "c") -> list[str]:
    return [f"{prefix}{n:03d}" for n in range(count)]


def _flags(server, tmp_path: Path, *extra: str) -> list[str]:
    return ["--model", "openai/t", "--api-base", server.api_base, "--output-mode", "none", "--no-cache",
            "--store", str(tmp_path / "store.sqlite"), *extra]


def _query(store: Path, sql: str) -> list[tuple]:
    """Read-only, while processes write: nothing when the store or its tables do not exist yet."""
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return db.execute(sql).fetchall()
    except sqlite3.OperationalError:
        return []


def _stored(store: Path) -> set[str]:
    return {row[0] for row in _query(store, "SELECT case_id FROM results")}


def _claims_by_pid(store: Path) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    for case_id, pid in _query(store, "SELECT case_id, pid FROM claims"):
        found.setdefault(pid, set()).add(case_id)
    return found


def _report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _running(pid: int) -> bool:
    """Alive and not a zombie (an orphaned worker is reaped by whoever adopts it, maybe later)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_set_the_rules_decide_alone_never_imports_litellm(tmp_path) -> None:
    """litellm is imported when a case first needs the model: with one configured but every case rejected by the
    rules, the process never imports it (it did not before either; importing it ahead would cost ~2 s)."""
    tags = _tags(6, "r")
    source = _set(tmp_path, tags, rejected=frozenset(tags))
    code = ("import sys; from judge.cli.main import main; rc = main(sys.argv[1:]); "
            "print('litellm' in sys.modules); sys.exit(rc)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-c", code, "eval", str(source), "--model", "openai/t", "--api-base",
                           "http://127.0.0.1:9/v1", "--no-cache", "--store", str(tmp_path / "s.sqlite"),
                           "--out", str(tmp_path / "out.json")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False"
    assert {c["rule"] for c in _report(tmp_path / "out.json")["cases"]} == {"undeclared_file"}


class _Gate:
    """SYNTHETIC answers held until the test opens the gate (or a bound passes, so nothing hangs forever)."""

    def __init__(self) -> None:
        self.opened = threading.Event()

    def answer(self, index: int, request: Request) -> Reply:
        self.opened.wait(60)
        return content(True, f"the step is done ({request.tag})")


def test_workers_share_the_run_each_case_judged_once_by_one_process(scripted_server, tmp_path, capsys) -> None:
    gate = _Gate()
    server = scripted_server(gate.answer)
    tags = _tags(40)
    source = _set(tmp_path, tags)
    store = tmp_path / "store.sqlite"
    seen_pids: set[int] = set()

    def both_workers_claim() -> bool:  # the test's eyes on the store while the answers are held
        seen_pids.update(_claims_by_pid(store))
        return len(seen_pids) >= 2

    opener = threading.Thread(target=lambda: (wait_for(both_workers_claim, "two workers claim cases"),
                                              gate.opened.set()), daemon=True)
    opener.start()
    try:
        code, out, err = run_cli(capsys, "eval", str(source), "--workers", "2", "--concurrency", "6",
                                 "--run-id", "R", *_flags(server, tmp_path), "--out", str(tmp_path / "out.json"))
    finally:
        gate.opened.set()
        opener.join()

    assert code == 0, err
    assert len(seen_pids) == 2 and os.getpid() not in seen_pids  # two worker processes, neither this one
    report = _report(tmp_path / "out.json")
    assert [case["id"] for case in report["cases"]] == tags  # one run, in file order
    assert report["resumed"] == 0
    assert all(case["valid"] and case["decidedBy"] == "semantic" for case in report["cases"])
    asked = server.per_tag()
    assert sorted(asked) == tags and set(asked.values()) == {1}  # each case judged once
    assert server.max_in_flight <= 6  # --concurrency bounds all workers together
    assert _stored(store) == set(tags) and _claims_by_pid(store) == {}

    # A resume with workers takes every case from the store and asks the model nothing.
    code, _, err = run_cli(capsys, "eval", str(source), "--workers", "2", "--concurrency", "6", "--resume", "R",
                           *_flags(server, tmp_path), "--out", str(tmp_path / "again.json"))
    assert code == 0, err
    again = _report(tmp_path / "again.json")
    assert again["resumed"] == len(tags) and server.count == len(tags)
    assert [(c["id"], c["reason"]) for c in again["cases"]] == [(c["id"], c["reason"]) for c in report["cases"]]


def test_progress_and_shards_see_one_run(tmp_path) -> None:
    """Without a model (the workers judge by the rules alone, no litellm to import): each shard's cases over two
    workers, counted by one progress line per case of the shard."""
    tags = _tags(30)
    source = _set(tmp_path, tags, rejected=frozenset(tags[::3]))  # a third rejected by the rules, the rest valid
    judged: dict[int, list[str]] = {}
    for index in (1, 2):
        store = RunStore(tmp_path / "store.sqlite")
        stream = io.StringIO()
        try:
            run_id = store.new_run(str(source), {}, f"shard{index}")
            result = run_in_workers(EvalSet(str(source)), JudgeConfig(), store=store, run_id=run_id, cache=None,
                                    concurrency=4, workers=2, shard=(index, 2),
                                    progress=Progress(len(tags), stream=stream, every_seconds=0))
            stored = set(store.records(run_id))
        finally:
            store.close()
        judged[index] = [record.case_id for record in result.records]
        assert stored == set(judged[index])
        lines = stream.getvalue().splitlines()
        count = len(judged[index])
        assert len(lines) == count and lines[-1].startswith(f"judged {count}/{count} ")  # one count for the run
        assert all(record.valid == (record.case_id not in tags[::3]) for record in result.records)
    assert judged[1] and judged[2] and sorted(judged[1] + judged[2]) == tags  # the shards partition the set


def test_a_429_met_by_one_worker_pauses_every_worker(scripted_server, tmp_path, capsys) -> None:
    """Concurrency 8 over two workers is 4 each: 8 requests in flight means both are calling. The first is
    refused with Retry-After 4 once all 8 are in; the other 7 are answered 2 s later, and no worker may ask
    again before the pause ends. The 2 s are the refused worker's time to read its 429 and share the pause (on a
    loaded machine that took more than 0.5 s); without the shared pause the others would ask again at about 2 s."""
    eight_in = threading.Event()
    refused_at: list[float] = []

    def answer(index: int, request: Request) -> Reply:
        if index < 8:
            if index == 7:
                eight_in.set()
            eight_in.wait(60)
            if index == 0:
                refused_at.append(time.monotonic())
                return Reply(429, {"error": {"message": "synthetic rate limit"}}, headers=(("Retry-After", "4"),))
            time.sleep(2.0)
        return VALID

    server = scripted_server(answer)
    tags = _tags(24)
    source = _set(tmp_path, tags)

    code, _, err = run_cli(capsys, "eval", str(source), "--workers", "2", "--concurrency", "8",
                           *_flags(server, tmp_path), "--out", str(tmp_path / "out.json"))

    assert code == 0, err
    assert server.count == len(tags) + 1  # the refused case was asked twice
    assert all(case["valid"] for case in _report(tmp_path / "out.json")["cases"])
    later = [request.at - refused_at[0] for request in server.requests[8:]]
    assert min(later) >= 3.8, sorted(later)[:4]  # nobody, in either worker, asked while the provider said wait


def test_calls_reuse_their_connections(scripted_server, tmp_path, capsys) -> None:
    """At concurrency 32 litellm's own pool (20 kept alive) closed and reopened connections all the time; each
    process now keeps as many alive as it has model slots."""
    import litellm

    all_in = threading.Event()

    def answer(index: int, request: Request) -> Reply:
        if index < 32:  # the first 32 are answered once all are in, so they end together
            if index == 31:
                all_in.set()
            all_in.wait(60)
        return VALID

    server = scripted_server(answer)
    tags = _tags(160)
    source = _set(tmp_path, tags)
    for workers in ("1", "2"):
        server.reset()
        all_in.clear()
        code, _, err = run_cli(capsys, "eval", str(source), "--workers", workers, "--concurrency", "32",
                               *_flags(server, tmp_path), "--out", str(tmp_path / f"w{workers}.json"))
        assert code == 0, err
        assert server.count == len(tags)
        assert server.max_in_flight == 32  # more calls at once than litellm's own pool keeps alive
        assert server.connections <= 32, (workers, server.connections)
    assert litellm.aclient_session is None  # the in-process run gave litellm its own client back


def test_cases_the_rules_decide_never_wait_for_litellm(scripted_server, tmp_path) -> None:
    """Each fresh worker imports litellm (seconds); its first model case waits for that, the cases the rules
    decide meanwhile go through the other lane and are stored before the first model request arrives."""
    store = tmp_path / "store.sqlite"
    rule_tags = _tags(20, "r")
    stored_at_first_request: list[set[str]] = []

    def answer(index: int, request: Request) -> Reply:
        if index == 0:
            stored_at_first_request.append(_stored(store))
        return VALID

    server = scripted_server(answer)
    source = _set(tmp_path, ["m000", "m001", *rule_tags], rejected=frozenset(rule_tags))
    proc = spawn_eval([str(source), "--workers", "2", "--concurrency", "2", *_flags(server, tmp_path),
                   "--out", str(tmp_path / "out.json")], tmp_path)
    _, err = proc.communicate(timeout=180)

    assert proc.returncode == 0, err
    assert sorted(server.per_tag()) == ["m000", "m001"]
    assert stored_at_first_request == [set(rule_tags)]
    report = _report(tmp_path / "out.json")
    assert {c["id"]: c["decidedBy"] for c in report["cases"]} == {"m000": "semantic", "m001": "semantic",
                                                                   **{tag: "rules" for tag in rule_tags}}


class _AnswersThenHolds(_Gate):
    """SYNTHETIC: the first ``free`` requests answered at once, the rest held until the gate opens."""

    def __init__(self, free: int) -> None:
        super().__init__()
        self.free = free

    def answer(self, index: int, request: Request) -> Reply:
        if index >= self.free:
            self.opened.wait(60)
        return content(True, f"the step is done ({request.tag})")


class _HeldRun:
    """A `judge eval --workers 2 --concurrency 4` process of 40 cases (run R): the first 8 answered and stored,
    the next 4 held by the server, so that every model slot is busy and the claims show what each worker has
    in hand."""

    def __init__(self, scripted_server, tmp_path: Path) -> None:
        self.gate = _AnswersThenHolds(free=8)
        self.server = scripted_server(self.gate.answer)
        self.tags = _tags(40)
        self.store = tmp_path / "store.sqlite"
        self.common = [str(_set(tmp_path, self.tags)), "--workers", "2", "--concurrency", "4",
                       *_flags(self.server, tmp_path)]
        self.proc = spawn_eval(self.common + ["--run-id", "R", "--out", str(tmp_path / "killed.json")], tmp_path)
        try:
            wait_for(lambda: len(_stored(self.store)) >= 8 and self.server.in_flight == 4,
                     "cases stored, then 4 held", self.proc)
            self.workers = _claims_by_pid(self.store)
            assert len(self.workers) == 2 and self.proc.pid not in self.workers
        except BaseException:
            self.gate.opened.set()
            self.proc.kill()
            raise



def test_kill_9_of_one_worker_then_resume_loses_no_case_and_asks_again_only_its_calls_in_flight(
        scripted_server, tmp_path, capsys) -> None:
    run = _HeldRun(scripted_server, tmp_path)
    gate, server, tags, store, proc, common = run.gate, run.server, run.tags, run.store, run.proc, run.common
    try:
        stored_before = _stored(store)
        asked_before = server.per_tag()
        victim = min(run.workers)
        in_flight = {tag for tag in run.workers[victim] if tag in asked_before and tag not in stored_before}
        assert in_flight  # it holds model calls
        os.kill(victim, signal.SIGKILL)
        wait_for(lambda: not _running(victim), "the worker is gone")
        gate.opened.set()  # the other worker's calls are answered: it stores them and ends
        _, err = proc.communicate(timeout=120)
    finally:
        gate.opened.set()
        proc.kill()
    message = err.decode().splitlines()[-1]  # before it, at most progress lines
    assert proc.returncode == 2, err
    assert "Traceback" not in err.decode()
    assert message.startswith(f"judge: run R: worker process {victim} ended unexpectedly (killed by SIGKILL)")
    assert message.endswith("--resume R judges the rest")
    stored_after_kill = _stored(store)
    assert stored_before < stored_after_kill  # the other worker stored the calls it had in flight
    assert not stored_after_kill & in_flight

    code, _, err = run_cli(capsys, "eval", *common, "--resume", "R", "--out", str(tmp_path / "out.json"))

    assert code == 0, err
    assert "waiting" not in err  # the dead worker's claims were taken over at once
    report = _report(tmp_path / "out.json")
    assert [case["id"] for case in report["cases"]] == tags
    assert report["resumed"] == len(stored_after_kill)
    assert _stored(store) == set(tags) and _claims_by_pid(store) == {}
    asked = server.per_tag()
    assert all(asked[tag] == 1 for tag in stored_after_kill)  # stored: never asked again
    assert {tag for tag in tags if asked[tag] != 1} <= in_flight  # asked twice: only its calls cut by the kill
    assert all(asked[tag] <= 2 for tag in tags)


def test_kill_9_of_the_parent_then_resume_judges_every_case_exactly_once(scripted_server, tmp_path, capsys) -> None:
    run = _HeldRun(scripted_server, tmp_path)
    gate, server, tags, store, proc, common = run.gate, run.server, run.tags, run.store, run.proc, run.common
    workers = set(run.workers)
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        gate.opened.set()  # the orphaned workers' calls are answered: they store them, then end
        proc.kill()
    wait_for(lambda: not any(_running(pid) for pid in workers), "the orphaned workers end")
    assert _claims_by_pid(store) == {}  # they gave their claims back

    in_one_process = [arg for arg in common if arg not in ("--workers", "2")]
    code, _, err = run_cli(capsys, "eval", *in_one_process, "--resume", "R", "--out", str(tmp_path / "out.json"))

    assert code == 0, err
    report = _report(tmp_path / "out.json")
    assert [case["id"] for case in report["cases"]] == tags
    asked = server.per_tag()
    assert sorted(asked) == tags and set(asked.values()) == {1}  # not one case asked twice
    assert _stored(store) == set(tags)


def test_concurrency_is_split_over_the_workers() -> None:
    assert split_concurrency(32, 2) == [16, 16]
    assert split_concurrency(7, 3) == [3, 2, 2]
    assert split_concurrency(2, 4) == [1, 1]  # never a worker without a model slot


def test_workers_with_record_or_replay_or_below_one_are_refused(tmp_path, capsys) -> None:
    source = _set(tmp_path, ["c000"])
    for extra, expected in ((["--workers", "0"], "judge: --workers 0: must be at least 1"),
                            (["--workers", "2", "--record", str(tmp_path / "rec")],
                             "judge: --workers 2: --record and --replay judge in one process")):
        code, out, err = run_cli(capsys, "eval", str(source), *extra, "--store", str(tmp_path / "s.sqlite"),
                                 "--out", str(tmp_path / "o.json"))
        assert code == 2 and out == "" and err.startswith(expected) and err.count("\n") == 1, err
