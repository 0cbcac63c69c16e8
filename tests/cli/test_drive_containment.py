"""`judge drive` contains a hostile executor: SYNTHETIC agent scripts that try what a hostile executor would (read
judge's secrets from their environment, leave a setsid'd process to edit the work after the verdict, forge an
accepted transcript line and kill judge, escape the bubblewrap sandbox), each checked to fail."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from helpers.builders import run_cli
from judge.driver.environment import executor_environment
from judge.errors import InputError
from judge.runs.keys import load_or_create_key
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)
from test_drive import (CLIENT, CLIENT_RETRY, STEP, UNDECLARED, VALID, VENDOR, WORKSPACE_AGENT, Agent, drive,
                            lines_of, write_step)

pytestmark = pytest.mark.usefixtures("eval_sandbox")

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {"JUDGE_API_KEY": "sk-judge", "JUDGE_SERVER_TOKEN": "server-token", "OPENAI_API_KEY": "sk-openai",
           "ANTHROPIC_API_KEY": "sk-ant", "AWS_SECRET_ACCESS_KEY": "aws", "CI_DEPLOY_TOKEN": "deploy"}


@pytest.fixture(autouse=True)
def cwd(eval_sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """judge's working directory, the executor's too without --repo: apart from tmp_path (the transcripts)."""
    where = tmp_path / "cwd"
    where.mkdir()
    monkeypatch.chdir(where)
    return where


def script(where: Path, name: str, code: str) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text(code, encoding="utf-8")
    return path


# --- the environment ---------------------------------------------------------------------------------------------

ENV_AGENT = r'''
import json, os, sys
request = json.loads(sys.stdin.read())
with open(sys.argv[1], "w", encoding="utf-8") as handle:
    json.dump(dict(os.environ), handle)
print(json.dumps({**json.loads(sys.argv[2]), "mode": request["mode"]}))
'''


def seen_environment(capsys, tmp_path: Path, monkeypatch, *flags: str) -> tuple[int, dict]:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    agent = script(tmp_path / "agent", "env.py", ENV_AGENT)
    seen = tmp_path / "seen-env.json"
    code, _, _ = run_cli(capsys, "drive", "--step", write_step(tmp_path), *flags, "--", sys.executable, str(agent),
                         str(seen), json.dumps(VALID))
    return code, json.loads(seen.read_text(encoding="utf-8")) if seen.exists() else {}


def test_the_executor_gets_no_secret_of_judge_or_a_provider(capsys, tmp_path, monkeypatch):
    code, seen = seen_environment(capsys, tmp_path, monkeypatch)
    assert code == 0 and seen["PATH"] == os.environ["PATH"]
    assert sorted(set(SECRETS) & set(seen)) == [] and not any(v in SECRETS.values() for v in seen.values())


def test_pass_env_gives_the_executor_its_own_key_and_nothing_else(capsys, tmp_path, monkeypatch):
    code, seen = seen_environment(capsys, tmp_path, monkeypatch, "--pass-env", "ANTHROPIC_API_KEY")
    assert code == 0 and seen["ANTHROPIC_API_KEY"] == "sk-ant"
    assert sorted(set(SECRETS) & set(seen)) == ["ANTHROPIC_API_KEY"]


@pytest.mark.parametrize("name", ["JUDGE_API_KEY", "JUDGE_SERVER_TOKEN", "JUDGE_EVIDENCE_KEY"])
def test_pass_env_of_judges_own_setting_is_bad_input_and_nothing_runs(capsys, tmp_path, monkeypatch, name):
    agent = script(tmp_path / "agent", "env.py", ENV_AGENT)
    seen = tmp_path / "seen-env.json"
    code, out, err = run_cli(capsys, "drive", "--step", write_step(tmp_path), "--pass-env", name, "--",
                             sys.executable, str(agent), str(seen), json.dumps(VALID))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "--pass-env" in err and name in err
    assert not seen.exists()


def test_the_allowlist_keeps_locale_and_drops_what_it_does_not_know():
    source = {"PATH": "/bin", "LC_ALL": "C.UTF-8", "LANG": "C", "GITHUB_TOKEN": "t", "UNKNOWN": "x", **SECRETS}
    assert executor_environment(source) == {"PATH": "/bin", "LC_ALL": "C.UTF-8", "LANG": "C"}
    with pytest.raises(InputError, match="name only"):
        executor_environment(source, ["OPENAI_API_KEY=sk"])


# --- nothing outlives its attempt --------------------------------------------------------------------------------

# The escapee leaves the executor's session (setsid; with "double", after a double fork that orphans it), says it
# started, and waits for the verdict to be given (a file the test makes after judge drive returns) to edit the work;
# after 10 minutes it gives up, so that a failed run leaves nothing running for ever.
ESCAPEE = r'''
import os, sys, time
if sys.argv[2] == "double" and os.fork():
    os._exit(0)
os.setsid()
open("escapee-started", "w").close()
for _ in range(30000):
    if os.path.exists("verdict-given"):
        break
    time.sleep(0.02)
else:
    sys.exit()
open("written-after-verdict", "w").write("the work changed after judge's verdict")
'''
ESCAPING_AGENT = r'''
import json, os, subprocess, sys, time
request = json.loads(sys.stdin.read())
token, how, hang, result = sys.argv[1], sys.argv[2], sys.argv[3] == "hang", json.loads(sys.argv[4])
subprocess.Popen([sys.executable, "-c", sys.argv[5], token, how], stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
while not os.path.exists("escapee-started"):
    time.sleep(0.02)
if hang:
    time.sleep(600)
print(json.dumps({**result, "mode": request["mode"]}))
'''


def processes_with(token: str) -> list[int]:
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/cmdline", "rb") as handle:
                if token.encode() in handle.read().split(b"\0"):
                    found.append(int(name))
        except OSError:
            pass
    return found


def assert_nothing_left(token: str, workspace: Path) -> None:
    """No process of the attempt is left, and once the verdict is given nothing writes to the workspace."""
    for _ in range(200):  # a hang guard of 20 s: the kill is immediate, the kernel's teardown may lag
        if not processes_with(token):
            break
        time.sleep(0.1)
    assert processes_with(token) == []
    (workspace / "verdict-given").touch()
    time.sleep(0.3)  # what a survivor would need to write; none is left (above), so nothing can
    assert not (workspace / "written-after-verdict").exists()


def escaping_drive(capsys, tmp_path: Path, how: str, hang: str, *flags: str) -> tuple[int, str]:
    token = f"escapee-{uuid.uuid4().hex}"
    agent = script(tmp_path / "agent", "escape.py", ESCAPING_AGENT)
    code, _, err = run_cli(capsys, "drive", "--step", write_step(tmp_path), "--max-attempts", "1", *flags, "--",
                           sys.executable, str(agent), token, how, hang, json.dumps(VALID), ESCAPEE)
    return code, token


@pytest.mark.parametrize("how", ["setsid", "double"])
def test_a_setsid_grandchild_is_ended_with_its_attempt_and_never_writes_after_the_verdict(capsys, tmp_path, cwd,
                                                                                           how):
    code, token = escaping_drive(capsys, tmp_path, how, "finish")
    assert code == 0 and (cwd / "escapee-started").exists()
    assert_nothing_left(token, cwd)


def test_a_setsid_grandchild_of_an_agent_killed_at_the_timeout_is_ended_too(capsys, tmp_path, cwd):
    code, token = escaping_drive(capsys, tmp_path, "setsid", "hang", "--timeout", "5")
    assert code == 1 and (cwd / "escapee-started").exists()
    assert_nothing_left(token, cwd)


def test_the_sweep_leaves_judges_own_children_alone(capsys, tmp_path):
    sleeper = [sys.executable, "-c", "import time; time.sleep(600)"]
    own = subprocess.Popen(sleeper)  # in judge's session
    detached = subprocess.Popen(sleeper, start_new_session=True)  # its own session, but there before the attempt
    try:
        code, _, _ = drive(capsys, tmp_path, Agent(tmp_path / "agent", {"result": VALID}))
        assert code == 0 and own.poll() is None and detached.poll() is None
    finally:
        for process in (own, detached):
            process.kill()
            process.wait()


def test_a_command_executor_from_python_gets_the_scrubbed_environment_too(tmp_path, monkeypatch):
    from judge import CommandExecutor, drive as library_drive

    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    agent, seen = script(tmp_path / "agent", "env.py", ENV_AGENT), tmp_path / "seen-env.json"
    outcome = library_drive(STEP, CommandExecutor((sys.executable, str(agent), str(seen), json.dumps(VALID))))
    assert outcome.accepted and set(SECRETS) & set(json.loads(seen.read_text(encoding="utf-8"))) == set()


# --- judge's state out of the executor's reach -------------------------------------------------------------------


def test_a_transcript_inside_the_work_tree_is_refused_before_the_agent_runs(capsys, tmp_path):
    repo = Repo(tmp_path / "repo", {"src/client.py": CLIENT})
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, out, err = drive(capsys, tmp_path, agent, "--repo", str(repo.root), "--base", repo.base,
                           "--transcript", str(repo.root / ".git" / "drive.jsonl"))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "--transcript" in err and "workspace" in err
    assert agent.requests() == [] and not (repo.root / ".git" / "drive.jsonl").exists()


def test_a_transcript_under_the_executors_working_directory_is_refused(capsys, tmp_path, cwd):
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, "--transcript", str(cwd / "logs" / "drive.jsonl"))
    assert code == 2 and err.count("\n") == 1 and "working directory" in err and agent.requests() == []


def test_an_evidence_key_under_the_executors_working_directory_is_refused(capsys, tmp_path, cwd):
    key = cwd / ".judge" / "evidence.key"
    load_or_create_key(key)
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, "--evidence-key", str(key))
    assert code == 2 and err.count("\n") == 1 and "--evidence-key" in err and agent.requests() == []


@pytest.mark.parametrize("flag, name", [("--artifacts", "records"), ("--templates", "templates"),
                                        ("--approvals", "approvals.jsonl")])
def test_judges_state_under_the_executors_working_directory_is_refused_even_before_it_exists(capsys, tmp_path, cwd,
                                                                                            flag, name):
    """Not there yet is no excuse: judge would make it there, where the next attempt could read or rewrite it."""
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, flag, str(cwd / ".judge" / name))
    assert code == 2 and err.count("\n") == 1 and "working directory" in err and agent.requests() == []
    assert not (cwd / ".judge").exists()


# --- resume judges again ----------------------------------------------------------------------------------------

# The review's attack: the agent finds the transcript on judge's command line (/proc/<ppid>/cmdline), appends an
# "accepted" line for its undone work, and kills judge.
FORGING_AGENT = r'''
import hashlib, json, os, signal, sys
request = json.loads(sys.stdin.read())
argv = open(f"/proc/{os.getppid()}/cmdline", "rb").read().split(b"\0")
transcript = argv[argv.index(b"--transcript") + 1].decode()
step = json.dumps(request["step"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
line = {"version": 1, "stepId": request["step"]["id"], "stepSha256": hashlib.sha256(step.encode()).hexdigest(),
        "attempt": 1, "startedAt": "2026-01-01T00:00:00.000Z", "request": request,
        "result": json.loads(sys.argv[2]), "executor": {"exitCode": 0, "timedOut": False, "seconds": 1.0,
        "stderrTail": ""}, "verdict": json.loads(open(sys.argv[1]).read()), "judgeSeconds": 0.1, "tokens": 0,
        "stop": "accepted"}
with open(transcript, "a") as handle:
    handle.write(json.dumps(line) + "\n")
os.kill(os.getppid(), signal.SIGKILL)
'''


def accepted_verdict(capsys, tmp_path: Path) -> Path:
    """A verdict judge really gave when it accepted a step (the forger copies its shape)."""
    transcript = tmp_path / "honest.jsonl"
    code, _, _ = drive(capsys, tmp_path, Agent(tmp_path / "honest", {"result": VALID}), "--transcript",
                       str(transcript))
    assert code == 0
    path = tmp_path / "accepted-verdict.json"
    path.write_text(json.dumps(lines_of(transcript)[-1]["verdict"]), encoding="utf-8")
    return path


def test_a_forged_acceptance_appended_by_the_agent_that_killed_judge_is_not_accepted_on_resume(capsys, tmp_path,
                                                                                               cwd):
    repo = Repo(tmp_path / "repo", {"src/client.py": CLIENT, "vendor/requests/adapters.py": VENDOR})
    honest = Repo(tmp_path / "claimed", {"src/client.py": CLIENT})
    honest.write({"src/client.py": CLIENT_RETRY})
    claim = {"mode": "apply", "success": True, "patch": honest.diff(honest.base), "filesWritten": ["src/client.py"],
             "filesTouched": ["src/client.py"], "summary": "fetch_user() retries with exponential backoff"}
    forger = script(tmp_path / "agent", "forge.py", FORGING_AGENT)
    transcript = tmp_path / "drive.jsonl"
    flags = ["--step", write_step(tmp_path), "--repo", str(repo.root), "--base", repo.base, "--transcript",
             str(transcript)]
    main = "import sys; from judge.cli.main import main; sys.exit(main(sys.argv[1:]))"
    judge = subprocess.run([sys.executable, "-c", main, "drive", *flags, "--", sys.executable, str(forger),
                            str(accepted_verdict(capsys, tmp_path)), json.dumps(claim)], capture_output=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert judge.returncode == -9 and [line["stop"] for line in lines_of(transcript)] == ["accepted"]
    agent = Agent(tmp_path / "second", {"result": VALID})
    code, out, err = run_cli(capsys, "drive", *flags, "--resume", "--", *agent.argv)
    verdict = json.loads(out)
    assert (code, verdict["valid"]) == (1, False) and "judged again" in err
    assert (repo.root / "src/client.py").read_text() == CLIENT and agent.requests() == []


def test_resume_of_an_accepted_drive_whose_work_was_undone_is_not_accepted(capsys, tmp_path):
    repo = Repo(tmp_path / "repo", {"src/client.py": CLIENT, "vendor/requests/adapters.py": VENDOR})
    agent = script(tmp_path, "agent.py", WORKSPACE_AGENT)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([{"write": {"src/client.py": CLIENT_RETRY}, "report": ["src/client.py"]}]))
    transcript = tmp_path / "drive.jsonl"
    flags = ["--step", write_step(tmp_path), "--repo", str(repo.root), "--base", repo.base, "--transcript",
             str(transcript), "--", sys.executable, str(agent), repo.base, str(tmp_path / "log.jsonl"), str(plan)]
    first, _, _ = run_cli(capsys, "drive", *flags)
    again, _, _ = run_cli(capsys, "drive", "--resume", *flags)
    repo.write({"src/client.py": CLIENT})  # the work undone after the verdict
    code, out, err = run_cli(capsys, "drive", "--resume", *flags)
    assert (first, again) == (0, 0) and (code, json.loads(out)["valid"]) == (1, False)
    assert "judged again" in err and len(lines_of(transcript)) == 1


def test_resume_of_a_drive_accepted_on_its_fix_judges_the_fix_again_and_accepts(capsys, tmp_path):
    transcript = tmp_path / "drive.jsonl"
    first, _, _ = drive(capsys, tmp_path, Agent(tmp_path / "first", {"result": UNDECLARED}, {"result": VALID}),
                        "--transcript", str(transcript))
    agent = Agent(tmp_path / "agent", {"result": UNDECLARED})
    code, verdict, err = drive(capsys, tmp_path, agent, "--transcript", str(transcript), "--resume")
    assert (first, code, verdict["valid"]) == (0, 0, True) and "judged again" in err and agent.requests() == []
    assert [line["request"]["mode"] for line in lines_of(transcript)] == ["apply", "fix_regression"]


def test_a_forged_acceptance_of_a_rejected_claim_is_not_accepted_on_resume(capsys, tmp_path):
    transcript = tmp_path / "drive.jsonl"
    drive(capsys, tmp_path, Agent(tmp_path / "first", {"result": UNDECLARED}), "--max-attempts", "1",
          "--transcript", str(transcript))
    (line,) = lines_of(transcript)
    forged = {**line, "verdict": json.loads(accepted_verdict(capsys, tmp_path).read_text()), "stop": "accepted"}
    transcript.write_text(json.dumps(forged) + "\n", encoding="utf-8")
    code, verdict, err = drive(capsys, tmp_path, Agent(tmp_path / "agent", {"result": VALID}), "--transcript",
                               str(transcript), "--resume")
    assert code == 1 and verdict["valid"] is False and verdict["reason"] == line["verdict"]["reason"]


# --- the bubblewrap sandbox --------------------------------------------------------------------------------------

def require_bwrap() -> None:
    """Skip where bubblewrap is missing or cannot make namespaces; fail instead under JUDGE_REQUIRE_BWRAP=1
    (set by .ci/run where it installed bubblewrap)."""
    probe = ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"]
    try:
        works = subprocess.run(probe, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        works = False
    if not works:
        message = "bubblewrap (bwrap) is missing or cannot make a sandbox here: install Debian's bubblewrap"
        if os.environ.get("JUDGE_REQUIRE_BWRAP") == "1":
            pytest.fail(message + " (JUDGE_REQUIRE_BWRAP=1)")
        pytest.skip(message)


# What a sandboxed agent tries; it writes what it found into its workspace and reports the step done.
PROBE_AGENT = r'''
import json, os, socket, sys
request = json.loads(sys.stdin.read())
shown, scratch, transcript, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
found = {"home": os.environ.get("HOME"), "transcript_seen": os.path.exists(transcript)}
try:  # a path the sandbox shows read-only
    open(shown, "w").write("escaped")
    found["wrote_outside"] = True
except OSError:
    found["wrote_outside"] = False
open(scratch, "w").write("on the sandbox's own /tmp, gone with it")
found["judge_seen"] = []  # a process whose command line names a transcript: judge's
for name in filter(str.isdigit, os.listdir("/proc")):
    try:
        if b"--transcript" in open(f"/proc/{name}/cmdline", "rb").read().split(b"\0"):
            found["judge_seen"].append(name)
    except OSError:
        pass
try:
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    found["network"] = True
except OSError:
    found["network"] = False
open("probe.json", "w").write(json.dumps(found))
print(json.dumps({**json.loads(sys.argv[5]), "mode": request["mode"]}))
'''


def python_paths() -> list[str]:
    """--sandbox-read for this interpreter (a venv and the Python it was made from, wherever they are)."""
    return [flag for prefix in sorted({sys.prefix, sys.base_prefix}) for flag in ("--sandbox-read", prefix)]


def sandboxed_probe(tmp_path: Path, cwd: Path, *flags: str) -> tuple[int, dict]:
    """The probe's findings, with judge run as its own process (its command line names the transcript)."""
    agent = script(tmp_path / "agent", "probe.py", PROBE_AGENT)
    transcript = tmp_path / "drive.jsonl"
    main = "import sys; from judge.cli.main import main; sys.exit(main(sys.argv[1:]))"
    with socket.create_server(("127.0.0.1", 0)) as server:
        judge = subprocess.run([sys.executable, "-c", main, "drive", "--step", write_step(tmp_path), "--transcript",
                                str(transcript), *flags, "--", sys.executable, str(agent),
                                str(agent.parent / "escaped.txt"), str(tmp_path / "scratch.txt"), str(transcript),
                                str(server.getsockname()[1]), json.dumps(VALID)],
                               capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
                               timeout=300)
    assert (cwd / "probe.json").exists(), judge.stderr
    return judge.returncode, json.loads((cwd / "probe.json").read_text())


