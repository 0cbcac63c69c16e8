"""The gate set (evals/gates.jsonl, issue 12 item 10): `judge eval` gives every case its label, every gate type
passes and fails in it where a case without a workspace can decide it, its records are real (their hashes
computed, never written by hand), and evals/build_gates.py rebuilds it byte for byte."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from helpers.eval_sets import run_cli
from judge.contract.gates import GATE_TYPES
from judge.runs.record import evidence_hash

EVALS = Path(__file__).resolve().parents[2] / "evals"
SET = EVALS / "gates.jsonl"
CASES = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
# What a case without a workspace cannot see pass: the work tree, git status, or a person's approval.
UNDECIDABLE_PASSES = {"file_exists", "file_not_exists", "json_schema_valid", "no_uncommitted_changes",
                      "human_approval"}


def _builder():
    spec = importlib.util.spec_from_file_location("build_gates", EVALS / "build_gates.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """`judge eval` on the set, once, in an empty directory (no judge.toml, no approvals, no templates)."""
    folder = tmp_path_factory.mktemp("gates-eval")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        for name in [name for name in os.environ if name.startswith("JUDGE_")]:
            patch.delenv(name)
        code = run_cli("eval", str(SET), "--out", str(folder / "report.json"), "--store", str(folder / "s.sqlite"),
                       "--no-cache", "--markdown", str(folder / "report.md"))
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    assert code == 0 and report["badLines"] == []
    return report


def test_the_builder_regenerates_the_committed_set_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "gates.jsonl"
    assert _builder().main(["--out", str(out), "--quiet"]) == 0
    assert out.read_bytes() == SET.read_bytes(), "evals/gates.jsonl is stale: run python evals/build_gates.py"


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_judge_eval_gives_each_case_its_label(judged: dict, case: dict) -> None:
    got = next(c for c in judged["cases"] if c["id"] == case["id"])
    expected = case["expected"]
    assert (got["valid"], got["rule"]) == (expected["valid"], expected.get("rule")), got["reason"]


def test_the_whole_set_is_judged_right(judged: dict) -> None:
    assert len(judged["cases"]) == len(CASES) >= 40
    assert judged["metrics"]["accuracy"] == 1.0 and judged["metrics"]["ruleAttribution"] == 1.0


def test_every_gate_type_passes_and_fails_where_decidable(judged: dict) -> None:
    seen: dict[str, set[str]] = {kind: set() for kind in GATE_TYPES}
    for case in judged["cases"]:
        for gate in case["gates"]:
            seen[gate["type"]].add(gate["status"])
    for kind, statuses in seen.items():
        assert statuses & {"failed", "pending"}, f"no case where {kind} does not pass"
        if kind not in UNDECIDABLE_PASSES:
            assert "passed" in statuses, f"no case where {kind} passes"
    assert seen["human_approval"] >= {"pending", "skipped"}


def test_gates_that_need_a_workspace_fail_closed(judged: dict) -> None:
    closed = [c for c in CASES if "fail-closed" in c["tags"]]
    gate_types = {g["type"] for c in closed for g in c["step"]["gates"]}
    assert gate_types >= {"file_exists", "file_not_exists", "json_schema_valid", "no_uncommitted_changes",
                          "patch_applies_cleanly", "command_exit_0"}
    for case in closed:
        got = next(c for c in judged["cases"] if c["id"] == case["id"])
        assert not got["valid"] and got["outcome"]["nextAction"] == "diagnose", case["id"]


def test_the_seed_hand_wave_lists_its_missing_fields(judged: dict) -> None:
    got = next(c for c in judged["cases"] if c["id"] == "evidence_incomplete/seed-hand-wave")
    assert got["outcome"]["missingFields"] == ["tests_run", "commands_run", "changed_files"]


def test_the_set_covers_the_gate_rules() -> None:
    rules = {c["expected"].get("rule") for c in CASES}
    assert rules >= {None, "gate_failed", "evidence_incomplete", "evidence_mismatch", "unverifiable_claim",
                     "command_not_allowed", "policy_contradiction", "human_approval_pending"}
    assert not any("template" in c["step"] for c in CASES), "the set is template-free: a case carries no template"


def test_every_record_hash_is_computed_and_only_the_edited_one_breaks() -> None:
    records = [(c, r) for c in CASES for r in c.get("executions", ())]
    assert len(records) >= 15
    for case, record in records:
        intact = record["evidenceHash"] == evidence_hash(record["command"], record["stdout"], record["stderr"],
                                                         record["exitCode"])
        assert intact is ("edited-record" not in case["tags"]), case["id"]
