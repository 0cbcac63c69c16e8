"""Processes sharing one eval store (issue 11, item 6): two `judge eval --resume R` at once judge each case
once and both report the whole run; a case claimed by a killed process is taken over at once; a live
claim is waited for, within a bound.

Every model answer comes from a SYNTHETIC OpenAI-compatible server on 127.0.0.1 (tests/helpers/loopback.py); it
counts the requests for each case, tagged ``[case ID]`` in the step description.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from helpers.builders import make_case, run_cli
from helpers.eval_processes import spawn_eval, wait_for
from judge.eval.leases import CaseLeases
from judge.eval.report.model import CaseRecord
from judge.eval.run_state import lanes_for
from judge.eval.store import RunStore

from helpers.loopback import Hang, Request, content

pytestmark = [pytest.mark.loopback, pytest.mark.usefixtures("eval_sandbox")]

VALID = content(True, "the patch does what the step asks")  # SYNTHETIC
CASES = 24


def _set(tmp_path: Path, count: int = CASES) -> tuple[Path, list[str]]:
    """Cases that pass the rules, so each needs one model request, tagged by its id for the server."""
    lines, ids = [], []
    for n in range(count):
        tag = f"c{n:03d}"
        step, result = make_case(step={"description": f"Add input validation to parse_port() [case {tag}]"})
        lines.append(json.dumps({"id": tag, "step": step, "result": result, "expected": {"valid": True}}))
        ids.append(tag)
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, ids


def _flags(server, tmp_path: Path, *extra: str) -> list[str]:
    return ["--model", "openai/t", "--api-base", server.api_base, "--output-mode", "none", "--no-cache",
            "--store", str(tmp_path / "store.sqlite"), *extra]


def _new_empty_run(server, tmp_path: Path, capsys, run_id: str = "R") -> None:
    """Run ``run_id`` exists with the test's settings and no case stored: both processes then only resume it. An
    empty set is refused, so a run of a one-case set (decided by the rules, no model request) gives the settings
    the CLI records for these flags, and ``run_id`` is made with them, empty."""
    other = tmp_path / "other.jsonl"
    step, result = make_case(success=False, summary="failed")  # a failure report with a patch: rejected by the rules
    other.write_text(json.dumps({"id": "other", "step": step, "result": result, "expected": {"valid": False}}) + "\n",
                     encoding="utf-8")
    code, _, err = run_cli(capsys, "eval", str(other), "--run-id", "settings", "--out", str(tmp_path / "other.json"),
                           *_flags(server, tmp_path, "--store", str(tmp_path / "settings.sqlite")))
    assert code == 0, err
    settings = RunStore(tmp_path / "settings.sqlite")
    store = RunStore(tmp_path / "store.sqlite")
    try:
        store.new_run(str(other), settings.run_meta("settings"), run_id)
    finally:
        settings.close()
        store.close()


def _rows(store: Path, table: str) -> list[tuple]:
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
        return db.execute(f"SELECT case_id FROM {table}").fetchall()


def _report(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _verdicts(report: dict) -> dict[str, tuple]:
    return {c["id"]: (c["valid"], c["rule"], c["reason"]) for c in report["cases"]}


def test_two_concurrent_resumes_judge_each_case_once_and_both_report_the_whole_run(scripted_server, tmp_path,
                                                                                  capsys) -> None:
    gate = threading.Event()

    def answer(index: int, request: Request):
        gate.wait(60)  # every answer waits until both processes have cases in flight
        return content(True, f"the step is done ({request.tag})")

    server = scripted_server(answer)
    source, ids = _set(tmp_path)
    _new_empty_run(server, tmp_path, capsys)
    store = tmp_path / "store.sqlite"
    argv = [str(source), "--resume", "R", "--concurrency", "2", *_flags(server, tmp_path)]
    first = spawn_eval(argv + ["--out", str(tmp_path / "a.json")], tmp_path)
    try:
        wait_for(lambda: server.count >= 2, "the first process asks the model", first)
        second = spawn_eval(argv + ["--out", str(tmp_path / "b.json")], tmp_path)
        try:
            wait_for(lambda: server.count >= 4, "the second process asks the model too", second)
            # Each process holds the cases of its lanes claimed, each case by one: two with the model, two more
            # checked by the rules meanwhile and waiting for a model slot.
            assert len(_rows(store, "claims")) == 2 * lanes_for(2)
            gate.set()
            outs = [proc.communicate(timeout=120) for proc in (first, second)]
        finally:
            second.kill()
    finally:
        gate.set()
        first.kill()
    assert (first.returncode, second.returncode) == (0, 0), outs
    assert all(b"Traceback" not in err for _, err in outs)

    asked = server.per_tag()
    assert sorted(asked) == ids and set(asked.values()) == {1}, asked  # each case judged exactly once
    a, b = _report(tmp_path / "a.json"), _report(tmp_path / "b.json")
    assert sorted(_verdicts(a)) == ids and _verdicts(a) == _verdicts(b)  # both complete, the same verdicts
    # Each case was judged by one process and taken from the store by the other.
    assert a["resumed"] + b["resumed"] == CASES and a["resumed"] >= 2 and b["resumed"] >= 2
    assert sorted(row[0] for row in _rows(store, "results")) == ids
    assert _rows(store, "claims") == []


def test_a_case_claimed_by_a_killed_process_is_taken_over_at_once(scripted_server, tmp_path, capsys) -> None:
    answers = {"hang": True}
    server = scripted_server(lambda index, request: Hang(60) if answers["hang"] else VALID)
    source, ids = _set(tmp_path, 6)
    _new_empty_run(server, tmp_path, capsys)
    store = tmp_path / "store.sqlite"
    argv = [str(source), "--resume", "R", "--concurrency", "2", *_flags(server, tmp_path)]
    killed = spawn_eval(argv + ["--out", str(tmp_path / "killed.json")], tmp_path)
    try:
        wait_for(lambda: server.count >= 2, "the process asks the model", killed)
        held = sorted(row[0] for row in _rows(store, "claims"))
        asked_before = set(server.per_tag())
        # Its lanes' cases are claimed: two with the model, two waiting for a model slot.
        assert len(held) == lanes_for(2) and len(asked_before) == 2 and asked_before <= set(held)
        os.kill(killed.pid, signal.SIGKILL)
    finally:
        killed.kill()
        killed.wait(timeout=10)
    assert killed.returncode == -signal.SIGKILL
    answers["hang"] = False

    code, _, err = run_cli(capsys, "eval", *argv, "--out", str(tmp_path / "out.json"))

    assert code == 0, err
    assert "waiting" not in err  # its pid is gone: no lease to wait out
    report = _report(tmp_path / "out.json")
    assert sorted(_verdicts(report)) == ids and report["resumed"] == 0
    asked = server.per_tag()
    assert {tag: asked[tag] for tag in asked_before} == {tag: 2 for tag in asked_before}  # asked again
    assert all(asked[tag] == 1 for tag in ids if tag not in asked_before)  # claimed or not: judged here once
    assert _rows(store, "claims") == []


def _forge_claim(store: Path, case_id: str, *, host: str, expires_in: float) -> None:
    """A claim as a process on another host would leave it: its pid cannot be checked from here."""
    with sqlite3.connect(store) as db:
        now = time.time()
        db.execute("INSERT INTO claims VALUES ('R', ?, 'h', ?, 4242, ?, ?, ?)",
                   (case_id, f"4242@{host}#t0", host, now, now + expires_in))


def test_an_expired_lease_is_taken_over_and_a_live_one_is_waited_for_within_a_bound(
        scripted_server, tmp_path, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    server = scripted_server([VALID])
    source, ids = _set(tmp_path, 4)
    _new_empty_run(server, tmp_path, capsys)
    store = tmp_path / "store.sqlite"
    _forge_claim(store, "c000", host="elsewhere.example", expires_in=-1)  # its owner stopped renewing it
    _forge_claim(store, "c001", host="elsewhere.example", expires_in=3600)  # its owner renews it, but never ends
    monkeypatch.setattr("judge.eval.run_state.HELD_WAIT_SECONDS", 0.5)
    argv = [str(source), "--resume", "R", *_flags(server, tmp_path), "--out", str(tmp_path / "out.json")]

    code, out, err = run_cli(capsys, "eval", *argv)

    assert code == 2 and out == ""
    last = err.splitlines()[-1]
    assert last.startswith("judge: run R: 1 case(s) still being judged by pid 4242 on elsewhere.example")
    assert "'c001'" in last and "--resume R again" in last
    assert "waiting for them" in err
    assert sorted(server.per_tag()) == ["c000", "c002", "c003"]  # the expired claim was taken over
    assert sorted(row[0] for row in _rows(store, "results")) == ["c000", "c002", "c003"]

    with sqlite3.connect(store) as db:  # its owner ends after all
        db.execute("DELETE FROM claims WHERE case_id = 'c001'")
    code, _, err = run_cli(capsys, "eval", *argv)
    assert code == 0, err
    assert sorted(_verdicts(_report(tmp_path / "out.json"))) == ids
    assert server.per_tag()["c001"] == 1


def test_a_run_reports_the_cases_another_process_judged_for_it(scripted_server, tmp_path, capsys) -> None:
    server = scripted_server([VALID])
    source, ids = _set(tmp_path, 3)
    _new_empty_run(server, tmp_path, capsys)
    other = RunStore(tmp_path / "store.sqlite")  # another judge in this process, holding c001
    leases = CaseLeases(other, "R")
    line = json.loads(source.read_text(encoding="utf-8").splitlines()[1])
    from judge.contract.schema import parse_eval_case
    from judge.eval.cases import inputs_hash

    digest = inputs_hash(parse_eval_case(line))
    assert leases.take("c001", digest) is None
    elsewhere = CaseRecord("c001", digest, (), True, None, False, "step_not_implemented",
                           "judged by the other process", "semantic", llm_calls=1)
    timer = threading.Timer(0.5, leases.finish, args=(elsewhere,))
    timer.start()
    try:
        code, _, err = run_cli(capsys, "eval", str(source), "--resume", "R", *_flags(server, tmp_path),
                               "--out", str(tmp_path / "out.json"))
    finally:
        timer.join()
        leases.close()
        other.close()

    assert code == 0, err
    assert "judged by another process" in err
    report = _report(tmp_path / "out.json")
    assert sorted(_verdicts(report)) == ids and report["resumed"] == 1
    assert _verdicts(report)["c001"] == (False, "step_not_implemented", "judged by the other process")
    assert "c001" not in server.per_tag()


def test_a_live_owner_renews_its_leases_and_gives_its_claims_back_when_closed(tmp_path) -> None:
    store = RunStore(tmp_path / "store.sqlite")
    store.new_run("set.jsonl", {})
    run_id = store.latest_run("set.jsonl")
    mine = CaseLeases(store, run_id, lease=30, renew=0.02)
    other = CaseLeases(store, run_id)
    try:
        assert mine.take("c1", "h") is None
        claimed_until = store.db.execute("SELECT expires FROM claims").fetchone()[0]
        wait_for(lambda: store.db.execute("SELECT expires FROM claims").fetchone()[0] > claimed_until,
                  "the heartbeat renews the lease")
        assert other.take("c1", "h") == mine.owner  # alive: the other waits
        mine.close()
        assert store.db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0
        assert mine.owner.gone()  # closed in this process: what it might have left behind is free
        assert other.take("c1", "h") is None
    finally:
        mine.close()  # closing twice is harmless
        other.close()
        store.close()


@pytest.fixture
def short_lock_wait(monkeypatch: pytest.MonkeyPatch) -> float:
    """The bound on waiting for another process's write lock, lowered so a test sees it run out."""
    monkeypatch.setattr("judge.eval.sqlite.LOCK_WAIT_SECONDS", 0.4)
    return 0.4


