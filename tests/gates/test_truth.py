"""Truthfulness (seed 004, made strict): a tests/lint claim or a command gate passes only on a verified execution
record of exactly that command, for this step, with exit 0, and the command in commands_run; forged, edited,
foreign and missing records never pass. The seed's evidence examples. human_approval pauses, then resumes."""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

import pytest

import judge
from helpers.builders import run_cli, text_diff
from helpers.gate_cases import FILES, Project, evidence, gate, gate_result, project, record, shell_on, step
from judge.runs.keys import load_or_create_key
from helpers.scenario_repos import git_env  # noqa: F401  (git_env: autouse fixture)

SEED_004 = next((Path(__file__).resolve().parents[3] / "shared" / "seeds").glob("004_*.txt"), None) \
    if (Path(__file__).resolve().parents[3] / "shared" / "seeds").is_dir() else None


@pytest.fixture
def proj(tmp_path: Path) -> Project:
    return project(tmp_path).change()


@pytest.fixture
def tools(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`pytest` and `ruff` stand-ins on PATH: each prints a line and exits with the code in its name's variable."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, line in (("pytest", "3 passed in 0.01s"), ("ruff", "All checks passed!")):
        script = bin_dir / name
        script.write_text(f'#!/bin/sh\necho "{line}"\necho "args: $*"\nexit "${{{name.upper()}_EXIT:-0}}"\n')
        script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir


def claim(kind: str, command: str | None, listed: list[str] | None = None) -> dict:
    """Evidence claiming ``kind`` (tests or lint) passed with ``command``; ``listed``: commands_run."""
    listed = [command] if listed is None and command else (listed or [])
    if kind == "tests":
        return evidence(commands=listed, tests=[command] if command else None, passed=True)
    return evidence(commands=listed, lint_run=[command] if command else None, lint_passed=True)


KINDS = [("tests", "pytest -q", "tests_passed"), ("lint", "ruff check src", "lint_passed")]


def judged(proj: Project, kind: str, doc: dict, records=(), **settings) -> judge.Verdict:
    gate_type = "tests_passed" if kind == "tests" else "lint_passed"
    return proj.validate(step(gate(gate_type)), proj.result(doc), records=tuple(records), **settings)


def never_valid(verdict: judge.Verdict, rule: str, *says: str) -> None:
    assert (verdict.valid, verdict.contract()["valid"]) == (False, False)
    assert verdict.rule == rule, verdict.reason
    for text in says:
        assert text in verdict.reason, verdict.reason


# --- tests_passed / lint_passed against execution records -----------------------------------------


@pytest.mark.parametrize("kind, command, gate_type", KINDS)
def test_a_claim_without_a_record_is_unverifiable_and_says_what_to_run(proj, kind, command, gate_type):
    verdict = judged(proj, kind, claim(kind, command))
    never_valid(verdict, "unverifiable_claim", f"{gate_type} is true but no execution record of `{command}`",
                f"judge run --step step-1 --base {proj.repo.base} -- {command}", "--evidence")
    assert gate_result(verdict, gate_type).status == "failed"


@pytest.mark.parametrize("kind, command, gate_type", KINDS)
def test_a_record_of_exactly_that_command_in_commands_run_backs_the_claim(proj, tools, kind, command, gate_type):
    made = record(proj.tmp, shlex.split(command))
    verdict = judged(proj, kind, claim(kind, command), [made])
    assert verdict.valid, verdict.reason
    assert gate_result(verdict, gate_type).status == "passed"
    assert verdict.execution_evidence == (made,)


@pytest.mark.parametrize("kind, command, gate_type", KINDS)
def test_a_record_attached_as_json_backs_the_claim_too(proj, tools, kind, command, gate_type):
    made = record(proj.tmp, shlex.split(command)).to_json()
    assert judged(proj, kind, claim(kind, command), [json.loads(json.dumps(made))]).valid


@pytest.mark.parametrize("kind, command, gate_type", KINDS)
def test_a_record_does_not_help_when_the_command_is_not_in_commands_run(proj, tools, kind, command, gate_type):
    made = record(proj.tmp, shlex.split(command))
    verdict = judged(proj, kind, claim(kind, command, listed=["git status"]), [made])
    never_valid(verdict, "unverifiable_claim", f"`{command}` is not in commands_run")


def test_commands_run_may_spell_the_same_argv_differently(proj, tools):
    made = record(proj.tmp, ["pytest", "-q"])
    assert judged(proj, "tests", claim("tests", "pytest -q", listed=["pytest   '-q'"]), [made]).valid


@pytest.mark.parametrize("recorded, claimed", [
    (["pytest"], "pytest -q"), (["pytest", "-q"], "pytest"), (["pytest", "-q", "tests/"], "pytest -q"),
    (["pytest", "-q"], "pytest -q -k slow"),
])
def test_a_record_of_another_argv_does_not_back_the_claim(proj, tools, recorded, claimed):
    made = record(proj.tmp, recorded)
    verdict = judged(proj, "tests", claim("tests", claimed), [made])
    never_valid(verdict, "unverifiable_claim", f"no execution record of `{claimed}`")


@pytest.mark.parametrize("kind, command, gate_type", KINDS)
def test_a_failing_record_is_rejected(proj, tools, monkeypatch, kind, command, gate_type):
    monkeypatch.setenv(f"{command.split()[0].upper()}_EXIT", "1")
    made = record(proj.tmp, shlex.split(command))
    assert made.exit_code == 1
    verdict = judged(proj, kind, claim(kind, command), [made])
    assert not verdict.valid and verdict.rule in ("execution_failed", "gate_failed"), verdict.reason
    assert "exited 1" in verdict.reason


@pytest.mark.parametrize("kind, command, gate_type", KINDS)
def test_a_failure_report_is_not_gated(proj, tools, monkeypatch, kind, command, gate_type):
    # success: false claims no work: the gates are not checked, and the report, valid, is not accepted as the step
    monkeypatch.setenv(f"{command.split()[0].upper()}_EXIT", "1")
    made = record(proj.tmp, shlex.split(command))
    failed = {"mode": "apply", "success": False, "summary": "the checks fail", "evidence": claim(kind, command)}
    verdict = proj.validate(step(gate(gate_type), expectsNoChanges=True), failed, records=(made,), workspace=False)
    assert verdict.valid, verdict.reason
    assert (verdict.outcome.accepted, verdict.outcome.next_action) == (False, "diagnose")
    assert verdict.gates == () and any(s.stage == "gates" and s.status == "skipped" for s in verdict.stages)


@pytest.mark.parametrize("edit", [
    {"stdout": "3 passed in 0.01s\nargs: -q\n(and nothing failed)\n"},
    {"exitCode": 0, "status": "SUCCESS"},
    {"command": ["pytest", "-q", "--lf"]},
    {"stderr": "all good"},
    {"evidenceHash": "0" * 64},
], ids=["stdout", "exit-code", "command", "stderr", "hash"])
def test_an_edited_record_never_passes(proj, tools, monkeypatch, edit):
    if "exitCode" in edit:
        monkeypatch.setenv("PYTEST_EXIT", "2")
    made = record(proj.tmp, ["pytest", "-q"]).to_json()
    edited = {**made, **edit}
    command = shlex.join(edited["command"])
    verdict = judged(proj, "tests", claim("tests", command), [edited])
    never_valid(verdict, "execution_evidence_invalid", "evidenceHash")


def test_an_edited_record_on_disk_is_caught_through_the_cli(proj, tools, tmp_path, capsys, monkeypatch):
    made = record(proj.tmp, ["pytest", "-q"], run_id="run-1")
    path = proj.tmp / "runs" / "artifacts" / "run-1" / "step-1" / "evidence.json"
    data = json.loads(path.read_text())
    assert data["evidenceHash"] == made.evidence_hash
    path.write_text(json.dumps({**data, "stdout": data["stdout"].replace("3 passed", "30 passed")}))
    for name, content in (("step.json", step(gate("tests_passed"))),
                          ("result.json", proj.result(claim("tests", "pytest -q")))):
        (tmp_path / name).write_text(json.dumps(content))
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(capsys, "validate", "--step", str(tmp_path / "step.json"), "--result",
                             str(tmp_path / "result.json"), "--evidence", str(path), "--semantic", "off")
    assert code == 1 and json.loads(out)["valid"] is False and "execution_evidence_invalid" in out


def test_a_status_that_lies_about_the_exit_code_never_passes(proj, tools, monkeypatch):
    monkeypatch.setenv("PYTEST_EXIT", "1")
    made = record(proj.tmp, ["pytest", "-q"]).to_json()
    verdict = judged(proj, "tests", claim("tests", "pytest -q"), [{**made, "status": "SUCCESS"}])
    never_valid(verdict, "execution_evidence_invalid", "status")


def test_a_forged_record_with_a_made_up_hash_never_passes(proj):
    forged = {"version": 1, "stepId": "step-1", "runId": "r1", "command": ["pytest", "-q"], "exitCode": 0,
              "stdout": "3 passed\n", "stderr": "", "stdoutBytes": 9, "stderrBytes": 0,
              "startedAt": "2026-02-07T16:00:00.000Z", "finishedAt": "2026-02-07T16:00:01.000Z",
              "durationSeconds": 1.0, "timedOut": False, "status": "SUCCESS", "evidenceHash": "ab" * 32,
              "artifacts": []}
    never_valid(judged(proj, "tests", claim("tests", "pytest -q"), [forged]), "execution_evidence_invalid")


def test_a_foreign_record_never_passes(proj, tools):
    foreign = record(proj.tmp, ["pytest", "-q"], step_id="step-0")
    verdict = judged(proj, "tests", claim("tests", "pytest -q"), [foreign])
    never_valid(verdict, "execution_evidence_invalid", "step-0")


def test_a_foreign_record_made_for_another_step_does_not_back_a_gate_either(proj, tools):
    # the gates' own check, below the rules: a record for another step is not this step's proof
    from judge.gates.truth import RecordTrust, backing

    foreign = record(proj.tmp, ["pytest", "-q"], step_id="step-0")
    found = backing("pytest -q", (foreign,), RecordTrust("step-1", None, None, accept_unsigned=True),
                    commands_run=("pytest -q",))
    assert found.record is None and "another step" in found.problem


def test_every_claimed_test_command_needs_its_own_record(proj, tools):
    made = record(proj.tmp, ["pytest", "-q"])
    doc = evidence(commands=["pytest -q", "pytest -q tests/slow"], tests=["pytest -q", "pytest -q tests/slow"],
                   passed=True)
    never_valid(judged(proj, "tests", doc, [made]), "unverifiable_claim", "`pytest -q tests/slow`")


def test_tests_passed_true_without_tests_run_is_unverifiable(proj, tools):
    made = record(proj.tmp, ["pytest", "-q"])
    verdict = proj.validate(step(gate("lint_passed")), proj.result(evidence(commands=["pytest -q"],
                                                                            lint_passed=True)), records=(made,))
    never_valid(verdict, "unverifiable_claim", "lint_run names no command")


def test_a_tests_claim_is_checked_even_when_the_step_asks_for_no_gate(proj):
    verdict = proj.validate(step(), proj.result(evidence(commands=["pytest -q"], tests=["pytest -q"], passed=True)))
    never_valid(verdict, "unverifiable_claim", f"judge run --step step-1 --base {proj.repo.base} -- pytest -q")
    assert gate_result(verdict, "tests_passed").source == "claim"


def test_a_lint_claim_is_checked_even_when_the_step_asks_for_no_gate(proj):
    doc = evidence(commands=["ruff check src"], lint_run=["ruff check src"], lint_passed=True)
    never_valid(proj.validate(step(), proj.result(doc)), "unverifiable_claim", "ruff check src")


# --- command gates read the record's stdout ------------------------------------------------------


@pytest.mark.parametrize("kind, parameters, passes", [
    ("command_output_contains", {"contains": "3 passed"}, True),
    ("command_output_contains", {"contains": "4 passed"}, False),
    ("command_output_contains", {"contains": "args: -q"}, True),
    ("command_output_regex", {"pattern": r"^\d+ passed in [0-9.]+s$"}, False),  # re.search, no MULTILINE
    ("command_output_regex", {"pattern": r"(?m)^\d+ passed in [0-9.]+s$"}, True),
    ("command_output_regex", {"pattern": r"\d+ failed"}, False),
    ("command_exit_0", {}, True),
])
def test_command_gates_read_an_attached_records_stdout_without_running_anything(proj, tools, kind, parameters,
                                                                                passes):
    made = record(proj.tmp, ["pytest", "-q"])
    verdict = proj.validate(step(gate(kind, command="pytest -q", **parameters)),
                            proj.result(evidence(commands=["pytest -q"])), records=(made,))
    assert verdict.valid is passes, verdict.reason
    assert verdict.execution_evidence == (made,)  # shell gates are off: nothing else ran
    if not passes:
        assert verdict.rule == "gate_failed" and "its stdout does not" in verdict.reason


def test_a_command_gate_never_reads_stderr_as_output(proj, tools, tmp_path):
    made = record(proj.tmp, ["sh", "-c", "echo '3 passed' >&2"])
    verdict = proj.validate(step(gate("command_output_contains", command="sh -c \"echo '3 passed' >&2\"",
                                      contains="3 passed")),
                            proj.result(evidence(commands=["sh -c \"echo '3 passed' >&2\""])), records=(made,))
    assert verdict.rule == "gate_failed"


def test_a_command_gate_with_an_edited_record_is_caught(proj, tools):
    made = record(proj.tmp, ["pytest", "-q"]).to_json()
    edited = {**made, "stdout": "4 passed\n"}
    verdict = proj.validate(step(gate("command_output_contains", command="pytest -q", contains="4 passed")),
                            proj.result(evidence(commands=["pytest -q"])), records=(edited,))
    never_valid(verdict, "execution_evidence_invalid")


def test_a_command_gate_record_made_by_judge_is_also_held_to_commands_run(proj, tools):
    s = step(gate("command_exit_0", command="pytest -q"), policies=shell_on("pytest*"))
    verdict = proj.validate(s, proj.result(evidence(commands=["ruff check"])))
    never_valid(verdict, "unverifiable_claim", "not in commands_run")
    assert len(verdict.execution_evidence) == 1  # it ran, and passed, but the agent did not say it ran it


def test_a_judge_run_record_backs_the_tests_claim_of_the_same_command(proj, tools):
    s = step(gate("command_exit_0", command="pytest -q"), policies=shell_on("pytest*"))
    verdict = proj.validate(s, proj.result(claim("tests", "pytest -q")))
    assert verdict.valid, verdict.reason
    assert gate_result(verdict, "tests_passed").status == "passed"


# --- the seed's evidence examples ----------------------------------------------------------------

SEED_GOOD = {
    "diff_summary": "Fix HTTP endpoint mismatch; align UI client paths.",
    "commands_run": ["python -m pytest -q"],
    "tests_run": ["python -m pytest -q"],
    "tests_passed": True,
    "changed_files": ["vibedev_mcp/http_server.py", "vibedev-ui/src/lib/api.ts"],
    "devlog_line": "Aligned REST API paths and added HTTP smoke tests.",
}
SEED_BAD = {"diff_summary": "Fixed everything.", "tests_passed": True}
SEED_REQUIRED = ["changed_files", "diff_summary", "commands_run", "tests_run", "tests_passed"]
SEED_STEP = {"id": "step-7", "description": "Fix the HTTP endpoint mismatch between the server and the UI client",
             "mode": "apply", "gates": [{"type": "tests_passed", "parameters": {}, "description": "tests gate"}],
             "evidenceSchema": {"required": SEED_REQUIRED}}
# Judged with no workspace and no key, as the seed's example is: its record is believed on its evidenceHash only
# because the step's policy says so (without it, below, the record backs nothing).
SEED_STEP_UNSIGNED = {**SEED_STEP, "policies": {"accept_unsigned_records": True}}


def _seed_json(title: str) -> dict:
    text = SEED_004.read_text(encoding="utf-8")
    block = text.split(f"### {title}", 1)[1].split("```json", 1)[1].split("```", 1)[0]
    return json.loads(block)


@pytest.mark.skipif(SEED_004 is None, reason="the seeds are not next to this checkout")
def test_the_examples_here_are_the_seeds():
    assert (_seed_json("Good (tests gate)"), _seed_json("Bad (hand-wave)")) == (SEED_GOOD, SEED_BAD)


def seed_result(doc: dict) -> dict:
    patch = text_diff("vibedev_mcp/http_server.py", "ROUTES = ['/api/v1/jobs']\n", "ROUTES = ['/api/jobs']\n") + \
        text_diff("vibedev-ui/src/lib/api.ts", "export const JOBS = '/api/v1/jobs';\n",
                  "export const JOBS = '/api/jobs';\n")
    files = ["vibedev_mcp/http_server.py", "vibedev-ui/src/lib/api.ts"]
    return {"mode": "apply", "success": True, "patch": patch, "filesWritten": files, "filesTouched": files,
            "summary": "aligned the UI client's paths with the server's", "evidence": doc}


@pytest.fixture
def seed_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bare_pytest):
    """A real `python -m pytest -q` run for step-7, in a directory holding one passing test."""
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_smoke.py").write_text("def test_smoke():\n    assert True\n")
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    made = record(tmp_path, ["python", "-m", "pytest", "-q"], step_id="step-7", cwd=suite, sign=False)
    assert made.exit_code == 0 and re.search(r"1 passed", made.stdout), made.stdout + made.stderr
    return made


