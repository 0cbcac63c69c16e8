"""judge.drive / judge.adrive with Python callables as SYNTHETIC scripted executors: the request sequence each one
receives, where the drive stops, the fix_regression scope, budgets, the transcript and resuming it."""

from __future__ import annotations

import asyncio
import copy
import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import judge
from judge.contract.schema import load_schema, schema_registry

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
STEP = json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8"))
VALID = json.loads((EXAMPLES / "result-valid.json").read_text(encoding="utf-8"))
UNDECLARED = json.loads((EXAMPLES / "result-undeclared.json").read_text(encoding="utf-8"))
APPLY_FILES = ["src/client.py", "vendor/requests/adapters.py"]  # the undeclared attempt's patch paths
NEW_FILE = "diff --git a/src/other.py b/src/other.py\nnew file mode 100644\n--- /dev/null\n+++ b/src/other.py\n@@ -0,0 +1 @@\n+X = 1\n"
FAILURE = {"mode": "apply", "success": False, "summary": "the API client is vendored read-only; cannot add a retry"}


def answer(result: dict, **override: object):
    """A reply that reports ``result`` in the mode the request asked for, as an honest executor does."""
    def reply(request: dict) -> dict:
        return {**copy.deepcopy(result), "mode": request["mode"], **override}
    return reply


class Scripted:
    """A SYNTHETIC executor: attempt N gets ``replies[N-1]`` (the last repeats); every request it got is recorded."""

    def __init__(self, *replies: object) -> None:
        self.replies = replies
        self.requests: list[dict] = []

    def __call__(self, request: dict) -> object:
        self.requests.append(copy.deepcopy(request))
        reply = self.replies[min(request["attempt"], len(self.replies)) - 1]
        if isinstance(reply, BaseException):
            raise reply
        return reply(request) if callable(reply) else copy.deepcopy(reply)


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(kind), registry=schema_registry())


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- converging, giving up, stopping ------------------------------------------------------------------------


def test_a_mistake_fixed_after_the_feedback_is_accepted_on_attempt_2():
    executor = Scripted(UNDECLARED, answer(VALID))
    outcome = judge.drive(STEP, executor)
    assert (outcome.accepted, outcome.stopped, len(outcome.attempts)) == (True, "accepted", 2)
    first, second = executor.requests
    assert first == {"step": STEP, "mode": "apply", "attempt": 1, "feedback": None, "applyFiles": None,
                     "applyPatch": None}
    assert outcome.attempts[0].verdict.rule == "undeclared_file"
    assert second["mode"] == "fix_regression" and second["attempt"] == 2
    assert second["feedback"] == outcome.attempts[0].verdict.reason
    assert sorted(second["applyFiles"]) == APPLY_FILES
    assert second["applyPatch"] == UNDECLARED["patch"]
    assert [a.request for a in outcome.attempts] == executor.requests  # what was recorded is what was asked
    assert outcome.verdict.valid and outcome.verdict.outcome.next_action == "advance"


def test_adrive_with_an_async_executor_converges_the_same_way():
    received: list[dict] = []

    async def executor(request: dict) -> dict:
        received.append(copy.deepcopy(request))
        await asyncio.sleep(0)
        return answer(UNDECLARED if request["attempt"] == 1 else VALID)(request)

    outcome = asyncio.run(judge.adrive(STEP, executor))
    assert (outcome.stopped, [r["mode"] for r in received]) == ("accepted", ["apply", "fix_regression"])
    assert received[1]["feedback"] == outcome.attempts[0].verdict.reason


def test_an_async_callable_object_is_awaited():
    class Agent:
        async def __call__(self, request: dict) -> dict:
            return answer(VALID)(request)

    assert judge.drive(STEP, Agent()).accepted


def test_drive_called_inside_a_running_event_loop_still_drives():
    async def inside() -> judge.DriveOutcome:
        return judge.drive(STEP, Scripted(UNDECLARED, answer(VALID)))

    outcome = asyncio.run(inside())
    assert (outcome.stopped, len(outcome.attempts)) == ("accepted", 2)