def _hold_write_lock(store: Path) -> sqlite3.Connection:
    """Another process's writer, as SQLite sees it: its own connection inside BEGIN IMMEDIATE."""
    holder = sqlite3.connect(str(store), isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def test_a_store_locked_past_the_bound_is_a_clear_input_error_and_no_claim_is_lost(tmp_path, short_lock_wait) -> None:
    from judge.errors import InputError

    path = tmp_path / "store.sqlite"
    store = RunStore(path)
    run_id = store.new_run("set.jsonl", {})
    leases = CaseLeases(store, run_id)
    try:
        assert leases.take("c1", "h") is None
        holder = _hold_write_lock(path)
        try:
            with pytest.raises(InputError) as taking:
                leases.take("c2", "h")
            record = CaseRecord("c1", "h", (), True, None, True, None, "fine", "semantic")
            with pytest.raises(InputError) as finishing:
                leases.finish(record)
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        for raised in (taking.value, finishing.value):
            message = str(raised)
            assert "\n" not in message and str(path) in message and "locked by another process" in message
            assert "resume" in message
        # c1 is still claimed by its live owner, not stored and not free: judged again by it, never by two.
        assert _rows(path, "claims") == [("c1",)] and _rows(path, "results") == []
        assert leases.take("c2", "h") is None  # the lock is gone: claiming works again
        leases.finish(record)
        assert _rows(path, "results") == [("c1",)]
    finally:
        leases.close()
        store.close()


def test_a_lock_released_within_the_bound_is_waited_for(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("judge.eval.sqlite.LOCK_WAIT_SECONDS", 30.0)
    path = tmp_path / "store.sqlite"
    store = RunStore(path)
    run_id = store.new_run("set.jsonl", {})
    leases = CaseLeases(store, run_id)
    holder = _hold_write_lock(path)
    releaser = threading.Timer(0.3, lambda: (holder.execute("COMMIT"), holder.close()))
    releaser.start()
    try:
        assert leases.take("c1", "h") is None
    finally:
        releaser.join()
        leases.close()
        store.close()
    assert _rows(path, "claims") == []


# The eval stops with a model call in flight. litellm's acompletion awaits its synchronous dispatcher in
# an executor thread, which hands back the coroutine of the HTTP call; once the task awaiting it is cancelled, that
# coroutine is dropped unawaited (litellm/main.py, `await loop.run_in_executor(...)`). Nothing of judge's is left.
@pytest.mark.filterwarnings("ignore:coroutine 'OpenAIChatCompletion.acompletion' was never awaited:RuntimeWarning")
def test_a_store_locked_during_an_eval_ends_it_with_exit_2_and_one_line(scripted_server, tmp_path, capsys,
                                                                         short_lock_wait) -> None:
    store = tmp_path / "store.sqlite"
    holders: list[sqlite3.Connection] = []

    def answer(index: int, request: Request):
        if not holders:  # another process starts writing while the first case is with the model
            holders.append(_hold_write_lock(store))
        return VALID

    server = scripted_server(answer)
    source, _ = _set(tmp_path, 2)
    _new_empty_run(server, tmp_path, capsys)
    try:
        code, out, err = run_cli(capsys, "eval", str(source), "--resume", "R", "--concurrency", "1",
                                 *_flags(server, tmp_path), "--out", str(tmp_path / "out.json"))
    finally:
        for holder in holders:
            holder.execute("ROLLBACK")
            holder.close()

    assert code == 2 and out == ""
    assert "internal error" not in err and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"judge: --store {store}: the eval store is locked by another process")
    assert "--resume" in last
    assert _rows(store, "results") == []  # nothing half-written; the claim went back (or dies with this pid)


def test_a_claim_from_another_pid_namespace_with_the_same_hostname_waits_for_its_lease(tmp_path) -> None:
    """Containers of one pod share a hostname and a volume, not their pids: a pid that is dead here may be
    alive there, so only the lease can free that claim."""
    from judge.eval import leases as leases_module

    path = tmp_path / "store.sqlite"
    store = RunStore(path)
    run_id = store.new_run("set.jsonl", {})
    here = leases_module.Owner(os.getpid(), leases_module._HOST, "x").host
    hostname = socket.gethostname()
    assert here.startswith(hostname)
    dead = _dead_pid()
    other_namespace = here.replace(str(os.stat("/proc/self/ns/pid").st_ino), "4026530000") \
        if os.path.exists("/proc/self/ns/pid") else f"{hostname}|boot?|pidns-other"
    assert other_namespace != here
    now = time.time()
    with sqlite3.connect(path) as db:
        for case_id, host, expires in (("live", other_namespace, now + 3600), ("expired", other_namespace, now - 1),
                                       ("bare", hostname, now + 3600), ("mine", here, now + 3600)):
            db.execute("INSERT INTO claims VALUES (?, ?, 'h', ?, ?, ?, ?, ?)",
                       (run_id, case_id, f"{dead}@{host}#t0", dead, host, now, expires))
    leases = CaseLeases(store, run_id)
    try:
        held = leases.take("live", "h")
        assert held is not None and held.pid == dead  # another pid space: its pid says nothing here
        assert str(held) == f"pid {dead} on {hostname}"
        assert leases.take("bare", "h") is not None  # an older judge's row: hostname only, so the lease decides
        assert leases.take("expired", "h") is None  # its lease ran out
        assert leases.take("mine", "h") is None  # this very pid space, and its pid is gone: at once
    finally:
        leases.close()
        store.close()


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
