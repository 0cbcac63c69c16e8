"""Workspaces a remote client names stay inside the server's roots; a client's step cannot turn shell gates on."""

from __future__ import annotations

import os

import pytest

from judge.config import JudgeConfig
from judge.contract.gates import PolicyLayer
from judge.errors import InputError
from judge.gates.policies import pinned_for_clients, resolve_policies
from judge.workspace.roots import WorkspaceRoots

BASE = "a" * 40


def test_a_repository_inside_a_root_becomes_a_workspace(tmp_path):
    repo = tmp_path / "work" / "app"
    repo.mkdir(parents=True)
    roots = WorkspaceRoots.of([tmp_path / "work"])
    workspace = roots.workspace({"repo": str(repo), "base": BASE, "ledger_id": "s1"})
    assert (workspace.repo, workspace.base, workspace.ledger_id, workspace.ledger_op) == (str(repo), BASE, "s1", "close")


@pytest.mark.parametrize("path", ["/etc", "relative/app", "{root}/../outside", "{root}-sibling/app"])
def test_a_path_outside_every_root_is_refused(tmp_path, path):
    root = tmp_path / "work"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    with pytest.raises(InputError, match="not inside a workspace root"):
        WorkspaceRoots.of([root]).workspace({"repo": path.format(root=root), "base": BASE})


def test_a_symlink_out_of_the_root_is_refused(tmp_path):
    root = tmp_path / "work"
    root.mkdir()
    os.symlink("/", root / "escape")
    with pytest.raises(InputError, match="not inside a workspace root"):
        WorkspaceRoots.of([root]).workspace({"repo": str(root / "escape" / "etc"), "base": BASE})


def test_without_roots_every_path_is_refused_and_the_ledger_too(tmp_path):
    with pytest.raises(InputError, match="started without a workspace root"):
        WorkspaceRoots().workspace({"repo": str(tmp_path), "base": BASE})
    with pytest.raises(InputError, match="workspace.ledger"):
        WorkspaceRoots.of([tmp_path / ".."]).workspace({"ledger": "/etc/passwd"})


@pytest.mark.parametrize("requested, message", [
    ([], "must be an object"),
    ({"repo": "x", "base": BASE, "api_base": "http://evil"}, "unknown key"),
    ({"repo": 7, "base": BASE}, "repo must be a string"),
])
def test_malformed_workspaces_are_refused(tmp_path, requested, message):
    with pytest.raises(InputError, match=message):
        WorkspaceRoots.of([tmp_path]).workspace(requested)


def test_a_root_that_is_not_a_directory_is_refused(tmp_path):
    with pytest.raises(InputError, match="not a directory"):
        WorkspaceRoots.of([tmp_path / "missing"])


def _effective(config: JudgeConfig, step_layer: PolicyLayer):
    return resolve_policies((("judge.toml", config.policies), ("step", step_layer),
                             ("command line", config.policy_overrides)))


def test_a_clients_step_cannot_turn_shell_gates_on():
    widened = PolicyLayer(enable_shell_gates=True, shell_gate_allowlist=("*",))
    assert _effective(JudgeConfig(), widened).enable_shell_gates  # what a trusted step could do
    pinned = pinned_for_clients(JudgeConfig())
    policies = _effective(pinned, widened)
    assert (policies.enable_shell_gates, policies.shell_gate_allowlist) == (False, ())


def test_the_servers_own_shell_gate_policy_and_other_overrides_stay():
    config = JudgeConfig(policies=PolicyLayer(enable_shell_gates=True, shell_gate_allowlist=("pytest *",)),
                         policy_overrides=PolicyLayer(require_diff_summary=True))
    policies = _effective(pinned_for_clients(config), PolicyLayer(shell_gate_allowlist=("*",)))
    assert (policies.enable_shell_gates, policies.shell_gate_allowlist, policies.require_diff_summary) == \
        (True, ("pytest *",), True)