def test_an_executor_that_never_fixes_it_gives_up_at_max_attempts():
    executor = Scripted(answer(UNDECLARED))
    outcome = judge.drive(STEP, executor, max_attempts=4)
    assert (outcome.accepted, outcome.stopped, len(executor.requests)) == (False, "max_attempts", 4)
    assert [r["mode"] for r in executor.requests] == ["apply"] + ["fix_regression"] * 3
    assert [r["attempt"] for r in executor.requests] == [1, 2, 3, 4]
    for previous, request in zip(outcome.attempts, executor.requests[1:]):
        assert request["feedback"] == previous.verdict.reason
        assert sorted(request["applyFiles"]) == APPLY_FILES  # always the apply attempt's work, never a fix's


def test_one_attempt_allowed_is_one_attempt():
    executor = Scripted(UNDECLARED)
    outcome = judge.drive(STEP, executor, max_attempts=1)
    assert (outcome.stopped, len(executor.requests)) == ("max_attempts", 1)


def test_a_well_formed_failure_report_stops_the_drive_without_a_retry():
    executor = Scripted(FAILURE)
    outcome = judge.drive(STEP, executor, max_attempts=5)
    assert (outcome.accepted, outcome.stopped, len(executor.requests)) == (False, "not_retryable", 1)
    assert outcome.verdict.outcome.next_action == "diagnose"


def test_a_failure_report_after_a_rejection_stops_too():
    executor = Scripted(UNDECLARED, answer(FAILURE))
    outcome = judge.drive(STEP, executor, max_attempts=5)
    assert (outcome.stopped, len(executor.requests)) == ("not_retryable", 2)


def test_a_missing_human_approval_pauses_for_a_human_instead_of_retrying(tmp_path):
    config = judge.JudgeConfig(approvals=str(tmp_path / "approvals.jsonl"))
    executor = Scripted(VALID)
    outcome = judge.drive({**STEP, "gates": [{"type": "human_approval"}]}, executor, config=config, max_attempts=3)
    assert (outcome.stopped, len(executor.requests)) == ("not_retryable", 1)
    assert (outcome.verdict.rule, outcome.verdict.outcome.next_action) == ("human_approval_pending", "pause_for_human")


def test_on_attempt_sees_every_attempt_in_order():
    seen: list[tuple[int, bool]] = []
    judge.drive(STEP, Scripted(UNDECLARED, answer(UNDECLARED), answer(VALID)),
                on_attempt=lambda a: seen.append((a.number, a.verdict.valid)))
    assert seen == [(1, False), (2, False), (3, True)]


# --- callables that fail --------------------------------------------------------------------------------------


def test_an_executor_that_raises_is_a_rejected_attempt_and_the_next_one_applies_again():
    executor = Scripted(RuntimeError("model quota exhausted"), answer(VALID))
    outcome = judge.drive(STEP, executor)
    first = outcome.attempts[0]
    assert (first.verdict.rule, first.result) == ("executor_failed", None)
    assert "RuntimeError" in first.verdict.reason and "model quota exhausted" in first.verdict.reason
    assert first.verdict.outcome.next_action == "retry"
    # no apply work to fix yet: the next request is `apply` again, with the failure as feedback
    assert executor.requests[1]["mode"] == "apply" and executor.requests[1]["applyFiles"] is None
    assert executor.requests[1]["feedback"] == first.verdict.reason
    assert outcome.stopped == "accepted"


@pytest.mark.parametrize("value", [None, [VALID], "valid", 3], ids=["none", "list", "str", "int"])
def test_an_executor_that_returns_no_dict_is_output_invalid(value):
    outcome = judge.drive(STEP, Scripted(value), max_attempts=2)
    assert [a.verdict.rule for a in outcome.attempts] == ["executor_output_invalid"] * 2
    assert type(value).__name__ in outcome.verdict.reason
    assert outcome.stopped == "max_attempts"


def test_an_async_executor_that_raises_is_a_rejected_attempt():
    async def executor(request: dict) -> dict:
        raise ValueError("no tokens left")

    outcome = judge.drive(STEP, executor, max_attempts=2)
    assert [a.verdict.rule for a in outcome.attempts] == ["executor_failed"] * 2
    assert "ValueError: no tokens left" in outcome.verdict.reason


