"""`judge serve`'s application in-process (Starlette's TestClient, lifespan included): the verdicts are
`judge validate`'s, every refusal is JSON that never says valid, workspaces stay inside the roots, and the
token, the body limit, the slots and the timeout hold."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from starlette.testclient import TestClient

import judge.pipeline
from judge.cli.main import main
from judge.config import JudgeConfig
from judge.serve import access
from judge.serve.app import create_app
from judge.serve.body import Bodies, read_body
from judge.serve.replies import Refusal
from judge.serve.settings import ServerSettings
from judge.workspace.roots import WorkspaceRoots
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
STEP = json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8"))
VALID = json.loads((EXAMPLES / "result-valid.json").read_text(encoding="utf-8"))
UNDECLARED = json.loads((EXAMPLES / "result-undeclared.json").read_text(encoding="utf-8"))
TOKEN = "s3cret-token-for-tests-only-0123"
ORIGIN = "http://127.0.0.1:8765"

pytestmark = pytest.mark.usefixtures("eval_sandbox")  # no judge.toml or JUDGE_* of the checkout


def serving(*, roots: list[Path] | None = None, **settings: Any) -> TestClient:
    app = create_app(ServerSettings.checked(JudgeConfig(), roots=WorkspaceRoots.of(roots or []), **settings))
    return TestClient(app, base_url=ORIGIN, raise_server_exceptions=False)


@pytest.fixture
def client():
    with serving() as client:
        yield client


def post(client: TestClient, body: Any, path: str = "/v1/validate", **kwargs: Any):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **kwargs.pop("headers", {})}
    return client.post(path, content=content, headers=headers, **kwargs)


def assert_refused(response, status: int, code: str, *words: str) -> str:
    """A JSON error of this status and code whose one-line message holds ``words``; never a verdict."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and body["error"]["code"] == code, body
    message = body["error"]["message"]
    assert "\n" not in message and "Traceback" not in response.text and '"valid"' not in response.text
    for word in words:
        assert word in message, message
    return message


def cli_verdict(capsys, tmp_path: Path, step: dict, result: dict, *flags: str) -> dict:
    (tmp_path / "step.json").write_text(json.dumps(step), encoding="utf-8")
    (tmp_path / "result.json").write_text(json.dumps(result), encoding="utf-8")
    capsys.readouterr()
    code = main(["validate", "--step", str(tmp_path / "step.json"), "--result", str(tmp_path / "result.json"), *flags])
    verdict = json.loads(capsys.readouterr().out)
    assert code == (0 if verdict["valid"] else 1)
    return verdict


# --- verdicts ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("result, valid", [(VALID, True), (UNDECLARED, False)], ids=["valid", "undeclared"])
def test_the_verdict_is_judge_validates(client, capsys, tmp_path, result, valid):
    response = post(client, {"step": STEP, "result": result})
    assert response.status_code == 200
    assert response.json() == cli_verdict(capsys, tmp_path, STEP, result)
    assert response.json()["valid"] is valid


def test_explain_answers_the_full_verdict(client):
    response = post(client, {"step": STEP, "result": UNDECLARED}, params={"explain": "1"})
    assert response.status_code == 200
    full = response.json()
    expected = judge.pipeline.validate(STEP, UNDECLARED).full_json()
    for verdict in (full, expected):  # timings differ from run to run
        for stage in verdict["stages"]:
            stage.pop("durationMs")
    assert full == expected
    assert full["rule"] == "undeclared_file" and full["outcome"]["nextAction"] == "retry"


def test_execution_records_in_the_full_verdict_are_as_judge_run_writes_them(client, tmp_path):
    assert main(["run", "--step", "step-3", "--root", str(tmp_path / ".judge"), "--no-sign", "--", "true"]) == 0
    record = json.loads(next((tmp_path / ".judge").rglob("evidence.json")).read_text(encoding="utf-8"))
    response = post(client, {"step": STEP, "result": VALID, "records": [record]}, params={"explain": "1"})
    assert response.status_code == 200, response.text
    (echoed,) = response.json()["records"]
    # an unsigned, unbound record: to_json() leaves these keys out, the verdict's model shows them null
    assert echoed == {**record, "evidenceMac": None, "repository": None, "base": None, "workHash": None}


