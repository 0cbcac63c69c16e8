"""Tests run offline, by pytest-recording: ``--block-network`` (pyproject's addopts) refuses every socket
connection, unless a test opts in to loopback or re-records its cassette (see cassettes/README.md).

A test marked ``loopback`` may connect to 127.0.0.1 (and ``localhost``, ``::1``): it starts SYNTHETIC model
servers there with the ``scripted_server`` fixture. The mark becomes pytest-recording's per-test
``block_network(allowed_hosts=...)``; any other host is still refused.
"""

from __future__ import annotations

import os

import pytest

from helpers import cassettes, loopback

os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

# re.match'ed by pytest-recording against the host a socket connects to (an IP, a name, a Unix socket's path).
LOOPBACK_HOSTS = [r"127\.\d+\.\d+\.\d+$", r"localhost$", r"::1$"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "loopback: the test may connect to servers on 127.0.0.1 it starts itself")
    cassettes.RECORD_MODE = config.getoption("--record-mode") or "none"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("loopback") is not None:
            item.add_marker(pytest.mark.block_network(allowed_hosts=LOOPBACK_HOSTS))


@pytest.fixture(scope="session")
def vcr_cassette_dir() -> str:
    """pytest-recording's: every cassette is in cassettes/ (its default is one directory per test module)."""
    return str(cassettes.CASSETTES)


@pytest.fixture
def vcr_config() -> dict:
    """pytest-recording's: how judge's cassettes are matched and scrubbed (tests/helpers/cassettes.py)."""
    return cassettes.VCR_CONFIG


scripted_server = pytest.fixture(loopback.scripted_server)  # SYNTHETIC model servers on 127.0.0.1, closed at teardown


@pytest.fixture
def eval_sandbox(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run in tmp_path with no JUDGE_* setting of the caller: no judge.toml of the checkout is read, no .judge/
    store or cache lands in the repository. Eval test modules use it with ``pytest.mark.usefixtures``."""
    monkeypatch.chdir(tmp_path)
    for name in list(os.environ):
        if name.startswith("JUDGE_"):
            monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def judge_state(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """judge's state directory (evidence key, records, approvals) fresh for each test and outside every repository a
    test makes: never the user's own ~/.local/state/judge."""
    home = tmp_path_factory.mktemp("state")
    monkeypatch.setenv("XDG_STATE_HOME", str(home))
    return home / "judge"


@pytest.fixture
def bare_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``python -m pytest`` the test starts (as a gate's command or a recorded run) loads no installed plugin:
    hypothesis, schemathesis, xdist and the rest cost ~2 s of every start and play no part in those runs."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
