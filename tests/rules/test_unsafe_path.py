"""Rule 2, unsafe_path: nothing may point outside the work tree or into .git/."""

import pytest

import judge
from helpers.builders import make_case


def _patch_for(path: str) -> str:
    return f"--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-old\n+new\n"


@pytest.mark.parametrize("path", ["../outside.py", "src/../../etc/passwd", ".git/hooks/pre-commit", "sub/.git/config"])
def test_unsafe_path_in_patch_and_files_written_is_rejected(path):
    verdict = judge.validate(*make_case(_patch_for(path), filesWritten=[path], filesTouched=[path]))
    assert verdict.rule == "unsafe_path"
    assert path in verdict.reason


def test_absolute_path_in_plain_diff_is_rejected():
    patch = "--- /etc/hosts\n+++ /etc/hosts\n@@ -1 +1 @@\n-127.0.0.1 localhost\n+10.0.0.1 localhost\n"
    verdict = judge.validate(*make_case(patch, filesWritten=["/etc/hosts"], filesTouched=["/etc/hosts"]))
    assert verdict.rule == "unsafe_path"
    assert "absolute" in verdict.reason


def test_unsafe_path_only_in_files_touched_is_rejected():
    verdict = judge.validate(*make_case(filesTouched=["src/app.py", "../../home/user/.ssh/id_rsa"]))
    assert verdict.rule == "unsafe_path"


@pytest.mark.parametrize("path", [".gitignore", ".github/workflows/ci.yml", "src/a..b.py"])
def test_git_look_alikes_are_safe(path):
    verdict = judge.validate(*make_case(_patch_for(path), filesWritten=[path], filesTouched=[path]))
    assert verdict.valid, verdict.reason


# Symlinks: mode 120000, the target is the blob.
def _new_link(path: str, target: str) -> str:
    return (f"diff --git a/{path} b/{path}\nnew file mode 120000\nindex 0000000..1111111\n--- /dev/null\n"
            f"+++ b/{path}\n@@ -0,0 +1 @@\n+{target}\n\\ No newline at end of file\n")


def _retargeted_link(path: str, old: str, new: str) -> str:
    # only the index line carries the mode: git keeps it for the new side
    return (f"diff --git a/{path} b/{path}\nindex 1111111..2222222 120000\n--- a/{path}\n+++ b/{path}\n"
            f"@@ -1 +1 @@\n-{old}\n\\ No newline at end of file\n+{new}\n\\ No newline at end of file\n")


@pytest.mark.parametrize("path, target, why", [
    ("passwd", "/etc/passwd", "absolute path"),
    ("src/hooks", "../../.git/hooks", "outside the repository"),
    ("a/b/hooks", "../../.git/hooks", "into .git"),
    ("cfg", ".GIT/config", "into .git"),
    ("docs/up", "../..", "outside the repository"),
    ("a/back", "d/../../x", "climbs back out"),
    ("win", "C:\\Windows\\system.ini", "absolute path"),
])
def test_a_new_symlink_leading_out_or_into_git_is_unsafe(path, target, why):
    verdict = judge.validate(*make_case(_new_link(path, target), filesWritten=[path], filesTouched=[path]))
    assert verdict.rule == "unsafe_path", verdict.reason
    assert path in verdict.reason and why in verdict.reason


def test_a_symlink_retargeted_out_of_the_repository_is_unsafe():
    patch = _retargeted_link("docs/readme", "../README.md", "../../../home/user/.ssh/id_rsa")
    verdict = judge.validate(*make_case(patch, filesWritten=["docs/readme"], filesTouched=["docs/readme"]))
    assert verdict.rule == "unsafe_path" and "outside the repository" in verdict.reason


@pytest.mark.parametrize("path, target", [("docs/README.md", "../README.md"), ("latest", "releases/v2"),
                                          ("a/b/c", "../../src/x.py"), ("link", "./x")])
def test_a_symlink_inside_the_repository_is_safe(path, target):
    verdict = judge.validate(*make_case(_new_link(path, target), filesWritten=[path], filesTouched=[path]))
    assert verdict.valid, verdict.reason


def test_a_regular_file_whose_text_looks_like_a_path_is_safe():
    patch = "--- /dev/null\n+++ b/paths.txt\n@@ -0,0 +1 @@\n+/etc/passwd\n"
    assert judge.validate(*make_case(patch, filesWritten=["paths.txt"], filesTouched=["paths.txt"])).valid


def test_a_symlink_in_the_work_tree_is_judged_from_git_not_the_claim(tmp_path):
    import os

    from helpers.scenario_repos import Repo, git

    repo = Repo(tmp_path / "repo", {"README.md": "hello\n"})
    os.symlink("/etc/passwd", repo.root / "notes")
    git(repo.root, "add", "-N", "notes")
    patch = "--- /dev/null\n+++ b/notes\n@@ -0,0 +1 @@\n+notes\n"  # the claim: a plain file
    step, result = make_case(patch, filesWritten=["notes"], filesTouched=["notes"])
    verdict = judge.validate(step, result, workspace=judge.Workspace(repo.root, repo.base))
    assert verdict.rule == "unsafe_path", verdict.reason
    assert "/etc/passwd" in verdict.reason


def test_unsafe_names_are_also_checked_as_folding_file_systems_store_them():
    from judge.patch.paths import unsafe_reason

    # seven code points as written, six once NFC-composed: then the form of an 8.3 short name
    decomposed = "abcdee\u0301~1"
    assert unsafe_reason(f"src/{decomposed}") is not None
    assert "NFC-composed" in unsafe_reason(f"src/{decomposed}")
    assert unsafe_reason("src/abcdef\u0301~1") is None  # seven letters either way: not a short name
    assert unsafe_reason("caf\u00e9/Menu.txt") is None and unsafe_reason("cafe\u0301/Menu.txt") is None