@pytest.mark.parametrize("body, path", [
    ({"step": {"id": "s"}, "result": VALID}, "$.step.description"),
    ({"step": STEP, "result": {**VALID, "success": "yes"}}, "$.result.success"),
    ({"step": STEP, "result": VALID, "records": [{"command": "true"}]}, "$.records[0]"),
    ({"step": STEP, "result": VALID, "evidence": [{"command": "true"}]}, "$.records[0]"),
], ids=["step", "result", "record", "record-under-its-older-name"])
def test_json_that_breaks_its_schema_is_a_schema_invalid_verdict(client, capsys, tmp_path, body, path):
    response = post(client, body)
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["valid"] is False and verdict["reason"].startswith("schema_invalid:") and path in verdict["reason"]
    flags = []
    for number, record in enumerate(body.get("records") or body.get("evidence") or ()):
        (tmp_path / f"record-{number}.json").write_text(json.dumps(record), encoding="utf-8")
        flags += ["--record", str(tmp_path / f"record-{number}.json")]
    assert verdict == cli_verdict(capsys, tmp_path, body["step"], body["result"], *flags)  # the same on every interface


# --- refusals ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("content, code, words", [
    (b"{not json", "invalid_json", ("not valid JSON", "line 1")),
    (b"", "invalid_json", ("empty",)),
    (b"\xff\xfe{}", "invalid_json", ("not UTF-8",)),
    (b'{"step": NaN, "result": {}}', "invalid_json", ("NaN",)),
    (b"[1, 2]", "invalid_request", ("must be a JSON object",)),
    (b'{"step": {}}', "invalid_request", ("no result",)),
    (b'{"step": {}, "result": {}, "evidence": {}}', "invalid_request", ("evidence must be a list",)),
    (b'{"step": {}, "result": {}, "records": 1}', "invalid_request", ("records must be a list",)),
])
def test_a_body_that_is_not_the_request_is_400(client, content, code, words):
    assert_refused(post(client, content), 400, code, *words)


@pytest.mark.parametrize("key, value", [("model", "openai/gpt-4o"), ("api_base", "http://evil.invalid/v1"),
                                        ("api_key", "sk-x"), ("config", {"semantic": "off"})])
def test_a_request_cannot_choose_the_model_or_the_config(client, key, value):
    assert_refused(post(client, {"step": STEP, "result": VALID, key: value}), 400, "invalid_request",
                   repr(key), "server's own settings")


@pytest.mark.parametrize("params, words", [({"explain": "yes"}, ("explain='yes'",)),
                                           ({"model": "x"}, ("unknown query parameter", "'model'"))])
def test_query_parameters_other_than_explain_are_400(client, params, words):
    assert_refused(post(client, {"step": STEP, "result": VALID}, params=params), 400, "invalid_request", *words)


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_not_declared_json_is_415(client, content_type):
    headers = {"Content-Type": content_type} if content_type else {}
    response = client.post("/v1/validate", content=json.dumps({"step": STEP, "result": VALID}).encode(),
                           headers=headers)
    assert_refused(response, 415, "unsupported_media_type", "Content-Type: application/json")


def test_unknown_paths_and_methods_are_json(client):
    assert_refused(client.get("/v2/validate"), 404, "not_found", "/v2/validate")
    response = client.get("/v1/validate")
    assert_refused(response, 405, "method_not_allowed", "POST")
    assert response.headers["allow"] == "POST"


def test_a_bug_inside_is_a_500_that_shows_no_traceback(monkeypatch):
    async def broken(*args: Any, **kwargs: Any):
        raise ZeroDivisionError("deliberate bug for the test")

    monkeypatch.setattr("judge.serve.app.ajudge", broken)
    with serving() as client:
        message = assert_refused(post(client, {"step": STEP, "result": VALID}), 500, "internal_error",
                                 "nothing was judged")
    assert "deliberate bug" not in message


