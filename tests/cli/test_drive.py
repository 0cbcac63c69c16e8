"""`judge drive` with real executor processes: SYNTHETIC agent scripts written into tmp_path, run with
sys.executable, that play one scripted action per attempt (a result, garbage, a crash, a hang, a grandchild)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from helpers.builders import run_cli
from judge.contract.schema import load_schema, schema_registry
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

pytestmark = pytest.mark.usefixtures("eval_sandbox")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def executor_cwd(eval_sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """judge (and so an executor without --repo) runs in a directory apart from tmp_path, which holds the
    transcripts: judge refuses state under the executor's working directory."""
    where = tmp_path / "cwd"
    where.mkdir()
    monkeypatch.chdir(where)
    return where
EXAMPLES = ROOT / "examples"
STEP = json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8"))
VALID = json.loads((EXAMPLES / "result-valid.json").read_text(encoding="utf-8"))
UNDECLARED = json.loads((EXAMPLES / "result-undeclared.json").read_text(encoding="utf-8"))
FAILURE = {"mode": "apply", "success": False, "summary": "src/client.py is generated from api.yaml; the generator is "
           "not in this repository, so the retry cannot be added by hand"}

# One action per attempt, as JSON in the plan file: "result" (printed in the request's mode), "stdout" (printed as
# it is), "pad" (spaces after the result), "stderr", "grandchild" ({marker, pids, delay, detach}), "sleep",
# "signal", "exit".
AGENT = r'''
import json, os, signal, subprocess, sys, time
request = json.loads(sys.stdin.read())
log, plan = sys.argv[1], json.load(open(sys.argv[2], encoding="utf-8"))
with open(log, "a", encoding="utf-8") as handle:
    handle.write(json.dumps(request) + "\n")
act = plan[min(request["attempt"], len(plan)) - 1]
if "grandchild" in act:
    child = act["grandchild"]
    late = "import sys, time; time.sleep(float(sys.argv[2])); open(sys.argv[1], 'w').write('late')"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL} if child.get("detach") else {}
    process = subprocess.Popen([sys.executable, "-c", late, child["marker"], str(child["delay"])], **quiet)
    with open(child["pids"], "a") as handle:
        handle.write(f"{process.pid}\n")
if "stderr" in act:
    sys.stderr.write(act["stderr"])
    sys.stderr.flush()
if "sleep" in act:
    time.sleep(act["sleep"])
if "signal" in act:
    os.kill(os.getpid(), getattr(signal, act["signal"]))
if "result" in act:
    sys.stdout.write(json.dumps({**act["result"], "mode": request["mode"]}) + " " * act.get("pad", 0))
elif "stdout" in act:
    sys.stdout.write(act["stdout"])
sys.stdout.flush()
sys.exit(act.get("exit", 0))
'''


class Agent:
    """The SYNTHETIC agent with its plan; ``requests()`` is every request it read on stdin."""

    def __init__(self, where: Path, *plan: dict) -> None:
        where.mkdir(parents=True, exist_ok=True)
        self.script, self.plan, self.log = where / "agent.py", where / "plan.json", where / "requests.jsonl"
        self.script.write_text(AGENT, encoding="utf-8")
        self.plan.write_text(json.dumps(plan), encoding="utf-8")

    @property
    def argv(self) -> list[str]:
        return [sys.executable, str(self.script), str(self.log), str(self.plan)]

    def requests(self) -> list[dict]:
        return lines_of(self.log) if self.log.exists() else []


def lines_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_step(where: Path, step: dict = STEP) -> str:
    path = where / "step.json"
    path.write_text(json.dumps(step), encoding="utf-8")
    return str(path)


def drive(capsys, tmp_path: Path, agent: Agent, *flags: str, step: dict = STEP) -> tuple[int, dict | str, str]:
    """`judge drive` in-process: (exit code, the stdout verdict, stderr)."""
    code, out, err = run_cli(capsys, "drive", "--step", write_step(tmp_path, step), *flags, "--", *agent.argv)
    return code, json.loads(out) if out else out, err


