"""The 17 gates of seed 004 on real repositories: each passes, fails with a reason that names the gate and says
what to do, and refuses bad parameters as schema_invalid at $.step.gates[i]; the evaluation order; step templates."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

import judge
from helpers.builders import text_diff
from helpers.gate_cases import (APP, APP_FIXED, STAND_IN_TESTS, STEP_ID, TEST_APP_MORE, Project, evidence, gate, gate_result,
                        project, py, record, rules, shell_on, step)
from helpers.scenario_repos import git, git_env  # noqa: F401  (git_env: autouse fixture)


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    """The project with the step's honest change in the work tree: src/app.py and tests/test_app.py edited."""
    return project(tmp_path).change()


def passes(verdict: judge.Verdict, kind: str) -> None:
    assert verdict.valid, verdict.reason
    assert gate_result(verdict, kind).status == "passed"
    assert verdict.outcome.next_action == "advance"


def fails(verdict: judge.Verdict, kind: str, *says: str, rule: str = "gate_failed", index: int = 1) -> None:
    """Rejected by gate ``kind`` (#``index``): the reason names the gate and holds each of ``says``."""
    assert not verdict.valid and verdict.contract()["valid"] is False
    assert verdict.rule == rule, verdict.reason
    assert f"gate #{index} `{kind}`" in verdict.reason
    for text in says:
        assert text in verdict.reason, verdict.reason
    result = gate_result(verdict, kind)
    assert (result.status, result.rule) == ("failed", rule)


