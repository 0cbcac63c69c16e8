"""Seed 001's report: the Execution Evidence table from real records, hostile text kept in its cell, `judge report`,
and `judge validate --explain --markdown`."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

from helpers.builders import run_cli

import judge
from judge.cli.explain import render_markdown
from judge.runs.artifacts import record_execution
from judge.runs.record_table import HEADER, code_span, markdown_text, render_record_table

PY = sys.executable
STEP = {"id": "step-1", "description": "Run the test suite for the parser", "mode": "apply", "expectsNoChanges": True}
RESULT = {"mode": "apply", "success": True, "summary": "ran the tests"}
RULE = "|------|---------|-----------|--------|---------------|-----------|"


def _record(root: Path, command: list[str], *, step_id: str = "step-1", run_id: str = "r1", **options):
    return record_execution(command, step_id=step_id, root=root, run_id=run_id, **options)


def _cells_cmark(row: str) -> list[str]:
    """Cells as cmark-gfm (GitHub) and markdown-it split a row: a pipe right after a backslash is content."""
    return re.split(r"(?<!\\)\|", row.strip().removeprefix("|").removesuffix("|"))


def _cells_micromark(row: str) -> list[str]:
    """Cells as micromark splits a row: a backslash escapes the next backslash or pipe."""
    cells, current, index, body = [], "", 0, row.strip()[1:-1]
    while index < len(body):
        if body[index] == "\\" and index + 1 < len(body) and body[index + 1] in "\\|":
            current, index = current + body[index:index + 2], index + 2
            continue
        if body[index] == "|":
            cells.append(current)
            current = ""
        else:
            current += body[index]
        index += 1
    return cells + [current]


def _rows(table: str) -> list[str]:
    lines = table.splitlines()
    assert lines[:2] == [HEADER, RULE]
    return lines[2:]


def _one_row_of_six_cells(row: str) -> list[str]:
    cells = _cells_cmark(row)
    assert len(cells) == 6 and len(_cells_micromark(row)) == 6, row
    return [cell.strip() for cell in cells]


# --- the table ----------------------------------------------------------------------------------


def test_table_from_real_records(tmp_path):
    ok = _record(tmp_path, [PY, "-c", "print('3 passed')"], step_id="env_validation")
    failed = _record(tmp_path, ["sh", "-c", "echo '1 failed' >&2; exit 1"], step_id="user_execution")
    rows = _rows(render_record_table([ok, failed]))
    assert len(rows) == 2
    step, command, code, status, digest, links = _one_row_of_six_cells(rows[0])
    assert (step, code, status) == (r"env\_validation", "0", "SUCCESS")
    assert command.startswith("`") and command.endswith("`") and "3 passed" in command
    assert digest == f"`{ok.evidence_hash[:12]}...`"
    assert links == ("[stdout](artifacts/r1/env_validation/stdout.log) [stderr](artifacts/r1/env_validation/stderr.log) "
                     "[evidence](artifacts/r1/env_validation/evidence.json)")
    _, command, code, status, _, _ = _one_row_of_six_cells(rows[1])
    assert (command, code, status) == ("`sh -c 'echo '\"'\"'1 failed'\"'\"' >&2; exit 1'`", "1",
                                       r"FAILURE (EXECUTION\_FAILURE)")


def test_status_carries_the_failure_class(tmp_path):
    records = [
        _record(tmp_path, ["sh", "-c", "echo 'HTTP/1.1 401 Unauthorized' >&2; exit 22"], step_id="auth"),
        _record(tmp_path, ["/no/such/program"], step_id="missing"),
        _record(tmp_path, [str(tmp_path)], step_id="not-a-program"),
        _record(tmp_path, [PY, "-c", "import time; time.sleep(30)"], step_id="slow", timeout=0.3),
    ]
    statuses = [_one_row_of_six_cells(row)[2:4] for row in _rows(render_record_table(records))]
    assert statuses == [["22", r"FAILURE (AUTH\_ERROR)"], ["-", r"NO\_EVIDENCE (NOT\_FOUND)"],
                        ["-", r"NO\_EVIDENCE"], [statuses[3][0], "FAILURE (TIMEOUT)"]]


def test_status_is_derived_never_read_from_the_record(tmp_path):
    failed = _record(tmp_path, ["sh", "-c", "exit 1"])
    relabelled = failed.model_copy(update={"status": "SUCCESS"})  # status is outside the hash
    assert _one_row_of_six_cells(_rows(render_record_table([relabelled]))[0])[3] == r"FAILURE (EXECUTION\_FAILURE)"


@pytest.mark.parametrize("edit", [{"stdout": "3 passed\n"}, {"exit_code": 0, "status": "SUCCESS"},
                                  {"command": ("pytest", "-q")}], ids=["stdout", "exit-code", "command"])
def test_edited_record_shows_edited_never_success(tmp_path, edit):
    record = _record(tmp_path, ["sh", "-c", "echo '1 failed'; exit 1"])
    cells = _one_row_of_six_cells(_rows(render_record_table([record.model_copy(update=edit)]))[0])
    assert cells[3] == "EDITED"


def test_hostile_command_and_step_stay_in_their_cells(tmp_path):
    command = ["sh", "-c", "echo '| `y` ``z``' \\| a\\\\|\n## h\n<b>x", "a|b", "c\\", "\x1b[31m\u202e"]
    record = _record(tmp_path, command)
    assert len(shlex.join(command)) <= 80  # all of it is shown
    hostile_step = record.model_copy(update={"step_id": "s|1\n| x | y |\r\n[link](javascript:x) <b>*bold*</b> \\"})
    table = render_record_table([record, hostile_step])
    rows = _rows(table)
    assert len(rows) == 2 and len(table.splitlines()) == 4  # no raw newline of the command's reached the table
    for row in rows:
        step, cell, *_ = _one_row_of_six_cells(row)
        assert "\x1b" not in row and "\u202e" not in row and "\r" not in row
        fence = re.match(r"(`+) ", cell).group(1)
        assert len(fence) == 3 and cell.endswith(" " + fence)  # longer than the command's longest backtick run (2)
        assert r"\n## h\n<b>x" in cell and r"\x1b" in cell and r"\u202e" in cell  # shown, not acted on
        assert r"'a\|b' 'c\'" in cell and r"\\\| a\\\\\|" in cell  # backslashes before a pipe: doubled
    assert "<" not in step and "[link]" not in step and "*bold*" not in step
    assert step == r"s\|1\\n\| x \| y \|\\r\\n\[link\](javascript:x) &lt;b&gt;\*bold\*&lt;/b&gt; \\"


def test_cut_long_commands_to_80_characters(tmp_path):
    record = _record(tmp_path, [PY, "-c", "print('x')", *(["--flag-with-a-long-name"] * 10)])
    cell = _one_row_of_six_cells(_rows(render_record_table([record]))[0])[1]
    assert cell.startswith("`") and cell.endswith("…`") and len(cell) == 80 + 2


def test_short_command_is_whole(tmp_path):
    record = _record(tmp_path, ["true"])
    assert _one_row_of_six_cells(_rows(render_record_table([record]))[0])[1] == "`true`"


def test_links_relative_to_a_base_and_encoded(tmp_path):
    record = _record(tmp_path, ["true"], step_id="a step (1)")
    base = tmp_path / "reports"
    moved = record.model_copy(update={"artifacts": tuple(tmp_path / a for a in record.artifacts)})
    links = _one_row_of_six_cells(_rows(render_record_table([moved], link_base=base))[0])[5]
    assert links.startswith("[stdout](../artifacts/r1/a%20step%20%281%29/stdout.log) ")
    assert "command.txt" not in links


def test_no_artifacts_is_a_dash(tmp_path):
    record = _record(tmp_path, ["true"]).model_copy(update={"artifacts": ()})
    assert _one_row_of_six_cells(_rows(render_record_table([record]))[0])[5] == "-"


@pytest.mark.parametrize("text", ["a|b", "a\\|b", "a\\\\|b", "|", "\\", "x\\"])
def test_escaped_cells_split_the_same_in_every_renderer(text):
    row = f"| {markdown_text(text)} | {code_span(text)} | z |"
    assert len(_cells_cmark(row)) == 3 and len(_cells_micromark(row)) == 3


def test_code_span_fence_is_longer_than_any_backtick_run():
    assert code_span("plain") == "`plain`"
    assert code_span("a`b") == "`` a`b ``"
    assert code_span("``x`") == "``` ``x` ```"


# --- judge report -------------------------------------------------------------------------------


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """The working directory, which is also where judge's state directory is: tmp/judge."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    return tmp_path


