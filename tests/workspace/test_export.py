"""Command gates run on a scratch copy of exactly the judged tree (judge/workspace/export.py): base plus the judged
change, written from verified objects. What the work tree holds beside it (ignored bytecode that shadows the judged
source, ignored modules) never runs with the gate, and a file changed after judging is refused, not run."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from helpers.gate_cases import APP_FIXED, TEST_APP, FILES, PY, command, evidence, gate, project, py, shell_on, step
from judge.errors import InputError
from judge.workspace.export import exported_tree
from judge.workspace.git import read_git_facts
from helpers.scenario_repos import git_env  # noqa: F401  (git_env: autouse fixture)

pytestmark = pytest.mark.usefixtures("bare_pytest")  # the pytest runs here need no installed plugin

BROKEN = "def port(value):\n    raise RuntimeError('broken')\n"
PYTEST = command(PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests")


PATCHING_CONFTEST = "import src.app\n\nsrc.app.port = lambda value: int(value)  # the broken port() never runs\n"


def _pytest_in(root: Path) -> int:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([PY, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=root, env=env,
                          capture_output=True, check=False).returncode


def test_an_ignored_conftest_that_patches_broken_source_does_not_make_the_gate_pass(tmp_path):
    # Shadowing bytecode would do the same, but the rules reject it before any gate (ignored_code); an ignored
    # conftest.py is only a signal, so this is the gate's own defence: it runs on the judged tree alone.
    proj = project(tmp_path, {**FILES, ".gitignore": "conftest.py\n"}).change({"src/app.py": BROKEN})
    (proj.root / "conftest.py").write_text(PATCHING_CONFTEST, encoding="utf-8")
    assert _pytest_in(proj.root) == 0, "scenario not built: pytest in the work tree should pass with the conftest"
    verdict = proj.validate(step(gate("command_exit_0", command=PYTEST), policies=shell_on()),
                            proj.result(evidence(commands=[PYTEST])))
    assert not verdict.valid and verdict.reason.startswith("gate_failed"), verdict.reason
    (made,) = verdict.execution_evidence
    assert made.exit_code != 0 and "broken" in made.stdout + made.stderr
    assert [f.severity for f in verdict.findings if f.rule == "ignored_code"] == ["signal"]


def test_the_same_gate_passes_on_honest_work(tmp_path):
    proj = project(tmp_path, {**FILES, ".gitignore": "__pycache__/\n"}).change({"src/app.py": APP_FIXED})
    verdict = proj.validate(step(gate("command_exit_0", command=PYTEST), policies=shell_on()),
                            proj.result(evidence(commands=[PYTEST])))
    assert verdict.valid, verdict.reason


LIST_TREE = py("import json, os; print(json.dumps({os.path.relpath(os.path.join(d, f)): open(os.path.join(d, f)).read() "
               "for d, _, fs in os.walk('.') for f in fs}))")


def test_the_copy_holds_the_judged_tree_and_nothing_the_work_tree_ignores(tmp_path):
    proj = project(tmp_path, {**FILES, ".gitignore": "*.local.py\n"})
    git = ["git", "-C", str(proj.root)]
    proj.change({"src/app.py": APP_FIXED, "src/new.py": "X = 1\n", "src/settings.local.py": "SECRET = 1\n"})
    os.remove(proj.root / "README.md")
    subprocess.run([*git, "add", "-A"], check=True, capture_output=True)
    subprocess.run([*git, "commit", "-qm", "step"], check=True, capture_output=True)  # committed work, from objects
    (proj.root / "config" / "settings.json").write_text('{"port": 8081}\n', encoding="utf-8")  # not staged
    result = proj.result(evidence(commands=[LIST_TREE]))
    verdict = proj.validate(step(gate("command_exit_0", command=LIST_TREE), policies=shell_on()), result)
    assert verdict.execution_evidence, verdict.reason
    (made,) = verdict.execution_evidence
    assert json.loads(made.stdout) == {".gitignore": "*.local.py\n", "config/settings.json": '{"port": 8081}\n',
                                       "src/app.py": APP_FIXED, "src/new.py": "X = 1\n",
                                       "tests/test_app.py": TEST_APP}


def test_the_copy_has_the_work_trees_bytes_and_modes_and_is_removed_after(tmp_path):
    proj = project(tmp_path).change({"src/app.py": APP_FIXED, "run.sh": "#!/bin/sh\necho ok\n"})
    os.chmod(proj.root / "run.sh", 0o755)
    os.symlink("src/app.py", proj.root / "link")
    facts = read_git_facts(proj.root, proj.repo.base)
    with exported_tree(facts) as tree:
        copy = Path(tree)
        assert (copy / "src" / "app.py").read_text(encoding="utf-8") == APP_FIXED
        assert os.access(copy / "run.sh", os.X_OK) and not os.access(copy / "README.md", os.X_OK)
        assert os.readlink(copy / "link") == "src/app.py"
        assert not (copy / ".git").exists()
    assert not copy.exists()


def test_a_file_changed_after_judging_is_refused_not_run(tmp_path):
    proj = project(tmp_path).change({"src/app.py": APP_FIXED})
    facts = read_git_facts(proj.root, proj.repo.base)
    (proj.root / "src" / "app.py").write_text(BROKEN, encoding="utf-8")
    with pytest.raises(InputError, match="src/app.py changed in the work tree after judge read it"):
        with exported_tree(facts):
            pass