def changed_lines(patch: str) -> int:
    return sum(1 for line in patch.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


# --- command gates (1-3) -------------------------------------------------------------------------

OK = py("print('12 passed in 0.1s')")
FAILING = py("import sys; print('1 failed'); sys.exit(3)")


def run_gate(proj: Project, kind: str, cmd: str, workspace: bool = True, **parameters):
    """A step with one command gate, shell gates on for every command, and the command listed in commands_run."""
    s = step(gate(kind, "the tests", command=cmd, **parameters), policies=shell_on())
    return proj.validate(s, proj.result(evidence(commands=[cmd])), workspace=workspace)


def test_command_exit_0_passes_when_the_command_exits_0(proj):
    verdict = run_gate(proj, "command_exit_0", OK)
    passes(verdict, "command_exit_0")
    assert [r.stdout for r in verdict.execution_evidence] == ["12 passed in 0.1s\n"]


def test_command_exit_0_fails_when_the_command_exits_non_zero(proj):
    verdict = run_gate(proj, "command_exit_0", FAILING)
    fails(verdict, "command_exit_0", "(the tests)", "exited 3", "EXECUTION_FAILURE", "1 failed", "fix what it reports")
    assert verdict.outcome.next_action == "retry"
    assert [r.exit_code for r in verdict.execution_evidence] == [3]


def test_command_output_contains_passes_on_stdout(proj):
    passes(run_gate(proj, "command_output_contains", OK, contains="12 passed"), "command_output_contains")


def test_command_output_contains_fails_when_stdout_lacks_it(proj):
    verdict = run_gate(proj, "command_output_contains", OK, contains="0 failed")
    fails(verdict, "command_output_contains", "does not contain '0 failed'", "make the step produce it")


def test_command_output_contains_reads_stdout_not_stderr(proj):
    cmd = py("import sys; print('12 passed', file=sys.stderr)")
    fails(run_gate(proj, "command_output_contains", cmd, contains="12 passed"), "command_output_contains")


def test_command_output_contains_fails_when_the_command_fails_even_with_the_text(proj):
    fails(run_gate(proj, "command_output_contains", FAILING, contains="1 failed"), "command_output_contains",
          "exited 3")


def test_command_output_regex_passes_when_stdout_matches(proj):
    passes(run_gate(proj, "command_output_regex", OK, pattern=r"^\d+ passed in [\d.]+s$"), "command_output_regex")


def test_command_output_regex_fails_when_stdout_does_not_match(proj):
    verdict = run_gate(proj, "command_output_regex", OK, pattern=r"^\d+ failed")
    fails(verdict, "command_output_regex", r"does not match /^\d+ failed/", "make the step produce it")


@pytest.mark.parametrize("kind, parameters", [
    ("command_exit_0", {}), ("command_output_contains", {"contains": "passed"}),
    ("command_output_regex", {"pattern": "passed"}),
])
def test_command_gates_fail_closed_without_a_workspace(proj, kind, parameters):
    verdict = run_gate(proj, kind, OK, workspace=False, **parameters)
    fails(verdict, kind, "can only run in the workspace", "--repo", "judge run --step step-1", rule="unverifiable_claim")
    assert verdict.execution_evidence == ()
    assert verdict.outcome.next_action == "diagnose"


# --- file-system gates (4, 5) --------------------------------------------------------------------


def with_link_and_directory(proj: Project) -> Project:
    """The base also holds docs/ (a directory) and link.md (a symlink to README.md)."""
    (proj.root / "docs").mkdir()
    (proj.root / "docs" / "guide.md").write_text("guide\n")
    os.symlink("README.md", proj.root / "link.md")
    git(proj.root, "add", "docs", "link.md")
    git(proj.root, "commit", "-q", "-m", "docs and a link")
    proj.repo.base = proj.repo.head()
    return proj.change()


def test_file_exists_passes_for_a_regular_file(proj):
    passes(proj.validate(step(gate("file_exists", path="tests/test_app.py"))), "file_exists")


def test_file_exists_fails_for_a_missing_file(proj):
    verdict = proj.validate(step(gate("file_exists", "the changelog", path="CHANGELOG.md")))
    fails(verdict, "file_exists", "(the changelog)", "CHANGELOG.md does not exist", "must create it")


@pytest.mark.parametrize("path, kind", [("link.md", "symlink"), ("docs", "directory")])
def test_file_exists_fails_for_a_symlink_or_a_directory(tmp_path, path, kind):
    proj = with_link_and_directory(project(tmp_path))
    fails(proj.validate(step(gate("file_exists", path=path))), "file_exists", f"is a {kind}, not a regular file")


def test_file_exists_through_a_symlinked_directory_fails(tmp_path):
    proj = project(tmp_path)
    os.symlink("src", proj.root / "alias")
    git(proj.root, "add", "alias")
    git(proj.root, "commit", "-q", "-m", "alias")
    proj.repo.base = proj.repo.head()
    proj.change()
    assert not gate_result(proj.validate(step(gate("file_exists", path="alias/app.py"))), "file_exists").status \
        == "passed"


def test_file_not_exists_passes_when_nothing_is_there(proj):
    passes(proj.validate(step(gate("file_not_exists", path="build/debug.log"))), "file_not_exists")


@pytest.mark.parametrize("path", ["README.md", "src"])
def test_file_not_exists_fails_when_something_is_there(proj, path):
    fails(proj.validate(step(gate("file_not_exists", path=path))), "file_not_exists",
          f"{path} exists in the work tree", "must not leave it there")


@pytest.mark.parametrize("kind, parameters", [
    ("file_exists", {"path": "README.md"}), ("file_not_exists", {"path": "nothing.txt"}),
    ("json_schema_valid", {"path": "config/settings.json", "schema": {"type": "object"}}),
    ("no_uncommitted_changes", {}), ("patch_applies_cleanly", {"patch": text_diff("README.md", "# app\n", "# x\n")}),
])
def test_work_tree_gates_fail_closed_without_a_workspace(proj, kind, parameters):
    verdict = proj.validate(step(gate(kind, **parameters)), workspace=False)
    fails(verdict, kind, "no workspace was given", "--repo PATH --base SHA")
    assert verdict.outcome.next_action == "diagnose"  # the executor cannot fix it: the caller must give a workspace


# --- change-control gates (6-10) -----------------------------------------------------------------


def test_changed_files_allowlist_passes_when_every_file_is_allowed(proj):
    passes(proj.validate(step(gate("changed_files_allowlist", allowed=["src/**", "tests/**"]))),
           "changed_files_allowlist")


def test_changed_files_allowlist_fails_for_a_file_outside(proj):
    verdict = proj.validate(step(gate("changed_files_allowlist", allowed=["src/**"])))
    fails(verdict, "changed_files_allowlist", "tests/test_app.py is outside the allowed files ['src/**']", "revert it")


def test_changed_files_come_from_git_not_from_the_agents_list(proj):
    # The agent lists only the allowed file; git shows the other one too. The gate reads git.
    lie = evidence(changed=["src/app.py"])
    verdict = proj.validate(step(gate("changed_files_allowlist", allowed=["src/**"])), proj.result(lie))
    assert gate_result(verdict, "changed_files_allowlist").status == "failed"
    assert "tests/test_app.py" in gate_result(verdict, "changed_files_allowlist").message
    assert rules(verdict)[:2] == ["evidence_mismatch", "gate_failed"]
    assert not verdict.valid


def test_a_forbidden_file_the_agent_only_claims_does_not_fail_forbid_paths(proj):
    claimed = evidence(changed=["src/app.py", "tests/test_app.py", "vendor/lib.py"])
    verdict = proj.validate(step(gate("forbid_paths", paths=["vendor/**"])), proj.result(claimed))
    assert gate_result(verdict, "forbid_paths").status == "passed"
    assert verdict.rule == "evidence_mismatch" and "vendor/lib.py" in verdict.reason


def test_changed_files_without_a_workspace_come_from_the_patch(proj):
    verdict = proj.validate(step(gate("changed_files_allowlist", allowed=["src/**"])), workspace=False)
    fails(verdict, "changed_files_allowlist", "tests/test_app.py")


def test_changed_files_minimum_passes_with_enough_files(proj):
    s = step(gate("changed_files_minimum", paths=["src/**", "tests/**"], min_count=2))
    passes(proj.validate(s), "changed_files_minimum")


@pytest.mark.parametrize("parameters, says", [
    ({"paths": ["src/**", "tests/**"], "min_count": 3}, "2 changed file(s) match ['src/**', 'tests/**'], at least 3"),
    ({"paths": ["docs/**"]}, "0 changed file(s) match ['docs/**'], at least 1"),
])
def test_changed_files_minimum_fails_with_too_few(proj, parameters, says):
    fails(proj.validate(step(gate("changed_files_minimum", **parameters))), "changed_files_minimum", says,
          "change the files the step is about")


def test_forbid_paths_passes_when_no_forbidden_file_changed(proj):
    passes(proj.validate(step(gate("forbid_paths", paths=["vendor/**", "*.lock"]))), "forbid_paths")


def test_forbid_paths_fails_when_a_forbidden_file_changed(proj):
    verdict = proj.validate(step(gate("forbid_paths", "keep the tests", paths=["tests/**"])))
    fails(verdict, "forbid_paths", "(keep the tests)", "tests/test_app.py matches the forbidden paths",
          "revert the change there")


def test_diff_max_lines_limit_is_inclusive(proj):
    lines = changed_lines(proj.patch())
    passes(proj.validate(step(gate("diff_max_lines", max=lines))), "diff_max_lines")
    fails(proj.validate(step(gate("diff_max_lines", max=lines - 1))), "diff_max_lines",
          f"adds and removes {lines} lines, more than the maximum of {lines - 1}", "make a smaller change")


def test_diff_min_lines_limit_is_inclusive(proj):
    lines = changed_lines(proj.patch())
    passes(proj.validate(step(gate("diff_min_lines", min=lines))), "diff_min_lines")
    fails(proj.validate(step(gate("diff_min_lines", min=lines + 1))), "diff_min_lines",
          f"adds and removes {lines} lines, fewer than the minimum of {lines + 1}", "the step's change is missing")


def test_diff_min_lines_default_fails_an_empty_change(tmp_path):
    proj = project(tmp_path)
    s = step(gate("diff_min_lines"), expectsNoChanges=True)
    r = {"mode": "apply", "success": True, "summary": "nothing needed changing", "filesWritten": [],
         "filesTouched": []}
    fails(proj.validate(s, r), "diff_min_lines", "0 lines, fewer than the minimum of 1")


# --- json_schema_valid (11) ----------------------------------------------------------------------

SETTINGS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {"port": {"type": "integer", "minimum": 1, "maximum": 65535}},
    "type": "object",
    "required": ["name", "port"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
        "port": {"$ref": "#/$defs/port"},
        "mode": {"enum": ["dev", "prod"]},
    },
}


