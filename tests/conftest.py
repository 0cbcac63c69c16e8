"""Tests run offline: every socket connection is refused unless a test opts in to loopback (or cassettes are being re-recorded).

A test marked ``loopback`` may start SYNTHETIC model servers on 127.0.0.1 with the ``scripted_server`` fixture.
"""

from __future__ import annotations

import os
import socket

import pytest

import loopback

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_loopback(address) -> bool:
    host = address[0] if isinstance(address, tuple) else address
    return isinstance(host, str) and (host in ("localhost", "::1") or host.startswith("127."))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "loopback: the test may connect to servers on 127.0.0.1 it starts itself")


# Re-recording cassettes (see cassettes/README.md) talks to a real model server: only then is the network open.
RECORDING = os.environ.get("JUDGE_RECORD_MODE", "none") != "none"


@pytest.fixture(autouse=True)
def _block_network(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if RECORDING:
        return
    allow_loopback = request.node.get_closest_marker("loopback") is not None

    def guard(sock: socket.socket, address) -> None:
        if sock.family == socket.AF_UNIX or (allow_loopback and _is_loopback(address)):
            return
        raise ConnectionRefusedError(f"network blocked in tests: {address!r} (mark the test `loopback` for 127.0.0.1)")

    def connect(sock, address):
        guard(sock, address)
        return _real_connect(sock, address)

    def connect_ex(sock, address):
        guard(sock, address)
        return _real_connect_ex(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


scripted_server = pytest.fixture(loopback.scripted_server)  # SYNTHETIC model servers on 127.0.0.1, closed at teardown


@pytest.fixture
def eval_sandbox(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in tmp_path with no JUDGE_* setting of the caller: no judge.toml of the checkout is read, no .judge/
    store or cache lands in the repository. Eval test modules use it with ``pytest.mark.usefixtures``."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("JUDGE_"):
            monkeypatch.delenv(name)
