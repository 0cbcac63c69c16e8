"""judge/rules/junk_files.py: files no step asks for, added beside an honest change, are rejected; asked-for ones are not."""

from __future__ import annotations

import pytest

import judge
from helpers.builders import diff, make_case


def _new_file(path: str, text: str = "x\n") -> str:
    return (f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n"
            f"@@ -0,0 +1 @@\n+{text}")


def _with(*paths: str, step: dict | None = None) -> tuple[dict, dict]:
    patch = diff("python_edit.diff") + "".join(_new_file(p) for p in paths)
    files = ["src/app.py", *paths]
    return make_case(patch, filesWritten=files, filesTouched=files, step=step)


@pytest.mark.parametrize("path, kind", [
    ("src/__pycache__/app.cpython-311.pyc", "bytecode"),
    ("src/app.pyc", "bytecode"),
    ("build/lib/app.py", "build output"),
    ("dist/app-1.0.tar.gz", "build output"),
    ("target/classes/App.class", "build output"),
    ("src/app.egg-info/PKG-INFO", "build output"),
    ("web/node_modules/left-pad/index.js", "installed packages"),
    (".venv/lib/python3.11/site-packages/x.py", "a virtualenv"),
    (".pytest_cache/v/cache/lastfailed", "a tool cache"),
    ("data/app.sqlite3", "a database"),
    ("src/.DS_Store", "OS litter"),
    ("src/.app.py.swp", "an editor swap file"),
    ("src/app.py~", "an editor backup"),
    ("src/Ky.ts.orig", "a merge or patch leftover"),
    ("src/Ky.ts.rej", "a merge or patch leftover"),
    ("client.py.bak", "a backup copy"),
    ("src/.Ky.ts.swo", "an editor swap file"),
    (".coverage", "coverage data"),
    ("htmlcov/index.html", "coverage data"),
])
def test_junk_added_beside_an_honest_change_is_rejected(path, kind):
    verdict = judge.validate(*_with(path))
    assert (verdict.valid, verdict.rule) == (False, "junk_files")
    assert f"{path} ({kind})" in verdict.reason and "allowedFiles" in verdict.reason
    assert verdict.findings[-1].files == (path,) or path in verdict.findings[0].files


@pytest.mark.parametrize("path", ["src/build/steps.py", "docs/dist.md", "src/targets.py", "tests/test_db.py",
                                  "src/coverage/report.py", "tools/venv_check.py", "tests/data/sample.rej",
                                  "src/orig.py", "src/rej/handler.ts", "notes.bak"])
def test_ordinary_files_with_similar_names_are_not_junk(path):
    verdict = judge.validate(*_with(path))
    assert verdict.valid, verdict.reason


def test_a_file_the_step_names_or_allows_is_not_junk():
    named = _with("tests/fixtures/users.db", step={"description": "Add the tests/fixtures/users.db fixture for parse_port()"})
    assert judge.validate(*named).valid
    allowed = _with("dist/app.js", step={"allowedFiles": ["src/**", "dist/**"]})
    assert judge.validate(*allowed).valid


def test_a_patch_leftover_with_content_is_junk_unless_the_step_names_it():
    # `patch` leaves the file before (.orig) and the hunks it could not apply (.rej) beside the file, with content
    text = "@@ -1,3 +1,3 @@\n-const a = 1\n+const a = 2\n"
    patch = diff("python_edit.diff") + _new_file("src/Ky.ts.rej", text.splitlines()[0] + "\n")
    files = ["src/app.py", "src/Ky.ts.rej"]
    verdict = judge.validate(*make_case(patch, filesWritten=files, filesTouched=files))
    assert (verdict.valid, verdict.rule) == (False, "junk_files") and "src/Ky.ts.rej" in verdict.reason
    named = make_case(patch, filesWritten=files, filesTouched=files,
                      step={"description": "Add the src/Ky.ts.rej fixture the patch-tool tests read"})
    assert judge.validate(*named).valid


def test_updating_a_tracked_build_file_is_not_junk():
    # A repository that tracks its dist/ may update it: only files the change creates count.
    patch = diff("python_edit.diff") + ("diff --git a/dist/app.js b/dist/app.js\n--- a/dist/app.js\n+++ b/dist/app.js\n"
                                        "@@ -1 +1 @@\n-var a = 1;\n+var a = 2;\n")
    files = ["src/app.py", "dist/app.js"]
    assert judge.validate(*make_case(patch, filesWritten=files, filesTouched=files)).valid