def schema_gate() -> dict:
    return gate("json_schema_valid", "settings are sane", path="config/settings.json", schema=SETTINGS_SCHEMA)


def test_json_schema_valid_passes_for_a_matching_file(proj):
    proj.change({"config/settings.json": '{"name": "app", "port": 8443, "mode": "prod"}\n'})
    passes(proj.validate(step(schema_gate())), "json_schema_valid")


@pytest.mark.parametrize("document, where", [
    ({"name": "App!", "port": 80}, "$.name"),  # pattern
    ({"name": "app", "port": 80, "mode": "staging"}, "$.mode"),  # enum
    ({"name": "app", "port": 70000}, "$.port"),  # $ref into $defs, maximum
    ({"name": "app", "port": 80, "debug": True}, "$"),  # additionalProperties
    ({"name": "app"}, "$"),  # required
], ids=["pattern", "enum", "defs-ref", "additional-properties", "required"])
def test_json_schema_valid_uses_the_full_draft_2020_12(proj, document, where):
    proj.change({"config/settings.json": json.dumps(document)})
    fails(proj.validate(step(schema_gate())), "json_schema_valid",
          f"config/settings.json breaks the gate's JSON Schema at {where}:", "make the file match it")


def test_json_schema_valid_fails_for_a_file_that_is_not_json(proj):
    proj.change({"config/settings.json": "name = 'app'\n"})
    fails(proj.validate(step(schema_gate())), "json_schema_valid", "is not valid JSON", "write valid JSON there")


def test_json_schema_valid_fails_for_a_missing_file(proj):
    (proj.root / "config" / "settings.json").unlink()
    fails(proj.validate(step(schema_gate())), "json_schema_valid", "does not exist", "must be a JSON file")


def test_json_schema_valid_never_fetches_a_remote_ref(proj, monkeypatch):
    import socket

    tried = []
    monkeypatch.setattr(socket.socket, "connect", lambda sock, address: tried.append(address))
    remote = {"properties": {"port": {"$ref": "http://127.0.0.1:9/port.schema.json"}}}
    verdict = proj.validate(step(gate("json_schema_valid", path="config/settings.json", schema=remote)))
    fails(verdict, "json_schema_valid", "cannot resolve", "never fetches")
    assert tried == [] and verdict.outcome.next_action == "diagnose"


def test_json_schema_valid_may_refer_to_the_draft_2020_12_metaschema(proj):
    is_a_schema = {"$ref": "https://json-schema.org/draft/2020-12/schema"}
    s = step(gate("json_schema_valid", path="config/schema.json", schema=is_a_schema))
    proj.change({"config/schema.json": json.dumps({"type": "object", "required": ["name"]}) + "\n"})
    passes(proj.validate(s), "json_schema_valid")
    proj.change({"config/schema.json": json.dumps({"type": "nope"}) + "\n"})
    fails(proj.validate(s), "json_schema_valid", "breaks the gate's JSON Schema at $.type")


# --- criteria_checklist_complete (12) ------------------------------------------------------------

CRITERIA = {"c1": "port() rejects 0", "c2": "a test covers the range"}


def checklist_case(proj: Project, checklist: dict | None, criteria: dict | None = CRITERIA):
    s = step(gate("criteria_checklist_complete"), **({"evidenceSchema": {"criteriaChecklist": criteria}}
                                                    if criteria else {}))
    doc = evidence(**({"criteria_checklist": checklist} if checklist is not None else {}))
    return proj.validate(s, proj.result(doc))