def test_a_result_model_is_taken_as_its_json():
    outcome = judge.drive(STEP, lambda request: judge.ExecuteStepResult.model_validate(VALID))
    assert outcome.accepted and outcome.attempts[0].result == VALID


def test_a_result_that_is_not_json_is_a_rejected_attempt_not_a_crash(tmp_path):
    # bytes, a set, an object: what a careless Python executor returns. The transcript is JSON, so is the result.
    transcript = tmp_path / "drive.jsonl"
    outcome = judge.drive(STEP, Scripted(answer(VALID, summary=b"bytes"), answer(VALID)), transcript=str(transcript))
    assert [a.verdict.rule for a in outcome.attempts] == ["executor_output_invalid", None]
    assert "bytes" in outcome.attempts[0].verdict.reason
    assert [line["attempt"] for line in lines_of(transcript)] == [1, 2]


def test_a_result_breaking_the_schema_is_schema_invalid_and_retried():
    executor = Scripted({"mode": "apply", "success": "yes"}, answer(VALID))
    outcome = judge.drive(STEP, executor)
    assert outcome.attempts[0].verdict.rule == "schema_invalid"
    assert outcome.attempts[0].verdict.outcome.next_action == "retry"
    assert executor.requests[1]["mode"] == "apply"  # a result that breaks its schema left no work to fix
    assert executor.requests[1]["feedback"] == outcome.attempts[0].verdict.reason
    assert outcome.stopped == "accepted"


def test_an_executor_mutating_its_request_cannot_widen_what_it_is_allowed_to_touch():
    def widen(request: dict) -> dict:
        request["applyFiles"].append("src/other.py")
        request["step"]["allowedFiles"].append("**")
        return answer(VALID, patch=VALID["patch"] + NEW_FILE, filesWritten=["src/client.py", "src/other.py"],
                      filesTouched=["src/client.py", "src/other.py"])(request)

    step = copy.deepcopy(STEP)
    outcome = judge.drive(step, Scripted(UNDECLARED, widen), max_attempts=2)
    assert outcome.attempts[1].verdict.rule == "scope_fix_regression"
    assert sorted(outcome.attempts[1].request["applyFiles"]) == APPLY_FILES
    assert step == STEP  # the caller's step is not the executor's to change


# --- the fix_regression scope -----------------------------------------------------------------------------


def test_a_fix_touching_a_file_outside_the_apply_work_is_out_of_scope():
    fix = answer(VALID, patch=VALID["patch"] + NEW_FILE, filesWritten=["src/client.py", "src/other.py"],
                 filesTouched=["src/client.py", "src/other.py"])
    outcome = judge.drive(STEP, Scripted(UNDECLARED, fix), max_attempts=2)
    assert outcome.attempts[1].verdict.rule == "scope_fix_regression"
    assert "src/other.py" in outcome.attempts[1].verdict.reason
    # the same work as the apply attempt would be accepted: only the fix scope rejected it
    assert judge.validate(STEP, fix({"mode": "apply"})).valid


def test_a_fix_that_reverts_the_undeclared_file_of_attempt_1_is_accepted():
    outcome = judge.drive(STEP, Scripted(UNDECLARED, answer(VALID)))
    assert "vendor/requests/adapters.py" in outcome.attempts[0].verdict.reason
    assert outcome.attempts[1].verdict.valid and "vendor/" not in outcome.attempts[1].result["patch"]


def test_a_fix_reporting_the_apply_mode_is_a_mode_mismatch():
    outcome = judge.drive(STEP, Scripted(UNDECLARED, VALID), max_attempts=2)
    assert outcome.attempts[1].verdict.rule == "mode_mismatch"


def test_a_fix_is_still_judged_as_the_steps_whole_work():
    # inside applyFiles, but the vendor file is excluded by the step: the scope check alone would let it through
    declared = answer(UNDECLARED, filesWritten=APPLY_FILES, filesTouched=APPLY_FILES)
    outcome = judge.drive(STEP, Scripted(UNDECLARED, declared), max_attempts=2)
    assert outcome.attempts[1].verdict.rule == "scope_excluded"


