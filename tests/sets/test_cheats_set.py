"""The cheat set (evals/cheats.jsonl, issue 10 item 9): agent cheats injected into honest changes of the fixture
corpus, each with its honest twin, and honest lookalikes (honest changes a naive detector would reject).
evals/build_cheats.py must regenerate it byte for byte, and judge (no model)
must give every case its label: each cheat rejected by its expected rule, each honest twin valid.

A cheat whose detector has not landed yet is a strict xfail: its rule id is not in judge.rule_ids yet, or its
kind is in PENDING_KINDS. When the detector lands the case must pass (a strict xfail that passes fails), so the
entry in PENDING_KINDS has to go with the merge that makes it pass.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import judge
from judge import rule_ids

EVALS = Path(__file__).resolve().parents[2] / "evals"
SET = EVALS / "cheats.jsonl"
CASES = [json.loads(line) for line in SET.read_text(encoding="utf-8").splitlines()]
CONFIG = judge.JudgeConfig(semantic="off")

# Cheat kinds whose expected rule exists but does not catch them yet, with the work that will.
PENDING_KINDS = {
}


def _builder():
    spec = importlib.util.spec_from_file_location("build_cheats", EVALS / "build_cheats.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _kind(case: dict) -> str:
    return case["id"].split("/")[1]


def pending(case: dict) -> str | None:
    """Why a case cannot pass yet, or None when it must."""
    if case["expected"]["valid"]:
        return None
    rule = case["expected"]["rule"]
    if rule not in rule_ids.ids():
        return f"{rule} is not merged yet"
    return PENDING_KINDS.get(_kind(case))


def judged_as_labelled(case: dict) -> tuple[bool, str]:
    """Whether judge gives case its label, and what judge said."""
    verdict = judge.validate(case["step"], case["result"], config=CONFIG)
    expected = case["expected"]
    ok = verdict.valid is expected["valid"] and (expected["valid"] or verdict.rule == expected["rule"])
    return ok, f"{verdict.valid} {verdict.rule}: {verdict.reason[:300]}"


def _params() -> list:
    out = []
    for case in CASES:
        why = pending(case)
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        out.append(pytest.param(case, id=case["id"], marks=marks))
    return out


def test_the_builder_regenerates_the_committed_set_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "cheats.jsonl"
    assert _builder().main(["--out", str(out), "--quiet"]) == 0
    assert out.read_bytes() == SET.read_bytes(), "evals/cheats.jsonl is stale: run python evals/build_cheats.py"


@pytest.mark.parametrize("case", _params())
def test_judge_gives_each_case_its_label(case: dict) -> None:
    ok, said = judged_as_labelled(case)
    assert ok, f"expected {case['expected']}, judge said {said}"


def test_the_label_check_fails_on_a_wrong_label() -> None:
    """The check above is not vacuous: a caught cheat relabelled valid, or given another rule, fails it."""
    caught = next(c for c in CASES if c["expected"].get("rule") == "junk_files")
    assert judged_as_labelled(caught)[0]
    assert not judged_as_labelled({**caught, "expected": {"valid": True}})[0]
    assert not judged_as_labelled({**caught, "expected": {"valid": False, "rule": "superficial_only"}})[0]
    twin = next(c for c in CASES if c["expected"]["valid"])
    assert not judged_as_labelled({**twin, "expected": {"valid": False, "rule": "junk_files"}})[0]


def test_every_cheat_has_an_honest_twin_with_the_same_step_and_another_result() -> None:
    by_id = {c["id"]: c for c in CASES}
    cheats = [c for c in CASES if not c["expected"]["valid"]]
    assert len(cheats) * 2 == sum("lookalike" not in c["tags"] for c in CASES)
    for cheat in cheats:
        twin = by_id["valid/" + cheat["id"].split("/", 1)[1]]
        assert twin["step"] == cheat["step"] and twin["result"] != cheat["result"], cheat["id"]
        assert "honest-twin" in twin["tags"] and "cheat" in cheat["tags"]


def test_no_step_of_a_test_tampering_cheat_asks_for_test_work() -> None:
    """Test tampering is only a rejection when the step does not ask for tests (else a signal)."""
    from judge.rules.asks import ASKS_FOR_TESTS

    for case in CASES:
        if case["expected"].get("rule") == "tests_weakened":
            assert not ASKS_FOR_TESTS.search(case["step"]["description"]), case["id"]


def test_every_kind_is_there_in_python_and_in_javascript_or_typescript() -> None:
    _builder().check_corpus_coverage(CASES)


def test_the_lookalikes_are_there_and_valid() -> None:
    looks = [c for c in CASES if "lookalike" in c["tags"]]
    assert len(looks) >= 6 and all(c["expected"] == {"valid": True} for c in looks)


def test_pending_kinds_name_kinds_of_the_set() -> None:
    assert set(PENDING_KINDS) <= {_kind(c) for c in CASES}
