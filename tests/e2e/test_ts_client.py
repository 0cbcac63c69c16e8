"""examples/ts-client: the Node 20 client of `judge serve` and `judge validate`, run with node against real servers.

Each test runs node: the example, or a short ES module that imports the client and prints JSON. The judge servers
are real `judge serve` processes on 127.0.0.1 (port 0: any free one); the failure paths a real server cannot be
made to take on demand (503, a reply that is not a verdict, no reply) come from SYNTHETIC servers written in node
inside the test's own script.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from judge.cli.main import main as judge_main
from judge.contract.schema import load_schema
from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from judge.patch.paths import unsafe_reason
from judge.pipeline import validate
from judge.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
CLIENT_DIR = ROOT / "examples" / "ts-client"
CLIENT_URL = (CLIENT_DIR / "judge-client.mjs").as_uri()
EXAMPLES = ROOT / "examples"
JUDGE_BIN = [sys.executable, "-m", "judge.cli.main"]  # this Python's judge, wherever the console script is
TOKEN = "tsclient-test-token-0123456789abcdef"
NODE_MAJOR_NEEDED = 20


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not on PATH: the TypeScript client (examples/ts-client) needs Node.js 20 or later")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    major = re.match(r"v(\d+)\.", version)
    if major is None or int(major.group(1)) < NODE_MAJOR_NEEDED:
        pytest.skip(f"node {version or '(no version)'} is on PATH; the TypeScript client needs Node.js "
                    f"{NODE_MAJOR_NEEDED} or later")
    return node


pytestmark = pytest.mark.loopback


@pytest.fixture(scope="module")
def node() -> str:
    return _node()


def _env() -> dict[str, str]:
    """This process's environment, with this checkout first on PYTHONPATH: node's judge is the one under test."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


