"""The eval reports show each gate's result: the JSON report's cases carry gates and outcome (schema-checked), the
terminal summary counts gate results by status, Markdown and HTML list the cases that have gates."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from helpers.builders import make_case
from helpers.eval_sets import eval_line, run_cli, run_eval
from judge.contract.schema import load_schema
from judge.eval.report import html, markdown, text
from judge.eval.report.model import CaseRecord, EvalReport
from judge.eval.store import RunStore

pytestmark = pytest.mark.usefixtures("eval_sandbox")

ALLOW_SRC = {"type": "changed_files_allowlist", "parameters": {"allowed": ["src/**"]}}
HOSTILE_ID = "gated|pipe\n<b>id</b>"


def _gated(*gates: dict, evidence: dict | None = None, **step: object) -> tuple[dict, dict]:
    return make_case(step={"gates": list(gates), **step}, **({"evidence": evidence} if evidence else {}))


def gate_set() -> list[str]:
    """Five cases: no gates; a gate that passes; the seed's hand-wave; a pending approval; a forbidden path."""
    return [
        eval_line("plain", make_case(), True),
        eval_line("allowed", _gated(ALLOW_SRC), True),
        eval_line("hand-wave", _gated(ALLOW_SRC, evidence={"diff_summary": "Fixed everything.", "tests_passed": True}),
                  False, "evidence_incomplete"),
        eval_line("approval", _gated(ALLOW_SRC, {"type": "human_approval"}), False, "human_approval_pending"),
        eval_line(HOSTILE_ID, _gated({"type": "forbid_paths", "parameters": {"paths": ["src/*.py"]},
                                      "description": "<script>alert(1)</script>"}), False, "gate_failed"),
    ]


@pytest.fixture
def gated(tmp_path: Path) -> tuple[int, dict, Path]:
    return run_eval(tmp_path, gate_set())


def _cases(report: dict) -> dict[str, dict]:
    return {case["id"]: case for case in report["cases"]}


# --- JSON -----------------------------------------------------------------------------------------


def test_every_case_carries_gates_and_outcome_and_the_report_matches_the_schema(gated) -> None:
    code, report, _ = gated
    assert code == 0
    errors = [f"{list(e.absolute_path)}: {e.message}"
              for e in Draft202012Validator(load_schema("eval-report")).iter_errors(report)]
    assert errors == []
    cases = _cases(report)
    assert cases["plain"]["gates"] == [] and cases["plain"]["outcome"]["nextAction"] == "advance"
    assert [(g["index"], g["type"], g["status"], g["rule"]) for g in cases["approval"]["gates"]] == [
        (1, "changed_files_allowlist", "passed", None), (2, "human_approval", "pending", "human_approval_pending")]
    assert cases["approval"]["outcome"] == {"accepted": False, "missingFields": [], "nextAction": "pause_for_human",
                                            "rejectionReasons": [cases["approval"]["reason"]]}
    assert cases["hand-wave"]["outcome"]["missingFields"] == ["tests_run", "commands_run"]
    assert [g["status"] for g in cases["hand-wave"]["gates"]] == ["passed", "skipped"]
    assert {c["decidedBy"] for c in cases.values()} == {"skipped", "gates"}
    assert report["metrics"]["decidedBy"] == {"gates": 3, "skipped": 2}


def test_the_schema_refuses_a_case_without_gates_or_with_a_bad_gate_result(gated) -> None:
    _, report, _ = gated
    validator = Draft202012Validator(load_schema("eval-report"))
    case = _cases(report)["approval"]
    without = {k: v for k, v in case.items() if k != "gates"}
    bad_status = {**case, "gates": [{**case["gates"][0], "status": "ok"}]}
    bad_action = {**case, "outcome": {**case["outcome"], "nextAction": "retry_later"}}
    for broken in (without, bad_status, bad_action):
        assert not validator.is_valid({**report, "cases": [broken]})


# --- the terminal summary ---------------------------------------------------------------------------


def test_the_summary_counts_gate_results_by_status(gated, capsys) -> None:
    _, report, _ = gated
    lines = text.render_text(EvalReport.from_json(report)).splitlines()
    assert lines[1] == "gates: 6 results in 4 cases: 3 passed, 1 failed, 1 pending, 1 skipped"


