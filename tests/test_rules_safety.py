"""Rule 2, unsafe_path: nothing may point outside the work tree or into .git/."""

import pytest

import judge
from builders import make_case


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