def test_the_seeds_good_evidence_passes_with_a_matching_record(tmp_path, seed_record):
    verdict = judge.validate(SEED_STEP_UNSIGNED, seed_result(SEED_GOOD), evidence=[seed_record],
                             config=judge.JudgeConfig(semantic="off", artifacts_root=str(tmp_path / "a")))
    assert verdict.valid, verdict.reason
    assert verdict.outcome.model_dump() == {"accepted": True, "missingFields": (), "rejectionReasons": (),
                                            "nextAction": "advance"}
    assert [(r.type, r.status) for r in verdict.gates] == [("tests_passed", "passed")]


def test_the_seeds_good_evidence_without_its_record_is_unverifiable(tmp_path):
    verdict = judge.validate(SEED_STEP_UNSIGNED, seed_result(SEED_GOOD), config=judge.JudgeConfig(semantic="off"))
    never_valid(verdict, "unverifiable_claim", "judge run --step step-7 --base BASE -- python -m pytest -q")
    assert verdict.outcome.next_action == "retry"


def test_the_seeds_unsigned_record_backs_nothing_without_the_policy(tmp_path, seed_record):
    """No key file, no policy: a hand-written or unsigned pytest record never backs tests_passed."""
    verdict = judge.validate(SEED_STEP, seed_result(SEED_GOOD), evidence=[seed_record],
                             config=judge.JudgeConfig(semantic="off", artifacts_root=str(tmp_path / "a")))
    never_valid(verdict, "unverifiable_claim", "judge has no evidence key", "accept_unsigned_records")