def test_the_cli_prints_the_gates_line(tmp_path: Path, capsys) -> None:
    source = tmp_path / "set.jsonl"
    source.write_text("\n".join(gate_set()) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert run_cli("eval", str(source), "--out", str(tmp_path / "r.json")) == 0
    assert "\ngates: 6 results in 4 cases: 3 passed, 1 failed, 1 pending, 1 skipped\n" in capsys.readouterr().out


def test_no_gates_line_without_gates(tmp_path: Path) -> None:
    _, report, _ = run_eval(tmp_path, [eval_line("plain", make_case(), True)])
    assert "gates:" not in text.render_text(EvalReport.from_json(report))


# --- Markdown ---------------------------------------------------------------------------------------


def _gates_section(document: str) -> list[str]:
    start = document.index("<details><summary>Gates: ")
    end = document.index("</details>", start)
    return [line for line in document[start:end].splitlines() if line.startswith("| ")]


def test_markdown_lists_each_gated_case_with_its_gates(gated) -> None:
    _, _, folder = gated
    document = (folder / "report.md").read_text(encoding="utf-8")
    assert "<details><summary>Gates: 4 cases with gates (3 passed, 1 failed, 1 pending, 1 skipped)</summary>" in document
    header, *rows = _gates_section(document)
    assert header == "| case | got | next action | gates, in evaluation order |"
    assert len(rows) == 4 and not any(row.startswith("| plain ") for row in rows)
    approval = next(row for row in rows if row.startswith("| approval "))
    assert approval == ("| approval | invalid: human\\_approval\\_pending | pause\\_for\\_human | passed #1 "
                        "changed\\_files\\_allowlist; pending #2 human\\_approval (human\\_approval\\_pending) |")
    hostile = next(row for row in rows if "gated" in row)
    assert len(re.split(r"(?<!\\)\|", hostile.strip().strip("|"))) == 4
    assert "<b>" not in document and "&lt;b&gt;" in hostile


def test_markdown_without_gated_cases_has_no_gates_section(tmp_path: Path) -> None:
    _, report, _ = run_eval(tmp_path, [eval_line("plain", make_case(), True)])
    assert "<summary>Gates" not in markdown.render_markdown(EvalReport.from_json(report))


# --- HTML -------------------------------------------------------------------------------------------


def _embedded(document: str) -> dict:
    raw = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', document, re.S).group(1)
    return json.loads(raw)


def test_html_embeds_the_gated_cases_as_data_only(gated) -> None:
    _, _, folder = gated
    document = (folder / "report.html").read_text(encoding="utf-8")
    data = _embedded(document)
    assert data["gateCounts"] == {"passed": 3, "failed": 1, "pending": 1, "skipped": 1}
    assert [item["id"] for item in data["gated"]] == ["allowed", "hand-wave", "approval", HOSTILE_ID]
    approval = data["gated"][2]
    assert approval["nextAction"] == "pause_for_human"
    assert [(g["type"], g["status"]) for g in approval["gates"]] == [("changed_files_allowlist", "passed"),
                                                                      ("human_approval", "pending")]
    assert 'id="gates-section"' in document and "renderGates()" in document
    assert "<b>id</b>" not in document


def test_html_without_gated_cases_embeds_none(tmp_path: Path) -> None:
    _, report, _ = run_eval(tmp_path, [eval_line("plain", make_case(), True)])
    data = _embedded(html.render_html(EvalReport.from_json(report)))
    assert data["gated"] == [] and data["gateCounts"] == {}


# --- stored, resumed, merged, older reports ---------------------------------------------------------


def test_a_resumed_run_keeps_each_cases_gates_from_the_store(gated, tmp_path: Path) -> None:
    _, first, folder = gated
    resumed = folder / "resumed.json"
    assert run_cli("eval", str(folder / "set.jsonl"), "--store", str(folder / "store.sqlite"), "--resume",
                   "--out", str(resumed)) == 0
    again = json.loads(resumed.read_text(encoding="utf-8"))
    assert again["resumed"] == 5
    assert [(c["gates"], c["outcome"]) for c in again["cases"]] == [(c["gates"], c["outcome"]) for c in first["cases"]]


def test_merged_shards_keep_the_gates(gated, tmp_path: Path) -> None:
    _, whole, folder = gated
    parts = []
    for index in (1, 2):
        part = tmp_path / f"part{index}.json"
        run_cli("eval", str(folder / "set.jsonl"), "--shard", f"{index}/2", "--store", str(tmp_path / f"s{index}.sqlite"),
                "--out", str(part))
        parts.append(str(part))
    assert run_cli("eval", "merge", *parts, "--out", str(tmp_path / "merged.json")) == 0
    merged = json.loads((tmp_path / "merged.json").read_text(encoding="utf-8"))
    assert _cases(merged)["approval"]["gates"] == _cases(whole)["approval"]["gates"]
    assert text.render_text(EvalReport.from_json(merged)).splitlines()[1].startswith("gates: 6 results in 4 cases")


def test_a_report_from_before_gates_renders_without_them(gated) -> None:
    _, report, _ = gated
    old = {**report, "cases": [{k: v for k, v in case.items() if k not in ("gates", "outcome")}
                               for case in report["cases"]]}
    loaded = EvalReport.from_json(old)
    assert all(record.gates == () and record.outcome is None for record in loaded.records)
    assert "gates:" not in text.render_text(loaded)
    assert "<summary>Gates" not in markdown.render_markdown(loaded)
    assert _embedded(html.render_html(loaded))["gated"] == []


def test_a_stored_record_with_malformed_gates_is_judged_again(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "store.sqlite")
    run = store.new_run("set.jsonl", {})
    record = CaseRecord("c1", "0" * 64, (), True, None, True, None, "fine", "skipped",
                        gates=({"index": 1, "type": "diff_min_lines", "status": "passed"},))
    store.save(run, record)
    assert store.record(run, "c1") == record
    said: list[str] = []
    for broken in ('"passed"', '["passed"]'):
        store.db.execute("UPDATE results SET record = json_set(record, '$.gates', json(?))", (broken,))
        assert store.record(run, "c1") is None
        assert store.records(run, said.append) == {}
    store.close()
    assert len(said) == 2 and all("gates" in line for line in said)
    assert sqlite3.connect(tmp_path / "store.sqlite").execute("SELECT COUNT(*) FROM results").fetchone() == (1,)
