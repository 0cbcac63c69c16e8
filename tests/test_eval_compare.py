"""`judge eval compare`: metric deltas, flipped verdicts matched by case id, thresholds as exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from builders import diff, make_case
from eval_sets import eval_line, run_cli, run_eval
from judge.eval.compare import compare_reports as compare_typed
from judge.eval.compare import render_comparison
from judge.eval.metrics import compute_metrics
from judge.eval.report.model import CaseRecord, EvalReport

pytestmark = pytest.mark.usefixtures("eval_sandbox")


def _case(case_id: str, expected_valid: bool, valid: bool, expected_rule: str | None = None,
          rule: str | None = None, **fields) -> dict:
    values = dict(case_id=case_id, inputs_hash="0" * 64, tags=(), expected_valid=expected_valid,
                  expected_rule=expected_rule, valid=valid, rule=rule, reason=f"{case_id} reason", decided_by="rules")
    values.update(fields)
    return CaseRecord(**values).to_json()


def _report(run_id: str, cases: list[dict]) -> dict:
    records = [CaseRecord.from_json(case) for case in cases]
    return {"runId": run_id, "settings": {"model": None}, "promptSha256": "p", "cases": cases,
            "metrics": compute_metrics(records).to_json()}


def compare_reports(base: dict, head: dict) -> dict:
    """Two JSON reports compared as `judge eval compare` reads them from disk."""
    return compare_typed(EvalReport.from_json(base), EvalReport.from_json(head))


BASE = _report("base", [
    _case("stays-right", False, False, "undeclared_file", "undeclared_file", latency_ms=10.0),
    _case("gets-fixed", False, True, "scope_excluded", latency_ms=20.0),
    _case("breaks", True, True, latency_ms=30.0),
    _case("rule-changes", False, False, "superficial_only", "undeclared_file", latency_ms=40.0),
    _case("gone", True, False, None, "superficial_only"),
])
HEAD = _report("head", [
    _case("stays-right", False, False, "undeclared_file", "undeclared_file", latency_ms=10.0),
    _case("gets-fixed", False, False, "scope_excluded", "scope_excluded", latency_ms=20.0),
    _case("breaks", True, False, None, "superficial_only", latency_ms=30.0),
    _case("rule-changes", False, False, "superficial_only", "scope_excluded", latency_ms=80.0),
    _case("new", True, True),
])


def test_flips_matched_by_id_and_classified() -> None:
    comparison = compare_reports(BASE, HEAD)
    flips = {flip["id"]: flip for flip in comparison["flips"]}
    assert [flip["id"] for flip in comparison["flips"]] == ["breaks", "gets-fixed", "rule-changes"]  # broke first
    assert flips["breaks"]["change"] == "broke" and flips["breaks"]["head"] == "invalid: superficial_only"
    assert flips["gets-fixed"]["change"] == "fixed" and flips["gets-fixed"]["base"] == "valid"
    assert flips["rule-changes"]["change"] == "changed"
    assert (flips["rule-changes"]["base"], flips["rule-changes"]["head"]) == ("invalid: undeclared_file",
                                                                             "invalid: scope_excluded")
    assert not any(flip["labelChanged"] for flip in comparison["flips"])
    assert comparison["onlyInBase"] == ["gone"] and comparison["onlyInHead"] == ["new"]


def test_metric_deltas_and_their_direction() -> None:
    rows = {row["metric"]: row for row in compare_reports(BASE, HEAD)["metrics"]}
    assert set(rows) == {"accuracy", "falseAcceptRate", "falseRejectRate", "kappa", "f1", "precision", "recall",
                         "ruleAttribution", "latencyP95Ms", "tokens", "costUsd"}
    # base: 2 caught, 1 missed, 1 false alarm, 1 passed (3/5); head: 3 caught, 1 false alarm, 1 passed (4/5)
    assert (rows["accuracy"]["base"], rows["accuracy"]["head"], rows["accuracy"]["delta"]) == (0.6, 0.8, 0.2)
    assert rows["accuracy"]["verdict"] == "better"
    assert rows["falseAcceptRate"]["delta"] == pytest.approx(-1 / 3, abs=1e-6)
    assert rows["falseAcceptRate"]["verdict"] == "better"
    assert rows["falseRejectRate"]["verdict"] == "same"  # 1 of 2 valid cases rejected in both
    assert rows["recall"]["delta"] == pytest.approx(1 / 3, abs=1e-6) and rows["precision"]["verdict"] == "better"
    assert rows["latencyP95Ms"]["verdict"] == "worse" and rows["latencyP95Ms"]["delta"] > 0
    assert rows["tokens"]["verdict"] == "same"
    assert rows["costUsd"] == {**rows["costUsd"], "base": None, "head": None, "delta": None, "verdict": "n/a"}


def test_old_reports_without_new_metrics_compare_as_na() -> None:
    old = {**BASE, "metrics": {key: BASE["metrics"][key] for key in ("accuracy", "falseAcceptRate")}}
    rows = {row["metric"]: row for row in compare_reports(old, HEAD)["metrics"]}
    assert rows["kappa"]["delta"] is None and rows["kappa"]["verdict"] == "n/a"
    assert rows["accuracy"]["delta"] == pytest.approx(0.2)


def test_label_changes_are_flagged() -> None:
    head = _report("head", [_case("breaks", False, True, "superficial_only"), _case("stays-right", True, True)])
    flips = {flip["id"]: flip for flip in compare_reports(BASE, head)["flips"]}
    assert flips["stays-right"]["labelChanged"] is True


def test_rendered_comparison_reads_as_markdown() -> None:
    text = render_comparison(compare_reports(BASE, HEAD), "runs/a|b.json", "runs/head.json")
    lines = text.splitlines()
    assert lines[0] == "## judge eval compare"
    assert r"- base: runs/a\|b.json (run base" in text
    assert "| accuracy | 60.0% | 80.0% | +20.0 pp | better |" in lines
    assert "| falseAcceptRate | 33.3% | 0.0% | -33.3 pp | better |" in lines
    assert "### Flipped verdicts (3: 1 broke, 1 fixed, 1 changed)" in lines
    assert "| breaks | valid | valid | invalid: superficial\\_only | broke |" in lines
    assert "Only in base (1): gone" in lines and "Only in head (1): new" in lines


def test_no_flips_says_so() -> None:
    text = render_comparison(compare_reports(BASE, BASE), "a.json", "a.json")
    assert "No verdict flipped." in text and "| accuracy | 60.0% | 60.0% | ±0.0 pp | same |" in text


# --- through the command line --------------------------------------------------------------------

VALID = eval_line("valid-edit", make_case(), True)
UNDECLARED = eval_line("hidden-file", make_case(diff("hidden_extra_file.diff")), False, "undeclared_file")
MISLABELLED = eval_line("mislabelled", make_case(), False, "scope_excluded")  # judge accepts it: a false accept


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    """base: 2 of 3 right (one false accept, kappa 0.4). head: that case replaced by one judge catches, 3 of 3."""
    run_eval(tmp_path, [VALID, UNDECLARED, MISLABELLED], "base")
    run_eval(tmp_path, [VALID, UNDECLARED, eval_line("mislabelled", make_case(patch=...), False, "missing_patch")], "head")
    return {"base": tmp_path / "base" / "report.json", "head": tmp_path / "head" / "report.json"}


def _compare(capsys, *argv: str) -> tuple[int, str, str]:
    code = run_cli("eval", "compare", *argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare_prints_deltas_and_flips(runs, capsys) -> None:
    capsys.readouterr()
    code, out, err = _compare(capsys, str(runs["base"]), str(runs["head"]))
    assert code == 0 and err == ""
    assert "| accuracy | 66.7% | 100.0% | +33.3 pp | better |" in out
    assert "| mislabelled | invalid: missing\\_patch (label changed) | valid | invalid: missing\\_patch | fixed |" in out


@pytest.mark.parametrize(("head", "flags", "expected_code"), [
    ("head", ["--min-accuracy", "0.99"], 0),
    ("base", ["--min-accuracy", "0.99"], 1),
    ("base", ["--min-accuracy", "0.5"], 0),
    ("base", ["--max-false-accept-rate", "0.0"], 1),
    ("head", ["--max-false-accept-rate", "0.0"], 0),
    ("head", ["--min-kappa", "0.9"], 0),
    ("base", ["--min-kappa", "0.9"], 1),
])
def test_cli_thresholds_read_the_head_report(runs, capsys, head, flags, expected_code) -> None:
    """The second report is the one gated: accuracy 1.0 / 0.667, false accepts 0 / 0.5, kappa 1.0 / 0.4."""
    other = "base" if head == "head" else "head"
    capsys.readouterr()
    code, _, err = _compare(capsys, str(runs[other]), str(runs[head]), *flags)
    assert code == expected_code
    assert ("threshold not met" in err) == (expected_code == 1)


def test_cli_threshold_on_an_undefined_kappa_fails(tmp_path: Path, capsys) -> None:
    """A set labelled all valid has no kappa: --min-kappa cannot be met."""
    run_eval(tmp_path, [VALID], "only-valid")
    report = tmp_path / "only-valid" / "report.json"
    assert json.loads(report.read_text(encoding="utf-8"))["metrics"]["kappa"] is None
    capsys.readouterr()
    code, _, err = _compare(capsys, str(report), str(report), "--min-kappa", "0.1")
    assert code == 1 and "kappa None" in err


def test_cli_compare_writes_markdown(runs, tmp_path: Path, capsys) -> None:
    target = tmp_path / "out" / "compare.md"
    capsys.readouterr()
    code, out, _ = _compare(capsys, str(runs["base"]), str(runs["head"]), "--markdown", str(target))
    assert code == 0 and target.read_text(encoding="utf-8") == out