def test_the_seeds_good_evidence_with_a_wrong_file_list_is_a_mismatch(seed_record):
    doc = {**SEED_GOOD, "changed_files": ["vibedev_mcp/http_server.py"]}
    verdict = judge.validate(SEED_STEP_UNSIGNED, seed_result(doc), evidence=[seed_record],
                             config=judge.JudgeConfig(semantic="off"))
    never_valid(verdict, "evidence_mismatch", "vibedev-ui/src/lib/api.ts")


def test_the_seeds_hand_wave_is_rejected_with_its_missing_fields(seed_record):
    verdict = judge.validate(SEED_STEP_UNSIGNED, seed_result(SEED_BAD), evidence=[seed_record],
                             config=judge.JudgeConfig(semantic="off"))
    never_valid(verdict, "evidence_incomplete", "tests_run", "commands_run", "changed_files")
    assert verdict.outcome.accepted is False
    assert verdict.outcome.missing_fields == ("changed_files", "commands_run", "tests_run")
    assert verdict.outcome.rejection_reasons and verdict.outcome.next_action == "retry"


def test_the_seeds_hand_wave_without_any_record_is_rejected_with_its_missing_fields():
    verdict = judge.validate(SEED_STEP, seed_result(SEED_BAD), config=judge.JudgeConfig(semantic="off"))
    assert verdict.rule == "evidence_incomplete"
    assert verdict.outcome.missing_fields == ("changed_files", "commands_run", "tests_run")