def test_criteria_checklist_complete_passes_when_every_criterion_is_true(proj):
    passes(checklist_case(proj, {"c1": True, "c2": True}), "criteria_checklist_complete")


@pytest.mark.parametrize("checklist, says", [
    ({"c1": True, "c2": False}, "c2 (a test covers the range): false"),
    ({"c1": True}, "c2 (a test covers the range): missing"),
    (None, "c1 (port() rejects 0): missing"),
])
def test_criteria_checklist_complete_fails_for_an_open_criterion(proj, checklist, says):
    fails(checklist_case(proj, checklist), "criteria_checklist_complete", says, "mark it true")


def test_criteria_checklist_complete_without_any_criteria_fails(proj):
    fails(checklist_case(proj, {}, criteria=None), "criteria_checklist_complete", "defines no criteria")


# --- git hygiene gates (13, 14) ------------------------------------------------------------------


def test_patch_applies_cleanly_without_a_patch_parameter_applies_the_executors_patch_to_base(proj):
    passes(proj.validate(step(gate("patch_applies_cleanly"))), "patch_applies_cleanly")
    assert "applies to the base commit" in gate_result(proj.validate(step(gate("patch_applies_cleanly"))),
                                                       "patch_applies_cleanly").message


def test_patch_applies_cleanly_without_a_patch_fails(tmp_path):
    proj = project(tmp_path)
    s = step(gate("patch_applies_cleanly"), expectsNoChanges=True)
    r = {"mode": "apply", "success": True, "summary": "nothing needed changing", "filesWritten": [],
         "filesTouched": []}
    fails(proj.validate(s, r), "patch_applies_cleanly", "carries no patch", "return the change as a unified diff")


def test_patch_applies_cleanly_with_a_patch_that_applies_to_the_work_tree(proj):
    follow_up = text_diff("src/app.py", APP_FIXED, APP_FIXED.replace("raise ValueError(value)", "raise ValueError(port)"))
    passes(proj.validate(step(gate("patch_applies_cleanly", patch=follow_up))), "patch_applies_cleanly")


def test_patch_applies_cleanly_with_a_patch_that_conflicts_with_the_work_tree(proj):
    stale = text_diff("src/app.py", APP, APP.replace("int(value)", "int(value.strip())"))
    fails(proj.validate(step(gate("patch_applies_cleanly", patch=stale))), "patch_applies_cleanly",
          "the gate's patch does not apply to the work tree", "leave the files it changes")


def test_patch_applies_cleanly_with_a_patch_parameter_that_is_no_patch(proj):
    fails(proj.validate(step(gate("patch_applies_cleanly", patch="this is not a diff\n"))), "patch_applies_cleanly",
          "does not apply")


def test_no_uncommitted_changes_passes_when_the_executor_committed(proj):
    proj.repo.commit("the step's work")
    passes(proj.validate(step(gate("no_uncommitted_changes"))), "no_uncommitted_changes")


def test_no_uncommitted_changes_leaves_out_only_the_steps_own_evidence_file(proj):
    proj.repo.commit("the step's work")
    own = proj.root / ".orchestrator" / "evidence" / f"{STEP_ID}.json"
    own.parent.mkdir(parents=True)
    own.write_text(json.dumps({"stepId": STEP_ID, "type": "analysis", "summary": "x"}) + "\n", encoding="utf-8")
    passes(proj.validate(step(gate("no_uncommitted_changes"))), "no_uncommitted_changes")
    (own.parent / "other.py").write_text("print('left over')\n", encoding="utf-8")  # claimed, so the rules pass
    fails(proj.validate(step(gate("no_uncommitted_changes"))), "no_uncommitted_changes",
          "git status is not clean: .orchestrator/evidence/other.py")


@pytest.mark.parametrize("state", ["staged", "unstaged", "untracked"])
def test_no_uncommitted_changes_fails_for_staged_unstaged_and_untracked(tmp_path, state):
    proj = project(tmp_path).change()
    proj.repo.commit("the step's work")
    # files the commit did not touch: an edit on top of a committed one is head_not_judged before any gate
    if state == "staged":
        proj.change({"README.md": "# app, staged\n"})
        proj.repo.add("README.md")
        left = "README.md"
    elif state == "unstaged":
        proj.change({"config/settings.json": '{"name": "app", "port": 8081}\n'})
        left = "config/settings.json"
    else:
        proj.change({"notes.txt": "left over\n"})
        left = "notes.txt"
    fails(proj.validate(step(gate("no_uncommitted_changes"))), "no_uncommitted_changes",
          f"git status is not clean: {left}", "commit the work")


# --- tests_passed, lint_passed (15, 16), human_approval (17): here only pass and fail ---------------


def test_tests_passed_passes_with_a_verified_record_of_the_claimed_command(proj, tmp_path):
    made = record(tmp_path, shlex.split(OK))
    doc = evidence(commands=[OK], tests=[OK], passed=True)
    passes(proj.validate(step(gate("tests_passed"), policies=STAND_IN_TESTS), proj.result(doc), records=(made,)),
           "tests_passed")


def test_tests_passed_fails_when_the_evidence_says_false(proj):
    verdict = proj.validate(step(gate("tests_passed")), proj.result(evidence(commands=[OK], tests=[OK], passed=False)))
    assert (verdict.valid, verdict.rule) == (False, "evidence_incomplete")
    assert verdict.outcome.missing_fields == ("tests_passed",)
    assert gate_result(verdict, "tests_passed").status == "skipped"


