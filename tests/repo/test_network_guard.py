"""The test suite's network fence and cassette conventions, as pytest-recording sets them up (tests/conftest.py,
tests/helpers/cassettes.py, pyproject's addopts): no connection unless a test is marked ``loopback`` (then 127.0.0.1
only), and cassettes that re-record with secrets scrubbed and replay offline.

The servers are SYNTHETIC (tests/helpers/loopback.py) on 127.0.0.1; the cassettes here are written to tmp_path, never
to cassettes/.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers.loopback import LoopbackServer, Reply

ROOT = Path(__file__).resolve().parents[2]
UNROUTABLE = ("192.0.2.1", 80)  # TEST-NET-1: the guard refuses it before any packet is sent


@pytest.fixture
def listener() -> socket.socket:
    """A socket listening on 127.0.0.1 (an ephemeral port) that a connection could reach."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server


def _connect(address: tuple[str, int]) -> None:
    with socket.socket() as client:
        client.settimeout(5)
        client.connect(address)


def test_a_test_not_marked_loopback_cannot_connect_even_to_127_0_0_1(listener: socket.socket) -> None:
    with pytest.raises(RuntimeError, match="Network is disabled for host '127.0.0.1'"):
        _connect(listener.getsockname())
    with pytest.raises(RuntimeError, match="Network is disabled"):
        _connect(UNROUTABLE)
    with socket.socket() as client:
        with pytest.raises(RuntimeError, match="Network is disabled"):
            client.connect_ex(listener.getsockname())


@pytest.mark.loopback
def test_a_loopback_test_reaches_127_0_0_1_and_nothing_else(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    _connect(("127.0.0.1", port))
    _connect(("localhost", port))
    for host in (UNROUTABLE[0], "127.0.0.1.evil.example", "localhost.evil.example", "10.0.0.1"):
        with pytest.raises(RuntimeError, match="Network is disabled"):
            _connect((host, port))


# --- re-recording and replaying, in a pytest run of its own -----------------------------------------------------

_CONFTEST = '''
import importlib.util, sys
sys.path.insert(0, {tests!r})
_spec = importlib.util.spec_from_file_location("judge_tests_conftest", {tests!r} + "/conftest.py")
_judge = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_judge)
pytest_configure, pytest_collection_modifyitems, vcr_config = (
    _judge.pytest_configure, _judge.pytest_collection_modifyitems, _judge.vcr_config)
'''

_TESTS = '''
import os, socket, urllib.request
import pytest

URL = os.environ["SYNTHETIC_URL"]


@pytest.fixture(scope="session")
def vcr_cassette_dir():
    return os.environ["CASSETTE_DIR"]


def _ask(body):
    request = urllib.request.Request(URL, data=body, method="POST", headers={{
        "Authorization": "Bearer sk-synthetic-secret-4242", "api-key": "sk-synthetic-secret-4242",
        "Content-Type": "application/json"}})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read()


@pytest.mark.vcr
@pytest.mark.default_cassette("synthetic.yaml")
def test_asks_the_server():
    assert _ask(b"the recorded body") == b'{{"answer": "recorded"}}'


def test_without_a_cassette_is_blocked_even_while_recording():
    host, port = URL.split("//")[1].split("/")[0].split(":")
    with socket.socket() as client, pytest.raises(RuntimeError, match="Network is disabled"):
        client.connect((host, int(port)))
'''


def _pytest(tmp_path: Path, server_url: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m pytest`` on the tests above with the repository's pyproject (its addopts) and conftest.
    (A request missing from a cassette is tested on the real ones: tests/llm/test_client_cassettes.py.)"""
    # pytest-recording is the one plugin these runs need: the others installed (hypothesis, schemathesis, ...)
    # cost ~2 s of each start
    env = {**os.environ, "SYNTHETIC_URL": server_url, "CASSETTE_DIR": str(tmp_path / "cassettes"),
           "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "pytest_recording.plugin", "-c", str(ROOT / "pyproject.toml"),
                           "--rootdir", str(tmp_path), str(tmp_path / "run"), *args],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
                          stdin=subprocess.DEVNULL)


@pytest.mark.loopback
def test_re_recording_scrubs_secrets_and_replay_needs_no_server(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "conftest.py").write_text(_CONFTEST.format(tests=str(ROOT / "tests")), encoding="utf-8")
    (tmp_path / "run" / "test_synthetic.py").write_text(_TESTS.format(), encoding="utf-8")
    # SYNTHETIC: one answer, with a cookie the recording must drop
    reply = Reply(200, b'{"answer": "recorded"}', (("Set-Cookie", "session=synthetic-cookie"),
                                                   ("x-request-id", "req-synthetic")))
    with LoopbackServer([reply]) as server:
        url = server.api_base + "/chat/completions"
        recorded = _pytest(tmp_path, url, "--record-mode=all")
        assert recorded.returncode == 0, recorded.stdout + recorded.stderr
        assert server.count == 1  # the vcr test reached the server; the other was blocked
    cassette = (tmp_path / "cassettes" / "synthetic.yaml").read_text(encoding="utf-8")
    for secret in ("sk-synthetic-secret-4242", "synthetic-cookie", "req-synthetic"):
        assert secret not in cassette
    interaction, = yaml.safe_load(cassette)["interactions"]
    assert interaction["request"]["body"] == "the recorded body"
    assert {name.lower() for name in interaction["request"]["headers"]} == {"content-type", "content-length", "host",
                                                                           "user-agent", "connection"}

    # The server is gone: the default run (pyproject's --record-mode=none) replays, and leaves the cassette be.
    replayed = _pytest(tmp_path, url)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "2 passed" in replayed.stdout
    assert (tmp_path / "cassettes" / "synthetic.yaml").read_text(encoding="utf-8") == cassette

