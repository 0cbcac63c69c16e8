"""`judge validate --explain` shows each gate's result and the outcome, as text and as Markdown (issue 12 item 8)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import judge
from helpers.builders import make_case, run_cli
from judge.cli.explain import render_explanation, render_markdown

ALLOW_SRC = {"type": "changed_files_allowlist", "parameters": {"allowed": ["src/**"]}, "description": "only src"}
NEEDS_README = {"type": "file_exists", "parameters": {"path": "README.md"}}
HAND_WAVE = {"diff_summary": "Fixed everything.", "tests_passed": True}
GATE_HEADER = "| # | Gate | Source | Status | Result |"


def _verdict(gates: list[dict], evidence: dict | None = None, config: judge.JudgeConfig | None = None, **step):
    step_, result = make_case(step={"gates": gates, **step})
    if evidence is not None:
        result["evidence"] = evidence
    return judge.validate(step_, result, config=config or judge.JudgeConfig(semantic="off"))


def _block(text: str) -> list[str]:
    """The lines of the gates block: from its title to the outcome line."""
    lines = text.splitlines()
    start = lines.index("gates, in evaluation order:")
    end = next(i for i, line in enumerate(lines) if line.startswith("outcome:"))
    return lines[start + 1:end]


# --- text ---------------------------------------------------------------------------------------


def test_text_lists_each_gate_after_the_findings_in_evaluation_order():
    verdict = _verdict([NEEDS_README, ALLOW_SRC], HAND_WAVE)
    text = render_explanation(verdict)
    assert text.index("findings, in rule order") < text.index("gates, in evaluation order:") < text.index("outcome:")
    block = _block(text)
    assert len(block) == len(verdict.gates) == 3
    # the allowlist is evaluated before the file gate whatever the step's order; each keeps its index
    assert re.match(r"^  passed  #2 changed_files_allowlist - only src: all 1 changed file\(s\) match", block[0])
    assert re.match(r"^  failed  #1 file_exists: \[gate_failed\] reads the work tree, and no workspace", block[1])
    assert block[2].startswith("  skipped #3 tests_passed (from the claim) - the evidence claims tests_passed: true: ")


def test_text_names_the_source_only_when_it_is_not_the_step(tmp_path):
    (tmp_path / "src-only.json").write_text(json.dumps({"gates": [ALLOW_SRC]}), encoding="utf-8")
    config = judge.JudgeConfig(semantic="off", templates_dir=str(tmp_path))
    verdict = _verdict([{"type": "diff_max_lines", "parameters": {"max": 500}}], config=config, template="src-only")
    block = _block(render_explanation(verdict))
    assert [line.split(":")[0] for line in block] == [
        "  passed  #1 changed_files_allowlist (from the template) - only src",
        "  passed  #2 diff_max_lines",
    ]


def test_outcome_line_of_a_rejection_lists_the_missing_fields():
    text = render_explanation(_verdict([ALLOW_SRC], HAND_WAVE))
    assert text.splitlines()[-1] == ("outcome: accepted false, nextAction retry, "
                                     "missingFields: tests_run, commands_run")


def test_outcome_line_of_an_accepted_step():
    verdict = _verdict([ALLOW_SRC])
    assert verdict.valid
    lines = render_explanation(verdict).splitlines()
    assert "outcome: accepted true, nextAction advance, missingFields: none" in lines
    assert _block("\n".join(lines))[0].startswith("  passed  #1 changed_files_allowlist")


def test_human_approval_pending_says_pause_for_human(tmp_path):
    config = judge.JudgeConfig(semantic="off", approvals=str(tmp_path / "approvals.jsonl"))
    text = render_explanation(_verdict([{"type": "human_approval"}], config=config))
    block = _block(text)
    assert block[0].startswith("  pending #1 human_approval: [human_approval_pending] waiting for a person")
    assert "nextAction pause_for_human" in text.splitlines()[-1]


def test_a_step_without_gates_has_no_gates_block_but_an_outcome():
    step, result = make_case()
    text = render_explanation(judge.validate(step, result, config=judge.JudgeConfig(semantic="off")))
    assert "gates, in evaluation order:" not in text
    assert "outcome: accepted true, nextAction advance, missingFields: none" in text.splitlines()


def test_each_gate_stays_on_one_line_whatever_its_description_holds():
    hostile = {**ALLOW_SRC, "description": "line one\nline two\x1b[2J\r"}
    block = _block(render_explanation(_verdict([hostile, NEEDS_README])))
    assert len(block) == 2
    assert "line one\\nline two\\x1b[2J\\r" in block[0] and "\x1b" not in block[0]


# --- Markdown -----------------------------------------------------------------------------------


def _cells(row: str) -> list[str]:
    """Cells as cmark-gfm and markdown-it split a row: a pipe after a backslash is content."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip().removeprefix("|").removesuffix("|"))]


