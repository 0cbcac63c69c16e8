"""`judge eval`: a labelled .jsonl set in, a confusion matrix on stdout and a metrics file out."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from helpers.builders import diff, make_case, run_cli
from judge.cli.main import main


def _case(case_id: str, step_result: tuple[dict, dict], valid: bool, rule: str | None = None) -> str:
    step, result = step_result
    expected: dict = {"valid": valid}
    if rule is not None:
        expected["rule"] = rule
    return json.dumps({"id": case_id, "step": step, "result": result, "expected": expected})


VALID = _case("valid-edit", make_case(), True)
UNDECLARED = _case("hidden-file", make_case(diff("hidden_extra_file.diff")), False, "undeclared_file")
MISSING_PATCH = _case("no-patch", make_case(patch=...), False, "missing_patch")
# Deliberately mislabelled: a valid result the label calls invalid (judge "falsely accepts" it).
MISLABELLED = _case("mislabelled", make_case(), False, "scope_excluded")
# Rejected, but for another rule than the label says.
WRONG_RULE = _case("wrong-rule", make_case(diff("hidden_extra_file.diff")), False, "scope_excluded")
NOT_JSON = '{"id": "broken", "step": '
BREAKS_SCHEMA = json.dumps({"id": "valid-as-text", "step": {}, "result": {}, "expected": {"valid": "yes"}})

# line:         1      2           3         4              5   6            7              8
MIXED_LINES = [VALID, UNDECLARED, NOT_JSON, MISSING_PATCH, "", MISLABELLED, BREAKS_SCHEMA, WRONG_RULE]


def _write_set(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


_run = run_cli


@pytest.fixture
def mixed(tmp_path: Path, capsys) -> tuple[int, str, dict]:
    source = _write_set(tmp_path / "set.jsonl", MIXED_LINES)
    out_file = tmp_path / "tmp" / "metrics.json"
    out_file.parent.mkdir()
    code, out, _ = _run(capsys, "eval", str(source), "--out", str(out_file))
    return code, out, json.loads(out_file.read_text(encoding="utf-8"))


# --- the mixed set: stdout -----------------------------------------------------------------------


def test_bad_lines_make_exit_code_2(mixed) -> None:
    code, _, _ = mixed
    assert code == 2


def test_summary_line_counts_only_runnable_cases(mixed) -> None:
    _, out, _ = mixed
    first = out.splitlines()[0]
    assert first.startswith("5 cases, accuracy 80.0%, false-accept rate 25.0%, false-reject rate 0.0%")
    assert "rule attribution 50.0%" in first


def test_printed_confusion_matrix(mixed) -> None:
    _, out, _ = mixed
    assert re.search(r"^expected invalid\s+3\s+1\s*$", out, re.M), out
    assert re.search(r"^expected valid\s+0\s+1\s*$", out, re.M), out


def test_printed_rule_table(mixed) -> None:
    _, out, _ = mixed
    assert re.search(r"^undeclared_file\s+1\s+1\s+1\s+undeclared_file=1$", out, re.M), out
    assert re.search(r"^missing_patch\s+1\s+1\s+1\s+missing_patch=1$", out, re.M), out
    assert re.search(r"^scope_excluded\s+2\s+1\s+0\s+\(valid\)=1, undeclared_file=1$", out, re.M), out
    assert re.search(r"^\(valid\)\s+1\s+0\s+1\s+\(valid\)=1$", out, re.M), out


def test_printed_wrong_cases_name_ids(mixed) -> None:
    _, out, _ = mixed
    wrong = out.split("wrong (2):", 1)[1]
    assert "mislabelled: expected invalid/scope_excluded, got valid" in wrong
    assert "wrong-rule: expected invalid/scope_excluded, got undeclared_file" in wrong
    assert "valid-edit:" not in wrong


def test_printed_bad_lines_have_line_numbers(mixed) -> None:
    _, out, _ = mixed
    bad = out.split("bad lines (2), not run:", 1)[1].splitlines()
    assert any("line 3" in line and "not valid JSON" in line for line in bad), bad
    assert any("line 7" in line and "expected.valid" in line for line in bad), bad


def test_stdout_names_the_metrics_file(mixed, tmp_path: Path) -> None:
    """Changed deliberately (issue 14): "metrics written to X" became one "wrote KIND: PATH" line per file."""
    _, out, _ = mixed
    assert out.rstrip().endswith(f"wrote JSON report: {tmp_path / 'tmp' / 'metrics.json'}")


# --- the mixed set: metrics file -----------------------------------------------------------------


def test_metrics_confusion_and_rates(mixed) -> None:
    metrics = mixed[2]["metrics"]
    assert metrics["cases"] == 5
    assert metrics["confusion"] == {
        "expectedInvalid": {"judgedInvalid": 3, "judgedValid": 1},
        "expectedValid": {"judgedInvalid": 0, "judgedValid": 1},
    }
    assert metrics["accuracy"] == pytest.approx(0.8)
    assert metrics["falseAcceptRate"] == pytest.approx(0.25)
    assert metrics["falseRejectRate"] == 0
    assert metrics["precisionReject"] == pytest.approx(1.0)
    assert metrics["recallReject"] == pytest.approx(0.75)
    assert metrics["ruleAttribution"] == pytest.approx(0.5)


def test_metrics_per_rule_rows(mixed) -> None:
    rows = {row["rule"]: row for row in mixed[2]["metrics"]["rules"]}
    assert rows == {
        "(valid)": {"rule": "(valid)", "cases": 1, "rejected": 0, "rightRule": 1, "found": {"(valid)": 1}},
        "missing_patch": {"rule": "missing_patch", "cases": 1, "rejected": 1, "rightRule": 1,
                          "found": {"missing_patch": 1}},
        "scope_excluded": {"rule": "scope_excluded", "cases": 2, "rejected": 1, "rightRule": 0,
                           "found": {"(valid)": 1, "undeclared_file": 1}},
        "undeclared_file": {"rule": "undeclared_file", "cases": 1, "rejected": 1, "rightRule": 1,
                            "found": {"undeclared_file": 1}},
    }


def test_metrics_bad_lines(mixed) -> None:
    bad = mixed[2]["badLines"]
    assert [b["line"] for b in bad] == [3, 7]
    assert all(b["problem"] for b in bad)


def test_metrics_every_case_verdict_in_file_order(mixed) -> None:
    cases = mixed[2]["cases"]
    assert [c["id"] for c in cases] == ["valid-edit", "hidden-file", "no-patch", "mislabelled", "wrong-rule"]
    by_id = {c["id"]: c for c in cases}
    assert by_id["hidden-file"]["valid"] is False and by_id["hidden-file"]["rule"] == "undeclared_file"
    assert by_id["no-patch"]["rule"] == "missing_patch"
    assert by_id["valid-edit"] == {**by_id["valid-edit"], "valid": True, "rule": None, "expectedValid": True}
    assert by_id["mislabelled"]["expectedRule"] == "scope_excluded"


# --- other sets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_an_empty_set_is_refused_with_exit_2(tmp_path: Path, capsys, content) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(content, encoding="utf-8")
    code, out, err = _run(capsys, "eval", str(empty), "--out", str(tmp_path / "m.json"))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"eval set {empty}: holds no case" in err and not (tmp_path / "m.json").exists()


def test_a_report_given_as_a_set_is_refused_at_once_not_listed_line_by_line(tmp_path: Path, capsys) -> None:
    """A pretty-printed JSON file (an eval report, say) has a bad line per line: judge says what the file is not."""
    source = _write_set(tmp_path / "set.jsonl", [VALID])
    _run(capsys, "eval", str(source), "--out", str(tmp_path / "report.json"))
    report = tmp_path / "report.json"
    report.write_text(json.dumps(json.loads(report.read_text(encoding="utf-8")), indent=2), encoding="utf-8")
    assert len(report.read_text(encoding="utf-8").splitlines()) > 20
    capsys.readouterr()
    code, out, err = _run(capsys, "eval", str(report), "--out", str(tmp_path / "again.json"))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"eval set {report} line 1: " in err and "none of its first 20 lines is a case" in err


def test_every_bad_line_is_worded_alike(mixed) -> None:
    """Invalid JSON and a schema violation: both "eval set FILE line N: what is wrong"."""
    _, out, _ = mixed
    bad = out.split("bad lines (2), not run:", 1)[1].splitlines()
    worded = [line for line in bad if "eval set " in line and ".jsonl line " in line]
    assert len(worded) == 2, bad


def test_clean_set_exits_0(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "clean.jsonl", [VALID, UNDECLARED, MISSING_PATCH])
    out_file = tmp_path / "m.json"
    code, out, _ = _run(capsys, "eval", str(source), "--out", str(out_file))
    assert code == 0
    assert out.startswith("3 cases, accuracy 100.0%")
    assert "bad lines" not in out and "wrong (" not in out
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert report["badLines"] == [] and report["metrics"]["accuracy"] == 1.0


def test_wrong_labels_alone_do_not_change_the_exit_code(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, MISLABELLED.replace("mislabelled", "m2")])
    code, out, _ = _run(capsys, "eval", str(source), "--out", str(tmp_path / "m.json"))
    assert code == 0
    assert "wrong (1):" in out


def test_default_out_is_eval_metrics_json_in_cwd(tmp_path: Path, capsys, monkeypatch) -> None:
    _write_set(tmp_path / "clean.jsonl", [VALID])
    monkeypatch.chdir(tmp_path)
    code, _, _ = _run(capsys, "eval", "clean.jsonl")
    assert code == 0
    assert json.loads((tmp_path / "eval-metrics.json").read_text(encoding="utf-8"))["metrics"]["cases"] == 1


def test_duplicate_case_id_is_a_bad_line(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "dup.jsonl", [VALID, VALID])
    out_file = tmp_path / "m.json"
    code, out, _ = _run(capsys, "eval", str(source), "--out", str(out_file))
    assert code == 2
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert report["metrics"]["cases"] == 1
    assert [b["line"] for b in report["badLines"]] == [2]
    assert "duplicate" in report["badLines"][0]["problem"]


@pytest.mark.parametrize("spelling", ["same", "dot-relative"])
def test_out_equal_to_input_is_refused_and_input_untouched(tmp_path: Path, capsys, monkeypatch, spelling) -> None:
    source = _write_set(tmp_path / "set.jsonl", MIXED_LINES)
    before = source.read_bytes()
    monkeypatch.chdir(tmp_path)
    out_arg = "set.jsonl" if spelling == "same" else "./sub/../set.jsonl"
    (tmp_path / "sub").mkdir()
    code, out, err = _run(capsys, "eval", "set.jsonl", "--out", out_arg)
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("judge:")
    assert source.read_bytes() == before


def test_missing_eval_set_is_usage_error(tmp_path: Path, capsys) -> None:
    code, out, err = _run(capsys, "eval", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "m.json"))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("judge:") and "no such file" in err
    assert not (tmp_path / "m.json").exists()


def test_unwritable_out_is_usage_error(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "clean.jsonl", [VALID])
    (tmp_path / "a-file").write_text("x")  # a directory cannot be made under a file
    code, out, err = _run(capsys, "eval", str(source), "--out", str(tmp_path / "a-file" / "m.json"))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1 and err.startswith("judge:") and "--out" in err


def test_eval_reads_set_from_stdin(tmp_path: Path, capsys, monkeypatch) -> None:
    import io

    data = ("\n".join([VALID, UNDECLARED]) + "\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    out_file = tmp_path / "m.json"
    code, out, _ = _run(capsys, "eval", "-", "--out", str(out_file))
    assert code == 0
    assert json.loads(out_file.read_text(encoding="utf-8"))["metrics"]["cases"] == 2


def test_lone_surrogate_in_a_case_does_not_crash_eval(tmp_path: Path, capsys) -> None:
    """A case whose step mode is the JSON string "\\ud800": its verdict reason echoes it; eval must still report."""
    _, result = make_case()
    line = ('{"id": "surrogate", "step": {"id": "s", "description": "d", "mode": "\\ud800"}, "result": '
            + json.dumps(result) + ', "expected": {"valid": false, "rule": "schema_invalid"}}')
    source = _write_set(tmp_path / "set.jsonl", [line])
    out_file = tmp_path / "m.json"
    code, out, _ = _run(capsys, "eval", str(source), "--out", str(out_file))
    assert code == 0
    report = json.loads(out_file.read_text(encoding="utf-8"))
    assert report["cases"][0]["rule"] == "schema_invalid"


# --- thresholds: 0 to 1, each says what fails, an undefined metric is not met (issue 14) ---------


THRESHOLD_FLAGS = ("--min-accuracy", "--max-false-accept-rate", "--min-kappa")


@pytest.mark.parametrize("flag", THRESHOLD_FLAGS)
@pytest.mark.parametrize("value", ["1.5", "-0.1", "nan", "inf", "95%"])
def test_a_threshold_outside_0_to_1_is_refused_before_judging(tmp_path: Path, capsys, flag, value) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID])
    out_file = tmp_path / "m.json"
    code, out, err = _run(capsys, "eval", str(source), "--out", str(out_file), flag, value)
    assert code == 2 and out == "" and not out_file.exists()
    assert err == f"judge: argument {flag}: {value!r} is not a number from 0 to 1 (see `judge eval --help`)\n"


@pytest.mark.parametrize("command", [["eval", "merge", "a.json", "--out", "m.json"],
                                     ["eval", "compare", "a.json", "b.json"]])
def test_merge_and_compare_refuse_such_thresholds_too(capsys, command) -> None:
    code, out, err = _run(capsys, *command, "--min-kappa", "2")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "argument --min-kappa: '2' is not a number from 0 to 1" in err


def test_the_library_refuses_such_thresholds() -> None:
    from judge.errors import InputError
    from judge.eval.session import Thresholds

    with pytest.raises(InputError, match="min_accuracy 1.2: must be a number from 0 to 1"):
        Thresholds(min_accuracy=1.2)
    with pytest.raises(InputError, match="max_false_accept_rate nan"):
        Thresholds(max_false_accept_rate=float("nan"))
    assert Thresholds(0, 1, 0.5).min_kappa == 0.5


@pytest.mark.parametrize("command", [["eval"], ["eval", "merge"], ["eval", "compare"]])
def test_each_threshold_says_what_fails(capsys, command) -> None:
    code, out, _ = _run(capsys, *command, "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "thresholds (each X from 0 to 1; not met: exit 1; on an n/a metric: not met)" in text
    assert "--min-accuracy X fail when" in text and "accuracy (cases judged valid/invalid as labelled" in text
    assert "--max-false-accept-rate X fail when" in text and "is above X" in text
    assert "--min-kappa X fail when" in text and "Cohen's kappa" in text


def test_a_threshold_not_met_names_the_value_and_the_bound(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, MISLABELLED])
    code, _, err = _run(capsys, "eval", str(source), "--out", str(tmp_path / "m.json"), "--min-accuracy", "0.9",
                        "--max-false-accept-rate", "0.5", "--min-kappa", "0")
    assert code == 1
    assert err.splitlines() == ["judge: threshold not met: accuracy 0.5 is below --min-accuracy 0.9",
                                "judge: threshold not met: falseAcceptRate 1 is above --max-false-accept-rate 0.5"]


def test_a_threshold_on_an_undefined_metric_is_not_met(tmp_path: Path, capsys) -> None:
    """No case is labelled invalid: the false-accept rate is n/a, not 0%, and its bound cannot pass."""
    source = _write_set(tmp_path / "set.jsonl", [VALID])
    out_file = tmp_path / "m.json"
    code, out, err = _run(capsys, "eval", str(source), "--out", str(out_file), "--max-false-accept-rate", "0.1")
    assert code == 1
    assert err == ("judge: threshold not met: falseAcceptRate is n/a (no case is labelled invalid), so "
                   "--max-false-accept-rate 0.1 cannot be met\n")
    assert "false-accept rate n/a (no case is labelled invalid)" in out.splitlines()[0]
    assert json.loads(out_file.read_text(encoding="utf-8"))["metrics"]["falseAcceptRate"] is None


# --- cases the judge could not decide are not a pass (issue 14) ----------------------------------

# `--semantic required` with no model: a case the rules pass ends in llm_unavailable.
UNDECIDED = ["--semantic", "required"]


def test_an_undecided_case_fails_the_run(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, UNDECLARED])
    code, out, err = _run(capsys, "eval", str(source), "--out", str(tmp_path / "m.json"), *UNDECIDED)
    assert code == 1
    assert err == ("judge: 1 case(s) could not be judged (llm_unavailable 1): the judge could not decide them, and "
                   "they count as rejections in the metrics; not a pass (exit 1): fix the model or the set, or pass "
                   "--allow-errors\n")
    assert "could not judge: 1 (llm_unavailable 1)" in out


def test_allow_errors_accepts_undecided_cases_and_still_says_so(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, UNDECLARED])
    code, out, err = _run(capsys, "eval", str(source), "--out", str(tmp_path / "m.json"), *UNDECIDED,
                          "--allow-errors")
    assert code == 0
    assert "1 case(s) could not be judged (llm_unavailable 1)" in err and "accepted (--allow-errors)" in err
    assert "could not judge: 1 (llm_unavailable 1)" in out


def test_allow_errors_does_not_excuse_a_threshold(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, UNDECLARED])
    code, _, err = _run(capsys, "eval", str(source), "--out", str(tmp_path / "m.json"), *UNDECIDED,
                        "--allow-errors", "--min-accuracy", "0.9")
    assert code == 1 and "threshold not met: accuracy 0.5 is below --min-accuracy 0.9" in err


def test_bad_lines_still_exit_2_over_undecided_cases(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, NOT_JSON])
    code, _, err = _run(capsys, "eval", str(source), "--out", str(tmp_path / "m.json"), *UNDECIDED)
    assert code == 2 and "could not be judged (llm_unavailable 1)" in err


def test_a_merge_of_shards_with_undecided_cases_fails_unless_allowed(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, UNDECLARED, MISSING_PATCH])
    parts = []
    for index in (1, 2):
        parts.append(str(tmp_path / f"p{index}.json"))
        _run(capsys, "eval", str(source), "--shard", f"{index}/2", "--out", parts[-1], *UNDECIDED,
             "--store", str(tmp_path / "store.sqlite"))
    merged = str(tmp_path / "all.json")
    code, _, err = _run(capsys, "eval", "merge", *parts, "--out", merged)
    assert code == 1 and "could not be judged (llm_unavailable 1)" in err
    assert _run(capsys, "eval", "merge", *parts, "--out", merged, "--allow-errors")[0] == 0


# --- the summary: every file written, the model's calls, the cache, what could not be judged ---------


def test_summary_lists_every_file_written_and_the_model_use(tmp_path: Path, capsys) -> None:
    source = _write_set(tmp_path / "set.jsonl", [VALID, UNDECLARED])
    files = {flag: tmp_path / "out" / name for flag, name in (("--out", "r.json"), ("--markdown", "r.md"),
                                                               ("--junit", "r.xml"), ("--html", "r.html"))}
    code, out, _ = _run(capsys, "eval", str(source), *[str(part) for flag, path in files.items()
                                                       for part in (flag, path)])
    assert code == 0 and all(path.is_file() for path in files.values())
    assert out.splitlines()[-5:] == [
        "LLM calls: 0 (no model configured: contract, rules and gates only); cache hits: 0; could not judge: none",
        f"wrote JSON report: {files['--out']}", f"wrote Markdown: {files['--markdown']}",
        f"wrote JUnit XML: {files['--junit']}", f"wrote HTML: {files['--html']}"]


# --- --help: examples and exit codes --------------------------------------------------------------


@pytest.mark.parametrize(("argv", "says"), [
    (["eval", "--help"], ["examples:", "judge eval evals/dev.jsonl --resume", "exit: 0 every line ran",
                          "1 a threshold is not met, or a case ended in llm_unavailable or judge_error",
                          "--allow-errors", "2 bad usage or input"]),
    (["eval", "merge", "--help"], ["example:", "every shard 1/N to N/N", "setFileSha256", "refused, naming the part",
                                   "2 bad usage, a part that cannot be merged"]),
    (["eval", "compare", "--help"], ["examples:", "same eval set when they hold the same case ids",
                                     "--allow-different-sets", "model, semantic mode, prompt, judge version",
                                     "2 bad usage, an unreadable", "reports of different sets without"]),
])
def test_help_has_examples_and_exit_codes(capsys, argv, says) -> None:
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    text = " ".join(out.split())
    for phrase in says:
        assert " ".join(phrase.split()) in text, phrase
    assert "n/a, with the reason, in every report" in text and "fails any threshold set on it" in text