def test_the_evidence_doc_cli_flag_carries_the_seeds_example(tmp_path, seed_record, capsys, monkeypatch):
    result = {k: v for k, v in seed_result(SEED_GOOD).items() if k != "evidence"}
    for name, content in (("step.json", SEED_STEP_UNSIGNED), ("result.json", result), ("doc.json", SEED_GOOD),
                          ("bad.json", SEED_BAD), ("record.json", seed_record.to_json())):
        (tmp_path / name).write_text(json.dumps(content))
    monkeypatch.chdir(tmp_path)
    base = ("validate", "--step", "step.json", "--result", "result.json", "--evidence", "record.json",
            "--semantic", "off", "--evidence-doc")
    assert run_cli(capsys, *base, "doc.json")[0] == 0
    code, out, _ = run_cli(capsys, *base, "bad.json")
    assert code == 1 and "evidence_incomplete" in out


# --- human_approval: a pause, then `judge approve` -----------------------------------------------

WORK = re.compile(r"--work ([0-9a-f]{64})")


def approve(capsys, proj: Project, approvals: Path, *extra: str, step_id: str = "step-1") -> None:
    """`judge approve`, signed with the key the project's validation checks approvals with."""
    code, out, err = run_cli(capsys, "approve", step_id, "--by", "Ana Lima", "--note", "read the diff",
                             "--approvals", str(approvals), "--evidence-key", str(proj_key(proj)), *extra)
    assert code == 0, err