@contextmanager
def judge_serve(*flags: str, token: str | None = None) -> Iterator[str]:
    """A real `judge serve` on 127.0.0.1 and any free port; its base URL once /healthz answers."""
    env = {k: v for k, v in _env().items() if k != "JUDGE_SERVER_TOKEN"}
    if token is not None:
        env["JUDGE_SERVER_TOKEN"] = token
    proc = subprocess.Popen([*JUDGE_BIN, "serve", "--port", "0", *flags], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    lines: queue.Queue[str] = queue.Queue()
    # stderr is drained all along, so that the server never blocks on a full pipe
    threading.Thread(target=_forward_lines, args=(proc.stderr, lines), daemon=True).start()
    try:
        yield _wait_until_serving(proc, lines)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _forward_lines(stream: Any, lines: queue.Queue[str]) -> None:
    for line in stream:
        lines.put(line)


def _wait_until_serving(proc: subprocess.Popen, lines: queue.Queue[str]) -> str:
    said = []
    while True:
        try:
            line = lines.get(timeout=90)
        except queue.Empty:
            pytest.fail(f"judge serve said nothing for 90 s; stderr so far: {said}")
        said.append(line)
        found = re.search(r"serving on (http://\S+) ", line)
        if found:
            break
        if proc.poll() is not None:
            pytest.fail(f"judge serve exited {proc.returncode}: {''.join(said)}")
    url = found.group(1)
    with urllib.request.urlopen(f"{url}/healthz", timeout=30) as reply:
        assert json.load(reply) == {"status": "ok"}
    return url


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with judge_serve("--max-body", "65536") as url:
        yield url


@pytest.fixture(scope="module")
def token_server() -> Iterator[str]:
    with judge_serve(token=TOKEN) as url:
        yield url


def run_node(node: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([node, *args], capture_output=True, text=True, timeout=180, cwd=ROOT,
                          env={**_env(), **(env or {})})


def node_script(node: str, body: str, **env: str) -> Any:
    """Run ``body`` as an ES module with the client imported as ``judge``; what it printed last, parsed as JSON."""
    code = f"import * as judge from {json.dumps(CLIENT_URL)};\n{body}"
    proc = run_node(node, "--input-type=module", "-e", code, env={"JUDGE_BIN": json.dumps(JUDGE_BIN), **env})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def judge_validate(capsys: pytest.CaptureFixture, step: Path, result: Path, *flags: str) -> tuple[int, str, str]:
    """`judge validate` in this process: exit code, stdout, stderr."""
    capsys.readouterr()
    code = judge_main(["validate", "--step", str(step), "--result", str(result), *flags])
    out, err = capsys.readouterr()
    return code, out, err


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


# A JS helper for the scripts below: the outcome of a call, whether it gave a verdict or threw.
OUTCOME_JS = """
const outcome = async (call) => {
  try { return { verdict: await call() }; }
  catch (e) { return { error: { name: e.name, code: e.code, status: e.status, retryAfter: e.retryAfter,
                                exitCode: e.exitCode, message: e.message } }; }
};
"""


def test_every_module_parses(node: str) -> None:
    modules = sorted(CLIENT_DIR.rglob("*.mjs"))
    assert {"judge-client.mjs", "example.mjs"} <= {m.name for m in modules}
    for module in modules:
        proc = run_node(node, "--check", str(module))
        assert proc.returncode == 0, f"{module}: {proc.stderr}"


def test_example_agrees_with_judge_validate(node: str, server: str, capsys: pytest.CaptureFixture) -> None:
    proc = run_node(node, str(CLIENT_DIR / "example.mjs"), server, *JUDGE_BIN)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    printed = re.findall(r"^(http|cli) +(\S+) (\{.*\})$", proc.stdout, re.M)
    assert len(printed) == 4
    for transport, name, verdict in printed:
        code, out, _ = judge_validate(capsys, EXAMPLES / "step.json", EXAMPLES / name)
        assert json.loads(verdict) == json.loads(out), (transport, name)
        assert code == (0 if json.loads(out)["valid"] else 1)
    attempts = [json.loads(a) for a in re.findall(r"^attempt \d+ (\{.*\})$", proc.stdout, re.M)]
    assert [(a["mode"], a["verdict"]["valid"]) for a in attempts] == [("apply", False), ("fix_regression", True)]
    assert attempts[0]["feedback"] is None and attempts[0]["applyFiles"] is None
    assert attempts[1]["feedback"] == attempts[0]["verdict"]["reason"]
    assert attempts[1]["applyFiles"] == ["src/client.py", "vendor/requests/adapters.py"]
    assert proc.stdout.rstrip().endswith("accepted after 2 attempt(s)")


def test_http_and_cli_verdicts_equal_judge_validate(node: str, server: str, capsys: pytest.CaptureFixture,
                                                   tmp_path: Path) -> None:
    broken = tmp_path / "result-without-success.json"
    broken.write_text(json.dumps({k: v for k, v in _load(EXAMPLES / "result-valid.json").items() if k != "success"}))
    failure = tmp_path / "result-failure-report.json"  # valid as a report, the step not done: the CLI's exit 3
    failure.write_text(json.dumps(_failure_report()))
    results = [EXAMPLES / "result-valid.json", EXAMPLES / "result-undeclared.json", broken, failure]
    got = node_script(node, OUTCOME_JS + f"""
const {{ readFileSync }} = await import("node:fs");
const step = JSON.parse(readFileSync({json.dumps(str(EXAMPLES / "step.json"))}, "utf8"));
const judgeBin = JSON.parse(process.env.JUDGE_BIN);
const out = [];
for (const file of {json.dumps([str(r) for r in results])}) {{
  const result = JSON.parse(readFileSync(file, "utf8"));
  out.push({{ http: await outcome(() => judge.validateHttp({json.dumps(server)}, {{ step, result }})),
             cli: await outcome(() => judge.validateCli({{ step, result }}, {{ judgeBin }})) }});
}}
console.log(JSON.stringify(out));
""")
    for result, both in zip(results, got):
        _, out, _ = judge_validate(capsys, EXAMPLES / "step.json", result)
        assert both == {"http": {"verdict": json.loads(out)}, "cli": {"verdict": json.loads(out)}}, result.name
    assert [both["http"]["verdict"]["valid"] for both in got] == [True, False, False, True]
    assert "not done" in got[3]["cli"]["verdict"]["reason"]
    assert got[2]["http"]["verdict"]["reason"].startswith("schema_invalid")


def test_explain_gives_the_full_verdict(node: str, server: str) -> None:
    step, result = _load(EXAMPLES / "step.json"), _load(EXAMPLES / "result-undeclared.json")
    got = node_script(node, f"""
const verdict = await judge.validateHttp({json.dumps(server)}, {{ step: {json.dumps(step)}, result: {json.dumps(result)} }},
                                         {{ explain: true }});
console.log(JSON.stringify(verdict));
""")
    expected = validate(step, result).full_json()
    assert set(got) == set(expected) and "records" in got and "judgeVersion" in got  # camelCase, as the model's
    for key in ("valid", "reason", "rule", "findings", "gates", "records", "evidenceMethod", "outcome"):
        assert got[key] == expected[key], key
    assert got["outcome"]["nextAction"] == "retry"
    assert [set(stage) for stage in got["stages"]] == [set(stage) for stage in expected["stages"]]


def _failure_report() -> dict:
    """A valid report of a step not done: the executor says it could not, and changed nothing."""
    return {**_load(EXAMPLES / "result-valid.json"), "success": False, "patch": "", "filesWritten": [],
            "filesTouched": [], "summary": "The client is generated from openapi.yaml, which this step may not edit."}


def test_judge_http_reads_accepted_from_the_headers(node: str, server: str) -> None:
    """judgeHttp: Judge-Accepted and Judge-Next-Action beside the verdict. A failure report (success: false) is a
    valid verdict that is not accepted; with explain the headers are the outcome's."""
    step = _load(EXAMPLES / "step.json")
    results = {"valid": _load(EXAMPLES / "result-valid.json"), "undeclared": _load(EXAMPLES / "result-undeclared.json"),
               "failure": _failure_report()}
    got = node_script(node, f"""
const step = {json.dumps(step)};
const out = {{}};
for (const [name, result] of Object.entries({json.dumps(results)})) {{
  out[name] = {{ contract: await judge.judgeHttp({json.dumps(server)}, {{ step, result }}),
                full: await judge.judgeHttp({json.dumps(server)}, {{ step, result }}, {{ explain: true }}),
                verdict: await judge.validateHttp({json.dumps(server)}, {{ step, result }}) }};
}}
console.log(JSON.stringify(out));
""")
    said = {name: (both["contract"]["verdict"]["valid"], both["contract"]["accepted"], both["contract"]["nextAction"])
            for name, both in got.items()}
    assert said == {"valid": (True, True, "advance"), "undeclared": (False, False, "retry"),
                    "failure": (True, False, "diagnose")}
    for name, both in got.items():
        assert set(both["contract"]) == {"verdict", "accepted", "nextAction"}
        assert both["contract"]["verdict"] == both["verdict"]  # validateHttp's answer is unchanged: the verdict only
        outcome = both["full"]["verdict"]["outcome"]
        assert (both["full"]["accepted"], both["full"]["nextAction"]) == (outcome["accepted"], outcome["nextAction"])
        assert (both["full"]["accepted"], both["full"]["nextAction"]) == said[name][1:], name
        expected = validate(step, results[name]).full_json()["outcome"]
        assert outcome == expected, name


def test_judge_http_fails_closed_on_missing_or_contradicting_headers(node: str) -> None:
    """A 200 verdict whose headers are missing, unreadable or contradict it is never accepted: a JudgeError."""
    valid = json.dumps({"valid": True, "reason": "ok"})
    full = json.dumps({"valid": True, "reason": "ok", "outcome": {"accepted": False, "nextAction": "diagnose"}})
    json_type = {"content-type": "application/json"}
    replies = {
        "no_headers": [200, json_type, valid],
        "no_next_action": [200, {**json_type, "judge-accepted": "true"}, valid],
        "accepted_yes": [200, {**json_type, "judge-accepted": "yes", "judge-next-action": "advance"}, valid],
        "unknown_action": [200, {**json_type, "judge-accepted": "true", "judge-next-action": "ship_it"}, valid],
        "accepted_invalid": [200, {**json_type, "judge-accepted": "true", "judge-next-action": "advance"},
                             json.dumps({"valid": False, "reason": "stub_body: fill it in"})],
        "against_outcome": [200, {**json_type, "judge-accepted": "true", "judge-next-action": "advance"}, full],
        "agrees": [200, {**json_type, "judge-accepted": "false", "judge-next-action": "diagnose"}, full],
    }
    got = node_script(node, OUTCOME_JS + SYNTHETIC_SERVER_JS + f"""
const out = {{}};
for (const [name, reply] of Object.entries({json.dumps(replies)})) {{
  const server = await synthetic([reply]);
  out[name] = {{ judged: await outcome(() => judge.judgeHttp(server.url, request, {{ explain: true }})),
                validated: await outcome(() => judge.validateHttp(server.url, request, {{ explain: true }})) }};
  server.close();
}}
console.log(JSON.stringify(out));
""")
    agrees = got.pop("agrees")
    assert agrees["judged"] == {"verdict": {"verdict": json.loads(full), "accepted": False, "nextAction": "diagnose"}}
    for name, both in got.items():
        assert (both["judged"]["error"]["code"], both["judged"]["error"]["status"]) == ("unreadable_reply", 200), name
        assert "verdict" in both["validated"], name  # validateHttp reads the body only, as it always did
    assert "Judge-Accepted header is missing" in got["no_headers"]["judged"]["error"]["message"]


def test_records_are_sent_as_records_whichever_name_they_are_given(node: str) -> None:
    """`records` goes as `records`; the older `evidence` is taken and sent as `records`; both at once is refused
    before anything is sent."""
    record = {"stepId": "s", "runId": "r", "command": ["true"]}  # the server's to check; only its place matters here
    got = node_script(node, OUTCOME_JS + f"""
const http = await import("node:http");
const bodies = [];
const server = http.createServer((req, res) => {{
  let body = "";
  req.on("data", (chunk) => {{ body += chunk; }});
  req.on("end", () => {{
    bodies.push(JSON.parse(body));
    res.writeHead(200, {{ "content-type": "application/json" }}).end(JSON.stringify({{ valid: false, reason: "x: y" }}));
  }});
}});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${{server.address().port}}`;
const base = {{ step: {{ id: "s", description: "d" }}, result: {{ mode: "apply", success: true }} }};
const records = [{json.dumps(record)}];
await judge.validateHttp(url, {{ ...base, records }});
await judge.validateHttp(url, {{ ...base, evidence: records }});
await judge.validateHttp(url, {{ ...base, records: null, evidence: null }});
let both;
try {{ await judge.validateHttp(url, {{ ...base, records, evidence: records }}); }} catch (e) {{ both = e.name; }}
server.close();
console.log(JSON.stringify({{ bodies, both }}));
""")
    base = {"step": {"id": "s", "description": "d"}, "result": {"mode": "apply", "success": True}}
    assert got["bodies"] == [{**base, "records": [record]}, {**base, "records": [record]}, base]
    assert got["both"] == "TypeError"


# The scripted executor, as a node module body: the first result until there is feedback, then the fixed one,
# in the mode it was asked for. `judge drive` runs it as a command (request on stdin, result on stdout); the
# retryLoop script below calls the same function.
EXECUTOR_JS = """
const scripted = (results) => (request) =>
  ({ ...(request.feedback === null ? results.first : results.fixed), mode: request.mode });
"""
EXECUTOR_COMMAND_JS = EXECUTOR_JS + """
const { readFileSync } = await import("node:fs");
const results = JSON.parse(readFileSync(process.argv[1], "utf8"));
console.log(JSON.stringify(scripted(results)(JSON.parse(readFileSync(0, "utf8")))));
"""
EVIDENCE_SPEC = {"required": ["tests_run"]}
TESTS_RUN = {"commands_run": ["pytest tests/test_client.py"], "tests_run": ["pytest tests/test_client.py"]}


def _drive_scenario(name: str) -> tuple[dict, dict, dict]:
    """The step, the first result and the fixed one of a scripted drive."""
    step, undeclared, valid = (_load(EXAMPLES / f) for f in ("step.json", "result-undeclared.json",
                                                               "result-valid.json"))
    if name == "fix_drops_required_evidence":  # its scope is right; as the step's whole work it lacks evidence
        return {**step, "evidenceSchema": EVIDENCE_SPEC}, {**undeclared, "evidence": TESTS_RUN}, valid
    if name == "first_in_wrong_files":  # nothing to fix inside docs/: the next attempt applies again
        docs = {"mode": "apply", "success": True, "summary": "documented the retry instead of adding it",
                "patch": "diff --git a/docs/retry.md b/docs/retry.md\nnew file mode 100644\n--- /dev/null\n"
                         "+++ b/docs/retry.md\n@@ -0,0 +1 @@\n+Retries: see fetch_user.\n",
                "filesWritten": ["docs/retry.md"], "filesTouched": ["docs/retry.md"]}
        return step, docs, valid
    if name == "failure_report":  # valid, not accepted, and a retry cannot help: one attempt, not accepted
        return step, _failure_report(), valid
    if name == "fix_keeps_required_evidence":
        return {**step, "evidenceSchema": EVIDENCE_SPEC}, {**undeclared, "evidence": TESTS_RUN}, \
            {**valid, "evidence": TESTS_RUN}
    return step, undeclared, valid


@pytest.mark.parametrize("scenario", ["example", "fix_drops_required_evidence", "fix_keeps_required_evidence",
                                      "first_in_wrong_files", "failure_report"])
def test_retry_loop_asks_and_decides_as_judge_drive_does(node: str, server: str, tmp_path: Path, scenario: str,
                                                         capsys: pytest.CaptureFixture) -> None:
    """The same scripted executor under retryLoop (judged over HTTP) and under `judge drive`: the same requests,
    the same verdicts, the same number of attempts."""
    step, first, fixed = _drive_scenario(scenario)
    got = node_script(node, EXECUTOR_JS + f"""
const executor = scripted({json.dumps({"first": first, "fixed": fixed})});
const attempts = await judge.retryLoop({json.dumps(step)}, executor,
  (judged, result) => judge.validateHttp({json.dumps(server)}, {{ step: judged, result }}, {{ explain: true }}),
  {{ maxAttempts: 3 }});
console.log(JSON.stringify(attempts));
""")
    (tmp_path / "step.json").write_text(json.dumps(step))
    (tmp_path / "results.json").write_text(json.dumps({"first": first, "fixed": fixed}))
    transcript = tmp_path / "drive.jsonl"
    capsys.readouterr()
    code = judge_main(["drive", "--step", str(tmp_path / "step.json"), "--max-attempts", "3", "--transcript",
                       str(transcript), "--", node, "--input-type=module", "-e", EXECUTOR_COMMAND_JS,
                       str(tmp_path / "results.json")])
    driven = [json.loads(line) for line in transcript.read_text().splitlines()]
    assert [a["request"] for a in got] == [a["request"] for a in driven]
    assert [{k: a["verdict"][k] for k in ("valid", "reason", "rule")} for a in got] == \
           [{k: a["verdict"][k] for k in ("valid", "reason", "rule")} for a in driven]
    assert [a["accepted"] for a in got] == [a["verdict"]["outcome"]["accepted"] for a in driven]
    assert code == (0 if got[-1]["accepted"] else 1)
    if scenario == "failure_report":
        assert [(a["verdict"]["valid"], a["accepted"], a["verdict"]["outcome"]["nextAction"]) for a in got] == \
               [(True, False, "diagnose")]
        return
    assert got[1]["request"]["feedback"] == got[0]["verdict"]["reason"]
    if scenario == "fix_drops_required_evidence":
        assert [a["verdict"]["valid"] for a in got] == [False, False, False]
    elif scenario == "first_in_wrong_files":
        assert [a["request"]["mode"] for a in got] == ["apply", "apply"]
        assert [a["verdict"]["valid"] for a in got] == [False, True]
    else:
        assert [a["verdict"]["valid"] for a in got] == [False, True]


def test_retry_loop_stops_where_judge_drive_stops(node: str) -> None:
    """The loop's own decisions, with a validate callback that answers from a script (no server: the loop is only
    handed verdicts): maxAttempts, outcome.nextAction, a valid verdict its outcome does not accept, an apply that
    changed nothing, and a bad maxAttempts."""
    step = _load(EXAMPLES / "step.json")
    got = node_script(node, f"""
const step = {json.dumps(step)};
const done = {{ mode: "apply", success: true, patch: "", filesWritten: ["src/client.py"] }};
const nothing = {{ mode: "apply", success: false, summary: "could not do it" }};
const say = (verdicts) => {{ let n = 0; return async () => verdicts[Math.min(n++, verdicts.length - 1)]; }};
const shape = (attempts) => attempts.map(({{ request }}) => [request.mode, request.feedback, request.applyFiles]);
const rejected = {{ valid: false, reason: "stub_body: fill it in" }};
const diagnose = {{ ...rejected, outcome: {{ accepted: false, nextAction: "diagnose" }} }};
const notDone = {{ valid: true, reason: "the step is not done: it could not", outcome: {{ accepted: false, nextAction: "diagnose" }} }};
const contractValid = {{ valid: true, reason: "ok" }};
let badMax;
try {{ await judge.retryLoop(step, () => done, say([rejected]), {{ maxAttempts: 0 }}); }} catch (e) {{ badMax = e.name; }}
console.log(JSON.stringify({{
  exhausted: shape(await judge.retryLoop(step, () => done, say([rejected]), {{ maxAttempts: 3 }})),
  notRetryable: shape(await judge.retryLoop(step, () => done, say([diagnose]), {{ maxAttempts: 3 }})),
  validNotDone: (await judge.retryLoop(step, () => nothing, say([notDone]), {{ maxAttempts: 3 }})).map((a) => a.accepted),
  validContract: (await judge.retryLoop(step, () => done, say([contractValid]), {{ maxAttempts: 3 }})).map((a) => a.accepted),
  changedNothing: shape(await judge.retryLoop(step, () => nothing, say([rejected]), {{ maxAttempts: 2 }})),
  badMax,
}}));
""")
    fix = ["fix_regression", "stub_body: fill it in", ["src/client.py"]]
    assert got["exhausted"] == [["apply", None, None], fix, fix]
    assert got["notRetryable"] == [["apply", None, None]]
    assert got["validNotDone"] == [False]  # valid, but its outcome does not accept it: the loop stops, not accepted
    assert got["validContract"] == [True]  # a {valid, reason} verdict says no more than valid
    assert got["changedNothing"] == [["apply", None, None], ["apply", "stub_body: fill it in", None]]
    assert got["badMax"] == "RangeError"


# Scenarios the sample diffs lack: a copy writes only its new file; a hunk line that looks like a file header.
PATCH_SCENARIOS = {
    "copy_with_edit": "diff --git a/src/a.py b/src/b.py\nsimilarity index 90%\ncopy from src/a.py\ncopy to src/b.py\n"
                      "--- a/src/a.py\n+++ b/src/b.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
    "header_lookalikes_in_hunks": "diff --git a/db/q.sql b/db/q.sql\n--- a/db/q.sql\n+++ b/db/q.sql\n@@ -1,2 +1 @@\n"
                                  "--- a/comment\n select 1;\ndiff --git a/db/r.sql b/db/r.sql\n--- a/db/r.sql\n"
                                  "+++ b/db/r.sql\n@@ -1 +1,2 @@\n select 2;\n+++ b/added\n",
}


def test_patch_paths_equal_judges_own(node: str) -> None:
    """patchPaths (the apply attempt's files, for applyFiles) against judge.patch.parse: every sample diff judge
    reads with safe names (it rejects the others whatever their applyFiles), and the scenarios above."""
    samples = dict(PATCH_SCENARIOS)
    for sample in sorted((ROOT / "tests" / "fixtures").rglob("*.diff")):
        samples[str(sample.relative_to(ROOT))] = sample.read_text(encoding="utf-8")
    expected = {}
    for name, patch in samples.items():
        try:
            paths = list(parse_patch(patch).paths)
        except MalformedPatch:
            continue
        if not any(unsafe_reason(path) for path in paths):
            expected[name] = paths
    assert len(expected) >= 30 and set(PATCH_SCENARIOS) <= set(expected)
    got = node_script(node, f"""
const patches = {json.dumps({name: samples[name] for name in expected})};
console.log(JSON.stringify(Object.fromEntries(Object.entries(patches).map(([n, p]) => [n, judge.patchPaths(p)]))));
""")
    assert got == expected


def test_an_oversize_body_is_judge_error_413(node: str, server: str) -> None:
    got = node_script(node, OUTCOME_JS + f"""
const result = {{ mode: "apply", success: true, patch: "+".repeat(100_000) }};
console.log(JSON.stringify(await outcome(() => judge.validateHttp({json.dumps(server)},
                                                                  {{ step: {{ id: "s", description: "d" }}, result }}))));
""")
    assert set(got) == {"error"}
    assert (got["error"]["name"], got["error"]["status"], got["error"]["code"]) == ("JudgeError", 413,
                                                                                    "payload_too_large")
    assert "65536" in got["error"]["message"]


def test_the_token_is_sent_and_a_wrong_one_is_judge_error_401(node: str, token_server: str,
                                                              capsys: pytest.CaptureFixture) -> None:
    step, result = _load(EXAMPLES / "step.json"), _load(EXAMPLES / "result-valid.json")
    got = node_script(node, OUTCOME_JS + f"""
const call = (token) => outcome(() => judge.validateHttp({json.dumps(token_server)},
                                                         {{ step: {json.dumps(step)}, result: {json.dumps(result)} }},
                                                         {{ token }}));
console.log(JSON.stringify({{ wrong: await call("not-the-token-of-this-server"), none: await call(undefined),
                               right: await call({json.dumps(TOKEN)}) }}));
""")
    for refused in (got["wrong"], got["none"]):
        assert (refused["error"]["status"], refused["error"]["code"]) == (401, "unauthorized")
    _, out, _ = judge_validate(capsys, EXAMPLES / "step.json", EXAMPLES / "result-valid.json")
    assert got["right"] == {"verdict": json.loads(out)}


# SYNTHETIC: a node HTTP server on 127.0.0.1 that answers each request with the next of `replies`
# ([status, headers, body]; the last one repeats) and counts the requests; `hang: true` never answers.
SYNTHETIC_SERVER_JS = """
const http = await import("node:http");
const synthetic = async (replies, { hang = false } = {}) => {
  const state = { requests: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const [status, headers, body] = replies[Math.min(state.requests++, replies.length - 1)];
      if (!hang) res.writeHead(status, headers).end(body);
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  state.url = `http://127.0.0.1:${server.address().port}`;
  state.close = () => { server.closeAllConnections(); server.close(); };
  return state;
};
const request = { step: { id: "s", description: "d" }, result: { mode: "apply", success: true } };
const verdictBody = JSON.stringify({ valid: false, reason: "undeclared_file: synthetic" });
const overloaded = (retryAfter) => [503, { "retry-after": retryAfter, "content-type": "application/json" },
                                    JSON.stringify({ error: { code: "overloaded", message: "synthetic: busy" } })];
"""


def test_503_is_retried_after_retry_after(node: str) -> None:
    got = node_script(node, OUTCOME_JS + SYNTHETIC_SERVER_JS + """
const busyOnce = await synthetic([overloaded("1"), [200, { "content-type": "application/json" }, verdictBody]]);
const waits = [];
const once = await outcome(() => judge.validateHttp(busyOnce.url, request, { onRetry: (r) => waits.push(r.delayMs) }));
busyOnce.close();
const busy = await synthetic([overloaded("0")]);
const always = await outcome(() => judge.validateHttp(busy.url, request, { retries: 2 }));
busy.close();
console.log(JSON.stringify({ once, waits, onceRequests: busyOnce.requests, always, alwaysRequests: busy.requests }));
""")
    assert got["once"] == {"verdict": {"valid": False, "reason": "undeclared_file: synthetic"}}
    assert (got["waits"], got["onceRequests"]) == ([1000], 2)
    error = got["always"]["error"]
    assert (error["name"], error["status"], error["code"], error["retryAfter"]) == ("JudgeError", 503, "overloaded", 0)
    assert got["alwaysRequests"] == 3  # the first try and two retries, then it gives up


def test_a_reply_that_is_not_a_verdict_is_never_valid(node: str) -> None:
    """Fail closed: every reply the client cannot read as a verdict is a JudgeError, whatever `valid` it holds."""
    replies = [
        [200, {"content-type": "application/json"}, json.dumps({"valid": True})],
        [200, {"content-type": "application/json"}, json.dumps({"valid": "true", "reason": "looks fine"})],
        [200, {"content-type": "application/json"}, json.dumps({"valid": True, "reason": "ok", "error": {}})],
        [200, {"content-type": "text/html"}, "<html>valid: true</html>"],
        [200, {"content-type": "application/json"}, json.dumps([{"valid": True, "reason": "ok"}])],
        [502, {"content-type": "text/html"}, "<html>bad gateway</html>"],
        [500, {"content-type": "application/json"}, json.dumps({"valid": True, "reason": "ok"})],
    ]
    got = node_script(node, OUTCOME_JS + SYNTHETIC_SERVER_JS + f"""
const out = [];
for (const reply of {json.dumps(replies)}) {{
  const server = await synthetic([reply]);
  out.push(await outcome(() => judge.validateHttp(server.url, request, {{ explain: true }})));
  server.close();
}}
console.log(JSON.stringify(out));
""")
    assert [(o["error"]["code"], o["error"]["status"]) for o in got] == [
        ("unreadable_reply", status) for status, _, _ in replies]


def test_no_reply_is_a_client_timeout_and_no_server_a_network_error(node: str) -> None:
    got = node_script(node, OUTCOME_JS + SYNTHETIC_SERVER_JS + """
const silent = await synthetic([[200, {}, ""]], { hang: true });
const timedOut = await outcome(() => judge.validateHttp(silent.url, request, { timeoutMs: 300 }));
silent.close();
const gone = await synthetic([[200, {}, ""]]);
gone.close();
const refused = await outcome(() => judge.validateHttp(gone.url, request));
console.log(JSON.stringify({ timedOut, refused }));
""")
    assert (got["timedOut"]["error"]["code"], got["timedOut"]["error"]["status"]) == ("client_timeout", None)
    assert got["refused"]["error"]["code"] == "network_error"
    assert "ECONNREFUSED" in got["refused"]["error"]["message"]


def test_cli_bad_input_is_judge_error_with_judges_line(node: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    missing_repo = str(tmp_path / "no-such-repo")
    base = "0" * 40
    got = node_script(node, OUTCOME_JS + f"""
const judgeBin = JSON.parse(process.env.JUDGE_BIN);
const request = {{ step: {json.dumps(_load(EXAMPLES / "step.json"))}, result: {json.dumps(_load(EXAMPLES / "result-valid.json"))} }};
console.log(JSON.stringify({{
  badRepo: await outcome(() => judge.validateCli(request, {{ judgeBin, repo: {json.dumps(missing_repo)}, base: "{base}" }})),
  noJudge: await outcome(() => judge.validateCli(request, {{ judgeBin: {json.dumps(str(tmp_path / "no-judge"))} }})),
}}));
""")
    code, _, err = judge_validate(capsys, EXAMPLES / "step.json", EXAMPLES / "result-valid.json", "--repo",
                                  missing_repo, "--base", base)
    assert code == 2
    error = got["badRepo"]["error"]
    assert (error["name"], error["code"], error["exitCode"], error["status"]) == ("JudgeError", "cli_error", 2, None)
    assert error["message"] == err.strip().splitlines()[-1]
    assert got["noJudge"]["error"]["code"] == "cli_unavailable"


# ---- the declaration file stays the schemas' -------------------------------------------------------------------

def _interfaces(text: str) -> dict[str, dict[str, bool]]:
    """judge-client.d.mts's interfaces: each property's name -> whether it is required (no `?`)."""
    found: dict[str, dict[str, bool]] = {}
    for name, parent, body in re.findall(r"^export interface (\w+)(?:<[^>]*>)?(?: extends (\w+))? \{\n(.*?)^\}",
                                         text, re.M | re.S):
        props = dict(found.get(parent, {})) if parent else {}
        props.update({p: not optional for p, optional in re.findall(r"^  (\w+)(\?)?:", body, re.M)})
        found[name] = props
    return found


def _schema_properties(schema: dict) -> dict[str, bool]:
    required = set(schema.get("required", ()))
    return {name: name in required for name in schema["properties"]}


@pytest.mark.parametrize("interface, schema", [
    ("Step", "step"), ("ExecuteStepResult", "result"), ("DriveRequest", "drive-request"), ("Verdict", "verdict"),
    ("ValidateRequest", "validate-request"), ("ExecutionEvidence", "execution-evidence"),
    ("EvidenceDoc", "evidence-doc"), ("Policies", "policies"), ("EvidenceSchemaSpec", "evidence-schema"),
    ("Gate", "gate"),
])
def test_declared_types_have_the_schemas_properties(interface: str, schema: str) -> None:
    declared = _interfaces((CLIENT_DIR / "judge-client.d.mts").read_text(encoding="utf-8"))
    assert declared[interface] == _schema_properties(load_schema(schema))


def test_declared_full_verdict_is_the_verdict_model() -> None:
    declared = _interfaces((CLIENT_DIR / "judge-client.d.mts").read_text(encoding="utf-8"))
    schema = Verdict.model_json_schema(mode="serialization")
    assert declared["FullVerdict"] == _schema_properties(schema)
    for name in ("Finding", "StageReport", "GateResult", "Outcome", "SemanticReport", "SampleRecord", "CallRecord"):
        assert declared[name] == _schema_properties(schema["$defs"][name]), name


def test_declared_unions_are_the_schemas_enums() -> None:
    text = (CLIENT_DIR / "judge-client.d.mts").read_text(encoding="utf-8")
    workspace = load_schema("validate-request")["properties"]["workspace"]
    assert _interfaces(text)["WorkspaceSpec"] == _schema_properties(workspace)
    gate_types = re.search(r"^export interface Gate \{\n  type:(.*?);$", text, re.M | re.S).group(1)
    assert re.findall(r'"(\w+)"', gate_types) == load_schema("gate")["properties"]["type"]["enum"]
    error_codes = re.findall(r'"(\w+)"', re.search(r"^export type ErrorCode =(.*?);$", text, re.M | re.S).group(1))
    served = load_schema("error")["properties"]["error"]["properties"]["code"]["enum"]
    assert error_codes[:len(served)] == served  # the service's codes, then the client's own