def test_a_step_that_is_itself_a_fix_regression_keeps_its_own_apply_files():
    step = {**STEP, "mode": "fix_regression", "applyFiles": ["src/client.py"], "applyPatch": VALID["patch"]}
    executor = Scripted(answer(UNDECLARED), answer(VALID))
    outcome = judge.drive(step, executor)
    assert [r["mode"] for r in executor.requests] == ["fix_regression", "fix_regression"]
    assert [r["applyFiles"] for r in executor.requests] == [["src/client.py"]] * 2
    assert outcome.stopped == "accepted"


def test_an_apply_attempt_that_changed_nothing_is_followed_by_apply_again():
    nothing = {"mode": "apply", "success": True, "summary": "done"}
    executor = Scripted(nothing, answer(VALID))
    outcome = judge.drive(STEP, executor)
    assert not outcome.attempts[0].verdict.valid
    assert executor.requests[1]["mode"] == "apply" and executor.requests[1]["applyFiles"] is None


DOCS_ONLY = {"mode": "apply", "success": True, "summary": "documented the retry instead of adding it",
             "patch": "diff --git a/docs/retry.md b/docs/retry.md\nnew file mode 100644\n--- /dev/null\n"
                      "+++ b/docs/retry.md\n@@ -0,0 +1 @@\n+Retries: see fetch_user.\n",
             "filesWritten": ["docs/retry.md"], "filesTouched": ["docs/retry.md"]}


def test_an_apply_attempt_in_the_wrong_files_is_followed_by_apply_again_not_a_fix_of_those_files():
    # a fix kept to docs/retry.md could never add the retry to src/client.py: the executor must start over
    executor = Scripted(DOCS_ONLY, answer(VALID))
    outcome = judge.drive(STEP, executor)
    assert outcome.attempts[0].verdict.rule == "scope_outside_allowed"
    assert (executor.requests[1]["mode"], executor.requests[1]["applyFiles"]) == ("apply", None)
    assert executor.requests[1]["feedback"] == outcome.attempts[0].verdict.reason
    assert outcome.stopped == "accepted"


# --- bad input ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("step, options, field", [
    ({"id": "step-3", "mode": "apply"}, {}, "step"),
    ({**STEP, "allowedFiles": "src/**"}, {}, "step"),
    (STEP, {"max_attempts": 0}, "max_attempts"),
    (STEP, {"time_budget": 0}, "time_budget"),
    (STEP, {"token_budget": -1}, "token_budget"),
], ids=["no-description", "allowed-not-a-list", "max-attempts-0", "time-budget-0", "token-budget-negative"])
def test_bad_input_is_an_input_error_before_any_attempt(step, options, field):
    executor = Scripted(VALID)
    with pytest.raises(judge.InputError) as raised:
        judge.drive(step, executor, **options)
    assert raised.value.field == field
    assert executor.requests == []


@pytest.mark.parametrize("options, field", [
    ({"argv": ("/nonexistent/agent",)}, None),
    ({"argv": ("python3",), "timeout": 0}, "timeout"),
    ({"argv": ("python3",), "max_output": 1}, "max_output"),
], ids=["no-such-program", "timeout-0", "max-output-1"])
def test_a_command_executor_that_cannot_run_is_bad_input_not_failed_attempts(tmp_path, options, field):
    transcript = tmp_path / "drive.jsonl"
    with pytest.raises(judge.InputError) as raised:
        judge.drive(STEP, judge.CommandExecutor(**options), transcript=str(transcript))
    assert raised.value.field == field and not transcript.exists()


# --- budgets -----------------------------------------------------------------------------------------------


def test_the_token_budget_counts_the_executors_reported_usage():
    executor = Scripted(answer(UNDECLARED, usage={"totalTokens": 600}))
    outcome = judge.drive(STEP, executor, max_attempts=5, token_budget=1000)
    assert (outcome.stopped, len(executor.requests)) == ("token_budget", 2)
    assert [a.tokens for a in outcome.attempts] == [600, 600]


def test_usage_that_is_not_a_count_is_not_counted():
    executor = Scripted(answer(UNDECLARED, usage={"totalTokens": True}), answer(UNDECLARED, usage={"totalTokens": -5}),
                        answer(UNDECLARED, usage="many"))
    outcome = judge.drive(STEP, executor, max_attempts=3, token_budget=1)
    assert (outcome.stopped, [a.tokens for a in outcome.attempts]) == ("max_attempts", [0, 0, 0])