def _usage_error(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and err.startswith("judge:"), err
    return err


def test_report_reads_the_default_artifacts_in_start_order(capsys, workdir):
    _record(workdir / "judge", ["true"], run_id="z-first")
    _record(workdir / "judge", ["sh", "-c", "exit 2"], run_id="a-second")
    code, out, _ = run_cli(capsys, "report")
    assert code == 0 and out.startswith("## Execution Evidence\n\n" + HEADER + "\n" + RULE + "\n")
    rows = _rows(out.split("\n\n", 1)[1])
    assert [row.split(" | ")[1] for row in rows] == ["`true`", "`sh -c 'exit 2'`"]
    assert "[stdout](judge/artifacts/z-first/step-1/stdout.log)" in rows[0]


def test_report_links_relative_to_the_out_file(capsys, workdir):
    _record(workdir / "runs", ["true"], run_id="r1")
    (workdir / "docs" / "cycle").mkdir(parents=True)
    code, out, err = run_cli(capsys, "report", "runs", "--out", "docs/cycle/report.md")
    assert (code, out) == (0, "")
    text = (workdir / "docs" / "cycle" / "report.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]+)\)", text)
    assert targets[0] == "../../runs/artifacts/r1/step-1/stdout.log"
    assert all((workdir / "docs" / "cycle" / target).is_file() for target in targets)


def test_report_links_point_beside_the_evidence_read_not_where_it_says(capsys, workdir):
    record = _record(workdir / "judge", ["true"])
    evidence = workdir / "judge" / "artifacts" / "r1" / "step-1" / "evidence.json"
    lying = {**record.to_json(), "artifacts": ["../../../../etc/stdout.log", "/tmp/elsewhere/evidence.json"]}
    evidence.chmod(0o644)
    evidence.write_text(json.dumps(lying), encoding="utf-8")
    out = run_cli(capsys, "report", str(evidence))[1]
    assert "[stdout](judge/artifacts/r1/step-1/stdout.log) [evidence](judge/artifacts/r1/step-1/evidence.json)" in out


def test_report_of_an_edited_file_shows_edited(capsys, workdir):
    record = _record(workdir / "judge", ["sh", "-c", "exit 1"])
    evidence = workdir / "judge" / "artifacts" / "r1" / "step-1" / "evidence.json"
    evidence.write_text(json.dumps({**record.to_json(), "exitCode": 0, "status": "SUCCESS"}), encoding="utf-8")
    code, out, _ = run_cli(capsys, "report")
    assert code == 0 and "| EDITED |" in out and "SUCCESS" not in out


def test_report_with_no_records_says_where_it_looked_and_how_to_make_them(capsys, workdir):
    err = _usage_error(*run_cli(capsys, "report"))
    assert "judge/artifacts" in err and "judge run" in err
    (workdir / "empty").mkdir()
    err = _usage_error(*run_cli(capsys, "report", "empty"))
    assert "empty" in err and "judge run" in err


def test_report_of_a_missing_path_is_exit_2(capsys, workdir):
    assert "no-such-dir" in _usage_error(*run_cli(capsys, "report", "no-such-dir"))


def test_report_of_a_file_that_breaks_the_schema_names_file_and_json_path(capsys, workdir):
    record = _record(workdir / "judge", ["true"])
    evidence = workdir / "judge" / "artifacts" / "r1" / "step-1" / "evidence.json"
    evidence.write_text(json.dumps({**record.to_json(), "exitCode": "0"}), encoding="utf-8")
    err = _usage_error(*run_cli(capsys, "report"))
    assert str(Path("judge/artifacts/r1/step-1/evidence.json")) in err and "$.exitCode" in err


def test_report_of_a_file_that_is_not_json(capsys, workdir):
    (workdir / "bad.json").write_text("{", encoding="utf-8")
    assert "bad.json" in _usage_error(*run_cli(capsys, "report", "bad.json"))


def test_report_refuses_a_planted_link_and_skips_unpublished_directories(capsys, workdir):
    _record(workdir / "judge", ["true"])
    unpublished = workdir / "judge" / "artifacts" / "r1" / ".s.incomplete-0a1b2c3d"
    unpublished.mkdir()
    (unpublished / "evidence.json").write_text("{half", encoding="utf-8")  # judge run still writing it
    assert run_cli(capsys, "report")[0] == 0
    planted = workdir / "judge" / "artifacts" / "r2" / "s"
    planted.mkdir(parents=True)
    os.symlink(workdir / "judge" / "artifacts" / "r1" / "step-1" / "evidence.json", planted / "evidence.json")
    assert "not a regular file" in _usage_error(*run_cli(capsys, "report"))


def test_report_does_not_enter_linked_directories(capsys, workdir):
    _record(workdir / "elsewhere", ["true"])
    (workdir / "judge" / "artifacts").mkdir(parents=True)
    os.symlink(workdir / "elsewhere", workdir / "judge" / "artifacts" / "linked")
    assert "judge run" in _usage_error(*run_cli(capsys, "report"))


def test_report_names_a_record_once_when_paths_overlap(capsys, workdir):
    _record(workdir / "judge", ["true"])
    out = run_cli(capsys, "report", "judge", "judge/artifacts/r1/step-1/evidence.json")[1]
    assert len(_rows(out.split("\n\n", 1)[1])) == 1


def test_report_to_an_unwritable_out_is_exit_2(capsys, workdir):
    _record(workdir / "judge", ["true"])
    assert "--out" in _usage_error(*run_cli(capsys, "report", "--out", "missing-dir/r.md"))


# --- validate --explain --markdown --------------------------------------------------------------


def _files(tmp_path: Path, record) -> list[str]:
    (tmp_path / "step.json").write_text(json.dumps(STEP), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(RESULT), encoding="utf-8")
    evidence = tmp_path / "artifacts" / record.run_id / record.step_id / "evidence.json"
    return ["validate", "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json"),
            "--evidence", str(evidence)]


