"""`judge serve` as a real process on uvicorn, on 127.0.0.1 and a free port: the ready line and Ctrl-C, the refusal to
listen beyond loopback without a token, the token over a real socket, a chunked body cut at the limit, the
slots and the timeout held by a SYNTHETIC model server (tests/helpers/loopback.py) that answers slowly, and bounded work
against hostile clients: bodies trickled in hold no slot, idle and half-open connections are closed, a stuck
validation is 504 while /healthz answers and SIGTERM stops the server, a catastrophic pattern freezes nothing."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import httpx
import pytest

from helpers.gate_cases import gate, project, step
from helpers.loopback import content
from helpers.scenario_repos import git_env  # noqa: F401  (autouse fixture)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BODY = {"step": json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8")),
        "result": json.loads((EXAMPLES / "result-valid.json").read_text(encoding="utf-8"))}
TOKEN = "s3cret-token-for-tests-only-0123"
JSON = {"Content-Type": "application/json"}
READY = re.compile(r"^judge: serving on (http://127\.0\.0\.1:\d+) \(POST \S+/v1/validate; Ctrl-C stops\)$")

pytestmark = pytest.mark.loopback


ENTRY = "import sys; from judge.cli.main import main; sys.exit(main())"


def judge_command(*args: str, entry: str = ENTRY) -> list[str]:
    return [sys.executable, "-c", entry, *args]


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    return {**env, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **extra}


class Served:
    """A running `judge serve`: its URL, and its stderr lines so far."""

    def __init__(self, process: subprocess.Popen, url: str, lines: "queue.Queue[str]") -> None:
        self.process, self.url, self._lines = process, url, lines
        self.stderr: list[str] = []

    def stop(self, sig: int = signal.SIGINT) -> int:
        """Ctrl-C (or ``sig``), as a person or a service manager would send it; the exit code once it has stopped."""
        self.process.send_signal(sig)
        code = self.process.wait(30)
        while not self._lines.empty():
            self.stderr.append(self._lines.get())
        return code


@contextmanager
def serving(tmp_path: Path, *args: str, entry: str = ENTRY, **env: str) -> Iterator[Served]:
    process = subprocess.Popen(judge_command("serve", "--port", "0", *args, entry=entry), cwd=tmp_path,
                               env=environment(**env),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in process.stderr], daemon=True).start()
    try:
        first = lines.get(timeout=60)
        ready = READY.match(first)
        assert ready, first
        served = Served(process, ready.group(1), lines)
        served.stderr.append(first)
        yield served
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)


def test_it_says_where_it_listens_judges_and_stops_cleanly_on_ctrl_c(tmp_path):
    with serving(tmp_path) as served:
        assert httpx.get(f"{served.url}/healthz").json() == {"status": "ok"}
        response = httpx.post(f"{served.url}/v1/validate", json=BODY)
        assert response.status_code == 200 and response.json()["valid"] is True
        assert served.stop() == 0
    assert served.stderr[1:] == ["judge: server stopped"]


def test_workers_share_the_socket_and_all_stop_on_ctrl_c(tmp_path):
    with serving(tmp_path, "--workers", "2") as served:
        workers = children(served.process.pid)
        for name in ("result-valid.json", "result-undeclared.json"):
            body = {**BODY, "result": json.loads((EXAMPLES / name).read_text(encoding="utf-8"))}
            assert httpx.post(f"{served.url}/v1/validate", json=body).json()["valid"] is (name == "result-valid.json")
        assert served.stop() == 0
    assert len(workers) >= 2 and served.stderr[1:] == ["judge: server stopped"]
    assert not _left_running(workers)


def _left_running(pids: list[int], patience: float = 30.0) -> list[int]:
    """The processes of ``pids`` still running once they had ``patience`` seconds to exit: children such as
    multiprocessing's resource tracker end when they notice their parent is gone, not at the same instant."""
    deadline = time.monotonic() + patience
    while True:
        running = [pid for pid in pids if Path(f"/proc/{pid}").exists() and not _zombie(pid)]
        if not running or time.monotonic() > deadline:
            return running
        time.sleep(0.1)