def proj_key(proj: Project) -> Path:
    return proj.tmp / "judge-artifacts" / "evidence.key"  # gate_cases.config's artifacts root


def human_step(**extra) -> dict:
    return step(gate("human_approval", "a maintainer reads it"), gate("forbid_paths", paths=["vendor/**"]), **extra)


def test_human_approval_pauses_then_resumes_after_judge_approve(proj, capsys):
    approvals = proj.tmp / "approvals.jsonl"
    pending = proj.validate(human_step())
    never_valid(pending, "human_approval_pending", "judge approve step-1 --by NAME --work ",
                f"--approvals {approvals}")
    assert pending.outcome.next_action == "pause_for_human" and not pending.outcome.accepted
    assert gate_result(pending, "human_approval").status == "pending"
    work = WORK.search(pending.reason).group(1)
    approve(capsys, proj, approvals, "--work", work)
    verdict = proj.validate(human_step())
    assert verdict.valid, verdict.reason
    assert verdict.outcome.next_action == "advance"
    assert "approved by 'Ana Lima'" in gate_result(verdict, "human_approval").message


def test_an_approval_of_other_work_does_not_count(proj, capsys):
    approvals = proj.tmp / "approvals.jsonl"
    work = WORK.search(proj.validate(human_step()).reason).group(1)
    approve(capsys, proj, approvals, "--work", "0" * 64)
    approve(capsys, proj, approvals, "--work", work, step_id="step-2")
    verdict = proj.validate(human_step())
    never_valid(verdict, "human_approval_pending")


