"""`judge eval compare`: metric deltas, flipped verdicts matched by case id, thresholds as exit codes; reports of
different sets refused unless asked, then compared on their shared cases only (issue 14); what differs between
the runs in the header."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest

from helpers.builders import diff, make_case
from helpers.eval_sets import eval_line, run_cli, run_eval
from judge.errors import InputError
from judge.eval.compare import compare_reports as compare_typed
from judge.eval.compare import render_comparison
from judge.eval.compare_html import render_comparison_html
from judge.eval.metrics import compute_metrics
from judge.eval.report.model import CaseRecord, EvalReport

pytestmark = pytest.mark.usefixtures("eval_sandbox")


def _case(case_id: str, expected_valid: bool, valid: bool, expected_rule: str | None = None,
          rule: str | None = None, **fields) -> dict:
    values = dict(case_id=case_id, inputs_hash="0" * 64, tags=(), expected_valid=expected_valid,
                  expected_rule=expected_rule, valid=valid, rule=rule, reason=f"{case_id} reason", decided_by="rules")
    values.update(fields)
    return CaseRecord(**values).to_json()


def _report(run_id: str, cases: list[dict], **meta) -> dict:
    records = [CaseRecord.from_json(case) for case in cases]
    return {"runId": run_id, "settings": {"model": None}, "promptSha256": "p", "cases": cases,
            "metrics": compute_metrics(records).to_json(), **meta}


def compare_reports(base: dict, head: dict, allow_different_sets: bool = True) -> dict:
    """Two JSON reports compared as `judge eval compare` reads them from disk (BASE and HEAD are of different
    sets: each has a case the other lacks)."""
    return compare_typed(EvalReport.from_json(base), EvalReport.from_json(head),
                         allow_different_sets=allow_different_sets)


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
# HEAD's run of BASE's very set: "new" left out, "gone" judged valid (fixed).
SAME_SET_HEAD = _report("head", [case for case in HEAD["cases"] if case["id"] != "new"]
                        + [_case("gone", True, True)])


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
    """Same set: each report's own metrics, over all its cases."""
    rows = {row["metric"]: row for row in compare_reports(BASE, SAME_SET_HEAD, False)["metrics"]}
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
    assert rows["costUsd"]["baseWhy"].startswith("no case had a price")


def test_different_sets_compare_only_their_shared_cases() -> None:
    """BASE and HEAD share 4 cases ("gone" only in base, "new" only in head): the metrics are those 4 cases' alone.
    base: 2 caught, 1 missed, 1 passed (3/4); head: 3 caught, 1 false alarm (3/4)."""
    comparison = compare_reports(BASE, HEAD)
    assert comparison["cases"] == {"sameSet": False, "shared": 4, "onlyInBase": ["gone"], "onlyInHead": ["new"],
                                   "otherInputs": []}
    rows = {row["metric"]: row for row in comparison["metrics"]}
    assert (rows["accuracy"]["base"], rows["accuracy"]["head"], rows["accuracy"]["verdict"]) == (0.75, 0.75, "same")
    assert (rows["falseRejectRate"]["base"], rows["falseRejectRate"]["head"]) == (0.0, 1.0)  # over 5 cases: 0.5, 0.5
    assert (rows["kappa"]["base"], rows["kappa"]["head"]) == (0.5, 0.0)
    assert (comparison["base"]["cases"], comparison["head"]["cases"]) == (4, 4)


def test_different_sets_are_refused_unless_allowed() -> None:
    with pytest.raises(InputError) as refused:
        compare_reports(BASE, HEAD, allow_different_sets=False)
    message = str(refused.value)
    assert "not a run of the same eval set" in message and "1 case(s) only in base, 1 only in head" in message
    assert "allow_different_sets" in message and "4 cases they share" in message


def test_same_ids_with_other_inputs_are_not_the_same_set() -> None:
    """A case whose step or result changed is another case: not compared, listed apart; labels alone may change."""
    relabelled = _report("head", [{**case, "expectedValid": not case["expectedValid"], "expectedRule": None}
                                  for case in BASE["cases"]])
    assert compare_reports(BASE, relabelled, False)["cases"]["sameSet"] is True
    edited = _report("head", [{**case, "inputsHash": "1" * 64} if case["id"] == "breaks" else case
                              for case in BASE["cases"]])
    with pytest.raises(InputError, match="1 with the same id but other inputs"):
        compare_reports(BASE, edited, False)
    comparison = compare_reports(BASE, edited)
    assert comparison["cases"]["otherInputs"] == ["breaks"] and comparison["cases"]["shared"] == 4
    text = render_comparison(comparison, "a.json", "b.json")
    assert "Same id, other inputs (1): breaks" in text
    assert "not compared: 0 only in base, 0 only in head, 1 with the same id but other inputs" in text


