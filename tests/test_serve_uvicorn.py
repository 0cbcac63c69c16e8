"""`judge serve` as a real process on uvicorn, on 127.0.0.1 and a free port: the ready line and Ctrl-C, the refusal to
listen beyond loopback without a token, the token over a real socket, a chunked body cut at the limit, and the
slots and the timeout held by a SYNTHETIC model server (tests/loopback.py) that answers slowly."""

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

from loopback import content

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BODY = {"step": json.loads((EXAMPLES / "step.json").read_text(encoding="utf-8")),
        "result": json.loads((EXAMPLES / "result-valid.json").read_text(encoding="utf-8"))}
TOKEN = "s3cret-token-for-tests-only-0123"
JSON = {"Content-Type": "application/json"}
READY = re.compile(r"^judge: serving on (http://127\.0\.0\.1:\d+) \(POST \S+/v1/validate; Ctrl-C stops\)$")

pytestmark = pytest.mark.loopback


def judge_command(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from judge.cli.main import main; sys.exit(main())", *args]


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("JUDGE_")}
    return {**env, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True", **extra}


class Served:
    """A running `judge serve`: its URL, and its stderr lines so far."""

    def __init__(self, process: subprocess.Popen, url: str, lines: "queue.Queue[str]") -> None:
        self.process, self.url, self._lines = process, url, lines
        self.stderr: list[str] = []

    def stop(self) -> int:
        """Ctrl-C, as a person would press it; the exit code once it has stopped."""
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(30)
        while not self._lines.empty():
            self.stderr.append(self._lines.get())
        return code


@contextmanager
def serving(tmp_path: Path, *args: str, **env: str) -> Iterator[Served]:
    process = subprocess.Popen(judge_command("serve", "--port", "0", *args), cwd=tmp_path, env=environment(**env),
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
    model = slow_model(scripted_server, 3.0)
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
