"""The reports of `judge eval`: JSON (against schemas/eval-report.schema.json), Markdown, JUnit XML, HTML."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from helpers.builders import make_case
from helpers.eval_sets import XSS_PATCH, eval_line, mixed_set, run_cli, run_eval
from judge.contract.schema import SCHEMA_FILES, load_schema
from judge.eval.report import html, junit, markdown
from judge.eval.report.markdown import cell
from judge.eval.report.model import EvalReport

pytestmark = pytest.mark.usefixtures("eval_sandbox")


def render_html(report: dict) -> str:
    """Each renderer on a JSON report, read as `judge eval merge` and `compare` read one from disk."""
    return html.render_html(EvalReport.from_json(report))


def render_junit(report: dict) -> str:
    return junit.render_junit(EvalReport.from_json(report))


def render_markdown(report: dict) -> str:
    return markdown.render_markdown(EvalReport.from_json(report))


@pytest.fixture
def mixed(tmp_path: Path) -> tuple[int, dict, Path]:
    return run_eval(tmp_path, mixed_set())


@pytest.fixture
def undecided(tmp_path: Path) -> tuple[int, dict, Path]:
    """`--semantic required` with no model: cases the rules pass are llm_unavailable, not valid."""
    lines = [eval_line("valid-but-no-model", make_case(), True), eval_line("caught", make_case(patch=...), False,
                                                                            "missing_patch")]
    return run_eval(tmp_path, lines, "undecided", "--semantic", "required")


def _validator() -> Draft202012Validator:
    schema = load_schema("eval-report")
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _errors(report: dict) -> list[str]:
    return [f"{list(error.absolute_path)}: {error.message}" for error in _validator().iter_errors(report)]


def _wrong_ids(report: dict) -> list[str]:
    """The mixed set's wrong cases, in file order, as the report's cases say."""
    ids = [case["id"] for case in report["cases"] if case["id"] != "valid-edit" and case["id"] != "hidden-file"]
    assert ids == ["mislabelled|pipe\nnewline", "wrong-rule", "xss-patch"]
    return ids


# --- JSON report and its schema ------------------------------------------------------------------


def test_schema_is_registered() -> None:
    assert SCHEMA_FILES["eval-report"] == "eval-report.schema.json"


def test_real_report_matches_the_schema(mixed) -> None:
    code, report, _ = mixed
    assert code == 2  # the bad line
    assert _errors(report) == []
    assert report["wrong"] and report["badLines"]


def test_report_with_undecided_cases_matches_the_schema(undecided) -> None:
    _, report, _ = undecided
    assert _errors(report) == []
    assert report["metrics"]["errors"] == {"llm_unavailable": 1}


def test_merged_report_matches_the_schema(tmp_path: Path) -> None:
    lines = mixed_set()[:-1]
    parts = [run_eval(tmp_path, lines, f"part{i}", "--shard", f"{i}/2")[1] for i in (1, 2)]
    assert all(_errors(part) == [] for part in parts)
    out = tmp_path / "merged.json"
    code = run_cli("eval", "merge", str(tmp_path / "part1" / "report.json"), str(tmp_path / "part2" / "report.json"),
                   "--out", str(out))
    merged = json.loads(out.read_text(encoding="utf-8"))
    assert code == 0 and len(merged["cases"]) == 5 and len(merged["parts"]) == 2
    assert _errors(merged) == []


def test_schema_refuses_drift(mixed) -> None:
    _, report, _ = mixed
    broken = json.loads(json.dumps(report))
    broken["metrics"]["kappa"] = "high"
    broken["cases"][0]["surprise"] = 1
    del broken["metrics"]["f1Reject"]
    assert len(_errors(broken)) == 3


def test_report_file_is_strict_json(mixed, tmp_path: Path) -> None:
    def refuse(token: str) -> None:
        raise AssertionError(token)

    json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"), parse_constant=refuse)


# --- Markdown ------------------------------------------------------------------------------------


def test_markdown_headline_confusion_rules_wrong(mixed, tmp_path: Path) -> None:
    _, report, folder = mixed
    text = (folder / "report.md").read_text(encoding="utf-8")
    assert text == render_markdown(report)
    assert f"run {cell(report['runId'])}" in text and "no model" in text
    assert "| **expected invalid** | 2 | 1 |" in text
    assert "| **expected valid** | 1 | 1 |" in text
    assert re.search(r"^\| scope\\_excluded \| 2 \| 1 \| 0 \| 0\.0% \|", text, re.M), text
    assert "**Wrong (3)**" in text and "**Bad lines (1), not run:**" in text


def test_markdown_cells_escape_pipes_newlines_and_html(mixed) -> None:
    _, report, folder = mixed
    text = (folder / "report.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| mislabelled"))
    assert r"mislabelled\|pipe ⏎ newline" in row
    assert len(re.findall(r"(?<!\\)\|", row)) == 5  # 4 cells
    assert cell("<img src=x onerror=alert(1)> [a](b) *b*") == r"&lt;img src=x onerror=alert(1)&gt; \[a](b) \*b\*"


def test_markdown_lists_at_most_20_wrong_cases() -> None:
    cases = [{"id": f"c{i}", "expectedValid": True, "expectedRule": None, "valid": False, "rule": "superficial_only",
              "reason": "x"} for i in range(25)]
    report = {"runId": "r", "settings": {}, "metrics": _metrics_of(cases), "cases": cases, "badLines": []}
    text = render_markdown(report)
    assert len(re.findall(r"^\| c\d+ \|", text, re.M)) == 20
    assert "and 5 more" in text and len(text) < 65536


def _metrics_of(cases: list[dict]) -> dict:
    from judge.eval.metrics import compute_metrics

    return compute_metrics(EvalReport.from_json({"cases": [{**c, "inputsHash": "0" * 64, "decidedBy": "rules"} for c in cases]}).records).to_json()


# --- JUnit ---------------------------------------------------------------------------------------


def test_junit_counts_and_failures(mixed) -> None:
    _, report, folder = mixed
    root = ET.fromstring((folder / "report.xml").read_bytes())
    suite = root.find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases] == [c["id"] for c in report["cases"]]
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("5", "3", "0")
    failures = {c.get("name"): c.find("failure") for c in cases if c.find("failure") is not None}
    assert set(failures) == set(_wrong_ids(report))
    assert failures["wrong-rule"].get("type") == "wrong_rule"
    assert failures["xss-patch"].get("type") == "false_reject"
    assert failures["mislabelled|pipe\nnewline"].get("type") == "false_accept"
    assert "expected: invalid: scope_excluded\ngot: invalid: undeclared_file\nreason: " in failures["wrong-rule"].text
    assert {c.get("classname") for c in cases} == {"valid", "undeclared_file", "scope_excluded"}
    bad_suite = root.findall("testsuite")[1]
    assert bad_suite.get("errors") == "1" and bad_suite.find("testcase/error").get("type") == "bad_line"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("6", "3", "1")


def test_junit_undecided_cases_are_errors(undecided) -> None:
    _, report, folder = undecided
    suite = ET.fromstring((folder / "report.xml").read_bytes()).find("testsuite")
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "0", "1")
    error = suite.find("testcase[@name='valid-but-no-model']/error")
    assert error.get("type") == "llm_unavailable"


def test_junit_survives_text_xml_cannot_hold() -> None:
    case = {"id": "ctl\x00\x1b\ud800", "expectedValid": True, "expectedRule": None, "valid": False,
            "rule": "superficial_only", "reason": "bell \x07 and ]]> and </testcase>", "latencyMs": 1.0}
    text = render_junit({"cases": [case], "metrics": {}, "badLines": [{"line": 2, "problem": "nul \x00"}]})
    root = ET.fromstring(text.encode("utf-8"))
    testcase = root.find("testsuite/testcase")
    assert testcase.get("name") == "ctl\\u0000\\u001b\\ud800"
    assert "]]> and </testcase>" in testcase.find("failure").text


# --- HTML ----------------------------------------------------------------------------------------

_RESOURCE = re.compile(r"""(?:\b(?:src|href|action|poster|data)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import)""",
                       re.I)


def _embedded(html: str) -> dict:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html, re.S)
    return json.loads(match.group(1))


def test_html_is_self_contained(mixed) -> None:
    _, report, folder = mixed
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert html == render_html(report)
    assert not _RESOURCE.search(html)
    assert "http://" not in html and "https://" not in html  # this report holds no URL in its data either
    assert "default-src 'none'" in html


def test_html_embeds_untrusted_patch_without_breaking_out(mixed) -> None:
    _, report, folder = mixed
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert html.count("</script>") == 2  # the data block's and the code's: the patch's own stays escaped
    assert "<script>alert(1)" not in html
    data = _embedded(html)
    xss = next(item for item in data["wrong"] if item["id"] == "xss-patch")
    assert xss["patch"] == XSS_PATCH and xss["gotRule"] == "malformed_patch"
    assert [item["id"] for item in data["wrong"]] == _wrong_ids(report)
    assert data["metrics"] == report["metrics"]


def test_html_never_assigns_data_as_html() -> None:
    from judge.eval.report import html as module

    assert "innerHTML" not in module._SCRIPT and "insertAdjacentHTML" not in module._SCRIPT
    assert "document.write" not in module._SCRIPT and "eval(" not in module._SCRIPT


def test_html_content_security_policy_hashes_match(mixed) -> None:
    _, _, folder = mixed
    html = (folder / "report.html").read_text(encoding="utf-8")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    for tag in ("script", "style"):
        body = re.search(rf"<{tag}>(.*?)</{tag}>", html, re.S).group(1)
        digest = base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode()
        assert f"{tag}-src 'sha256-{digest}'" in policy


def test_html_with_non_finite_numbers_in_a_case_still_embeds_strict_json() -> None:
    report = {"runId": "r", "settings": {}, "metrics": {}, "badLines": [],
              "cases": [{"id": "n", "expectedValid": True, "valid": False, "rule": "superficial_only", "reason": "x"}],
              "wrong": [{"id": "n", "step": {"description": "d", "weight": float("nan")}, "result": {"patch": "p"}}]}
    assert _embedded(render_html(report))["wrong"][0]["patch"] == "p"


# --- undefined metrics: n/a with the reason in every report (issue 14) ------------------------------


@pytest.fixture
def only_valid(tmp_path: Path) -> tuple[int, dict, Path]:
    """No case is labelled invalid: the false-accept rate, recall, rule attribution and kappa are undefined."""
    lines = [eval_line("valid-edit", make_case(), True), eval_line("no-patch", make_case(patch=...), True)]
    return run_eval(tmp_path, lines, "only-valid")


NO_INVALID = "no case is labelled invalid"


def test_undefined_metrics_are_null_with_why_in_json(only_valid) -> None:
    _, report, _ = only_valid
    metrics = report["metrics"]
    assert metrics["falseAcceptRate"] is None and metrics["recallReject"] is None and metrics["kappa"] is None
    assert metrics["undefinedMetrics"]["falseAcceptRate"] == NO_INVALID
    assert metrics["undefinedMetrics"]["kappa"] == metrics["kappaUndefined"]
    assert metrics["accuracy"] == 0.5 and "accuracy" not in metrics["undefinedMetrics"]
    assert _errors(report) == []


def test_undefined_metrics_read_na_with_why_in_markdown(only_valid) -> None:
    _, _, folder = only_valid
    text = (folder / "report.md").read_text(encoding="utf-8")
    values = text.splitlines()[text.splitlines().index("|---:|---:|---:|---:|---:|---:|---:|---:|") + 1]
    assert values.startswith(f"| 50.0% | n/a ({NO_INVALID}) | 50.0% | 0.0% | n/a ({NO_INVALID}) | 0.0% | n/a (every")
    assert values.endswith("| n/a (no case labelled invalid names a rule) |")
    assert "cost n/a (no case had a price" in text


def test_undefined_metrics_read_na_with_why_in_junit(only_valid) -> None:
    _, _, folder = only_valid
    suite = ET.fromstring((folder / "report.xml").read_bytes()).find("testsuite")
    properties = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert properties["falseAcceptRate"] == f"n/a ({NO_INVALID})"
    assert properties["kappa"].startswith("n/a (every case is labelled valid")
    assert properties["accuracy"] == "0.5" and properties["falseRejectRate"] == "0.5"


def test_undefined_metrics_read_na_with_why_in_html(only_valid) -> None:
    _, _, folder = only_valid
    data = _embedded((folder / "report.html").read_text(encoding="utf-8"))
    assert data["metricTexts"]["falseAcceptRate"] == f"n/a ({NO_INVALID})"
    assert data["metricTexts"]["accuracy"] == "50.0%"
    assert data["kappaText"].startswith("n/a (every case is labelled valid")
    assert data["costText"].startswith("n/a (no case had a price")


def _as_written_before_issue_14(report: dict) -> dict:
    """A report from before undefinedMetrics and setFileSha256 existed: empty ratios were written as 0.0."""
    old = json.loads(json.dumps(report))
    del old["setFileSha256"], old["metrics"]["undefinedMetrics"]
    for key in ("accuracy", "precisionReject", "recallReject", "f1Reject", "falseAcceptRate", "falseRejectRate",
                "ruleAttribution"):
        old["metrics"][key] = old["metrics"][key] or 0.0
    return old


def test_reports_from_before_stay_valid_and_render(only_valid) -> None:
    _, report, _ = only_valid
    old = _as_written_before_issue_14(report)
    assert _errors(old) == []
    assert "| 50.0% | 0.0% |" in render_markdown(old)  # as it was written: nothing is invented
    assert _embedded(render_html(old))["metricTexts"]["falseAcceptRate"] == "0.0%"
    assert "kappa" in render_junit(old)


def test_schema_still_refuses_a_ratio_out_of_range(only_valid) -> None:
    _, report, _ = only_valid
    broken = json.loads(json.dumps(report))
    broken["metrics"]["falseAcceptRate"] = 1.5
    broken["metrics"]["undefinedMetrics"] = {"kappa": 3}
    assert len(_errors(broken)) == 2
