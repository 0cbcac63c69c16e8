"""Execution evidence (seed 001): the hash, the truncation, the runner, the artifacts, and attaching records."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import judge
from judge.contract.schema import load_schema, parse_execution_evidence
from judge.errors import InputError
from judge.runs.artifacts import ARTIFACT_FILES, record_execution
from judge.runs.record import TRUNCATED, evidence_hash, truncate_output
from judge.runs.execute import _Capture, run_command
from judge.cli.explain import render_explanation

PY = sys.executable
STEP = {"id": "step-1", "description": "Add input validation to parse_port() in src/app.py", "mode": "apply",
        "expectsNoChanges": True}
RESULT = {"mode": "apply", "success": True, "summary": "ran the checks"}
HASH_INPUT = (("pytest", "-q"), "3 passed\n", "", 0)


# --- the hash ------------------------------------------------------------------------------------


def test_hash_is_stable_across_calls_and_runs():
    assert evidence_hash(*HASH_INPUT) == evidence_hash(*HASH_INPUT)
    # pinned: the same record must hash the same in every judge version and on every machine. It is
    # sha256 of the compact JSON array [command, stdout, stderr, exitCode]:
    # printf '%s' '[["pytest","-q"],"3 passed\n","",0]' | sha256sum
    assert evidence_hash(*HASH_INPUT) == "984ff88663c0418b95bc5271270e7fd4a123687c14a90628a64a4e3af8cf25e0"


@pytest.mark.parametrize("index, changed", [
    (0, ("pytest", "-x")), (0, ("pytest -q",)), (1, "3 passed"), (2, " "), (3, 1), (3, None),
], ids=["argv", "argv-joined", "stdout", "stderr", "exit-code", "no-exit-code"])
def test_hash_changes_when_any_input_changes(index, changed):
    varied = list(HASH_INPUT)
    varied[index] = changed
    assert evidence_hash(*varied) != evidence_hash(*HASH_INPUT)


def test_hash_does_not_confuse_where_one_field_ends():
    assert evidence_hash(["a"], "bc", "", 0) != evidence_hash(["a"], "b", "c", 0)


def test_identical_runs_give_identical_hashes(tmp_path):
    command = [PY, "-c", "import sys; print('out'); print('err', file=sys.stderr); sys.exit(3)"]
    first = run_command(command, step_id="s", run_id="r1")
    second = run_command(command, step_id="s", run_id="r2")
    assert first.evidence_hash == second.evidence_hash
    assert first.started_at != second.started_at or first.run_id != second.run_id


# --- truncation ----------------------------------------------------------------------------------


def test_output_under_the_limit_is_unchanged():
    assert truncate_output(b"hello\n", 100) == "hello\n"
    assert truncate_output(b"x" * 100, 100) == "x" * 100


def test_truncation_keeps_head_and_tail_around_the_marker():
    text = truncate_output(b"a" * 50 + b"b" * 50 + b"c" * 50, 20)
    assert text == "a" * 10 + f"\n{TRUNCATED}\n" + "c" * 10


def test_truncation_is_deterministic():
    data = os.urandom(10_000)
    assert truncate_output(data, 101) == truncate_output(data, 101)


@pytest.mark.parametrize("limit", [2, 3, 7, 64])
@pytest.mark.parametrize("chunks", [[b""], [b"x" * 10], [b"ab", b"cdefgh", b"", b"ijklmnopqrstuvwxyz" * 5]])
def test_streaming_capture_equals_truncating_the_whole_output(limit, chunks):
    capture = _Capture(limit)
    for chunk in chunks:
        capture.feed(chunk)
    assert capture.text() == truncate_output(b"".join(chunks), limit)
    assert capture.total == sum(map(len, chunks))
    assert len(capture.head) + len(capture.tail) <= limit  # memory stays bounded


# --- the runner ----------------------------------------------------------------------------------


def test_successful_command():
    evidence = run_command([PY, "-c", "print('hello')"], step_id="s", run_id="r")
    assert (evidence.status, evidence.exit_code, evidence.stdout, evidence.timed_out) == ("SUCCESS", 0, "hello\n", False)
    assert evidence.finished_at >= evidence.started_at and evidence.duration_seconds >= 0


def test_failing_command_keeps_stderr():
    evidence = run_command([PY, "-c", "import sys; sys.exit('boom')"], step_id="s", run_id="r")
    assert (evidence.status, evidence.exit_code, evidence.stderr) == ("FAILURE", 1, "boom\n")


def test_no_shell_is_involved(tmp_path):
    evidence = run_command([PY, "-c", "import sys; print(sys.argv[1])", "$HOME; echo hi"], step_id="s", run_id="r")
    assert evidence.stdout == "$HOME; echo hi\n"


def test_missing_program_is_no_evidence_never_a_fabricated_run():
    evidence = run_command(["/no/such/program"], step_id="s", run_id="r")
    assert (evidence.status, evidence.exit_code, evidence.stdout, evidence.stderr) == ("NO_EVIDENCE", None, "", "")
    assert "/no/such/program" in evidence.error


def test_timeout_kills_the_command_and_its_children():
    script = "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); time.sleep(60)"
    evidence = run_command([PY, "-c", script], step_id="s", run_id="r", timeout=0.5)
    assert (evidence.status, evidence.timed_out) == ("FAILURE", True)
    assert evidence.duration_seconds < 15


def test_huge_output_is_capped_while_read():
    evidence = run_command([PY, "-c", "import sys; sys.stdout.write('x' * 5_000_000)"], step_id="s", run_id="r",
                           limit=1000)
    assert evidence.stdout_bytes == 5_000_000 and TRUNCATED in evidence.stdout and len(evidence.stdout) < 1100


@pytest.mark.parametrize("command, timeout, limit", [([], 1, 10), (["true"], 0, 10), (["true"], 1, 1)])
def test_bad_run_options_are_input_errors(command, timeout, limit):
    with pytest.raises(InputError):
        run_command(command, step_id="s", run_id="r", timeout=timeout, limit=limit)


# --- artifacts -----------------------------------------------------------------------------------


def test_artifacts_are_written_under_root_run_and_step(tmp_path):
    evidence = record_execution([PY, "-c", "print('ok')"], step_id="step-1", root=tmp_path / "root", run_id="run-1")
    directory = tmp_path / "root" / "artifacts" / "run-1" / "step-1"
    assert sorted(p.name for p in directory.iterdir()) == sorted(ARTIFACT_FILES)
    assert evidence.artifacts == tuple(f"artifacts/run-1/step-1/{name}" for name in ARTIFACT_FILES)
    assert (directory / "stdout.log").read_text() == "ok\n"
    assert (directory / "command.txt").read_text().startswith(PY)
    assert parse_execution_evidence(json.loads((directory / "evidence.json").read_text())) == evidence


def test_evidence_json_matches_its_schema(tmp_path):
    evidence = record_execution(["/no/such/program"], step_id="s", root=tmp_path)
    errors = list(Draft202012Validator(load_schema("execution-evidence")).iter_errors(evidence.to_json()))
    assert errors == []


def test_artifacts_are_never_overwritten(tmp_path):
    record_execution([PY, "-c", "pass"], step_id="s", root=tmp_path, run_id="r")
    with pytest.raises(InputError, match="already holds artifacts"):
        record_execution([PY, "-c", "pass"], step_id="s", root=tmp_path, run_id="r")


@pytest.mark.parametrize("step_id", ["..", "../x", "a/b", "/abs", "a\\b", "", "x\n"])
def test_step_id_cannot_escape_the_root(tmp_path, step_id):
    marker = tmp_path / "ran"
    with pytest.raises(InputError):
        record_execution([PY, "-c", f"open({str(marker)!r}, 'w')"], step_id=step_id, root=tmp_path / "root")
    assert not marker.exists()  # refused before the command ran


def test_symlinked_artifact_directory_out_of_the_root_is_refused(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "root" / "artifacts")
    with pytest.raises(InputError, match="symlink"):
        record_execution([PY, "-c", "pass"], step_id="s", root=tmp_path / "root", run_id="r")
    assert list((tmp_path / "elsewhere").iterdir()) == []


# --- attached to a validation --------------------------------------------------------------------


def _record(tmp_path: Path, code: str, step_id: str = "step-1"):
    return record_execution([PY, "-c", code], step_id=step_id, root=tmp_path, run_id=f"r{abs(hash(code))}")


def test_records_appear_on_the_verdict_and_in_explain(tmp_path):
    record = _record(tmp_path, "print('3 passed')")
    verdict = judge.validate(STEP, RESULT, evidence=[record.to_json()])
    assert verdict.valid and verdict.execution_evidence == (record,)
    explained = render_explanation(verdict)
    assert record.evidence_hash in explained and "SUCCESS" in explained and record.artifacts[0] in explained


def test_failed_command_contradicts_a_claimed_success(tmp_path):
    record = _record(tmp_path, "import sys; print('1 failed: test_port'); sys.exit(1)")
    verdict = judge.validate(STEP, RESULT, evidence=[record])
    assert verdict.rule == "execution_failed" and "1 failed: test_port" in verdict.reason
    assert f"exited 1 (EXECUTION_FAILURE) (run {record.run_id})" in verdict.reason
    assert "Fix what it reports" in verdict.reason and "environment" not in verdict.reason
    assert verdict.execution_evidence == (record,)


def test_missing_program_is_the_environment_to_fix(tmp_path):
    record = record_execution(["/no/such/program"], step_id="step-1", root=tmp_path)
    verdict = judge.validate(STEP, RESULT, evidence=[record])
    assert verdict.rule == "execution_failed" and "could not be run" in verdict.reason
    assert "(NOT_FOUND)" in verdict.reason and "the environment, not the step, that needs fixing" in verdict.reason


def test_failed_command_is_fine_for_a_reported_failure(tmp_path):
    record = _record(tmp_path, "import sys; sys.exit(1)")
    result = {**RESULT, "success": False, "summary": "blocked: the tests fail on main already"}
    assert judge.validate(STEP, result, evidence=[record]).valid


def test_edited_record_is_caught_by_its_hash(tmp_path):
    record = _record(tmp_path, "import sys; sys.exit(1)").to_json()
    forged = {**record, "exitCode": 0, "status": "SUCCESS"}
    verdict = judge.validate(STEP, RESULT, evidence=[forged])
    assert verdict.rule == "execution_evidence_invalid" and "evidenceHash" in verdict.reason


def test_record_for_another_step(tmp_path):
    record = _record(tmp_path, "pass", step_id="step-9")
    assert judge.validate(STEP, RESULT, evidence=[record]).rule == "execution_evidence_invalid"


def test_record_that_breaks_its_schema_is_schema_invalid():
    verdict = judge.validate(STEP, RESULT, evidence=[{"stepId": "step-1"}])
    assert verdict.rule == "schema_invalid" and "execution-evidence" in verdict.reason


# --- status is not hashed: it is derived from what is ------------------------------------------


def test_failure_relabelled_success_is_caught(tmp_path):
    # `status` is outside evidenceHash: flipping it alone keeps the hash valid, so the rule must not trust it.
    record = _record(tmp_path, "import sys; print('1 failed'); sys.exit(1)").to_json()
    forged = {**record, "status": "SUCCESS"}
    verdict = judge.validate(STEP, RESULT, evidence=[forged])
    assert (verdict.valid, verdict.rule) == (False, "execution_evidence_invalid")
    message = verdict.findings[0].message
    assert "status SUCCESS" in message and "exit code is 1" in message and "evidenceHash" in message


def test_no_evidence_relabelled_success_is_caught(tmp_path):
    record = record_execution(["/no/such/program"], step_id="step-1", root=tmp_path).to_json()
    forged = {**record, "status": "SUCCESS", "error": None}
    assert judge.validate(STEP, RESULT, evidence=[forged]).rule == "execution_evidence_invalid"


def test_timed_out_record_is_a_failure_whatever_its_status_says(tmp_path):
    record = _record(tmp_path, "pass").to_json()  # exit 0 ...
    forged = {**record, "timedOut": True, "status": "SUCCESS"}  # ... but killed at the timeout
    verdict = judge.validate(STEP, RESULT, evidence=[forged])
    assert verdict.rule == "execution_evidence_invalid" and "timed out" in verdict.findings[0].message


def test_success_relabelled_failure_is_invalid_too(tmp_path):
    record = _record(tmp_path, "pass").to_json()
    forged = {**record, "status": "FAILURE"}
    result = {**RESULT, "success": False, "summary": "blocked: the tests fail on main already"}
    assert judge.validate(STEP, result, evidence=[forged]).rule == "execution_evidence_invalid"


def test_timed_out_run_that_exited_0_is_a_failure(tmp_path):
    # A command may exit 0 just as the timeout fires: the runner calls that FAILURE, and so does the rule.
    record = _record(tmp_path, "pass").to_json()
    timed_out = {**record, "timedOut": True, "status": "FAILURE"}
    verdict = judge.validate(STEP, RESULT, evidence=[timed_out])
    assert verdict.rule == "execution_failed" and "timed out" in verdict.reason and "(TIMEOUT)" in verdict.reason
    assert "the environment, not the step, that needs fixing" in verdict.reason
