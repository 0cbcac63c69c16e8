"""Real temporary git repositories for the workspace tests, and a snapshot that proves judge left them alone."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

# Deterministic identity and no user or system config (no signing hooks, no aliases) for every git call.
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.invalid",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """judge's own git calls see the same clean environment (import this fixture into a test module)."""
    for name, value in GIT_ENV.items():
        monkeypatch.setenv(name, value)


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    # GIT_OPTIONAL_LOCKS=0: the tests' own `git status` must not refresh the index they compare.
    proc = subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True,
                          env={**os.environ, **GIT_ENV, "GIT_OPTIONAL_LOCKS": "0"}, check=False)
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr.decode()}"
    return proc.stdout.decode("utf-8", "surrogateescape")


class Repo:
    """A scenario repository: write files, stage, commit; ``base`` is the first commit."""

    def __init__(self, root: Path, files: dict[str, str] | None = None) -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        git(root, "init", "-q", "-b", "main")
        self.base = ""
        if files is not None:
            self.write(files)
            self.commit("base")
            self.base = self.head()

    def write(self, files: dict[str, str]) -> None:
        for name, text in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")

    def add(self, *paths: str) -> None:
        git(self.root, "add", "-A", "--", *(paths or (".",)))

    def commit(self, message: str) -> None:
        self.add()
        git(self.root, "commit", "-q", "-m", message)

    def head(self) -> str:
        return git(self.root, "rev-parse", "HEAD").strip()

    def diff(self, *args: str) -> str:
        """A patch as an executor would return it: ``git diff`` of the base against the work tree."""
        return git(self.root, "diff", *args)


@dataclass(frozen=True)
class Snapshot:
    status: str
    head: str
    refs: str
    stash: str
    index_bytes: bytes
    index_mtime_ns: int
    files: tuple[tuple[str, bytes], ...]


def snapshot(repo: Path) -> Snapshot:
    """Everything a verification could disturb: worktree, index (bytes and mtime), HEAD, refs, stash."""
    index = repo / ".git" / "index"
    index_bytes = index.read_bytes() if index.exists() else b""  # read before any git command runs
    index_mtime_ns = index.stat().st_mtime_ns if index.exists() else 0
    files = tuple(sorted(
        (str(p.relative_to(repo)), p.read_bytes())
        for p in repo.rglob("*") if p.is_file() and ".git" not in p.relative_to(repo).parts
    ))
    return Snapshot(
        status=git(repo, "status", "--porcelain=v2", "--untracked-files=all"),
        head=_maybe(repo, "rev-parse", "--verify", "--quiet", "HEAD"),
        refs=git(repo, "for-each-ref"),
        stash=git(repo, "stash", "list"),
        index_bytes=index_bytes,
        index_mtime_ns=index_mtime_ns,
        files=files,
    )


def _maybe(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", "-C", str(repo), *args], capture_output=True,
                          env={**os.environ, **GIT_ENV, "GIT_OPTIONAL_LOCKS": "0"})
    return proc.stdout.decode().strip()