SANDBOX = ("--sandbox", *python_paths(), "--sandbox-read")


def test_unsandboxed_the_probe_does_see_judge_and_write_outside(tmp_path, cwd):
    code, found = sandboxed_probe(tmp_path, cwd)  # what the sandbox takes away, so its test below can fail
    assert code == 0 and found["judge_seen"] and found["wrote_outside"] and found["network"]


def test_a_sandboxed_agent_writes_only_its_workspace_and_cannot_see_judge(tmp_path, cwd):
    require_bwrap()
    code, found = sandboxed_probe(tmp_path, cwd, *SANDBOX, str(tmp_path / "agent"))
    assert code == 0 and not (tmp_path / "agent" / "escaped.txt").exists() and not (tmp_path / "scratch.txt").exists()
    assert found == {"home": "/tmp", "transcript_seen": False, "wrote_outside": False, "judge_seen": [],
                     "network": False}


def test_sandbox_network_is_there_only_when_asked(tmp_path, cwd):
    require_bwrap()
    code, found = sandboxed_probe(tmp_path, cwd, *SANDBOX, str(tmp_path / "agent"), "--sandbox-network")
    assert code == 0 and found["network"] is True and found["wrote_outside"] is False


def test_a_setsid_grandchild_in_the_sandbox_is_ended_with_its_attempt(capsys, tmp_path, cwd):
    require_bwrap()
    code, token = escaping_drive(capsys, tmp_path, "double", "finish", "--sandbox", *python_paths(),
                                 "--sandbox-read", str(tmp_path / "agent"))
    assert code == 0 and (cwd / "escapee-started").exists()
    assert_nothing_left(token, cwd)


def test_a_sandbox_that_would_show_the_transcript_is_refused(capsys, tmp_path):
    require_bwrap()
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, "--transcript", str(tmp_path / "drive.jsonl"), "--sandbox",
                         *python_paths(), "--sandbox-read", str(tmp_path))
    assert code == 2 and err.count("\n") == 1 and "sandbox" in err and agent.requests() == []


def test_sandbox_without_bubblewrap_is_refused_in_one_line_naming_the_package(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, out, err = drive(capsys, tmp_path, agent, "--sandbox", *python_paths(), "--sandbox-read",
                           str(tmp_path / "agent"))
    assert (code, out) == (2, "") and err.count("\n") == 1 and "bubblewrap" in err and agent.requests() == []


def test_a_program_outside_the_sandbox_is_refused(capsys, tmp_path):
    require_bwrap()
    agent = Agent(tmp_path / "agent", {"result": VALID})
    code, _, err = drive(capsys, tmp_path, agent, "--sandbox")
    assert code == 2 and "--sandbox-read" in err and agent.requests() == []
