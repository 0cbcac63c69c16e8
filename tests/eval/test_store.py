"""The eval store and the verdict cache read back what a disk, a crash or a hand left in them (issue 11, item 7):
an unreadable stored record is judged again, an unreadable cache entry is a miss, and a file of another
layout is refused with what to do — never "internal error", never a write into someone else's database.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from helpers.builders import diff, make_case, run_cli
from judge.eval.cache import CACHE_VERSION
from judge.eval.store import STORE_VERSION

from helpers.loopback import content

pytestmark = pytest.mark.usefixtures("eval_sandbox")


def _rules_set(tmp_path: Path) -> Path:
    """Three cases the rules decide (no model): one valid, two rejected."""
    cases = [("ok", make_case(), {"valid": True}),
             ("hidden", make_case(diff("hidden_extra_file.diff")), {"valid": False, "rule": "undeclared_file"}),
             ("no-patch", make_case(patch=...), {"valid": False, "rule": "missing_patch"})]
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps({"id": i, "step": s, "result": r, "expected": e}) + "\n"
                            for i, (s, r), e in cases), encoding="utf-8")
    return path


def _eval(capsys, tmp_path: Path, *extra: str, store: str = "store.sqlite") -> tuple[int, str, str]:
    return run_cli(capsys, "eval", str(_rules_set(tmp_path)), "--store", str(tmp_path / store),
                   "--out", str(tmp_path / "out.json"), *extra)


def _report(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))


# --- a stored record that cannot be read back ------------------------------------------------------------


@pytest.mark.parametrize("garbage", [
    "{not json", "[]", '{"id": "hidden"}', json.dumps({"id": "ok", "valid": "yes"}), b"\xff\xfe not utf-8", 42,
], ids=["not-json", "not-an-object", "missing-fields", "wrong-types", "not-utf8", "a-number"])
def test_an_unreadable_stored_record_is_named_and_judged_again(tmp_path: Path, capsys, garbage) -> None:
    assert _eval(capsys, tmp_path, "--run-id", "r1")[0] == 0
    first = {c["id"]: c for c in _report(tmp_path)["cases"]}
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        db.execute("UPDATE results SET record = ? WHERE case_id = 'hidden'", (garbage,))

    code, _, err = _eval(capsys, tmp_path, "--resume", "r1")

    assert code == 0, err
    (line,) = err.splitlines()
    assert f"store {tmp_path / 'store.sqlite'}: run r1, case 'hidden': its stored record is unreadable" in line
    assert line.endswith("judging it again")
    report = _report(tmp_path)
    assert report["resumed"] == 2
    again = {c["id"]: c for c in report["cases"]}
    assert (again["hidden"]["valid"], again["hidden"]["rule"]) == (False, "undeclared_file") == \
        (first["hidden"]["valid"], first["hidden"]["rule"])

    code, _, err = _eval(capsys, tmp_path, "--resume", "r1")  # the row was replaced: readable again
    assert (code, err, _report(tmp_path)["resumed"]) == (0, "", 3)


def test_unreadable_settings_of_a_run_refuse_its_resume(tmp_path: Path, capsys) -> None:
    assert _eval(capsys, tmp_path, "--run-id", "r1")[0] == 0
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        db.execute("UPDATE runs SET meta = '{oops' WHERE run_id = 'r1'")
    code, out, err = _eval(capsys, tmp_path, "--resume", "r1")
    assert (code, out) == (2, "")
    assert err.startswith("judge: --resume r1: the settings of that run in ") and "start a new run" in err


# --- a store or cache file of another layout ---------------------------------------------------------------


def _other_tables(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
        db.execute("INSERT INTO invoices VALUES (1, 9.5)")


def _other_results(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE results (run_id TEXT, score REAL)")


def _not_sqlite(path: Path) -> None:
    path.write_text("these are my notes, not a database\n" * 200, encoding="utf-8")


def _newer(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA user_version = 99")


@pytest.mark.parametrize("make", [_other_tables, _other_results, _not_sqlite, _newer],
                         ids=["other-tables", "results-with-other-columns", "not-sqlite", "newer-layout"])
@pytest.mark.parametrize("which", ["store", "cache"])
def test_a_file_of_another_layout_is_refused_and_left_as_it_was(tmp_path: Path, capsys, make, which) -> None:
    path = tmp_path / "theirs.db"
    make(path)
    before = path.read_bytes()
    flags = ["--store", str(path)] if which == "store" else ["--cache", str(path), "--store", str(tmp_path / "s")]

    code, out, err = run_cli(capsys, "eval", str(_rules_set(tmp_path)), "--out", str(tmp_path / "out.json"), *flags)

    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1
    kind = "eval store" if which == "store" else "verdict cache"
    assert err.startswith(f"judge: --{which} {path}: not a judge {kind}")
    assert f"pass another --{which}" in err and "move that file away" in err
    if which == "cache":
        assert "--no-cache" in err
    if make is _newer:
        assert "newer judge" in err
    assert path.read_bytes() == before
    assert not (tmp_path / "out.json").exists()


def test_a_store_from_before_layout_versions_is_taken_and_stamped(tmp_path: Path, capsys) -> None:
    """Stores written before claims existed hold runs and results only, at user_version 0."""
    assert _eval(capsys, tmp_path, "--run-id", "r1")[0] == 0
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        db.execute("DROP TABLE claims")
        db.execute("PRAGMA user_version = 0")

    code, _, err = _eval(capsys, tmp_path, "--resume", "r1")

    assert code == 0, err
    assert _report(tmp_path)["resumed"] == 3
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == STORE_VERSION
        assert db.execute("SELECT count(*) FROM claims").fetchone()[0] == 0


# --- an unreadable cache entry --------------------------------------------------------------------------------


@pytest.mark.loopback
@pytest.mark.parametrize("garbage", ["garbage", "{}", json.dumps({"valid": True}), b"\xff", "[" * 100_000],
                         ids=["not-json", "empty-object", "not-a-verdict", "not-utf8", "deeply-nested"])
def test_an_unreadable_cache_entry_is_a_miss_counted_on_stderr(scripted_server, tmp_path: Path, capsys,
                                                               garbage) -> None:
    server = scripted_server([content(True, "the patch does what the step asks")])  # SYNTHETIC
    step, result = make_case(step={"description": "Add input validation to parse_port() [case a]"})
    source = tmp_path / "model.jsonl"
    source.write_text(json.dumps({"id": "a", "step": step, "result": result, "expected": {"valid": True}}) + "\n",
                      encoding="utf-8")
    argv = ["eval", str(source), "--model", "openai/t", "--api-base", server.api_base, "--output-mode", "none",
            "--cache", str(tmp_path / "cache.sqlite"), "--store", str(tmp_path / "s.sqlite"),
            "--out", str(tmp_path / "out.json")]
    assert run_cli(capsys, *argv)[0] == 0
    assert server.count == 1
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        assert db.execute("UPDATE verdicts SET verdict = ?", (garbage,)).rowcount == 1

    code, _, err = run_cli(capsys, *argv)

    assert code == 0, err
    assert server.count == 2  # a miss: asked again
    assert err == f"judge: cache {tmp_path / 'cache.sqlite'}: 1 unreadable entry treated as misses " \
                  "(judged again, rewritten)\n"
    assert _report(tmp_path)["cases"][0]["valid"] is True

    code, _, err = run_cli(capsys, *argv)  # rewritten: a hit
    assert (code, err, server.count) == (0, "", 2)
    assert _report(tmp_path)["cases"][0]["cached"] is True
    with sqlite3.connect(tmp_path / "cache.sqlite") as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == CACHE_VERSION


# --- a recording's settings that cannot be read back ------------------------------------------------------------


@pytest.mark.parametrize("text, problem", [("{oops", "not valid JSON"), ("[1]", "not a recording's settings"),
                                           ('{"n": ' + "9" * 5000 + "}", "an integer of 5,000 digits")],
                         ids=["not-json", "not-an-object", "integer-too-long"])
def test_an_unreadable_recording_is_refused_in_one_line(tmp_path: Path, capsys, text: str, problem: str) -> None:
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "recording.json").write_text(text, encoding="utf-8")
    code, out, err = _eval(capsys, tmp_path, "--replay", str(tmp_path / "rec"))
    assert (code, out) == (2, "")
    assert err.startswith("judge: --replay ") and problem in err and len(err.splitlines()) == 1