def test_lint_passed_passes_with_a_verified_record(proj, tmp_path):
    lint = py("print('All checks passed!')")
    made = record(tmp_path, shlex.split(lint))
    doc = evidence(commands=[lint], lint_run=[lint], lint_passed=True)
    passes(proj.validate(step(gate("lint_passed")), proj.result(doc), records=(made,)), "lint_passed")


@pytest.mark.parametrize("doc, says", [
    ({"lint_passed": False}, "the evidence says lint_passed: false"),
    ({"lint_passed": None}, "the evidence says lint_passed: null"),
    ({"lint_passed": True}, "lint_passed is true but lint_run names no command"),
])
def test_lint_passed_fails_without_a_backed_lint_claim(proj, doc, says):
    verdict = proj.validate(step(gate("lint_passed")), proj.result(doc))
    fails(verdict, "lint_passed", says, "run the linter" if "says" in says else "list the exact lint commands",
          rule="gate_failed" if "says" in says else "unverifiable_claim")


def test_lint_passed_without_an_evidence_document_is_evidence_incomplete(proj):
    verdict = proj.validate(step(gate("lint_passed")))
    assert verdict.rule == "evidence_incomplete" and "requires an evidence document" in verdict.reason
    assert gate_result(verdict, "lint_passed").status == "skipped"


def test_human_approval_is_pending_without_an_approval(proj):
    verdict = proj.validate(step(gate("human_approval", "a maintainer looks at it")))
    assert (verdict.valid, verdict.rule) == (False, "human_approval_pending")
    assert verdict.outcome.next_action == "pause_for_human"
    assert gate_result(verdict, "human_approval").status == "pending"
    assert "judge approve step-1 --by NAME --work " in verdict.reason


# --- bad parameters: schema_invalid at $.step.gates[i], never valid ----------------------------------

BAD_GATES = {
    "unknown-type": ({"type": "command_exit_1", "parameters": {"command": "pytest"}}, "command_exit_1"),
    "type-missing": ({"parameters": {"command": "pytest"}}, "type"),
    "parameters-not-object": ({"type": "file_exists", "parameters": ["README.md"]}, "object"),
    "unknown-gate-key": ({"type": "tests_passed", "params": {}}, "params"),
    "command-missing": (gate("command_exit_0"), "command"),
    "command-blank": (gate("command_exit_0", command="   "), "command"),
    "command-unclosed-quote": (gate("command_exit_0", command="pytest -k 'slow"), "cannot be split"),
    "command-unknown-key": (gate("command_exit_0", command="pytest", cwd="/tmp"), "cwd"),
    "contains-empty": (gate("command_output_contains", command="pytest", contains=""), "contains"),
    "contains-missing": (gate("command_output_contains", command="pytest"), "contains"),
    "regex-does-not-compile": (gate("command_output_regex", command="pytest", pattern="(\\d+ passed"),
                               "does not compile"),
    "regex-bad-class": (gate("command_output_regex", command="pytest", pattern="[z-a]"), "does not compile"),
    "regex-not-string": (gate("command_output_regex", command="pytest", pattern=5), "pattern"),
    "path-parent": (gate("file_exists", path="../x"), ".."),
    "path-absolute": (gate("file_exists", path="/etc/passwd"), "/etc/passwd"),
    "path-deep-parent": (gate("file_not_exists", path="src/../../etc/shadow"), ".."),
    "path-empty": (gate("file_not_exists", path=""), "path"),
    "path-typo-key": (gate("file_exists", file="README.md"), "file"),
    "allowed-empty": (gate("changed_files_allowlist", allowed=[]), "allowed"),
    "allowed-string": (gate("changed_files_allowlist", allowed="src/**"), "allowed"),
    "allowed-bad-glob": (gate("changed_files_allowlist", allowed=["src/\\"]), "lone"),
    "min-count-zero": (gate("changed_files_minimum", paths=["src/**"], min_count=0), "min_count"),
    "min-count-negative": (gate("changed_files_minimum", paths=["src/**"], min_count=-1), "min_count"),
    "min-count-string": (gate("changed_files_minimum", paths=["src/**"], min_count="2"), "min_count"),
    "min-count-typo": (gate("changed_files_minimum", paths=["src/**"], min_cout=2), "min_cout"),
    "forbid-paths-missing": (gate("forbid_paths"), "paths"),
    "forbid-paths-number": (gate("forbid_paths", paths=[1]), "paths"),
    "max-negative": (gate("diff_max_lines", max=-1), "max"),
    "max-float": (gate("diff_max_lines", max=1.5), "max"),
    "max-missing": (gate("diff_max_lines"), "max"),
    "max-bool": (gate("diff_max_lines", max=True), "max"),
    "min-zero": (gate("diff_min_lines", min=0), "min"),
    "min-negative": (gate("diff_min_lines", min=-3), "min"),
    "schema-bad-type": (gate("json_schema_valid", path="a.json", schema={"type": "nope"}), "JSON Schema"),
    "schema-bad-minimum": (gate("json_schema_valid", path="a.json", schema={"minimum": "1"}), "JSON Schema"),
    "schema-bad-required": (gate("json_schema_valid", path="a.json", schema={"required": "name"}), "JSON Schema"),
    "schema-not-object": (gate("json_schema_valid", path="a.json", schema=["type"]), "schema"),
    "schema-missing": (gate("json_schema_valid", path="a.json"), "schema"),
    "schema-unsafe-path": (gate("json_schema_valid", path="/etc/passwd", schema={}), "/etc/passwd"),
    "checklist-parameter": (gate("criteria_checklist_complete", criteria=["c1"]), "criteria"),
    "patch-empty": (gate("patch_applies_cleanly", patch=""), "patch"),
    "patch-typo": (gate("patch_applies_cleanly", diff="x"), "diff"),
    "uncommitted-parameter": (gate("no_uncommitted_changes", strict=True), "strict"),
    "tests-command": (gate("tests_passed", command="pytest"), "command"),
    "lint-parameter": (gate("lint_passed", tool="ruff"), "tool"),
    "human-parameter": (gate("human_approval", approver="ana"), "approver"),
    "description-number": ({"type": "tests_passed", "description": 3}, "description"),
}


