"""The command line of workspace evidence: validate --repo/--base/--ledger/--evidence, and `judge run`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers.builders import run_cli

from judge.cli.main import main
from helpers.scenario_repos import Repo, git_env, snapshot  # noqa: F401  (git_env: autouse fixture)

APP = "def parse_port(value):\n    return int(value)\n"
APP_FIXED = "def parse_port(value):\n    port = int(value)\n    if port < 1:\n        raise ValueError(value)\n    return port\n"
STEP = {"id": "step-1", "description": "Add input validation to parse_port() in src/app.py", "mode": "apply"}


run = run_cli


def usage_error(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, "") and len(err.splitlines()) == 1 and err.startswith("judge:"), err
    return err


@pytest.fixture
def case(tmp_path: Path) -> tuple[Repo, str, str]:
    """A repository with an honest change, and its step and result files."""
    repo = Repo(tmp_path / "repo", {"src/app.py": APP})
    repo.write({"src/app.py": APP_FIXED})
    result = {"mode": "apply", "success": True, "patch": repo.diff(repo.base), "filesWritten": ["src/app.py"],
              "filesTouched": ["src/app.py"], "summary": "parse_port() rejects ports below 1"}
    (tmp_path / "step.json").write_text(json.dumps(STEP), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return repo, str(tmp_path / "step.json"), str(tmp_path / "result.json")


def test_valid_with_a_workspace(capsys, case):
    repo, step, result = case
    before = snapshot(repo.root)
    code, out, err = run(capsys, "validate", "--step", step, "--result", result, "--repo", str(repo.root),
                         "--base", repo.base, "--explain")
    assert (code, json.loads(out)["valid"]) == (0, True)
    assert "work evidence: file_changes" in err
    assert snapshot(repo.root) == before


def test_hidden_file_is_caught_on_the_command_line(capsys, case):
    repo, step, result = case
    repo.write({"src/extra.py": "x = 1\n"})
    code, out, _ = run(capsys, "validate", "--step", step, "--result", result, "--repo", str(repo.root),
                       "--base", repo.base)
    assert code == 1 and json.loads(out)["reason"].startswith("changed_but_unclaimed:")


@pytest.mark.parametrize("flags, message", [
    (["--repo", "{tmp}/nope", "--base", "HEAD"], "no such directory"),
    (["--repo", "{tmp}", "--base", "HEAD"], "not the top of a git work tree"),
    (["--repo", "{repo}", "--base", "0123456789abcdef"], "not a full commit id"),
    (["--repo", "{repo}"], "--repo and --base go together"),
    (["--base", "HEAD"], "--repo and --base go together"),
    (["--ledger", "{tmp}/missing.jsonl"], "no such file"),
    (["--evidence", "{tmp}/missing.json"], "no such file"),
], ids=["no-directory", "not-a-repo", "unknown-base", "repo-without-base", "base-without-repo", "no-ledger",
        "no-evidence-file"])
def test_bad_workspace_input_is_exit_2_with_one_line(capsys, case, tmp_path, flags, message):
    repo, step, result = case
    outside = tmp_path / "outside"
    outside.mkdir()
    flags = [f.format(tmp=outside, repo=repo.root, step=step) for f in flags]
    err = usage_error(*run(capsys, "validate", "--step", step, "--result", result, *flags))
    assert message in err


def test_a_record_that_breaks_its_schema_is_a_schema_invalid_verdict_as_on_every_interface(capsys, case):
    repo, step, result = case
    code, out, err = run(capsys, "validate", "--step", step, "--result", result, "--repo", str(repo.root), "--base",
                         repo.base, "--record", result, "--record", step)
    verdict = json.loads(out)
    assert code == 1 and verdict["valid"] is False and verdict["reason"].startswith("schema_invalid: the record ")
    assert "$.records[0]" in verdict["reason"] and "schemas/execution-evidence.schema.json" in verdict["reason"]


def test_ledger_flags(capsys, case, tmp_path):
    repo, step, result = case
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text('{"op": "close", "payload": {"commitment": "cmt_7"}}\n', encoding="utf-8")
    common = ["validate", "--step", step, "--result", result, "--repo", str(repo.root), "--base", repo.base,
              "--ledger", str(ledger)]
    assert run(capsys, *common, "--ledger-id", "cmt_7")[0] == 0
    code, out, _ = run(capsys, *common, "--ledger-id", "cmt_8")
    assert code == 1 and "ledger_missing_operation" in out
    assert run(capsys, *common, "--ledger-id", "cmt_7", "--ledger-op", "submit")[0] == 1


@pytest.mark.parametrize("where", ["repo/ledger.jsonl", "repo/.judge/ledger.jsonl"])
def test_a_ledger_inside_the_judged_repository_is_refused_even_when_git_ignores_it(capsys, tmp_path, where):
    """The executor can append the `close` line judge looks for to any file in its work tree."""
    repo = Repo(tmp_path / "repo", {"src/app.py": APP, ".gitignore": "ledger.jsonl\n.judge/\n"})
    repo.write({"src/app.py": APP_FIXED})
    result = {"mode": "apply", "success": True, "patch": repo.diff(repo.base), "filesWritten": ["src/app.py"],
              "filesTouched": ["src/app.py"], "summary": "parse_port() rejects ports below 1"}
    (tmp_path / "step.json").write_text(json.dumps(STEP), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    ledger = tmp_path / where
    ledger.parent.mkdir(parents=True, exist_ok=True)
    ledger.write_text('{"op": "close", "id": "step-1"}\n', encoding="utf-8")  # appended by the executor
    err = usage_error(*run(capsys, "validate", "--step", str(tmp_path / "step.json"), "--result",
                           str(tmp_path / "result.json"), "--repo", str(repo.root), "--base", repo.base,
                           "--ledger", str(ledger)))
    assert "--ledger" in err and "inside the judged repository" in err and "outside the repository" in err


def test_run_then_attach_the_evidence(capsys, case, tmp_path):
    repo, step, result = case
    root = tmp_path / "evidence-root"
    code, out, err = run(capsys, "run", "--step", "step-1", "--root", str(root), "--run-id", "r1",
                         "--repo", str(repo.root), "--base", repo.base, "--",
                         sys.executable, "-c", "import sys; print('2 failed'); sys.exit(1)")
    record = json.loads(out)
    assert (code, record["status"], record["exitCode"], record["stdout"]) == (1, "FAILURE", 1, "2 failed\n")
    assert "FAILURE (exit 1)" in err
    evidence_json = root / "artifacts" / "r1" / "step-1" / "evidence.json"
    assert json.loads(evidence_json.read_text()) == record
    code, out, err = run(capsys, "validate", "--step", step, "--result", result, "--evidence", str(evidence_json),
                         "--explain")
    assert code == 1 and json.loads(out)["reason"].startswith("execution_failed:")
    assert record["evidenceHash"] in err


def test_run_success_exit_0(capsys, tmp_path):
    code, out, _ = run(capsys, "run", "--step", "s", "--root", str(tmp_path), "--no-sign", "--",
                       sys.executable, "-c", "pass")
    assert (code, json.loads(out)["status"]) == (0, "SUCCESS")


def test_run_of_a_missing_program_is_no_evidence(capsys, tmp_path):
    code, out, err = run(capsys, "run", "--step", "s", "--root", str(tmp_path), "--no-sign", "--", "/no/such/program")
    assert (code, json.loads(out)["status"]) == (1, "NO_EVIDENCE")
    assert "it did not start: cannot run '/no/such/program': No such file or directory" in err  # says why


@pytest.mark.parametrize("options, command, message", [
    (["--step", "../up"], ["true"], "path separator"),
    (["--step", "s"], [], "no command given"),
    (["--step", "s", "--timeout", "0"], ["true"], "--timeout"),
], ids=["escaping-step", "no-command", "zero-timeout"])
def test_run_bad_input_is_exit_2_and_writes_nothing(capsys, tmp_path, options, command, message):
    root = tmp_path / "root"
    err = usage_error(*run(capsys, "run", *options, "--root", str(root), "--", *command))
    assert message in err
    assert not (root / "artifacts").exists()


# --- the contract is checked before the workspace is read ---------------------------------------


def test_step_that_breaks_its_contract_is_schema_invalid_not_a_ledger_usage_error(capsys, case, tmp_path):
    repo, _, result = case
    step = tmp_path / "no-id.json"
    step.write_text(json.dumps({k: v for k, v in STEP.items() if k != "id"}), encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    ledger.write_text('{"op": "close", "id": "step-1"}\n', encoding="utf-8")
    code, out, err = run(capsys, "validate", "--step", str(step), "--result", result, "--ledger", str(ledger),
                         "--repo", str(repo.root), "--base", repo.base)
    assert (code, json.loads(out)["valid"], err) == (1, False, "")
    assert json.loads(out)["reason"].startswith("schema_invalid:")


def test_patch_with_a_lone_surrogate_is_schema_invalid_not_an_internal_error(capsys, case, tmp_path):
    repo, step, _ = case
    result = tmp_path / "surrogate.json"
    patch = repo.diff(repo.base).replace("raise ValueError(value)", "raise ValueError('\\ud800')")
    data = {"mode": "apply", "success": True, "patch": patch, "filesWritten": ["src/app.py"],
            "summary": "parse_port() rejects ports below 1"}
    result.write_text(json.dumps(data).replace("\\\\ud800", "\\ud800"), encoding="utf-8")
    assert "\\ud800" in result.read_text(encoding="utf-8")
    before = snapshot(repo.root)
    code, out, err = run(capsys, "validate", "--step", step, "--result", str(result), "--repo", str(repo.root),
                         "--base", repo.base)
    assert (code, err) == (1, "") and json.loads(out)["reason"].startswith("schema_invalid:")
    assert snapshot(repo.root) == before