def test_a_tiny_time_budget_stops_after_one_attempt():
    executor = Scripted(UNDECLARED)
    outcome = judge.drive(STEP, executor, max_attempts=5, time_budget=1e-9)
    assert (outcome.stopped, len(executor.requests)) == ("time_budget", 1)


def test_an_accepted_attempt_wins_over_a_spent_budget():
    outcome = judge.drive(STEP, Scripted(answer(VALID, usage={"totalTokens": 10**6})), token_budget=1)
    assert outcome.stopped == "accepted"


# --- the transcript ------------------------------------------------------------------------------------------


def test_the_transcript_has_one_valid_line_per_attempt(tmp_path):
    transcript = tmp_path / "drive.jsonl"
    outcome = judge.drive(STEP, Scripted(RuntimeError("boom"), UNDECLARED, answer(VALID)), transcript=str(transcript))
    lines = lines_of(transcript)
    assert [line["attempt"] for line in lines] == [1, 2, 3]
    assert [line["stop"] for line in lines] == [None, None, "accepted"]
    for line in lines:
        assert list(validator("drive-transcript").iter_errors(line)) == []
        assert list(validator("drive-request").iter_errors(line["request"])) == []
    assert [line["verdict"]["reason"] for line in lines] == [a.verdict.reason for a in outcome.attempts]
    assert lines[0]["result"] is None and lines[1]["result"] == UNDECLARED
    assert len({line["stepSha256"] for line in lines}) == 1 and lines[0]["stepId"] == "step-3"


def stopped_after_one(tmp_path: Path) -> tuple[Path, str]:
    """A transcript as a drive killed after its first attempt left it, and that attempt's reason."""
    transcript = tmp_path / "drive.jsonl"
    judge.drive(STEP, Scripted(UNDECLARED), transcript=str(transcript), max_attempts=3)
    first = transcript.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    transcript.write_text(first, encoding="utf-8")
    return transcript, json.loads(first)["verdict"]["reason"]


def test_resume_continues_at_attempt_2_with_the_feedback_of_attempt_1(tmp_path):
    transcript, reason = stopped_after_one(tmp_path)
    executor = Scripted(None, answer(VALID))
    outcome = judge.drive(STEP, executor, transcript=str(transcript), resume=True)
    (request,) = executor.requests
    assert (request["attempt"], request["mode"], request["feedback"]) == (2, "fix_regression", reason)
    assert sorted(request["applyFiles"]) == APPLY_FILES
    assert (outcome.stopped, len(outcome.attempts)) == ("accepted", 2)
    assert [line["attempt"] for line in lines_of(transcript)] == [1, 2]


def test_resume_after_a_torn_last_line_redoes_that_attempt_and_leaves_a_readable_transcript(tmp_path):
    transcript, reason = stopped_after_one(tmp_path)
    with open(transcript, "a", encoding="utf-8") as handle:
        handle.write('{"version": 1, "stepId": "step-3", "stepSha2')  # killed while writing attempt 2
    executor = Scripted(None, answer(VALID))
    outcome = judge.drive(STEP, executor, transcript=str(transcript), resume=True)
    assert executor.requests[0]["feedback"] == reason and outcome.stopped == "accepted"
    assert [line["attempt"] for line in lines_of(transcript)] == [1, 2]
    # and the finished drive can still be read back
    again = judge.drive(STEP, Scripted(), transcript=str(transcript), resume=True)
    assert (again.stopped, len(again.attempts)) == ("accepted", 2)


def test_resume_of_a_finished_drive_runs_nothing_and_returns_its_outcome(tmp_path):
    transcript = tmp_path / "drive.jsonl"
    judge.drive(STEP, Scripted(answer(UNDECLARED)), transcript=str(transcript), max_attempts=2)
    before = transcript.read_bytes()
    executor = Scripted(VALID)
    outcome = judge.drive(STEP, executor, transcript=str(transcript), resume=True, max_attempts=5)
    assert executor.requests == [] and transcript.read_bytes() == before
    assert (outcome.accepted, outcome.stopped, len(outcome.attempts)) == (False, "max_attempts", 2)
    assert outcome.verdict.rule == "undeclared_file"