def children(pid: int) -> list[int]:
    return [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.10"])
def test_a_host_beyond_loopback_is_refused_without_a_token(tmp_path, host):
    done = subprocess.run(judge_command("serve", "--host", host, "--port", "0"), cwd=tmp_path, env=environment(),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "JUDGE_SERVER_TOKEN" in done.stderr and f"--host '{host}'" in done.stderr


def test_a_port_in_use_is_one_line_and_exit_2(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run(judge_command("serve", "--port", str(port)), cwd=tmp_path, env=environment(),
                              capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and f"--port {port}: cannot listen" in done.stderr


def test_the_token_is_required_over_a_real_socket(tmp_path):
    with serving(tmp_path, JUDGE_SERVER_TOKEN=TOKEN) as served:
        assert httpx.get(f"{served.url}/healthz").status_code == 200
        refused = httpx.post(f"{served.url}/v1/validate", json=BODY, headers={"Authorization": "Bearer wrong"})
        assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized"
        good = httpx.post(f"{served.url}/v1/validate", json=BODY, headers={"Authorization": f"Bearer {TOKEN}"})
        assert good.status_code == 200 and good.json()["valid"] is True
        assert served.stop() == 0


def test_a_chunked_body_over_the_limit_is_413_before_it_ends(tmp_path):
    with serving(tmp_path, "--max-body", "2048") as served:
        host, port = served.url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=30) as sock:
            sock.sendall(f"POST /v1/validate HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                         "Transfer-Encoding: chunked\r\n\r\n".encode())
            for _ in range(3):  # 3 KiB, and the body never ends (no zero-length chunk)
                sock.sendall(b"400\r\n" + b" " * 1024 + b"\r\n")
            answer = b""
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                chunk = sock.recv(65536)
                assert chunk, answer
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 413 ")
        assert json.loads(body)["error"]["code"] == "payload_too_large"
        assert served.stop() == 0


def slow_model(scripted_server, seconds: float):
    """SYNTHETIC: a model server that accepts every change after ``seconds``."""
    return scripted_server([content(True, "the retry with backoff is implemented as asked")], latency=seconds)


def model_flags(server) -> list[str]:
    return ["--model", "openai/judge-test", "--api-base", server.api_base, "--retries", "0", "--timeout", "30",
            "--output-mode", "none"]


def test_with_every_slot_taken_the_next_request_is_503_at_once(tmp_path, scripted_server):
    # SYNTHETIC: the model answers the first request only once the test has its refusal (an event, not a delay
    # the refusal must beat), so the first request holds the only slot for as long as it takes, at any load.
    refusal_seen = threading.Event()

    def answer(index, request):
        refusal_seen.wait(60)
        return content(True, "the retry with backoff is implemented as asked")

    model = scripted_server(answer)
    with serving(tmp_path, "--max-concurrency", "1", *model_flags(model), JUDGE_API_KEY="sk-test") as served:
        first: list[httpx.Response] = []
        holder = threading.Thread(target=lambda: first.append(httpx.post(f"{served.url}/v1/validate", json=BODY,
                                                                          timeout=60)))
        holder.start()
        deadline = time.monotonic() + 30
        while model.count == 0:  # the first request holds the slot, waiting for the model
            assert time.monotonic() < deadline
            time.sleep(0.02)
        refused = httpx.post(f"{served.url}/v1/validate", json=BODY)
        assert not first, "the refusal waited for the slot instead of coming at once"
        refusal_seen.set()
        holder.join(60)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
        assert refused.json()["error"]["code"] == "overloaded" and '"valid"' not in refused.text
        assert first[0].status_code == 200 and first[0].json()["valid"] is True
        assert "semantic review by openai/judge-test" in first[0].json()["reason"]
        assert served.stop() == 0


def test_a_request_over_its_time_is_504(tmp_path, scripted_server):
    model = slow_model(scripted_server, 20.0)
    with serving(tmp_path, "--request-timeout", "1", *model_flags(model), JUDGE_API_KEY="sk-test") as served:
        response = httpx.post(f"{served.url}/v1/validate", json=BODY, timeout=60)
        assert response.status_code == 504
        assert response.json()["error"]["code"] == "timeout" and '"valid"' not in response.text
        assert httpx.get(f"{served.url}/healthz").status_code == 200  # the server goes on
        assert served.stop() == 0


# --- bounded work: hostile clients and hostile patterns -----------------------------------------------------------

def _address(served: Served) -> tuple[str, int]:
    host, port = served.url.removeprefix("http://").split(":")
    return host, int(port)


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection; the socket's timeout fails the test if it never
    does."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


def test_bodies_trickled_in_hold_no_slot_and_are_408_past_their_deadline(tmp_path):
    with serving(tmp_path, "--max-concurrency", "1", "--request-timeout", "5") as served:
        host, port = _address(served)
        tricklers = []
        for _ in range(2):  # each sends its head and the start of a body, then nothing more
            sock = socket.create_connection((host, port), timeout=60)
            sock.sendall(f"POST /v1/validate HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                         "Content-Length: 5000\r\n\r\n{\"step\": ".encode())
            tricklers.append(sock)
        assert httpx.get(f"{served.url}/healthz").status_code == 200  # the server has read both heads by now
        honest = httpx.post(f"{served.url}/v1/validate", json=BODY, timeout=60)
        assert honest.status_code == 200 and honest.json()["valid"] is True  # the one slot was free for it
        for sock in tricklers:
            with sock:
                head, _, body = _until_closed(sock).partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 408 "), head
            assert json.loads(body)["error"]["code"] == "body_timeout" and b'"valid"' not in body
        assert served.stop() == 0


# judge.serve.connections' deadline for a request's head (10 s) made short, so the test waits 2 s for it, not 10
SHORT_HEAD_DEADLINE = ("import sys, judge.serve.connections as connections; connections.HEAD_SECONDS = 2.0; "
                       "from judge.cli.main import main; sys.exit(main())")


def test_idle_and_half_open_connections_are_closed(tmp_path):
    with serving(tmp_path, entry=SHORT_HEAD_DEADLINE) as served:
        host, port = _address(served)
        idle = socket.create_connection((host, port), timeout=60)  # says nothing at all
        half_open = socket.create_connection((host, port), timeout=60)  # starts its headers and stops
        half_open.sendall(f"POST /v1/validate HTTP/1.1\r\nHost: {host}:{port}\r\nContent-".encode())
        kept = socket.create_connection((host, port), timeout=60)  # a whole request, then the start of another
        kept.sendall(f"GET /healthz HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        answer = b""
        while not answer.endswith(b'{"status":"ok"}'):
            chunk = kept.recv(65536)
            assert chunk, answer
            answer += chunk
        kept.sendall(b"GET /heal")
        for sock in (idle, half_open, kept):
            with sock:
                assert _until_closed(sock) == b""
        assert httpx.get(f"{served.url}/healthz").status_code == 200
        assert served.stop() == 0


# SYNTHETIC: a deterministic stage that never returns (it waits for an event nobody sets), as a hung read would.
STUCK_STAGE = ("import sys, threading, judge.pipeline as pipeline; "
               "pipeline._deterministic = lambda *args: threading.Event().wait(); "
               "from judge.cli.main import main; sys.exit(main())")


@pytest.mark.parametrize("sig, code, last", [(signal.SIGINT, 0, ["judge: server stopped"]),
                                             (signal.SIGTERM, -signal.SIGTERM, [])])  # uvicorn passes SIGTERM on
def test_a_stuck_validation_is_504_while_healthz_answers_and_a_signal_stops_the_server(tmp_path, sig, code, last):
    with serving(tmp_path, "--request-timeout", "2", entry=STUCK_STAGE) as served:
        response = httpx.post(f"{served.url}/v1/validate", json=BODY, timeout=60)
        assert response.status_code == 504 and response.json()["error"]["code"] == "timeout"
        assert httpx.get(f"{served.url}/healthz").json() == {"status": "ok"}
        assert served.stop(sig) == code  # the stuck thread does not keep the process from exiting
    assert served.stderr[1:] == last


def test_a_catastrophic_pattern_in_a_gate_is_answered_and_freezes_nothing(tmp_path):
    proj = project(tmp_path / "work").change({"config/settings.json": json.dumps({"title": "word " * 5_000 + "!"})})
    schema = {"properties": {"title": {"pattern": r"^(\w+\s?)*$"}}}  # Python's re: 2^5000 steps on that title
    body = {"step": step(gate("json_schema_valid", path="config/settings.json", schema=schema)),
            "result": proj.result(), "workspace": {"repo": str(proj.root), "base": proj.repo.base}}
    with serving(tmp_path, "--workspace-root", str(tmp_path / "work")) as served:
        response = httpx.post(f"{served.url}/v1/validate", json=body, params={"explain": "1"}, timeout=60)
        assert response.status_code == 200, response.text
        verdict = response.json()
        assert verdict["valid"] is False and verdict["rule"] == "gate_failed"
        assert "breaks the gate's JSON Schema at $.title" in verdict["reason"]
        assert httpx.get(f"{served.url}/healthz").status_code == 200
        assert served.stop() == 0
