"""What a record must show to back a claim, and where judge keeps what it trusts: the state directory
(judge.config.state_dir, judge/runs/state.py), the work hash (judge/workspace/work_hash.py), a record's binding to the work
(judge/runs/binding.py, covered by the MAC) and the test commands a tests claim may rest on (policy test_commands)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge.errors import InputError
from judge.gates.claims import is_test_command
from judge.gates.policies import DEFAULT_TEST_COMMANDS
from judge.runs.artifacts import record_execution
from judge.runs.binding import ANOTHER_TREE, WorkBinding, binding_problem, bound
from judge.runs.keys import mac_problem, sign
from judge.config import state_dir
from judge.runs.state import refuse_inside_work_tree, work_tree_around
from judge.workspace.git import read_git_facts
from judge.workspace.work_hash import tree_work_hash, work_binding
from helpers.scenario_repos import Repo, git_env  # noqa: F401  (git_env: autouse fixture)

KEY = bytes(range(32))


# --- the state directory ------------------------------------------------------------------------------


def test_the_state_directory_follows_xdg_state_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert state_dir() == tmp_path / "state" / "judge"


@pytest.mark.parametrize("value", ["", "relative/state"])
def test_an_unset_or_relative_xdg_state_home_means_the_home_default(monkeypatch, tmp_path, value):
    monkeypatch.setenv("XDG_STATE_HOME", value)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert state_dir() == tmp_path / ".local" / "state" / "judge"


def test_a_path_inside_a_git_work_tree_is_refused_naming_the_tree_and_the_fix(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's or submodule's .git file
    for inside in (tmp_path / "repo" / "not" / "made" / "yet", tmp_path / "sub" / "key"):
        assert work_tree_around(inside) is not None
        with pytest.raises(InputError, match="inside the git work tree") as error:
            refuse_inside_work_tree(inside, "evidence key", field="evidence_key")
        assert error.value.field == "evidence_key" and "keep it outside any repository" in str(error.value)
    refuse_inside_work_tree(tmp_path / "outside" / "judge", "artifacts root")  # no work tree around it: fine
    assert work_tree_around(tmp_path / "outside") is None


def test_a_link_into_a_work_tree_is_judged_by_where_it_leads(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "state").symlink_to(tmp_path / "repo")
    with pytest.raises(InputError):
        refuse_inside_work_tree(tmp_path / "state" / "judge", "artifacts root")


# --- the work hash ------------------------------------------------------------------------------------


def test_the_work_hash_leaves_out_only_the_steps_own_evidence_file(tmp_path):
    repo = Repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    repo.write({"app.py": "x = 2\n"})
    before = tree_work_hash(read_git_facts(repo.root, repo.base), "step-1")
    repo.write({".orchestrator/evidence/step-1.json": '{"summary": "written after the tests ran"}\n'})
    assert tree_work_hash(read_git_facts(repo.root, repo.base), "step-1") == before
    repo.write({".orchestrator/evidence/helper.py": "import os\n"})  # code under the evidence directory is work
    assert tree_work_hash(read_git_facts(repo.root, repo.base), "step-1") != before


def test_the_work_hash_changes_with_any_file_and_not_with_nothing(tmp_path):
    repo = Repo(tmp_path / "repo", {"app.py": "x = 1\n"})
    first = work_binding(repo.root, repo.base, "s")
    assert work_binding(repo.root, repo.base, "s") == first
    repo.write({"notes.txt": "new\n"})
    assert work_binding(repo.root, repo.base, "s").work_hash != first.work_hash


# --- a record's binding -------------------------------------------------------------------------------


def _record(tmp_path: Path, work: WorkBinding | None):
    return record_execution(["true"], step_id="s", root=tmp_path / "runs", run_id="r1", work=work)


def test_a_bound_records_mac_covers_its_binding(tmp_path):
    work = WorkBinding("/srv/repo", "a" * 40, "b" * 64)
    record = sign(KEY, _record(tmp_path, work))
    assert mac_problem(KEY, record) is None
    for field, value in (("repository", "/srv/other"), ("base", "c" * 40), ("work_hash", "d" * 64)):
        assert mac_problem(KEY, record.model_copy(update={field: value})) is not None, field
    unbound = record.model_copy(update={"repository": None, "base": None, "work_hash": None})
    assert mac_problem(KEY, unbound) is not None  # stripping the binding breaks the MAC too


def test_binding_problems_name_what_differs(tmp_path):
    judged = WorkBinding("/srv/repo", "a" * 40, "b" * 64)
    record = _record(tmp_path, judged)
    assert binding_problem(record, judged) is None
    assert binding_problem(bound(record, WorkBinding("/srv/repo", "a" * 40, "e" * 64)), judged) == ANOTHER_TREE
    assert binding_problem(bound(record, WorkBinding("/srv/repo", "f" * 40, "b" * 64)), judged) == ANOTHER_TREE
    assert "another repository" in binding_problem(bound(record, WorkBinding("/srv/x", "a" * 40, "b" * 64)), judged)
    assert "without a workspace" in binding_problem(record, None)
    old = record.model_copy(update={"repository": None, "base": None, "work_hash": None})
    assert "bound to no tree state" in binding_problem(old, judged)


def test_a_bound_record_keeps_its_binding_in_evidence_json_and_an_unbound_one_has_none(tmp_path):
    work = WorkBinding("/srv/repo", "a" * 40, "b" * 64)
    written = _record(tmp_path, work).to_json()
    assert (written["repository"], written["base"], written["workHash"]) == ("/srv/repo", "a" * 40, "b" * 64)
    (tmp_path / "runs").rename(tmp_path / "runs-1")
    assert not {"repository", "base", "workHash"} & set(_record(tmp_path, None).to_json())


# --- test commands ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "pytest", "pytest -q tests/", ".venv/bin/pytest -x", "python -m pytest -q", "python3 -m pytest",
    "/usr/bin/python3.12 -m pytest -k slow", "python -m unittest discover", "tox -e py312", "npm test",
    "npm run test -- --watch=false", "npm run test:unit", "pnpm test", "yarn test", "yarn run test", "npx vitest run",
    "vitest", "npx jest --ci", "jest", "ava", "npx mocha", "go test ./...", "cargo test --workspace",
    "mvn test", "mvn -B test", "./mvnw test", "gradle test", "./gradlew test", "dotnet test", "bun test", "make test",
])
def test_the_common_test_runners_are_test_commands(command):
    assert is_test_command(command, DEFAULT_TEST_COMMANDS)


@pytest.mark.parametrize("command", [
    "git --version", "true", "echo 3 passed", "python -c 'print(1)'", "python -c pass -m pytest", "ls tests",
    "npm install", "npm run build", "go build ./...", "cargo build", "pytestx", "node test.js", "sh -c pytest", "",
    "pytest 'unclosed",
])
def test_other_commands_are_not(command):
    assert not is_test_command(command, DEFAULT_TEST_COMMANDS)


@pytest.mark.parametrize("command", [
    "pytest --version", "python -m pytest --co", "pytest --collect-only -q", "npx jest --listTests", "pytest -h",
    "cargo test --no-run", "mvn -DskipTests test", "mvn -Dmaven.test.skip=true test", "npx vitest --help",
])
def test_a_test_runner_asked_to_print_list_or_build_is_not_a_test_command(command):
    """The runner's name alone does not make a run: these print a version or help, list tests or only build."""
    assert not is_test_command(command, DEFAULT_TEST_COMMANDS)


def test_a_policy_may_name_its_own_test_commands():
    assert is_test_command("./run-tests.sh --all", ("run-tests.sh*",))
    assert not is_test_command("pytest", ("run-tests.sh*",))