def reasons(transcript: Path) -> list[str]:
    return [line["verdict"]["reason"] for line in lines_of(transcript)]


def rules(transcript: Path) -> list[str | None]:
    return [line["verdict"]["rule"] for line in lines_of(transcript)]


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie nobody reaped has ended too)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def assert_grandchildren_killed(pids: Path, marker: Path) -> None:
    """Every grandchild listed in ``pids`` ends without writing ``marker`` (it would, 1.5 s after it started)."""
    for pid in map(int, pids.read_text().split()):
        for _ in range(200):  # a hang guard of 20 s: the kill is immediate, its reaping may lag
            if gone(pid):
                break
            time.sleep(0.1)
        assert gone(pid), f"grandchild {pid} still runs"
    assert not marker.exists()


# --- converging and giving up --------------------------------------------------------------------------------


def test_an_agent_that_fixes_its_mistake_after_the_feedback_is_accepted_on_attempt_2(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": UNDECLARED}, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, verdict, err = drive(capsys, tmp_path, agent, "--transcript", str(transcript))
    assert (code, verdict["valid"]) == (0, True) and set(verdict) == {"valid", "reason"}
    first, second = agent.requests()
    assert (first["mode"], first["attempt"], first["feedback"], first["applyFiles"]) == ("apply", 1, None, None)
    assert (second["mode"], second["attempt"]) == ("fix_regression", 2)
    assert second["feedback"] == reasons(transcript)[0] and second["feedback"].startswith("undeclared_file: ")
    assert sorted(second["applyFiles"]) == ["src/client.py", "vendor/requests/adapters.py"]
    assert second["step"] == STEP
    assert "attempt 1 (apply" in err and "attempt 2 (fix_regression" in err and "accepted after 2 attempts" in err


def test_an_agent_that_never_fixes_it_gives_up_at_max_attempts(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": UNDECLARED})
    transcript = tmp_path / "drive.jsonl"
    code, verdict, err = drive(capsys, tmp_path, agent, "--max-attempts", "2", "--transcript", str(transcript))
    assert code == 1 and verdict["reason"].startswith("undeclared_file: ")
    assert [line["stop"] for line in lines_of(transcript)] == [None, "max_attempts"]
    assert len(agent.requests()) == 2 and "--max-attempts" in err


# --- executors that hang, crash or write garbage ---------------------------------------------------------------


def test_a_hanging_agent_is_killed_at_the_timeout_with_its_children_and_the_drive_goes_on(capsys, tmp_path):
    marker, pids = tmp_path / "late.txt", tmp_path / "pids"
    hang = {"grandchild": {"marker": str(marker), "pids": str(pids), "delay": 1.5}, "sleep": 60}
    agent = Agent(tmp_path / "agent", hang, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, verdict, _ = drive(capsys, tmp_path, agent, "--timeout", "1", "--transcript", str(transcript))
    first, second = lines_of(transcript)
    assert first["verdict"]["rule"] == "executor_failed" and "after 1 s" in first["verdict"]["reason"]
    assert first["executor"]["timedOut"] is True and first["result"] is None
    assert second["request"]["mode"] == "apply" and second["request"]["feedback"] == first["verdict"]["reason"]
    assert (code, verdict["valid"]) == (0, True)
    assert_grandchildren_killed(pids, marker)


def test_children_an_agent_leaves_running_are_killed_when_it_is_done(capsys, tmp_path):
    # detached from the pipes, the grandchild would edit files after judge has read the work tree
    marker, pids = tmp_path / "late.txt", tmp_path / "pids"
    leave = {"grandchild": {"marker": str(marker), "pids": str(pids), "delay": 1.5, "detach": True}, "result": VALID}
    code, _, _ = drive(capsys, tmp_path, Agent(tmp_path / "agent", leave))
    assert code == 0
    assert_grandchildren_killed(pids, marker)


def test_a_crash_is_executor_failed_with_its_exit_code_and_stderr_tail(capsys, tmp_path):
    crash = {"stderr": "loading the model...\nOSError: [Errno 28] No space left on device\n", "exit": 3}
    agent = Agent(tmp_path / "agent", crash, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = drive(capsys, tmp_path, agent, "--transcript", str(transcript))
    first = lines_of(transcript)[0]
    assert first["verdict"]["rule"] == "executor_failed"
    assert "exited with code 3" in first["verdict"]["reason"]
    assert "No space left on device" in first["verdict"]["reason"]
    assert first["executor"]["exitCode"] == 3 and "No space left" in first["executor"]["stderrTail"]
    assert code == 0 and len(agent.requests()) == 2


def test_an_agent_killed_by_a_signal_is_executor_failed_naming_the_signal(capsys, tmp_path):
    transcript = tmp_path / "drive.jsonl"
    code, verdict, _ = drive(capsys, tmp_path, Agent(tmp_path / "agent", {"signal": "SIGKILL"}), "--max-attempts", "2",
                             "--transcript", str(transcript))
    assert code == 1 and rules(transcript) == ["executor_failed", "executor_failed"]
    assert "killed by SIGKILL" in verdict["reason"]
    assert lines_of(transcript)[0]["executor"]["exitCode"] == -signal.SIGKILL


@pytest.mark.parametrize("act, words", [
    ({"stdout": "I have added the retry. Done!"}, "not one JSON value"),
    ({"stdout": json.dumps(VALID) + "\n" + json.dumps(VALID)}, "not one JSON value"),
    ({"stdout": json.dumps([VALID])}, "JSON list, not an object"),
    ({"stdout": ""}, "wrote nothing on stdout"),
    ({"result": VALID, "pad": 5000}, "over the limit of 4000"),
], ids=["prose", "two-objects", "a-list", "empty", "over-max-output"])
def test_garbage_on_stdout_is_output_invalid_and_the_drive_goes_on(capsys, tmp_path, act, words):
    agent = Agent(tmp_path / "agent", act, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = drive(capsys, tmp_path, agent, "--max-output", "4000", "--transcript", str(transcript))
    assert rules(transcript) == ["executor_output_invalid", None]
    assert words in reasons(transcript)[0]
    assert code == 0


def test_json_breaking_the_result_schema_is_schema_invalid_and_retried(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": {"success": "yes", "summary": "done"}}, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = drive(capsys, tmp_path, agent, "--transcript", str(transcript))
    assert rules(transcript) == ["schema_invalid", None] and code == 0
    assert "$.result.success" in reasons(transcript)[0]


def test_a_failure_report_with_a_non_zero_exit_is_judged_as_a_failure_report(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": FAILURE, "exit": 1})
    transcript = tmp_path / "drive.jsonl"
    code, verdict, err = drive(capsys, tmp_path, agent, "--max-attempts", "5", "--transcript", str(transcript))
    (line,) = lines_of(transcript)
    assert (code, line["stop"], line["executor"]["exitCode"]) == (1, "not_retryable", 1)
    assert line["verdict"]["outcome"]["nextAction"] == "diagnose"
    assert line["result"]["success"] is False and len(agent.requests()) == 1
    assert "diagnose" in err


def test_a_success_claim_with_a_non_zero_exit_is_executor_failed(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": VALID, "exit": 2}, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = drive(capsys, tmp_path, agent, "--transcript", str(transcript))
    assert rules(transcript) == ["executor_failed", None] and code == 0
    assert "exited with code 2" in reasons(transcript)[0]


def test_a_well_formed_failure_report_stops_the_drive_with_no_retry_storm(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": FAILURE})
    code, _, err = drive(capsys, tmp_path, agent, "--max-attempts", "5")
    assert code == 1 and len(agent.requests()) == 1 and "stopped after 1 attempt" in err


# --- a real work tree ------------------------------------------------------------------------------------------

CLIENT = 'import requests\n\n\ndef fetch_user(user_id):\n    return requests.get(f"/users/{user_id}", timeout=10).json()\n'
CLIENT_RETRY = (
    "import time\n\nimport requests\n\n\ndef fetch_user(user_id, attempts=4):\n    for attempt in range(attempts):\n"
    "        try:\n            return requests.get(f\"/users/{user_id}\", timeout=10).json()\n"
    "        except requests.RequestException:\n            if attempt == attempts - 1:\n                raise\n"
    "            time.sleep(0.5 * 2**attempt)\n"
)
VENDOR = "class HTTPAdapter:\n    def send(self, request):\n        return self._send(request, timeout=self.timeout)\n"

# Edits the work tree (its working directory) per its plan and reports what `git diff BASE` shows, or a lie.
WORKSPACE_AGENT = r'''
import json, subprocess, sys
request = json.loads(sys.stdin.read())
base, log, plan = sys.argv[1], sys.argv[2], json.load(open(sys.argv[3], encoding="utf-8"))
with open(log, "a", encoding="utf-8") as handle:
    handle.write(json.dumps(request) + "\n")
act = plan[min(request["attempt"], len(plan)) - 1]
for name, text in act.get("write", {}).items():
    with open(name, "w", encoding="utf-8") as handle:
        handle.write(text)
for name in act.get("revert", []):
    subprocess.run(["git", "checkout", base, "--", name], check=True)
patch = act.get("claim") or subprocess.run(["git", "diff", base, "--", *act["report"]], capture_output=True,
                                           text=True, check=True).stdout
print(json.dumps({"mode": request["mode"], "success": True, "patch": patch, "filesWritten": ["src/client.py"],
                  "filesTouched": ["src/client.py"], "summary": "fetch_user() retries with exponential backoff"}))
'''


def workspace_drive(capsys, tmp_path: Path, *plan: dict) -> tuple[int, Path, Repo, list[dict]]:
    repo = Repo(tmp_path / "repo", {"src/client.py": CLIENT, "vendor/requests/adapters.py": VENDOR})
    script, plan_file, log = tmp_path / "agent.py", tmp_path / "plan.json", tmp_path / "requests.jsonl"
    script.write_text(WORKSPACE_AGENT, encoding="utf-8")
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = run_cli(capsys, "drive", "--step", write_step(tmp_path), "--repo", str(repo.root), "--base", repo.base,
                         "--max-attempts", "2", "--transcript", str(transcript), "--",
                         sys.executable, str(script), repo.base, str(log), str(plan_file))
    return code, transcript, repo, lines_of(log)


def test_a_work_tree_drive_whose_agent_reverts_its_hidden_change_is_accepted(capsys, tmp_path):
    # attempt 1 edits the vendored file too but reports only src/client.py; attempt 2 reverts it, reports everything
    hidden = {"write": {"src/client.py": CLIENT_RETRY, "vendor/requests/adapters.py": VENDOR.replace("self.timeout",
                                                                                                    "None")},
              "report": ["src/client.py"]}
    reverted = {"revert": ["vendor/requests/adapters.py"], "report": []}
    code, transcript, repo, requests = workspace_drive(capsys, tmp_path, hidden, reverted)
    assert rules(transcript) == ["changed_but_unclaimed", None] and code == 0
    assert "vendor/requests/adapters.py" in requests[1]["feedback"]
    assert sorted(requests[1]["applyFiles"]) == ["src/client.py", "vendor/requests/adapters.py"]
    assert (repo.root / "src/client.py").read_text() == CLIENT_RETRY and repo.head() == repo.base


def test_a_work_tree_drive_whose_agent_lies_about_the_work_tree_is_rejected(capsys, tmp_path):
    # it claims the retry but never writes it: the claim alone would pass (see the next assertion)
    honest = Repo(tmp_path / "honest", {"src/client.py": CLIENT})
    honest.write({"src/client.py": CLIENT_RETRY})
    claim = honest.diff(honest.base)
    code, transcript, repo, _ = workspace_drive(capsys, tmp_path, {"claim": claim})
    assert code == 1 and rules(transcript) == ["claimed_but_unchanged", "claimed_but_unchanged"]
    assert (repo.root / "src/client.py").read_text() == CLIENT
    code, out, _ = run_cli(capsys, "validate", "--step", write_step(tmp_path), "--result", str(_result_file(tmp_path,
                                                                                                            claim)))
    assert code == 0 and json.loads(out)["valid"] is True


def _result_file(where: Path, patch: str) -> Path:
    path = where / "claimed.json"
    path.write_text(json.dumps({"mode": "apply", "success": True, "patch": patch, "filesWritten": ["src/client.py"],
                                "filesTouched": ["src/client.py"], "summary": "retries"}), encoding="utf-8")
    return path


def test_a_relative_agent_path_runs_the_agent_given_not_a_work_tree_file_of_that_name(capsys, tmp_path, monkeypatch):
    # the same relative path inside the work tree holds another program, committed with the base
    repo = Repo(tmp_path / "repo")
    repo.write({"src/client.py": CLIENT, "agent/run.sh": f"#!/bin/sh\ntouch {tmp_path / 'planted-ran'}\n"})
    (repo.root / "agent" / "run.sh").chmod(0o755)
    repo.commit("base")
    repo.base = repo.head()
    agent = Agent(tmp_path / "agent", {"result": FAILURE})
    program = tmp_path / "agent" / "run.sh"
    program.write_text(f"#!/bin/sh\nexec {' '.join(agent.argv)}\n", encoding="utf-8")
    program.chmod(0o755)
    monkeypatch.chdir(tmp_path)
    code, _, _ = run_cli(capsys, "drive", "--step", write_step(tmp_path), "--repo", str(repo.root), "--base", repo.base,
                         "--", "./agent/run.sh")
    assert len(agent.requests()) == 1 and not (tmp_path / "planted-ran").exists()
    assert code == 1


# --- the transcript and --resume -------------------------------------------------------------------------------


def validator(kind: str) -> Draft202012Validator:
    return Draft202012Validator(load_schema(kind), registry=schema_registry())


def test_every_transcript_line_and_request_validates_against_its_schema(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"stdout": "oops"}, {"result": UNDECLARED}, {"result": VALID})
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = drive(capsys, tmp_path, agent, "--transcript", str(transcript))
    lines = lines_of(transcript)
    assert code == 0 and [line["attempt"] for line in lines] == [1, 2, 3]
    for line, received in zip(lines, agent.requests()):
        assert list(validator("drive-transcript").iter_errors(line)) == []
        assert list(validator("drive-request").iter_errors(received)) == []
        assert line["request"] == received


def killed_after_one(capsys, tmp_path: Path) -> tuple[Path, str]:
    """A transcript as a drive killed after attempt 1 leaves it, and attempt 1's reason."""
    transcript = tmp_path / "drive.jsonl"
    drive(capsys, tmp_path, Agent(tmp_path / "first", {"result": UNDECLARED}), "--max-attempts", "2",
          "--transcript", str(transcript))
    first = transcript.read_text(encoding="utf-8").splitlines(keepends=True)[0]
    transcript.write_text(first, encoding="utf-8")
    return transcript, json.loads(first)["verdict"]["reason"]


@pytest.mark.parametrize("torn", ["", '{"version": 1, "stepId": "step-3", "attem'], ids=["clean", "torn-last-line"])
def test_resume_continues_a_killed_drive_at_attempt_2_with_the_feedback_of_attempt_1(capsys, tmp_path, torn):
    transcript, reason = killed_after_one(capsys, tmp_path)
    with open(transcript, "a", encoding="utf-8") as handle:
        handle.write(torn)
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, _ = drive(capsys, tmp_path, agent, "--transcript", str(transcript), "--resume")
    (request,) = agent.requests()
    assert (request["attempt"], request["mode"], request["feedback"]) == (2, "fix_regression", reason)
    assert code == 0 and [line["stop"] for line in lines_of(transcript)] == [None, "accepted"]


@pytest.mark.parametrize("plan, expected", [({"result": VALID}, 0), ({"result": UNDECLARED}, 1)],
                         ids=["accepted", "gave-up"])
def test_resume_of_a_finished_drive_runs_nothing_and_gives_its_outcome(capsys, tmp_path, plan, expected):
    transcript = tmp_path / "drive.jsonl"
    first, _, _ = drive(capsys, tmp_path, Agent(tmp_path / "first", plan), "--max-attempts", "1",
                        "--transcript", str(transcript))
    before = transcript.read_bytes()
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, verdict, _ = drive(capsys, tmp_path, agent, "--transcript", str(transcript), "--resume")
    assert (first, code) == (expected, expected)
    assert agent.requests() == [] and transcript.read_bytes() == before
    assert verdict["reason"] == lines_of(transcript)[-1]["verdict"]["reason"]


def test_an_existing_transcript_without_resume_is_exit_2_and_left_as_it_was(capsys, tmp_path):
    transcript, _ = killed_after_one(capsys, tmp_path)
    before = transcript.read_bytes()
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, out, err = drive(capsys, tmp_path, agent, "--transcript", str(transcript))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "--resume" in err
    assert transcript.read_bytes() == before and agent.requests() == []


def test_a_transcript_of_another_step_is_exit_2(capsys, tmp_path):
    transcript, _ = killed_after_one(capsys, tmp_path)
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, "--transcript", str(transcript), "--resume",
                         step={**STEP, "id": "step-4"})
    assert code == 2 and "another step" in err and err.count("\n") == 1 and agent.requests() == []


def test_a_transcript_that_cannot_be_written_is_exit_2_before_the_agent_runs(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, "--transcript", str(tmp_path / "no-such-dir" / "drive.jsonl"))
    assert code == 2 and "--transcript" in err and err.count("\n") == 1
    assert agent.requests() == []  # no work done that the transcript would not hold


# --- budgets -------------------------------------------------------------------------------------------------


def test_the_token_budget_stops_on_the_agents_reported_usage(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": {**UNDECLARED, "usage": {"totalTokens": 700}}})
    transcript = tmp_path / "drive.jsonl"
    code, _, err = drive(capsys, tmp_path, agent, "--max-attempts", "5", "--token-budget", "1000",
                         "--transcript", str(transcript))
    assert code == 1 and [line["tokens"] for line in lines_of(transcript)] == [700, 700]
    assert lines_of(transcript)[-1]["stop"] == "token_budget" and "token budget" in err


def test_a_tiny_time_budget_stops_after_one_attempt(capsys, tmp_path):
    agent = Agent(tmp_path / "agent", {"result": UNDECLARED})
    transcript = tmp_path / "drive.jsonl"
    code, _, _ = drive(capsys, tmp_path, agent, "--max-attempts", "5", "--time-budget", "0.000001",
                       "--transcript", str(transcript))
    assert code == 1 and [line["stop"] for line in lines_of(transcript)] == ["time_budget"]


# --- bad input -------------------------------------------------------------------------------------------------


def bad_input(capsys, *argv: str) -> str:
    code, out, err = run_cli(capsys, "drive", *argv)
    assert (code, out) == (2, "") and err.count("\n") == 1 and err.startswith("judge: ")
    return err


def test_a_missing_executor_program_is_bad_input(capsys, tmp_path):
    assert "is not an executable file" in bad_input(capsys, "--step", write_step(tmp_path), "--",
                                                    str(tmp_path / "no-agent"))
    assert "not an executable file or a command on PATH" in bad_input(capsys, "--step", write_step(tmp_path), "--",
                                                                      "no-such-agent-command")


@pytest.mark.parametrize("tail", [["--"], []], ids=["dashes-only", "nothing"])
def test_no_command_is_bad_input(capsys, tmp_path, tail):
    assert "no executor command" in bad_input(capsys, "--step", write_step(tmp_path), *tail)


@pytest.mark.parametrize("flags, words", [
    (["--max-attempts", "0"], "--max-attempts"),
    (["--max-output", "0"], "--max-output"),
    (["--timeout", "0"], "--timeout"),
    (["--time-budget", "0"], "--time-budget"),
    (["--resume"], "--transcript"),
], ids=["max-attempts-0", "max-output-0", "timeout-0", "time-budget-0", "resume-without-transcript"])
def test_bad_limits_are_bad_input_and_nothing_runs(capsys, tmp_path, flags, words):
    agent = Agent(tmp_path / "agent", {"result": VALID})
    assert words in bad_input(capsys, "--step", write_step(tmp_path), *flags, "--", *agent.argv)
    assert agent.requests() == []


@pytest.mark.parametrize("step", [
    {"id": "step-3", "mode": "apply"},
    {**STEP, "mode": "rewrite"},
    {**STEP, "excludedPaths": "vendor/**"},
], ids=["no-description", "unknown-mode", "excluded-not-a-list"])
def test_a_step_breaking_its_schema_is_bad_input_and_no_attempt_is_made(capsys, tmp_path, step):
    agent = Agent(tmp_path / "agent", {"result": VALID})
    assert "--step" in bad_input(capsys, "--step", write_step(tmp_path, step), "--", *agent.argv)
    assert agent.requests() == [] and not agent.log.exists()


# --- a real process ----------------------------------------------------------------------------------------------


def test_ctrl_c_stops_the_drive_and_kills_the_agent_at_once(tmp_path):
    pids = tmp_path / "pids"
    agent = Agent(tmp_path / "agent", {"grandchild": {"marker": str(tmp_path / "late"), "pids": str(pids),
                                                      "delay": 600}, "sleep": 600})
    # the default SIGINT handler, whatever the test runner's parent left it as
    code = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
            "from judge.cli.main import main; sys.exit(main(sys.argv[1:]))")
    judge_drive = subprocess.Popen([sys.executable, "-c", code, "drive", "--step", write_step(tmp_path), "--timeout",
                                    "600", "--", *agent.argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        for _ in range(600):  # a hang guard of 60 s for the agent to start its grandchild
            if pids.exists() and pids.read_text().strip():
                break
            time.sleep(0.1)
        judge_drive.send_signal(signal.SIGINT)
        # a hang guard of 60 s; before the fix judge waited for the agent's 600 s --timeout
        _, err = judge_drive.communicate(timeout=60)
    finally:
        judge_drive.kill()
        judge_drive.wait()
    assert judge_drive.returncode == 130 and b"interrupted" in err
    assert_grandchildren_killed(pids, tmp_path / "late")


def test_cancelling_adrive_kills_the_agent_at_once(tmp_path):
    import asyncio

    import judge

    pids, marker = tmp_path / "pids", tmp_path / "late"
    # the grandchild would write at 25 s, the agent's own timeout is 30 s: only the cancel kills them in time
    agent = Agent(tmp_path / "agent", {"grandchild": {"marker": str(marker), "pids": str(pids), "delay": 25},
                                       "sleep": 600})

    async def cancelled() -> None:
        task = asyncio.create_task(judge.adrive(STEP, judge.CommandExecutor(tuple(agent.argv), timeout=30)))
        for _ in range(600):  # a hang guard of 60 s for the agent to start its grandchild
            if pids.exists() and pids.read_text().strip():
                break
            await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.to_thread(assert_grandchildren_killed, pids, marker)  # before asyncio.run joins the thread

    asyncio.run(cancelled())