def test_health_version_and_openapi(client):
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/version").json() == {"name": "judge", "version": judge.__version__}
    assert client.get("/openapi.json").json()["openapi"] == "3.1.0"


def test_a_lone_surrogate_in_the_input_comes_back_as_json(client, tmp_path):
    # JSON may escape a lone surrogate; the full verdict echoes attached records as given, so it must encode one
    assert main(["run", "--step", "step-3", "--root", str(tmp_path / ".judge"), "--no-sign", "--", "true"]) == 0
    record = json.loads(next((tmp_path / ".judge").rglob("evidence.json")).read_text(encoding="utf-8"))
    forged = {**record, "stdout": "\ud800 all tests passed"}
    response = post(client, {"step": STEP, "result": VALID, "evidence": [forged]}, params={"explain": "1"})
    assert response.status_code == 200
    verdict = response.json()
    assert verdict["valid"] is False and verdict["records"][0]["stdout"] == "\ud800 all tests passed"


# --- workspaces -------------------------------------------------------------------------------------------------

APP = "def parse_port(value):\n    return int(value)\n"
APP_FIXED = "def parse_port(value):\n    port = int(value)\n    assert 0 < port < 65536\n    return port\n"
WORK_STEP = {"id": "step-1", "description": "Validate the port in parse_port() in src/app.py", "mode": "apply"}


def repo_with_change(root: Path) -> tuple[Repo, dict]:
    repo = Repo(root, {"src/app.py": APP, "README.md": "# app\n"})
    repo.write({"src/app.py": APP_FIXED})
    result = {"mode": "apply", "success": True, "patch": repo.diff(repo.base), "filesWritten": ["src/app.py"],
              "filesTouched": ["src/app.py"], "summary": "parse_port() rejects ports out of range"}
    return repo, result


def test_a_workspace_inside_the_roots_is_judged_against_git(capsys, tmp_path):
    repo, result = repo_with_change(tmp_path / "work" / "app")
    body = {"step": WORK_STEP, "result": result, "workspace": {"repo": str(repo.root), "base": repo.base}}
    flags = ("--repo", str(repo.root), "--base", repo.base)
    with serving(roots=[tmp_path / "work"]) as client:
        honest = post(client, body)
        assert honest.status_code == 200 and honest.json()["valid"] is True
        assert honest.json() == cli_verdict(capsys, tmp_path, WORK_STEP, result, *flags)
        repo.write({"src/app.py": APP})  # the work is undone: only git can tell the claim is now a lie
        lie = post(client, body)
        assert lie.status_code == 200 and lie.json()["valid"] is False
        assert lie.json() == cli_verdict(capsys, tmp_path, WORK_STEP, result, *flags)
        assert post(client, {"step": WORK_STEP, "result": result}).json()["valid"] is True  # without the workspace


def test_a_workspace_outside_the_roots_is_400(tmp_path):
    repo, result = repo_with_change(tmp_path / "elsewhere")
    (tmp_path / "work").mkdir()
    body = {"step": WORK_STEP, "result": result, "workspace": {"repo": str(repo.root), "base": repo.base}}
    with serving(roots=[tmp_path / "work"]) as client:
        assert_refused(post(client, body), 400, "invalid_request", "workspace.repo", "not inside a workspace root")
        body["workspace"] = {"repo": str(tmp_path / "work" / ".." / "elsewhere"), "base": repo.base}
        assert_refused(post(client, body), 400, "invalid_request", "not inside a workspace root")
        body["workspace"] = {"ledger": "/etc/passwd"}
        assert_refused(post(client, body), 400, "invalid_request", "workspace.ledger")
    with serving() as client:  # no roots: every workspace is refused
        assert_refused(post(client, body), 400, "invalid_request", "--workspace-root")


