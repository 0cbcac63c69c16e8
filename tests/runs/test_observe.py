"""Seed 001's observer: each failure class from real runs, the auth words both ways, and the class in the finding."""

from __future__ import annotations

import sys

import pytest

import judge
from judge.runs.artifacts import record_execution
from judge.runs.execute import run_command
from judge.runs.observe import CLASS_MEANING, failure_class, is_auth_failure
from judge.runs.record import evidence_hash

PY = sys.executable
STEP = {"id": "step-1", "description": "Deploy the release notes to the docs site", "mode": "apply",
        "expectsNoChanges": True}
RESULT = {"mode": "apply", "success": True, "summary": "published the notes"}


def _run(tmp_path, command, **options):
    return record_execution(command, step_id="step-1", root=tmp_path, **options)


def _built(stderr: str = "", exit_code: int | None = 1, **facts):
    """A record with consistent facts and a verifying hash, as `judge run` would write it."""
    record = run_command([PY, "-c", "pass"], step_id="step-1", run_id="r")
    command = ("deploy", "--prod")
    return record.model_copy(update={
        "command": command, "stderr": stderr, "exit_code": exit_code, "stdout": "",
        "evidence_hash": evidence_hash(command, "", stderr, exit_code), **facts})


# --- each class from a real run ------------------------------------------------------------------


def test_success_has_no_class(tmp_path):
    assert failure_class(_run(tmp_path, [PY, "-c", "pass"])) is None


def test_other_non_zero_exit_is_execution_failure(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "echo '2 failed' >&2; exit 1"])
    assert failure_class(record) == "EXECUTION_FAILURE"


def test_stderr_speaking_of_auth_is_auth_error(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "echo 'fatal: Authentication failed for https://example.test/x.git' >&2; exit 128"])
    assert failure_class(record) == "AUTH_ERROR"


def test_auth_words_on_stdout_only_are_not_read(tmp_path):
    # The observer reads stderr, where tools report why they stopped; a test log on stdout may name anything.
    record = _run(tmp_path, ["sh", "-c", "echo 'test_authentication failed'; exit 1"])
    assert failure_class(record) == "EXECUTION_FAILURE"


def test_auth_words_with_exit_0_are_success(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "echo 'warning: unauthorized mirror skipped' >&2"])
    assert failure_class(record) is None


def test_missing_program_is_not_found(tmp_path):
    record = _run(tmp_path, ["/no/such/program"])
    assert (record.status, failure_class(record)) == ("NO_EVIDENCE", "NOT_FOUND")


def test_program_missing_from_path_is_not_found(tmp_path):
    assert failure_class(_run(tmp_path, ["judge-no-such-program-xyz"])) == "NOT_FOUND"


def test_exit_127_from_a_shell_that_found_nothing_is_not_found(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "judge-no-such-program-xyz"])
    assert (record.exit_code, failure_class(record)) == (127, "NOT_FOUND")


def test_exit_127_without_the_words_is_an_execution_failure(tmp_path):
    assert failure_class(_run(tmp_path, ["sh", "-c", "exit 127"])) == "EXECUTION_FAILURE"


def test_a_program_that_cannot_start_is_no_evidence(tmp_path):
    record = _run(tmp_path, [str(tmp_path)])  # a directory: permission denied, not "not found"
    assert (record.status, failure_class(record)) == ("NO_EVIDENCE", "NO_EVIDENCE")


def test_a_missing_working_directory_is_no_evidence_not_a_missing_program(tmp_path):
    record = _run(tmp_path, [PY, "-c", "pass"], cwd=tmp_path / "gone")
    assert "gone" in record.error and failure_class(record) == "NO_EVIDENCE"


def test_timeout(tmp_path):
    record = _run(tmp_path, [PY, "-c", "import time; time.sleep(30)"], timeout=0.3)
    assert record.timed_out and failure_class(record) == "TIMEOUT"


def test_timeout_wins_over_auth_words(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "echo 'authentication required' >&2; sleep 30"], timeout=0.5)
    assert failure_class(record) == "TIMEOUT"


# --- the class reads the facts, never the status field -------------------------------------------


def test_status_field_is_not_trusted(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "exit 3"])
    assert failure_class(record.model_copy(update={"status": "SUCCESS"})) == "EXECUTION_FAILURE"
    ok = _run(tmp_path, [PY, "-c", "pass"], run_id="ok")
    assert failure_class(ok.model_copy(update={"status": "FAILURE"})) is None


def test_not_found_wins_over_timeout_and_auth():
    record = _built("sh: 1: deploy: not found\nauthentication failed", exit_code=127, timed_out=True)
    assert failure_class(record) == "NOT_FOUND"