def _gate_rows(markdown: str) -> list[list[str]]:
    lines = markdown.splitlines()
    start = lines.index(GATE_HEADER)
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append(_cells(line))
    return rows


def test_markdown_has_a_gates_table_and_the_outcome():
    verdict = _verdict([NEEDS_README, ALLOW_SRC], HAND_WAVE)
    text = render_markdown(verdict)
    assert text.index("### Findings") < text.index("### Gates (in evaluation order)") < text.index("### Outcome")
    rows = _gate_rows(text)
    assert [row[:4] for row in rows] == [
        ["2", r"`changed_files_allowlist` — only src", "step", "passed"],
        ["1", "`file_exists`", "step", "failed"],
        ["3", r"`tests_passed` — the evidence claims tests\_passed: true", "claim", "skipped"],
    ]
    assert rows[1][4].startswith("`gate_failed`: reads the work tree")
    outcome = text.split("### Outcome", 1)[1]
    assert "- accepted: **false**" in outcome and "- next action: `retry`" in outcome
    assert "- missing fields: `tests_run`, `commands_run`" in outcome


def test_markdown_cells_hold_pipes_and_html_of_descriptions_and_paths():
    hostile = {**ALLOW_SRC, "description": "a | b <script>alert(1)</script>\n| x |"}
    forbid = {"type": "forbid_paths", "parameters": {"paths": ["src/**"]}, "description": "`no` src"}
    text = render_markdown(_verdict([hostile, forbid]))
    rows = _gate_rows(text)
    assert len(rows) == 2 and all(len(row) == 5 for row in rows)
    assert "<script>" not in text and "&lt;script&gt;" in rows[0][1]
    assert rows[1][3] == "failed" and rows[1][4].startswith("`gate_failed`: src/app.py matches")


def test_markdown_without_gates_has_no_gates_table():
    step, result = make_case()
    text = render_markdown(judge.validate(step, result, config=judge.JudgeConfig(semantic="off")))
    assert GATE_HEADER not in text and "### Outcome" in text and "- next action: `advance`" in text


# --- the CLI ------------------------------------------------------------------------------------


@pytest.mark.parametrize("markdown", [False, True])
def test_validate_explain_prints_the_gates_and_keeps_stdout_strict(capsys, tmp_path: Path, markdown: bool):
    step, result = make_case(step={"gates": [ALLOW_SRC, NEEDS_README]})
    (tmp_path / "step.json").write_text(json.dumps(step), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    argv = ["validate", "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json"),
            "--semantic", "off", "--explain"] + (["--markdown"] if markdown else [])
    code, out, err = run_cli(capsys, *argv)
    assert code == 1
    assert set(json.loads(out)) == {"valid", "reason"}
    if markdown:
        assert [row[3] for row in _gate_rows(err)] == ["passed", "failed"]
    else:
        assert [line.split()[0] for line in _block(err)] == ["passed", "failed"]