def test_changing_the_work_after_the_approval_asks_again(proj, capsys):
    approvals = proj.tmp / "approvals.jsonl"
    work = WORK.search(proj.validate(human_step()).reason).group(1)
    approve(capsys, proj, approvals, "--work", work)
    assert proj.validate(human_step()).valid
    proj.change({"src/app.py": (proj.root / "src" / "app.py").read_text() + "# and one more line\n"})
    again = proj.validate(human_step())
    never_valid(again, "human_approval_pending")
    assert WORK.search(again.reason).group(1) != work


def test_changing_only_the_evidence_file_after_the_approval_asks_again(proj, capsys):
    """For a step that changes nothing else, the evidence file is the work the person read: a new one is new work
    (records leave it out, since it is written after the tests ran; an approval does not)."""
    evidence_file = proj.root / ".orchestrator" / "evidence" / "step-1.json"
    evidence_file.parent.mkdir(parents=True)
    evidence_file.write_text(json.dumps({"stepId": "step-1", "type": "analysis", "summary": "read"}) + "\n",
                             encoding="utf-8")
    approvals = proj.tmp / "approvals.jsonl"
    work = WORK.search(proj.validate(human_step()).reason).group(1)
    approve(capsys, proj, approvals, "--work", work)
    assert proj.validate(human_step()).valid
    evidence_file.write_text(json.dumps({"stepId": "step-1", "type": "analysis", "summary": "other"}) + "\n",
                             encoding="utf-8")
    again = proj.validate(human_step())
    never_valid(again, "human_approval_pending")
    assert WORK.search(again.reason).group(1) != work


