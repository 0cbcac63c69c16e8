"""judge/evidence/git.py on real repositories: which files changed, whether a patch applies, and never a write."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import judge
from judge.errors import InputError
from judge.workspace.git import EMPTY_TREE, read_git_facts
from helpers.scenario_repos import Repo, git, git_env, snapshot  # noqa: F401  (git_env: autouse fixture)

APP = "def port(value):\n    return int(value)\n"
APP_FIXED = "def port(value):\n    port = int(value)\n    if not 0 < port < 65536:\n        raise ValueError(value)\n    return port\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo", {"src/app.py": APP, "README.md": "# app\n", ".gitignore": "build/\n"})


def facts(repo: Repo, patch: str | None = None, base: str | None = None):
    """The facts, with the proof that reading them changed nothing in the repository."""
    before = snapshot(repo.root)
    result = read_git_facts(repo.root, base or repo.base, patch)
    assert snapshot(repo.root) == before
    return result


def test_unstaged_edit_is_changed(repo):
    repo.write({"src/app.py": APP_FIXED})
    got = facts(repo)
    assert (got.changed, got.unstaged, got.staged, got.committed) == (("src/app.py",), ("src/app.py",), (), ())


def test_commits_the_executor_made_itself_count(repo):
    repo.write({"src/app.py": APP_FIXED})
    repo.commit("executor's own commit")
    got = facts(repo)
    assert got.committed == ("src/app.py",) and got.head == repo.head() != repo.base
    assert got.where("src/app.py") == "committed"


def test_dirty_index_staged_and_unstaged_and_untracked(repo):
    repo.write({"src/app.py": APP_FIXED, "src/new.py": "x = 1\n", "notes.txt": "n\n"})
    repo.add("src/app.py", "src/new.py")
    repo.write({"src/app.py": APP_FIXED + "# more\n", "README.md": "# app!\n"})
    got = facts(repo)
    assert got.staged == ("src/app.py", "src/new.py")
    assert got.unstaged == ("README.md", "src/app.py")
    assert got.untracked == ("notes.txt",)
    assert got.changed == ("README.md", "notes.txt", "src/app.py", "src/new.py")


def test_ignored_files_are_not_changes(repo):
    repo.write({"build/out.bin": "x"})
    assert facts(repo).changed == ()


def test_deleted_file_is_changed(repo):
    (repo.root / "README.md").unlink()
    assert facts(repo).changed == ("README.md",)


def test_a_change_committed_then_reverted_by_a_commit_is_no_change(repo):
    repo.write({"src/app.py": APP_FIXED})
    repo.commit("change")
    repo.write({"src/app.py": APP})
    repo.commit("revert")
    assert facts(repo).changed == ()


def test_detached_head(repo):
    repo.write({"src/app.py": APP_FIXED})
    repo.commit("work")
    git(repo.root, "checkout", "-q", "--detach", "HEAD")
    got = facts(repo)
    assert got.committed == ("src/app.py",) and got.head == repo.head()


def test_repository_without_commits_against_the_empty_tree(tmp_path):
    repo = Repo(tmp_path / "fresh")
    repo.write({"a.py": "a = 1\n", "b.py": "b = 2\n"})
    repo.add("a.py")
    got = facts(repo, base=EMPTY_TREE)
    assert (got.head, got.staged, got.untracked, got.changed) == (None, ("a.py",), ("b.py",), ("a.py", "b.py"))


def test_repository_without_commits_asks_for_the_empty_tree(tmp_path):
    repo = Repo(tmp_path / "fresh")
    with pytest.raises(InputError, match=EMPTY_TREE):
        read_git_facts(repo.root, "HEAD")
    with pytest.raises(InputError, match=EMPTY_TREE):
        read_git_facts(repo.root, "1" * 40)


def test_path_with_spaces_and_unicode(tmp_path):
    repo = Repo(tmp_path / "my repo", {"docs/user guide.md": "a\n", "ünï.txt": "u\n"})
    repo.write({"docs/user guide.md": "b\n", "new file.txt": "n\n", "ünï.txt": "v\n"})
    assert facts(repo).changed == ("docs/user guide.md", "new file.txt", "ünï.txt")


def test_repo_given_as_a_subdirectory_is_refused(repo):
    # The work tree is the directory the caller named: judge never searches upwards for a .git.
    repo.write({"src/app.py": APP_FIXED})
    with pytest.raises(InputError, match="not the top of a git work tree"):
        read_git_facts(repo.root / "src", repo.base)


# --- the patch check ----------------------------------------------------------------------------


def test_patch_that_applies_to_base(repo):
    repo.write({"src/app.py": APP_FIXED})
    assert facts(repo, repo.diff()).patch_error is None


def test_patch_for_a_new_file_applies(repo):
    repo.write({"src/new.py": "x = 1\n"})
    repo.add("src/new.py")
    assert facts(repo, repo.diff("--cached")).patch_error is None


def test_patch_made_against_other_content_does_not_apply(repo):
    repo.write({"src/app.py": APP_FIXED})
    patch = repo.diff().replace("-    return int(value)", "-    return float(value)")
    error = facts(repo, patch).patch_error
    assert error is not None and "src/app.py" in error


def test_patch_is_checked_against_base_not_head(repo):
    # The executor committed its work: the patch (base -> work) applies to base, not to HEAD.
    repo.write({"src/app.py": APP_FIXED})
    patch = repo.diff()
    repo.commit("work")
    assert facts(repo, patch).patch_error is None


def test_crlf_transported_patch_applies(repo):
    repo.write({"src/app.py": APP_FIXED})
    assert facts(repo, repo.diff().replace("\n", "\r\n")).patch_error is None


def test_plain_diff_without_prefixes_applies(repo):
    repo.write({"src/app.py": APP_FIXED})
    plain = repo.diff("--no-prefix").split("\n", 2)[2]  # drop `diff --git` and `index` lines
    plain = "\n".join(line for line in plain.split("\n") if not line.startswith("index "))
    assert facts(repo, plain).patch_error is None


def test_patch_check_in_a_repo_without_commits(tmp_path):
    repo = Repo(tmp_path / "fresh")
    repo.write({"a.py": "a = 1\n"})
    repo.add("a.py")
    assert facts(repo, repo.diff("--cached"), base=EMPTY_TREE).patch_error is None


def test_patch_check_leaves_no_temporary_index_behind(repo, tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    repo.write({"src/app.py": APP_FIXED})
    facts(repo, repo.diff())
    assert list(scratch.iterdir()) == []


# --- bad input ----------------------------------------------------------------------------------


def test_missing_directory_is_input_error(tmp_path):
    with pytest.raises(InputError, match="no such directory"):
        read_git_facts(tmp_path / "nope", "HEAD")


def test_directory_that_is_not_a_repository_is_input_error(tmp_path):
    with pytest.raises(InputError, match="not the top of a git work tree"):
        read_git_facts(tmp_path, EMPTY_TREE)


@pytest.mark.parametrize("base", ["deadbeef", "no-such-branch", "--output=/tmp/x", "HEAD~5", "main", "HEAD"])
def test_base_that_is_not_a_full_id_is_refused(repo, base):
    # A ref name or short id is the repository's to define (a branch can be named like a short sha).
    with pytest.raises(InputError, match="not a full commit id.*git rev-parse"):
        facts(repo, base=base)


def test_full_id_of_no_object_is_refused(repo):
    with pytest.raises(InputError, match="no such commit"):
        facts(repo, base="0" * 40)


def test_full_id_of_a_tree_or_blob_is_refused(repo):
    tree = git(repo.root, "rev-parse", f"{repo.base}^{{tree}}").strip()
    with pytest.raises(InputError, match="names a tree, not a commit"):
        facts(repo, base=tree)


def test_uppercase_full_id_is_the_same_commit(repo):
    assert facts(repo, base=repo.base.upper()).base == repo.base


def test_repository_fsmonitor_command_is_never_run(repo, tmp_path):
    # An executor can write .git/config; judge must not run the command it names.
    marker = tmp_path / "ran"
    repo.write({"src/app.py": APP_FIXED})
    patch = repo.diff()
    git(repo.root, "config", "core.fsmonitor", f"touch {marker}; false")
    read_git_facts(repo.root, repo.base, patch)  # not facts(): the test's own git calls would run it
    assert not marker.exists()


def test_binary_placeholder_is_refused_and_the_patch_is_malformed(repo):
    # `Binary files ... differ` carries no content: git cannot apply it, and judge rejects the patch
    # as malformed (naming the file) even though the work tree holds exactly what the executor did.
    (repo.root / "logo.bin").write_bytes(b"\x00\x01")
    repo.commit("binary")
    repo.base = repo.head()
    (repo.root / "logo.bin").write_bytes(b"\x00\x02")
    repo.write({"src/app.py": APP_FIXED})
    patch = repo.diff()
    assert "Binary files a/logo.bin and b/logo.bin differ" in patch
    assert "logo.bin" in facts(repo, patch).patch_error
    step = {"id": "s1", "description": "Validate the port and refresh the logo", "mode": "apply"}
    result = {"mode": "apply", "success": True, "patch": patch, "summary": "Port range check; new logo.",
              "filesWritten": ["logo.bin", "src/app.py"], "filesTouched": ["logo.bin", "src/app.py"]}
    verdict = judge.validate(step, result, workspace=judge.Workspace(repo=str(repo.root), base=repo.base))
    assert (verdict.valid, verdict.rule) == (False, "malformed_patch") and "logo.bin" in verdict.reason
    assert "git diff --binary" in verdict.reason


def test_full_binary_patch_is_applied(repo):
    (repo.root / "logo.bin").write_bytes(b"\x00\x01")
    repo.add("logo.bin")
    assert facts(repo, repo.diff("--cached", "--binary")).patch_error is None


def test_stat_dirty_index_is_not_refreshed_on_disk(repo):
    # `git status` would normally rewrite the index to record new stat data; judge's must not.
    path = repo.root / "src" / "app.py"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    assert facts(repo).changed == ()


def test_existing_stash_and_branches_are_untouched(repo):
    repo.write({"src/app.py": APP_FIXED})
    git(repo.root, "stash", "push", "-q", "-m", "someone's work")
    git(repo.root, "branch", "feature")
    repo.write({"README.md": "# changed\n"})
    before = snapshot(repo.root)
    assert "someone's work" in before.stash and "refs/heads/feature" in before.refs
    assert facts(repo, repo.diff()).changed == ("README.md",)


# --- executor-controlled git state cannot hide a change -----------------------------------------
# The executor can write .git (index flags, info/exclude, config): git status honours all of it.


@pytest.mark.parametrize("flag", ["--skip-worktree", "--assume-unchanged"])
def test_index_flags_do_not_hide_an_edit(repo, flag):
    repo.write({"src/app.py": APP_FIXED})
    git(repo.root, "update-index", flag, "src/app.py")
    assert "src/app.py" not in git(repo.root, "status", "--porcelain")  # plain git status is blind to it
    got = facts(repo)
    assert got.changed == ("src/app.py",) and got.where("src/app.py").startswith("unstaged")


def test_skip_worktree_does_not_hide_a_deletion(repo):
    git(repo.root, "update-index", "--skip-worktree", "README.md")
    (repo.root / "README.md").unlink()
    assert facts(repo).changed == ("README.md",)


def test_info_exclude_does_not_hide_a_new_file(repo):
    repo.write({"src/backdoor.py": "import os\n"})
    (repo.root / ".git" / "info" / "exclude").write_text("src/backdoor.py\n", encoding="utf-8")
    got = facts(repo)
    assert got.untracked == ("src/backdoor.py",) and got.where("src/backdoor.py").startswith("untracked")


def test_core_excludes_file_does_not_hide_a_new_file(repo, tmp_path):
    excludes = tmp_path / "global-excludes"
    excludes.write_text("*.py\n", encoding="utf-8")
    git(repo.root, "config", "core.excludesFile", str(excludes))
    repo.write({"src/backdoor.py": "import os\n"})
    assert facts(repo).untracked == ("src/backdoor.py",)


def test_committed_gitignore_still_counts(repo):
    repo.write({"build/out.bin": "x", "src/backdoor.py": "import os\n"})
    assert facts(repo).untracked == ("src/backdoor.py",)


@pytest.mark.parametrize("folder", ["src", "evil"], ids=["tracked-folder", "new-folder"])
def test_new_gitignore_that_ignores_itself_is_reported(repo, folder):
    repo.write({f"{folder}/.gitignore": "*\n", f"{folder}/backdoor.py": "import os\n"})
    got = facts(repo)
    assert f"{folder}/.gitignore" in got.untracked


def test_stat_identical_edit_with_forgiving_stat_config_is_seen(repo):
    # Same size, same mtime, and config telling git to trust both: only the content differs.
    path = repo.root / "src" / "app.py"
    old = 1_600_000_000
    os.utime(path, (old, old))
    git(repo.root, "update-index", "--refresh")  # the index records the old stat data (what an executor could forge)
    git(repo.root, "config", "core.trustctime", "false")
    git(repo.root, "config", "core.checkStat", "minimal")
    path.write_text(APP.replace("int", "hex"), encoding="utf-8")
    os.utime(path, (old, old))
    assert "src/app.py" not in git(repo.root, "status", "--porcelain")
    assert facts(repo).changed == ("src/app.py",)


def test_patch_with_a_lone_surrogate_does_not_apply_and_never_raises(repo):
    # read_git_facts takes the patch as given, so no contract stage stands between such a patch and git apply.
    repo.write({"src/app.py": APP_FIXED})
    patch = repo.diff().replace("raise ValueError(value)", "raise ValueError('\ud800')")
    error = facts(repo, patch).patch_error
    assert error is not None and "not valid UTF-8" in error and "\\ud800" in error