def test_old_reports_without_new_metrics_compare_as_na() -> None:
    old = {**BASE, "metrics": {key: BASE["metrics"][key] for key in ("accuracy", "falseAcceptRate")}}
    rows = {row["metric"]: row for row in compare_reports(old, SAME_SET_HEAD, False)["metrics"]}
    assert rows["kappa"]["delta"] is None and rows["kappa"]["verdict"] == "n/a"
    assert rows["kappa"]["baseWhy"] == "not in this report" and rows["kappa"]["headWhy"] is None
    assert rows["accuracy"]["delta"] == pytest.approx(0.2)


def test_label_changes_are_flagged() -> None:
    head = _report("head", [_case("breaks", False, True, "superficial_only"), _case("stays-right", True, True)])
    flips = {flip["id"]: flip for flip in compare_reports(BASE, head)["flips"]}
    assert flips["stays-right"]["labelChanged"] is True


def test_rendered_comparison_reads_as_markdown() -> None:
    text = render_comparison(compare_reports(BASE, HEAD), "runs/a|b.json", "runs/head.json")
    lines = text.splitlines()
    assert lines[0] == "## judge eval compare"
    assert r"- base: runs/a\|b.json (run base, 4 cases compared)" in text
    assert ("Different eval sets: only the 4 shared cases are compared (metrics computed on them alone); "
            "not compared: 1 only in base, 1 only in head.") in lines
    assert "| accuracy | 75.0% | 75.0% | ±0.0 pp | same |" in lines
    assert "| falseAcceptRate | 33.3% | 0.0% | -33.3 pp | better |" in lines
    assert "### Flipped verdicts (3: 1 broke, 1 fixed, 1 changed)" in lines
    assert "| breaks | valid | valid | invalid: superficial\\_only | broke |" in lines
    assert "Only in base (1): gone" in lines and "Only in head (1): new" in lines


def test_no_flips_says_so() -> None:
    text = render_comparison(compare_reports(BASE, BASE, False), "a.json", "a.json")
    assert "No verdict flipped." in text and "| accuracy | 60.0% | 60.0% | ±0.0 pp | same |" in text
    assert "Same eval set: all 5 cases compared." in text


def test_undefined_metrics_read_na_with_the_reason() -> None:
    only_valid = _report("v", [_case("a", True, True), _case("b", True, False, rule="superficial_only")])
    text = render_comparison(compare_reports(only_valid, only_valid, False), "a.json", "a.json")
    assert "| falseAcceptRate | n/a (no case is labelled invalid) | n/a (no case is labelled invalid) | n/a | n/a |" \
        in text.splitlines()
    assert "| kappa | n/a (every case is labelled valid" in text


# --- the header: what differs between the runs -----------------------------------------------------


def _meta(model: str | None, semantic: str = "auto", prompt: str = "a" * 64, version: str = "1.0",
          temperature: float = 0.0) -> dict:
    return {"settings": {"model": model, "semantic": semantic, "samples": 1, "temperature": temperature},
            "promptSha256": prompt, "judgeVersion": version, "setFileSha256": "c" * 64}


def test_header_shows_what_differs_between_the_runs() -> None:
    cases = [_case("a", True, True), _case("b", False, False, "undeclared_file", "undeclared_file")]
    base = _report("r1", cases, **_meta("openai/small"))
    head = _report("r2", cases, **_meta("openai/large", "required", "b" * 64, "1.1", temperature=0.5))
    comparison = compare_reports(base, head, False)
    rows = {row["label"]: row for row in comparison["runs"]}
    assert (rows["model"]["base"], rows["model"]["head"], rows["model"]["differs"]) == \
        ("openai/small", "openai/large", True)
    assert (rows["semantic mode"]["base"], rows["semantic mode"]["head"]) == ("auto", "required")
    assert (rows["prompt sha256"]["base"], rows["prompt sha256"]["head"]) == ("a" * 12, "b" * 12)
    assert (rows["judge version"]["differs"], rows["set file sha256"]["differs"]) == (True, False)
    assert (rows["temperature"]["base"], rows["temperature"]["head"]) == ("0.0", "0.5")
    assert "samples" not in rows  # the same in both, and shown inside the model's row when not 1
    text = render_comparison(comparison, "a.json", "b.json")
    assert "What differs: model, semantic mode, prompt sha256, judge version, temperature." in text
    assert "| model | openai/small | openai/large | differs |" in text
    assert "| set file sha256 | cccccccccccc | cccccccccccc | same |" in text
    page = render_comparison_html(comparison, "a.json", "b.json")
    assert '<tr class="differs"><th>model</th><td>openai/small</td><td>openai/large</td><td>differs</td></tr>' in page
    assert "What differs: model, semantic mode, prompt sha256, judge version, temperature." in page


def test_header_of_alike_runs_says_nothing_differs() -> None:
    text = render_comparison(compare_reports(BASE, BASE, False), "a.json", "a.json")
    assert "The runs judged alike: nothing below differs." in text
    assert "| model | no model (contract and rules only) | no model (contract and rules only) | same |" in text
    assert "| cases judge could not decide | 0 | 0 | same |" in text