@pytest.mark.parametrize("workspace", [False, True], ids=["no-workspace", "workspace"])
@pytest.mark.parametrize("bad, says", BAD_GATES.values(), ids=BAD_GATES.keys())
def test_bad_gate_parameters_are_schema_invalid_at_the_gates_path(proj, bad, says, workspace):
    # the bad gate is the third: the path must name its index, and gates before it must not run
    marker = proj.tmp / "ran"
    s = step(gate("diff_min_lines"), gate("command_exit_0", command=py(f"open({str(marker)!r}, 'w')")), bad,
             policies=shell_on())
    verdict = proj.validate(s, workspace=workspace)
    assert (verdict.valid, verdict.rule) == (False, "schema_invalid")
    assert "$.step.gates[2]" in verdict.reason and says in verdict.reason, verdict.reason
    assert verdict.outcome.next_action == "diagnose"  # the orchestrator's step is at fault, not the executor
    assert verdict.gates == () and not marker.exists()


def test_bad_parameters_in_the_first_gate_name_index_0(proj):
    verdict = proj.validate(step(gate("diff_max_lines", max=-5)))
    assert verdict.rule == "schema_invalid" and "$.step.gates[0].parameters.max" in verdict.reason


def test_gates_not_a_list_is_schema_invalid(proj):
    verdict = proj.validate({**step(), "gates": {"type": "tests_passed"}})
    assert verdict.rule == "schema_invalid" and "$.step.gates" in verdict.reason


# --- the evaluation order -----------------------------------------------------------------------


def test_command_gates_are_skipped_and_nothing_runs_when_a_cheap_gate_failed(proj):
    marker = proj.tmp / "ran"
    cmd = py(f"open({str(marker)!r}, 'w')")
    s = step(gate("command_exit_0", command=cmd), gate("forbid_paths", paths=["tests/**"]), policies=shell_on())
    verdict = proj.validate(s, proj.result(evidence(commands=[cmd])))
    assert verdict.rule == "gate_failed" and "`forbid_paths`" in verdict.reason
    assert gate_result(verdict, "command_exit_0").status == "skipped"
    assert "so no command was run" in gate_result(verdict, "command_exit_0").message
    assert not marker.exists() and verdict.execution_evidence == ()


def test_command_gates_are_skipped_when_the_evidence_is_incomplete(proj):
    marker = proj.tmp / "ran"
    cmd = py(f"open({str(marker)!r}, 'w')")
    s = step(gate("command_exit_0", command=cmd), evidenceSchema={"required": ["diff_summary", "notes"]},
             policies=shell_on())
    verdict = proj.validate(s, proj.result(evidence(commands=[cmd])))
    assert (verdict.rule, verdict.outcome.missing_fields) == ("evidence_incomplete", ("notes",))
    assert gate_result(verdict, "command_exit_0").status == "skipped" and not marker.exists()


def test_human_approval_is_skipped_unless_everything_else_passed(proj):
    s = step(gate("human_approval"), gate("diff_max_lines", max=1))
    verdict = proj.validate(s)
    assert verdict.rule == "gate_failed" and verdict.outcome.next_action == "retry"
    assert gate_result(verdict, "human_approval").status == "skipped"


def test_human_approval_is_skipped_when_a_command_gate_failed(proj):
    s = step(gate("human_approval"), gate("command_exit_0", command=FAILING), policies=shell_on())
    verdict = proj.validate(s, proj.result(evidence(commands=[FAILING])))
    assert verdict.rule == "gate_failed" and gate_result(verdict, "human_approval").status == "skipped"


def test_gates_after_a_failed_command_gate_are_skipped_and_say_so_truthfully(proj):
    other = py("print('never read')")
    s = step(gate("command_exit_0", command=FAILING), gate("command_output_contains", command=other, contains="x"),
             policies=shell_on())
    verdict = proj.validate(s, proj.result(evidence(commands=[FAILING, other])))
    assert verdict.rule == "gate_failed" and "`command_exit_0`" in verdict.reason
    skipped = gate_result(verdict, "command_output_contains")
    assert skipped.status == "skipped" and "no command was run" not in skipped.message
    assert len(verdict.execution_evidence) == 2  # both allowed commands ran, once each, before any was read