def test_an_approval_without_work_approves_nothing(proj, capsys):
    """What an executor appends to approve whatever it left (`work: null`), even signed, approves nothing."""
    approvals = proj.tmp / "approvals.jsonl"
    approvals.write_text('{"version": 1, "stepId": "step-1", "by": "Ana", "work": null, "at": "2026-11-23T10:00:00Z"}\n')
    verdict = proj.validate(human_step())
    never_valid(verdict, "human_approval_pending", "line(s) 1 approve nothing")


def test_an_approval_appended_by_hand_for_this_work_approves_nothing(proj, capsys):
    """The executor can read the work hash from the pending verdict and append a line naming it: without the MAC of
    the orchestrator's key (in judge's state directory, which it cannot read) it counts for nothing."""
    approvals = proj.tmp / "approvals.jsonl"
    approve(capsys, proj, proj.tmp / "elsewhere.jsonl", "--work", "0" * 64)  # the project's key exists
    work = WORK.search(proj.validate(human_step()).reason).group(1)
    approvals.write_text(json.dumps({"version": 1, "stepId": "step-1", "by": "Ana", "work": work,
                                     "at": "2026-11-23T10:00:00Z", "mac": "f" * 64}) + "\n")
    never_valid(proj.validate(human_step()), "human_approval_pending", "do not carry the MAC")


def test_human_approval_without_a_workspace_binds_to_the_patch(proj, capsys):
    approvals = proj.tmp / "approvals.jsonl"
    pending = proj.validate(human_step(), workspace=False)
    assert pending.rule == "human_approval_pending"
    approve(capsys, proj, approvals, "--work", WORK.search(pending.reason).group(1))
    assert proj.validate(human_step(), workspace=False).valid


def test_the_human_is_not_asked_when_another_gate_fails(proj, capsys):
    work = WORK.search(proj.validate(human_step()).reason).group(1)
    approve(capsys, proj, proj.tmp / "approvals.jsonl", "--work", work)
    verdict = proj.validate(step(gate("human_approval"), gate("forbid_paths", paths=["src/**"])))
    assert verdict.rule == "gate_failed" and gate_result(verdict, "human_approval").status == "skipped"


@pytest.mark.parametrize("where", ["repo/.judge/approvals.jsonl", "repo/approvals.jsonl"])
def test_an_approvals_file_inside_the_repository_is_refused(tmp_path, capsys, where):
    # ignored by git, so it is no part of the change: only the gates' own check can refuse it
    proj = project(tmp_path, {**FILES, ".gitignore": ".judge/\napprovals.jsonl\n"}).change()
    inside = proj.tmp / where
    approve(capsys, proj, inside, "--work", "0" * 64)  # an executor could write this one itself
    verdict = proj.validate(human_step(), approvals=str(inside))
    assert not verdict.valid and verdict.rule != "human_approval_pending"
    assert "inside the judged repository" in verdict.reason
    assert verdict.outcome.next_action == "diagnose"