def test_a_workspace_judge_cannot_read_is_400_after_the_contract(tmp_path):
    (tmp_path / "work" / "not-a-repo").mkdir(parents=True)
    workspace = {"repo": str(tmp_path / "work" / "not-a-repo"), "base": "a" * 40}
    with serving(roots=[tmp_path / "work"]) as client:
        assert_refused(post(client, {"step": WORK_STEP, "result": VALID, "workspace": workspace}), 400,
                       "invalid_request", "workspace.repo")
        assert_refused(post(client, {"step": WORK_STEP, "result": VALID, "workspace": {"repo": workspace["repo"]}}),
                       400, "invalid_request", "workspace.repo", "workspace.base")
        # the contract first: a broken step is its verdict, and the workspace is not read
        response = post(client, {"step": {"id": "s"}, "result": VALID, "workspace": workspace})
        assert response.status_code == 200 and response.json()["reason"].startswith("schema_invalid")


# --- access -----------------------------------------------------------------------------------------------------

def test_with_a_token_every_path_but_healthz_needs_it(monkeypatch):
    compared = []

    def spy(given: bytes, expected: bytes) -> bool:
        compared.append(given)
        return access_compare(given, expected)

    access_compare = access.hmac.compare_digest
    monkeypatch.setattr(access.hmac, "compare_digest", spy)
    with serving(token=TOKEN) as client:
        assert client.get("/healthz").status_code == 200
        for path in ("/version", "/openapi.json", "/nowhere"):
            response = client.get(path)
            assert_refused(response, 401, "unauthorized", "Authorization: Bearer")
            assert response.headers["www-authenticate"] == "Bearer"
        for wrong in (f"Bearer {TOKEN[:-1]}", f"Basic {TOKEN}", TOKEN, f"Bearer {TOKEN}x"):
            assert_refused(client.get("/version", headers={"Authorization": wrong}), 401, "unauthorized")
        assert_refused(post(client, {"step": STEP, "result": VALID}), 401, "unauthorized")
        good = {"Authorization": f"Bearer {TOKEN}"}
        assert client.get("/version", headers=good).status_code == 200
        assert post(client, {"step": STEP, "result": VALID}, headers=good).json()["valid"] is True
    assert TOKEN.encode() in compared and f"{TOKEN}x".encode() in compared


@pytest.mark.parametrize("host, allowed", [("127.0.0.1:8765", True), ("localhost:8765", True), ("[::1]:8765", True),
                                           ("127.0.0.1", True), ("evil.example:8765", False),
                                           ("127.0.0.1.nip.io:8765", False), ("10.0.0.1:8765", False)])
def test_a_loopback_server_answers_only_requests_addressed_to_loopback(client, host, allowed):
    response = client.get("/version", headers={"Host": host})
    if allowed:
        assert response.status_code == 200
    else:
        assert_refused(response, 403, "forbidden_host", host)


def test_a_server_bound_beyond_loopback_takes_any_host_with_the_token():
    with serving(host="0.0.0.0", token=TOKEN) as client:  # TestClient binds nothing: only the settings differ
        response = client.get("/version", headers={"Host": "judge.internal:8765", "Authorization": f"Bearer {TOKEN}"})
        assert response.status_code == 200


# --- limits -----------------------------------------------------------------------------------------------------

def test_a_streamed_body_over_the_limit_is_413():
    endless = (b" " * 1024 for _ in range(1024))  # 1 MiB in 1 KiB chunks, no Content-Length (chunked)
    with serving(max_body=4096) as client:
        response = client.post("/v1/validate", content=endless, headers={"Content-Type": "application/json"})
        assert "content-length" not in response.request.headers
        assert_refused(response, 413, "payload_too_large", "4096 bytes", "--max-body")