def test_results_follow_the_registry_order_and_keep_each_gates_index(proj):
    from judge.gates.registry import GATES

    s = step(gate("human_approval"), gate("no_uncommitted_changes"), gate("forbid_paths", paths=["vendor/**"]),
             gate("diff_max_lines", max=1000), gate("file_exists", path="README.md"))
    verdict = proj.validate(s)
    order = [g.__name__ for g in GATES]
    assert [r.type for r in verdict.gates] == sorted((r.type for r in verdict.gates), key=order.index)
    assert [(r.type, r.index) for r in verdict.gates] == [
        ("forbid_paths", 3), ("diff_max_lines", 4), ("file_exists", 5), ("no_uncommitted_changes", 2),
        ("human_approval", 1)]
    assert [r.status for r in verdict.gates] == ["passed", "passed", "passed", "failed", "skipped"]
    assert verdict.reason.startswith("gate_failed: gate #2 `no_uncommitted_changes`")


def test_every_failing_cheap_gate_is_reported_and_the_first_in_order_decides(proj):
    s = step(gate("diff_max_lines", max=1), gate("forbid_paths", paths=["tests/**"]))
    verdict = proj.validate(s)
    assert verdict.reason.startswith("gate_failed: gate #2 `forbid_paths`")
    assert len(verdict.outcome.rejection_reasons) == 2
    assert [r.status for r in verdict.gates] == ["failed", "failed"]


def test_the_same_gate_type_twice_is_two_gates(proj):
    s = step(gate("file_exists", path="README.md"), gate("file_exists", "the changelog", path="CHANGELOG.md"))
    verdict = proj.validate(s)
    assert [(r.index, r.status) for r in verdict.gates] == [(1, "passed"), (2, "failed")]
    assert verdict.reason.startswith("gate_failed: gate #2 `file_exists` (the changelog)")


def test_the_same_inputs_give_the_same_gate_results(proj):
    s = step(gate("forbid_paths", paths=["tests/**"]), gate("file_exists", path="nope"), gate("diff_min_lines"))
    assert proj.validate(s).gates == proj.validate(s).gates


def test_gates_run_after_the_rules(proj):
    # an undeclared file is the rules' to reject: the gates are not reached
    result = proj.result(filesWritten=["src/app.py"], filesTouched=["src/app.py"])
    verdict = proj.validate(step(gate("forbid_paths", paths=["tests/**"])), result)
    assert verdict.rule not in ("gate_failed", None) and verdict.gates == ()


# --- step templates -----------------------------------------------------------------------------

TEMPLATE = {
    "description": "a backend change",
    "gates": [{"type": "forbid_paths", "parameters": {"paths": ["vendor/**"]}, "description": "no vendored code"}],
    "evidenceSchema": {"required": ["diff_summary"], "criteriaChecklist": {"c1": "from the template"}},
}
TEMPLATE_YAML = """\
description: a backend change
gates:
  - type: forbid_paths
    description: no vendored code
    parameters:
      paths: ["vendor/**"]
evidenceSchema:
  required: [diff_summary]
  criteriaChecklist:
    c1: from the template
"""


def write_template(proj: Project, name: str, suffix: str, text: str) -> Path:
    directory = proj.tmp / "templates"
    directory.mkdir(exist_ok=True)
    path = directory / f"{name}{suffix}"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(params=[".json", ".yaml", ".yml"])
def templated(request, proj: Project) -> Project:
    text = json.dumps(TEMPLATE) if request.param == ".json" else TEMPLATE_YAML
    write_template(proj, "backend", request.param, text)
    return proj


def test_template_gates_come_first_then_the_steps_own(templated):
    s = step(gate("diff_min_lines", "some change"), template="backend")
    verdict = templated.validate(s, templated.result(evidence()))
    assert verdict.valid, verdict.reason
    assert [(r.index, r.type, r.source) for r in verdict.gates] == [
        (1, "forbid_paths", "template"), (2, "diff_min_lines", "step")]


def test_a_failing_template_gate_says_it_comes_from_the_template(templated):
    templated.change({"vendor/lib.py": "x = 1\n"})
    verdict = templated.validate(step(gate("diff_min_lines"), template="backend"), templated.result(evidence()))
    fails(verdict, "forbid_paths", "(no vendored code), from the template", "vendor/lib.py")


def test_template_and_step_evidence_schemas_are_unions(templated):
    s = step(template="backend", evidenceSchema={"required": ["notes"], "criteriaChecklist": {"c2": "the step's"}})
    verdict = templated.validate(s, templated.result({"changed_files": templated.changed()}))
    assert verdict.rule == "evidence_incomplete"
    assert verdict.outcome.missing_fields == ("diff_summary", "notes")


def test_the_steps_criterion_text_wins_and_both_criteria_are_required(templated):
    s = step(gate("criteria_checklist_complete"), template="backend",
             evidenceSchema={"criteriaChecklist": {"c1": "the step's text", "c2": "the step's other"}})
    verdict = templated.validate(s, templated.result(evidence(criteria_checklist={"c2": True})))
    fails(verdict, "criteria_checklist_complete", "c1 (the step's text): missing", index=2)