def test_an_approvals_file_that_is_a_link_is_refused(proj, capsys):
    real = proj.tmp / "real.jsonl"
    approve(capsys, proj, real, "--work", "0" * 64)
    os.symlink(real, proj.tmp / "link.jsonl")
    verdict = proj.validate(human_step(), approvals=str(proj.tmp / "link.jsonl"))
    assert not verdict.valid and "symbolic link" in verdict.reason


def test_an_approval_binds_a_binary_files_full_content(tmp_path):
    """git's diff shows a binary file by a 7-hex blob id: these two contents share it (found by brute force), so an
    approval bound to the diff's text would cover the swap. The work hash covers every changed file's full blob id."""
    from helpers.scenario_repos import Repo, git

    first = bytes.fromhex("00000000000000000000617070726f766564207061796c6f6164")
    swapped = bytes.fromhex("000000000000000000006576696c207061796c6f61640398b23e")
    repo = Repo(tmp_path / "repo", {"a.py": "x\n"})
    approvals = tmp_path / "approvals.jsonl"
    config = judge.JudgeConfig(semantic="off", approvals=str(approvals), artifacts_root=str(tmp_path / "judge"))
    s = {"id": "s", "description": "Add the reviewed data file blob.bin", "gates": [{"type": "human_approval"}]}

    def judged_with(content: bytes) -> judge.Verdict:
        (repo.root / "blob.bin").write_bytes(content)
        git(repo.root, "add", "-N", "blob.bin")  # the executor's patch shows the new file
        result = {"mode": "apply", "success": True, "patch": repo.diff("--binary"), "filesWritten": ["blob.bin"],
                  "filesTouched": ["blob.bin"], "summary": "added blob.bin"}
        return judge.validate(s, result, workspace=judge.Workspace(str(repo.root), repo.base), config=config)

    pending = judged_with(first)
    assert pending.rule == "human_approval_pending"
    work = re.search(r"--work ([0-9a-f]{64})", pending.reason).group(1)
    key = load_or_create_key(tmp_path / "judge" / "evidence.key")  # the config's artifacts root: validation's key
    judge.append_approval(str(approvals), step_id="s", by="Ada", work=work, key=key)
    assert judged_with(first).valid
    assert judged_with(swapped).rule == "human_approval_pending"


def test_a_renamed_file_listed_by_its_new_name_matches_git(tmp_path):
    # `git diff --name-only` prints a rename by its new name: honest evidence, with a workspace too
    from helpers.scenario_repos import Repo, git

    repo = Repo(tmp_path / "repo", {"a.py": "".join(f"x{i} = {i}\n" for i in range(20))})
    git(repo.root, "mv", "a.py", "b.py")
    result = {"mode": "apply", "success": True, "patch": git(repo.root, "diff", "--cached", "-M", repo.base),
              "filesWritten": ["a.py", "b.py"], "filesTouched": ["a.py", "b.py"], "summary": "moved a.py to b.py",
              "evidence": {"changed_files": ["b.py"], "diff_summary": "Moved a.py to b.py."}}
    s = {"id": "s", "description": "Rename a.py to b.py"}
    config = judge.JudgeConfig(semantic="off")
    assert judge.validate(s, result, config=config).valid
    verdict = judge.validate(s, result, config=config, workspace=judge.Workspace(str(repo.root), repo.base))
    assert verdict.valid, verdict.reason


def test_a_pending_approval_names_the_lines_of_the_approvals_file_it_could_not_read(tmp_path):
    approvals = tmp_path / "approvals.jsonl"
    approvals.write_text('{"version": 1, "stepId": "s", "by": "Ada", "at": "2026-11-23T10:00:00"}\nnot json\n')
    s = {"id": "s", "description": "d", "expectsNoChanges": True, "gates": [{"type": "human_approval"}]}
    verdict = judge.validate(s, {"mode": "apply", "success": True, "summary": "checked"},
                             config=judge.JudgeConfig(semantic="off", approvals=str(approvals)))
    assert verdict.rule == "human_approval_pending"
    assert "line(s) 1, 2 of" in verdict.reason and "were ignored" in verdict.reason