def test_no_exit_code_and_no_error_is_no_evidence():
    assert failure_class(_built("", exit_code=None)) == "NO_EVIDENCE"


def test_every_class_has_a_meaning():
    assert set(CLASS_MEANING) == {"NO_EVIDENCE", "NOT_FOUND", "TIMEOUT", "AUTH_ERROR", "EXECUTION_FAILURE"}
    assert "retrying the step will not help" in CLASS_MEANING["AUTH_ERROR"]


# --- the auth words, both ways -------------------------------------------------------------------

AUTH = [
    "fatal: Authentication failed for 'https://github.com/o/r.git/'",
    "Error response from daemon: unauthorized: authentication required",
    "npm ERR! code E401",
    "HTTP 401",
    "HTTP/1.1 401 Unauthorized",
    "error: 403 Forbidden",
    "status code: 403",
    "git@github.com: Permission denied (publickey).",
    "Permission denied (publickey,password).",
    "openai.AuthenticationError: Incorrect API key provided",
    "Error: Invalid API key",
    "{'code': 'invalid_api_key'}",
    "You are not authenticated. Please log in.",
    "auth error: token rejected",
    "AUTH FAILED",
    "401 Unauthorized",
    "UNAUTHORIZED",
    "request was unauthorised",
    "user is not authorized to perform: s3:GetObject",
    "remote: Invalid username or password.",
    "Bad credentials",
    "Unable to locate credentials. You can configure credentials by running \"aws configure\".",
    "The provided token has expired",
    "You are not logged into any GitHub hosts.",
    "error: You must be logged in to the server (Unauthorized)",
    "Login failed for user 'sa'.",
    "ERROR 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)",
    "failed to authenticate with the registry",
    "Authorization failed",
    "unauthenticated",
]

NOT_AUTH = [
    "author",
    "Co-authored-by: Jane <jane@example.test>",
    "authored 3 commits",
    "AUTHORS file missing",
    "certificate authority unknown",
    "oauthlib not installed",
    "the authorization header was added",
    "authentication succeeded",
    "open('/etc/shadow'): Permission denied",
    "SyntaxError: invalid token",
    "error at line 401",
    "401 tests collected",
    "4013 bytes",
    "code 4031",
    "unused import (forbidden by policy)",
    "test_auth_error FAILED",
    "AssertionError: expected authenticated user",
    "api key rotated",
    "authorized_keys updated",
    "cp: cannot open 'x': Access denied",
]


@pytest.mark.parametrize("text", AUTH)
def test_auth_failure_words_are_recognised(text):
    assert is_auth_failure(text)
    assert failure_class(_built(f"deploy: {text}\n")) == "AUTH_ERROR"


@pytest.mark.parametrize("text", NOT_AUTH)
def test_other_words_are_not_auth_failures(text):
    assert not is_auth_failure(text)
    assert failure_class(_built(f"deploy: {text}\n")) == "EXECUTION_FAILURE"


def test_long_near_misses_are_read_to_the_end():
    # Output up to the 16 MiB cap: long whitespace runs inside a phrase and many phrase starts that fail.
    near_misses = "authentication" + " " * 4_000_000 + "succeeded " + "not logged out, invalid token " * 100_000
    assert not is_auth_failure(near_misses)
    assert is_auth_failure(near_misses + "login failed")


# --- the class in the finding --------------------------------------------------------------------


def test_finding_names_execution_failure_and_the_step_to_fix(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "echo '1 failed' >&2; exit 1"], run_id="r1")
    verdict = judge.validate(STEP, RESULT, evidence=[record])
    assert verdict.rule == "execution_failed"
    assert "` exited 1 (EXECUTION_FAILURE) (run r1)" in verdict.reason and "Fix what it reports" in verdict.reason


def test_finding_says_an_auth_error_is_the_environment_to_fix(tmp_path):
    record = _run(tmp_path, ["sh", "-c", "echo 'auth failed' >&2; exit 1"], run_id="r2")
    verdict = judge.validate(STEP, RESULT, evidence=[record])
    assert verdict.rule == "execution_failed" and "exited 1 (AUTH_ERROR) (run r2)" in verdict.reason
    assert "the environment, not the step, that needs fixing" in verdict.reason
    assert CLASS_MEANING["AUTH_ERROR"] in verdict.reason
    assert "Fix what it reports" not in verdict.reason


def test_hostile_stderr_is_read_in_linear_time():
    # "error" then a long run of spaces once made the search quadratic (47 s for a 60k-space line): the runs of
    # spaces the pattern accepts are bounded, and only the end of stderr is read. No clock here: a regression hangs.
    assert not is_auth_failure("error" + " " * 2_000_000 + "x")
    assert is_auth_failure("x" * 100_000 + "\nerror: 401 Unauthorized")
