"""judge.instructions and `judge instructions`: what an executor is told to return for a step, and how it is judged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from helpers.builders import run_cli
from judge.config import JudgeConfig
from judge.contract.gates import PolicyLayer
from judge.contract.schema import load_schema
from judge.errors import ContractViolation
from judge.instructions import GATE_CHECKS, render_instructions
from judge.rule_ids import CATALOG, ids

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
APPLY = {"id": "add-retry", "description": "Add a retry to fetch_user() in src/client.py", "mode": "apply",
         "allowedFiles": ["src/**"], "excludedPaths": ["vendor/**"]}
FIX = {"id": "fix-retry", "description": "Fix the retry's off-by-one", "mode": "fix_regression",
       "applyFiles": ["src/client.py", "tests/test_client.py"]}
# Rejections the executor can neither cause nor fix (the step's policies, judge itself): not in its instructions.
NOT_THE_EXECUTORS = {"policy_contradiction", "policy_warning", "workspace_unreadable", "llm_unavailable", "judge_error"}
MODE_ONLY = {"fix_regression": {"scope_fix_regression", "reversal", "partial_reversal", "overreach"},
             "apply": {"superficial_only", "step_not_implemented"}}


def section(text: str, title: str) -> str:
    """The body of the `## title` section."""
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def listed_rules(text: str) -> list[str]:
    """The rule ids the "How it is judged" section names: its `- `id`` lines and its signals line."""
    body = section(text, "How it is judged")
    lines = re.findall(r"^- `([a-z_]+)`", body, re.M)
    signals = re.search(r"^Never a rejection alone.*$", body, re.M)
    return lines + (re.findall(r"`([a-z_]+)`", signals.group(0)) if signals else [])


@pytest.mark.parametrize("step", [None, APPLY, FIX, json.loads((EXAMPLES / "gates" / "step.json").read_text())],
                         ids=["generic", "apply", "fix_regression", "gates"])
def test_every_rule_id_listed_exists(step: dict | None) -> None:
    listed = listed_rules(render_instructions(step))
    assert listed and set(listed) <= ids()


def test_generic_instructions_list_every_rule_an_executor_can_break() -> None:
    # derived, not copied: a rule added to the catalogue appears here without touching judge.instructions
    expected = {info.id for info in CATALOG} - NOT_THE_EXECUTORS
    assert set(listed_rules(render_instructions())) == expected


def test_fix_regression_and_apply_steps_get_different_rules() -> None:
    fix, apply = set(listed_rules(render_instructions(FIX))), set(listed_rules(render_instructions(APPLY)))
    assert MODE_ONLY["fix_regression"] <= fix and not MODE_ONLY["apply"] & fix
    assert MODE_ONLY["apply"] <= apply and not MODE_ONLY["fix_regression"] & apply
    assert fix - MODE_ONLY["fix_regression"] == apply - MODE_ONLY["apply"]


def test_fix_regression_step_names_its_apply_files_and_mode() -> None:
    text = render_instructions(FIX)
    step = section(text, "The step")
    assert "`src/client.py`, `tests/test_client.py`" in step and "do not undo the apply step" in step
    assert '`mode`*: `"fix_regression"`' in section(text, "What to return")
    assert '`mode: "fix_regression"`' in section(text, "When you could not do it")


def test_rule_text_is_the_catalogues() -> None:
    text = render_instructions(APPLY)
    for info in CATALOG:
        if info.id in ("undeclared_file", "scope_outside_allowed", "changed_but_unclaimed"):
            when = re.sub(r"^\*\([^)]*\)\*\s*", "", info.when)
            assert f"- `{info.id}`: {when}\n" in text
    # a long catalogue line is cut after a whole clause, never inside a code span
    line = next(li for li in text.splitlines() if li.startswith("- `unsafe_path`"))
    whole = next(info.when for info in CATALOG if info.id == "unsafe_path")
    assert line.endswith(" …") and whole.startswith(line.removeprefix("- `unsafe_path`: ").removesuffix(" …"))
    assert all(li.count("`") % 2 == 0 for li in section(text, "How it is judged").splitlines())


def test_a_long_text_is_cut_after_a_whole_clause() -> None:
    from judge.instructions import _clipped

    assert _clipped("one, two, three", limit=9) == "one, two …"
    # no clause ends within the limit: cut after the first one there is, never inside the parenthesis
    assert _clipped("a long (first, clause) here; then more", limit=5) == "a long (first, clause) here …"
    assert _clipped("no clause ends in this text at all", limit=5) == "no clause ends in this text at all"


def test_rules_that_need_a_workspace_are_said_to() -> None:
    body = section(render_instructions(APPLY), "How it is judged")
    always, workspace = body.split("### Always\n", 1)[1].split("\n### ", 1)
    assert "`changed_but_unclaimed`" in workspace and "`no_work_evidence`" in workspace
    assert "`changed_but_unclaimed`" not in always and "`undeclared_file`" in always
    assert workspace.startswith("When judge has the repository")


def test_step_scope_and_real_id_in_the_evidence_path() -> None:
    text = render_instructions({**APPLY, "id": "deploy-staging", "expectsNoChanges": True})
    assert "`src/**`" in section(text, "The step") and "`vendor/**`" in section(text, "The step")
    assert "`expectsNoChanges`" in section(text, "The step")
    evidence = section(text, "Work evidence")
    assert "Path: `.orchestrator/evidence/deploy-staging.json`" in evidence
    example = json.loads(evidence.split("```json\n", 1)[1].split("```", 1)[0])
    schema = load_schema("evidence-file")
    assert example["nodeId"] == "deploy-staging" and set(schema["required"]) <= set(example)


def test_result_fields_are_the_schemas() -> None:
    schema = load_schema("result")
    body = section(render_instructions(APPLY), "What to return")
    fields = re.findall(r"^- `(\w+)`(\*?):", body, re.M)
    assert [name for name, _ in fields] == list(schema["properties"])
    assert {name for name, mark in fields if mark} == set(schema["required"])


def test_a_step_without_gates_is_told_to_leave_evidence_out() -> None:
    gates = section(render_instructions(APPLY), "Gates")
    assert "has none" in gates and not re.search(r"^\d+\. ", gates, re.M)
    assert "The gates and the evidence document" not in render_instructions(APPLY)


def test_gates_of_step_and_template_with_evidence_and_policies(tmp_path: Path) -> None:
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "python-change.json").write_text(json.dumps({
        "gates": [{"type": "forbid_paths", "parameters": {"paths": ["vendor/**"]}}],
        "evidenceSchema": {"required": ["changed_files"], "criteriaChecklist": {"c1": "fetch_user retries"}},
        "policies": {"require_diff_summary": True}}), encoding="utf-8")
    step = {**APPLY, "template": "python-change",
            "gates": [{"type": "diff_max_lines", "parameters": {"max": 50}, "description": "a small change"},
                      {"type": "human_approval"}],
            "evidenceSchema": {"criteriaChecklist": {"c2": "a test covers it"}}}
    text = render_instructions(step, config=JudgeConfig(templates_dir=str(templates),
                                                        policies=PolicyLayer(evidence_schema_mode="strict")))
    gates = section(text, "Gates")
    numbered = re.findall(r"^(\d+)\. `(\w+)`", gates, re.M)
    # the template's first, then the step's, then what strict evidence mode implies
    assert numbered == [("1", "forbid_paths"), ("2", "diff_max_lines"), ("3", "human_approval"),
                        ("4", "criteria_checklist_complete")]
    for kind in ("forbid_paths", "diff_max_lines", "human_approval"):
        assert GATE_CHECKS[kind] in gates
    assert '`{"paths": ["vendor/**"]}` (from the template)' in gates and "— a small change" in gates
    required = re.search(r"^Required \(present.*: (.*)$", gates, re.M).group(1)
    assert re.findall(r"`(\w+)`", required) == ["changed_files", "diff_summary", "commands_run"]
    assert "- `c1`: fetch_user retries" in gates and "- `c2`: a test covers it" in gates
    assert "- `require_diff_summary`: `true` (template)" in gates
    assert '- `evidence_schema_mode`: `"strict"` (judge.toml)' in gates
    assert "### The gates and the evidence document (below)" in text


def test_policies_that_require_tests_add_the_tests_gate() -> None:
    text = render_instructions(APPLY, config=JudgeConfig(policy_overrides=PolicyLayer(require_tests_evidence=True)))
    gates = section(text, "Gates")
    assert re.search(r"^1\. `tests_passed` \(from the policy\)", gates, re.M)
    assert "`tests_run`" in re.search(r"^Required .*$", gates, re.M).group(0)
    assert "- `require_tests_evidence`: `true` (command line)" in gates


def test_a_step_that_breaks_its_schema_names_the_json_path() -> None:
    with pytest.raises(ContractViolation) as caught:
        render_instructions({"id": "x", "description": "d", "mode": "fix_regression"})
    assert caught.value.path == "$.step.applyFiles"


def test_instructions_stay_short_enough_for_a_prompt() -> None:
    gated = json.loads((EXAMPLES / "gates" / "step.json").read_text())
    sizes = {name: len(render_instructions(step)) for name, step in (("generic", None), ("apply", APPLY),
                                                                      ("gates", gated))}
    assert max(sizes.values()) < 14_000, sizes  # ~3,500 tokens: a system prompt addendum, not a manual


def test_cli_prints_them_for_a_step(capsys) -> None:
    step_file = EXAMPLES / "step.json"
    code, out, err = run_cli(capsys, "instructions", "--step", str(step_file))
    assert (code, err) == (0, "")
    assert out == render_instructions(json.loads(step_file.read_text()))
    assert "Path: `.orchestrator/evidence/step-3.json`" in out


def test_cli_without_a_step_prints_the_generic_ones(capsys) -> None:
    code, out, _ = run_cli(capsys, "instructions")
    assert code == 0 and out == render_instructions() and out.startswith("# Instructions for the executor\n")


def test_cli_reads_templates_from_the_flag(tmp_path: Path, capsys) -> None:
    (tmp_path / "small.json").write_text(json.dumps({"gates": [{"type": "diff_max_lines", "parameters": {"max": 9}}]}))
    step = tmp_path / "step.json"
    step.write_text(json.dumps({**APPLY, "template": "small"}))
    code, out, _ = run_cli(capsys, "instructions", "--step", str(step), "--templates", str(tmp_path))
    assert code == 0 and '1. `diff_max_lines` `{"max": 9}` (from the template)' in out
    code, out, err = run_cli(capsys, "instructions", "--step", str(step))  # default directory: no such template
    assert code == 2 and out == "" and "$.step.template" in err and "no template 'small'" in err


def test_cli_step_that_breaks_its_schema_is_one_line_exit_2(tmp_path: Path, capsys) -> None:
    step = tmp_path / "step.json"
    step.write_text(json.dumps({**FIX, "applyFiles": None}))
    code, out, err = run_cli(capsys, "instructions", "--step", str(step))
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"judge: --step {step}: breaks schemas/step.schema.json at "
                                                   "$.step.applyFiles")