def test_resume_past_max_attempts_makes_no_new_attempt(tmp_path):
    transcript, _ = stopped_after_one(tmp_path)
    executor = Scripted(VALID)
    outcome = judge.drive(STEP, executor, transcript=str(transcript), resume=True, max_attempts=1)
    assert executor.requests == []
    assert (outcome.stopped, len(outcome.attempts)) == ("max_attempts", 1)


def test_a_transcript_with_attempts_is_not_reused_without_resume(tmp_path):
    transcript, _ = stopped_after_one(tmp_path)
    before = transcript.read_bytes()
    executor = Scripted(VALID)
    with pytest.raises(judge.InputError) as raised:
        judge.drive(STEP, executor, transcript=str(transcript))
    assert raised.value.field == "transcript" and executor.requests == []
    assert transcript.read_bytes() == before


def test_a_transcript_of_another_step_is_refused(tmp_path):
    transcript, _ = stopped_after_one(tmp_path)
    executor = Scripted(VALID)
    with pytest.raises(judge.InputError, match="another step") as raised:
        judge.drive({**STEP, "description": "something else"}, executor, transcript=str(transcript), resume=True)
    assert raised.value.field == "transcript" and executor.requests == []


@pytest.mark.parametrize("edit", ["startedAt", "stop", "executor.seconds", "request.mode"])
def test_an_edited_transcript_line_is_an_input_error_not_a_crash(tmp_path, edit):
    transcript, _ = stopped_after_one(tmp_path)
    line = lines_of(transcript)[0]
    *parents, key = edit.split(".")
    holder = line
    for parent in parents:
        holder = holder[parent]
    del holder[key]
    transcript.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(judge.InputError) as raised:
        judge.drive(STEP, Scripted(VALID), transcript=str(transcript), resume=True)
    assert raised.value.field == "transcript"


def test_resume_after_the_token_budget_was_spent_makes_no_new_attempt(tmp_path):
    transcript = tmp_path / "drive.jsonl"
    judge.drive(STEP, Scripted(answer(UNDECLARED, usage={"totalTokens": 600})), transcript=str(transcript),
                max_attempts=1)
    first = transcript.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    transcript.write_text(first.replace('"stop": "max_attempts"', '"stop": null'), encoding="utf-8")
    executor = Scripted(VALID)
    outcome = judge.drive(STEP, executor, transcript=str(transcript), resume=True, token_budget=500)
    assert (outcome.stopped, executor.requests) == ("token_budget", [])


# --- the semantic review, against a SYNTHETIC loopback model server -------------------------------------------


def model_config(server) -> judge.JudgeConfig:
    return judge.JudgeConfig(model="openai/judge-test", api_base=server.api_base, retries=0, timeout=5, deadline=15,
                             output_mode="none")


@pytest.mark.loopback
def test_a_semantic_rejection_is_fed_back_and_its_tokens_are_counted(scripted_server):
    from helpers.loopback import content

    server = scripted_server([content(False, "step_not_implemented: the retry never sleeps between attempts"),
                              content(True, "fetch_user() retries with exponential backoff")])
    executor = Scripted(VALID, answer(VALID))
    outcome = judge.drive(STEP, executor, config=model_config(server))
    assert (outcome.stopped, len(outcome.attempts)) == ("accepted", 2)
    assert "never sleeps" in outcome.attempts[0].verdict.reason
    assert executor.requests[1]["feedback"] == outcome.attempts[0].verdict.reason
    assert executor.requests[1]["applyFiles"] == ["src/client.py"]
    assert len(server.requests) == 2  # the fix's scope check never asks the model; its whole work once
    assert [a.tokens for a in outcome.attempts] == [15, 15]


@pytest.mark.loopback
def test_judges_own_tokens_count_against_the_token_budget(scripted_server):
    from helpers.loopback import content

    server = scripted_server([content(False, "step_not_implemented: the retry never sleeps between attempts")])
    outcome = judge.drive(STEP, Scripted(VALID, answer(VALID)), config=model_config(server), max_attempts=5,
                          token_budget=20)
    assert (outcome.stopped, [a.tokens for a in outcome.attempts]) == ("token_budget", [15, 15])