def test_explain_markdown_shows_verdict_stages_findings_and_evidence(capsys, tmp_path):
    record = _record(tmp_path, ["sh", "-c", "echo 'permission denied (publickey)' >&2; exit 255"])
    code, out, err = run_cli(capsys, *_files(tmp_path, record), "--explain", "--markdown")
    assert code == 1 and json.loads(out)["reason"].startswith("execution_failed:")
    assert err.startswith("## Verdict: INVALID (`execution_failed`)\n\n### Stages\n\n| Stage | Status |")
    findings = err.split("### Findings", 1)[1]
    assert "- **reject** `execution_failed`: " in findings and r"(AUTH\_ERROR)" in findings
    table = err.split("## Execution Evidence\n\n", 1)[1]
    rows = _rows(table)
    assert len(rows) == 1 and r"FAILURE (AUTH\_ERROR)" in rows[0] and record.evidence_hash[:12] in rows[0]
    assert "verdict: INVALID" not in err  # the plain text is replaced, not repeated


def test_explain_markdown_of_a_valid_step(tmp_path):
    record = _record(tmp_path, ["true"])
    text = render_markdown(judge.validate(STEP, RESULT, evidence=[record]))
    assert text.startswith("## Verdict: VALID\n\n") and "\n\nNone.\n\n" in text
    assert "| step-1 | `true` | 0 | SUCCESS |" in text


def test_explain_markdown_without_records_has_no_table():
    text = render_markdown(judge.validate(STEP, RESULT))
    assert "## Verdict: VALID" in text and "Execution Evidence" not in text


def test_markdown_without_explain_is_a_usage_error(capsys, tmp_path):
    record = _record(tmp_path, ["true"])
    assert "--explain" in _usage_error(*run_cli(capsys, *_files(tmp_path, record), "--markdown"))


def test_validate_names_the_record_and_field_that_break_the_schema(capsys, tmp_path):
    record = _record(tmp_path, ["true"])
    evidence = tmp_path / "artifacts" / "r1" / "step-1" / "evidence.json"
    evidence.write_text(json.dumps({**record.to_json(), "exitCode": "0"}), encoding="utf-8")
    code, out, _ = run_cli(capsys, *_files(tmp_path, record))
    reason = json.loads(out)["reason"]
    assert code == 1 and reason.startswith("schema_invalid: the record breaks its contract at $.records[0].exitCode")