def test_the_body_is_read_only_up_to_the_limit():
    pulled: list[int] = []

    async def receive() -> dict:  # a client that would send forever
        pulled.append(1024)
        return {"type": "http.request", "body": b" " * 1024, "more_body": True}

    request = Request({"type": "http", "method": "POST", "path": "/v1/validate", "headers": []}, receive)
    with pytest.raises(Refusal) as refused:
        asyncio.run(read_body(request, 4096))
    assert refused.value.status == 413 and sum(pulled) == 4096 + 1024  # the first chunk past the limit, no more


def _request(receive: Any) -> Request:
    return Request({"type": "http", "method": "POST", "path": "/v1/validate", "headers": []}, receive)


def test_bodies_being_read_share_a_budget_and_each_has_a_deadline():
    bodies = Bodies(limit=4096, seconds=0.5, budget=3000)

    async def scenario() -> tuple[Refusal, Refusal, int]:
        async def trickle() -> dict:  # 2000 bytes, then the rest never comes
            if not sent:
                sent.append(1)
                return {"type": "http.request", "body": b" " * 2000, "more_body": True}
            await asyncio.Event().wait()

        async def whole() -> dict:
            return {"type": "http.request", "body": b" " * 2000, "more_body": False}

        sent: list[int] = []
        slow = asyncio.create_task(bodies.read(_request(trickle)))
        while bodies.held == 0:
            await asyncio.sleep(0.01)
        with pytest.raises(Refusal) as over_budget:
            await bodies.read(_request(whole))  # 2000 + 2000 > 3000
        with pytest.raises(Refusal) as too_slow:
            await slow
        return over_budget.value, too_slow.value, bodies.held

    over_budget, too_slow, held = asyncio.run(scenario())
    assert (over_budget.status, over_budget.code) == (503, "overloaded") and over_budget.headers["Retry-After"] == "1"
    assert "already hold 2000 of its 3000 bytes" in over_budget.message
    assert (too_slow.status, too_slow.code) == (408, "body_timeout") and "0.5 s" in too_slow.message
    assert too_slow.headers["Connection"] == "close" and held == 0  # its bytes are given back
    assert asyncio.run(bodies.read(_request(_whole_body))) == b"{}"  # and a body that comes whole is read


def test_a_body_that_stalls_gives_its_bytes_back_long_before_the_request_deadline():
    """Part of a body, then nothing: refused for its rate (after a grace) while the deadline is still a minute
    away, so clients that each send a share of the budget and stall cannot hold it for the whole deadline."""
    bodies = Bodies(limit=10**6, seconds=60, budget=10**7, min_rate=10_000, grace=0.2)

    async def stall() -> dict:
        if not sent:
            sent.append(1)
            return {"type": "http.request", "body": b" " * 1000, "more_body": True}
        await asyncio.Event().wait()

    async def scenario() -> Refusal:
        reading = asyncio.create_task(bodies.read(_request(stall)))
        done, _ = await asyncio.wait({reading}, timeout=30)  # a margin: the rate gives out after about 0.3 s
        assert done, "still waiting for the stalled body"
        with pytest.raises(Refusal) as refused:
            reading.result()
        return refused.value

    sent: list[int] = []
    refused = asyncio.run(scenario())
    assert (refused.status, refused.code) == (408, "body_timeout") and "slower than" in refused.message
    assert bodies.held == 0


async def _whole_body() -> dict:
    return {"type": "http.request", "body": b"{}", "more_body": False}


def test_a_declared_length_over_the_limit_is_413_at_once():
    with serving(max_body=4096) as client:
        response = post(client, {"step": STEP, "result": {**VALID, "summary": "x" * 8000}})
        assert_refused(response, 413, "payload_too_large", "Content-Length")
        assert post(client, {"step": STEP, "result": VALID}).status_code == 200  # a body under the limit is judged