def test_a_templates_directory_inside_the_judged_repository_is_refused(proj):
    """The executor writes the repository: a template there could drop the step's gates or loosen its policies."""
    inside = proj.root / ".judge" / "templates"
    inside.mkdir(parents=True)
    (inside / "backend.json").write_text(json.dumps({"description": "nothing to check"}), encoding="utf-8")
    verdict = proj.validate(step(gate("diff_min_lines"), template="backend"), proj.result(evidence()),
                            templates_dir=str(inside))
    assert verdict.rule == "schema_invalid" and not verdict.valid
    assert "inside the judged repository" in verdict.reason and "$.step.template" in verdict.reason


def test_template_policies_sit_below_the_steps(proj):
    write_template(proj, "strict-ish", ".json", json.dumps({"policies": {"require_diff_summary": True}}))
    blank = proj.result({"changed_files": proj.changed(), "diff_summary": " "})
    assert proj.validate(step(template="strict-ish"), blank).outcome.missing_fields == ("diff_summary",)
    assert proj.validate(step(template="strict-ish", policies={"require_diff_summary": False}), blank).valid


@pytest.mark.parametrize("files, says", [
    ({}, "no template 'backend'"),
    ({".json": "{not json"}, "template"),
    ({".json": json.dumps({"gates": [{"type": "command_output_regex",
                                      "parameters": {"command": "pytest", "pattern": "("}}]})}, "does not compile"),
    ({".json": json.dumps({"gates": [{"type": "no_such_gate"}]})}, "no_such_gate"),
    ({".json": json.dumps({"gatez": []})}, "gatez"),
    ({".yaml": "gates: [unclosed\n"}, "not valid YAML"),
    ({".yaml": "- just\n- a list\n"}, "template"),
    ({".yaml": "!!python/object/apply:os.system ['touch pwned']\n"}, "not valid YAML"),
    ({".json": json.dumps(TEMPLATE), ".yaml": TEMPLATE_YAML}, "ambiguous"),
], ids=["missing", "broken-json", "bad-regex", "unknown-gate", "unknown-key", "broken-yaml", "yaml-list",
        "yaml-python-object", "ambiguous"])
def test_a_missing_or_broken_template_is_schema_invalid_at_step_template(proj, files, says):
    for suffix, text in files.items():
        write_template(proj, "backend", suffix, text)
    verdict = proj.validate(step(gate("diff_min_lines"), template="backend"))
    assert (verdict.valid, verdict.rule) == (False, "schema_invalid")
    assert "$.step.template" in verdict.reason and says in verdict.reason, verdict.reason
    assert verdict.outcome.next_action == "diagnose"
    assert not (Path.cwd() / "pwned").exists() and not (proj.root / "pwned").exists()


@pytest.mark.parametrize("name", ["../backend", "/etc/passwd", ".hidden", "a/b", ""])
def test_a_template_name_that_could_leave_the_templates_directory_is_refused(proj, name):
    write_template(proj, "backend", ".json", json.dumps(TEMPLATE))
    verdict = proj.validate(step(template=name))
    assert verdict.rule == "schema_invalid" and "$.step.template" in verdict.reason


def test_a_step_without_gates_is_judged_as_before(proj):
    verdict = proj.validate(step())
    assert verdict.valid and verdict.gates == ()
    assert [s.stage for s in verdict.stages] == ["contract", "rules", "semantic"]


def test_diff_lines_count_a_rename_as_git_diff_M_does_with_a_workspace(tmp_path):
    # git's diff of the work tree finds no renames: a moved file counted whole, twice, failed honest moves
    from helpers.scenario_repos import Repo, git

    repo = Repo(tmp_path / "repo", {"old.py": "".join(f"x{i} = {i}\n" for i in range(50))})
    git(repo.root, "mv", "old.py", "new.py")
    patch = git(repo.root, "diff", "--cached", "-M", repo.base)
    s = {"id": "s", "description": "Rename old.py to new.py",
         "gates": [{"type": "diff_max_lines", "parameters": {"max": 10}}]}
    result = {"mode": "apply", "success": True, "patch": patch, "filesWritten": ["old.py", "new.py"],
              "filesTouched": ["old.py", "new.py"], "summary": "renamed"}
    config = judge.JudgeConfig(semantic="off")
    assert judge.validate(s, result, config=config).valid
    verdict = judge.validate(s, result, config=config, workspace=judge.Workspace(str(repo.root), repo.base))
    assert verdict.valid, verdict.reason


def test_a_template_and_a_step_whose_criteria_together_break_the_limit_are_a_contract_breach(tmp_path):
    templates = tmp_path / "templates"
    templates.mkdir()
    (templates / "big.json").write_text(json.dumps(
        {"evidenceSchema": {"criteriaChecklist": {f"t{i}": "x" for i in range(600)}}}), encoding="utf-8")
    s = {"id": "s", "description": "d", "template": "big",
         "evidenceSchema": {"criteriaChecklist": {f"s{i}": "x" for i in range(600)}}}
    verdict = judge.validate(s, {"mode": "apply", "success": True},
                             config=judge.JudgeConfig(semantic="off", templates_dir=str(templates)))
    assert verdict.rule == "schema_invalid" and "$.step.evidenceSchema" in verdict.reason, verdict.reason
    assert verdict.outcome.next_action == "diagnose"


def test_criteria_the_agent_invents_do_not_pass_the_checklist_gate(proj):
    verdict = checklist_case(proj, {"i did it": True}, criteria=None)
    fails(verdict, "criteria_checklist_complete", "defines no criteria")
    assert verdict.outcome.next_action == "diagnose"  # the step must change, not the agent's answer