def test_comparison_html_escapes_what_the_reports_hold() -> None:
    hostile = "<script>alert(1)</script>"
    base = _report("r1", [_case(hostile, True, True)])
    head = _report("r2", [_case(hostile, True, False, rule="superficial_only")])
    page = render_comparison_html(compare_reports(base, head, False), "a&b.json", "<b>.json")
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a&amp;b.json" in page and "&lt;b&gt;.json" in page
    assert "default-src 'none'" in page and "script-src" not in page
    style = re.search(r"<style>(.*?)</style>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(style.encode("utf-8")).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in page


# --- through the command line --------------------------------------------------------------------

VALID = eval_line("valid-edit", make_case(), True)
UNDECLARED = eval_line("hidden-file", make_case(diff("hidden_extra_file.diff")), False, "undeclared_file")
MISLABELLED = eval_line("mislabelled", make_case(), False, "scope_excluded")  # judge accepts it: a false accept


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    """base: 2 of 3 right (one false accept, kappa 0.4). head: the same set with that case's label fixed, 3 of 3.
    edited: that case's inputs changed (a case judge catches): another set."""
    run_eval(tmp_path, [VALID, UNDECLARED, MISLABELLED], "base")
    run_eval(tmp_path, [VALID, UNDECLARED, eval_line("mislabelled", make_case(), True)], "head")
    run_eval(tmp_path, [VALID, UNDECLARED, eval_line("mislabelled", make_case(patch=...), False, "missing_patch")],
             "edited")
    return {name: tmp_path / name / "report.json" for name in ("base", "head", "edited")}


def _compare(capsys, *argv: str) -> tuple[int, str, str]:
    code = run_cli("eval", "compare", *argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare_prints_deltas_and_flips(runs, capsys) -> None:
    capsys.readouterr()
    code, out, err = _compare(capsys, str(runs["base"]), str(runs["head"]))
    assert code == 0 and err == ""
    assert "Same eval set: all 3 cases compared." in out
    assert "| accuracy | 66.7% | 100.0% | +33.3 pp | better |" in out
    assert "No verdict flipped." in out  # only the label changed


def test_cli_refuses_reports_of_different_sets(runs, capsys) -> None:
    capsys.readouterr()
    code, out, err = _compare(capsys, str(runs["base"]), str(runs["edited"]))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert err.startswith(f"judge: {runs['edited']}: not a run of the same eval set as {runs['base']}")
    assert "1 with the same id but other inputs" in err and "--allow-different-sets" in err


def test_cli_compares_different_sets_on_their_shared_cases_when_allowed(runs, tmp_path: Path, capsys) -> None:
    capsys.readouterr()
    markdown, page = tmp_path / "c.md", tmp_path / "c.html"
    code, out, err = _compare(capsys, str(runs["base"]), str(runs["edited"]), "--allow-different-sets",
                              "--markdown", str(markdown), "--html", str(page))
    assert code == 0
    line = ("Different eval sets: only the 2 shared cases are compared (metrics computed on them alone); not compared: "
            "0 only in base, 0 only in head, 1 with the same id but other inputs.")
    assert line in out.splitlines() and line in markdown.read_text(encoding="utf-8")
    assert "Same id, other inputs (1): mislabelled" in out
    assert "| accuracy | 100.0% | 100.0% | ±0.0 pp | same |" in out  # the mislabelled case is left out
    html_page = page.read_text(encoding="utf-8")
    assert line in html_page and "<code>mislabelled</code>" in html_page
    assert err.splitlines() == [f"judge: wrote Markdown: {markdown}", f"judge: wrote HTML: {page}"]


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
    assert code == 1
    assert err == ("judge: threshold not met: kappa is n/a (every case is labelled valid: kappa needs both classes in "
                   "the set), so --min-kappa 0.1 cannot be met\n")


def test_cli_compare_writes_markdown(runs, tmp_path: Path, capsys) -> None:
    target = tmp_path / "out" / "compare.md"
    capsys.readouterr()
    code, out, _ = _compare(capsys, str(runs["base"]), str(runs["head"]), "--markdown", str(target))
    assert code == 0 and target.read_text(encoding="utf-8") == out


def test_cli_refuses_to_compare_runs_that_share_no_case_even_when_allowed(tmp_path: Path, capsys) -> None:
    """Different sets are allowed on their shared cases; with none shared, "No verdict flipped" would be a lie."""
    run_eval(tmp_path, [VALID], "one")
    run_eval(tmp_path, [UNDECLARED], "other")
    capsys.readouterr()
    one, other = tmp_path / "one" / "report.json", tmp_path / "other" / "report.json"
    code, out, err = _compare(capsys, str(one), str(other), "--allow-different-sets")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"{other}: shares no case with {one}" in err and "nothing to compare" in err