class Gate:
    """A pipeline that waits until the test opens it: holds a slot as long as the test wants."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()


def test_when_every_slot_is_taken_the_next_request_is_503_at_once(monkeypatch):
    gate = Gate()
    real = judge.pipeline.ajudge

    async def slow(*args: Any, **kwargs: Any):
        gate.entered.set()
        while not gate.opened.is_set():
            await asyncio.sleep(0.01)
        return await real(*args, **kwargs)

    monkeypatch.setattr("judge.serve.app.ajudge", slow)
    with serving(max_concurrency=1) as client:
        first: list[Any] = []
        holder = threading.Thread(target=lambda: first.append(post(client, {"step": STEP, "result": VALID})))
        holder.start()
        assert gate.entered.wait(10)
        response = post(client, {"step": STEP, "result": VALID})
        assert_refused(response, 503, "overloaded", "1 validation slots", "retry")
        assert response.headers["retry-after"] == "1"
        gate.opened.set()
        holder.join(10)
        assert first[0].status_code == 200 and first[0].json()["valid"] is True
        assert post(client, {"step": STEP, "result": VALID}).status_code == 200  # the slot is free again


def test_a_request_over_its_time_is_504_and_its_thread_keeps_the_slot_until_it_ends(monkeypatch):
    gate = Gate()
    real = judge.pipeline._deterministic

    def stuck(*args: Any, **kwargs: Any):  # the deterministic stage, in its worker thread, cannot be cancelled
        gate.entered.set()
        gate.opened.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(judge.pipeline, "_deterministic", stuck)
    with serving(max_concurrency=1, request_timeout=0.2) as client:
        assert_refused(post(client, {"step": STEP, "result": VALID}), 504, "timeout", "0.2 s", "--request-timeout")
        assert gate.entered.is_set()
        # the request has gone, but its thread still runs: the slot is not free for another
        assert_refused(post(client, {"step": STEP, "result": VALID}), 503, "overloaded")
        gate.opened.set()
        deadline = time.monotonic() + 10
        while (response := post(client, {"step": STEP, "result": VALID})).status_code == 503:
            assert time.monotonic() < deadline, "the slot was never freed"
            time.sleep(0.02)
        assert response.status_code == 200 and response.json()["valid"] is True


# --- start-up ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model, loaded", [(None, False), ("openai/judge-test", True)])
def test_litellm_is_imported_when_the_app_is_built_and_only_with_a_model(tmp_path, model, loaded):
    stubs = tmp_path / "stubs" / "litellm"
    stubs.mkdir(parents=True)
    (stubs / "__init__.py").write_text("", encoding="utf-8")  # a stub: its import is what is observed
    script = (f"import sys; sys.path.insert(0, {str(stubs.parent)!r}); "
              "from judge.config import JudgeConfig; from judge.serve.app import create_app; "
              "from judge.serve.settings import ServerSettings; before = 'litellm' in sys.modules; "
              f"create_app(ServerSettings.checked(JudgeConfig(model={model!r}))); "
              "print(before, 'litellm' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", str(loaded)]


@pytest.mark.parametrize("args, env, words", [
    (["--port", "70000"], {}, "--port 70000 is not a TCP port"),
    (["--max-body", "10"], {}, "--max-body 10 bytes is too small"),
    (["--max-concurrency", "0"], {}, "--max-concurrency 0: give at least 1"),
    (["--request-timeout", "0"], {}, "--request-timeout 0.0: give a number of seconds"),
    (["--workers", "0"], {}, "--workers 0: give at least 1 worker"),
    (["--workspace-root", "/nonexistent/dir"], {}, "--workspace-root /nonexistent/dir is not a directory"),
    (["--evidence-doc", "doc.json"], {}, "unrecognized arguments: --evidence-doc"),
    ([], {"JUDGE_SERVER_TOKEN": "short"}, "JUDGE_SERVER_TOKEN is 5 characters long"),
    (["--host", "0.0.0.0"], {}, "--host '0.0.0.0' is not a loopback address"),
    (["--model", "openai/x", "--semantic", "maybe"], {}, "--semantic: invalid choice"),
])
def test_bad_server_settings_are_one_line_and_exit_2(capsys, monkeypatch, args, env, words):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(SystemExit) if "invalid choice" in words or "unrecognized" in words else nullcontext():
        code = main(["serve", *args])
        assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err, err
