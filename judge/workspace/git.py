"""Read-only facts from git: which files changed since a base, and whether a patch applies to that base.

Nothing here writes to the repository. Every command runs with GIT_OPTIONAL_LOCKS=0, so
`git status` refreshes the index in memory but never writes it back; the patch check reads
the base tree into a throwaway index (GIT_INDEX_FILE in a temporary directory) and runs
`git apply --check --cached` against it, which reads blobs and writes nothing. The user's
worktree, index, refs and stash are left exactly as they were.

The executor can write .git too, so what `git status` shows is only a lower bound: the index's
skip-worktree and assume-unchanged flags, its cached stat data, .git/info/exclude and
core.excludesFile all hide changes from it. A second pass trusts none of them: it reads HEAD's
tree into a throwaway index (no flags, no stat data, so every file's content is hashed),
compares the work tree with it, and lists untracked files with only the .gitignore files as
exclude rules. What that pass finds and status did not is reported too, marked ``hidden``.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from judge.patch.grammar import BINARY_PLACEHOLDER
from judge.patch.transport import undo_transport_crlf
from judge.errors import InputError, field_ref

__all__ = ["EMPTY_TREE", "GitFacts", "read_git_facts", "resolve_repository", "tracked_at"]

# git's empty tree: the base to give for a repository that had no commits when the step began.
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_TIMEOUT_S = 120
# fsmonitor is a command from the repository's config: an executor could plant one, so it stays off.
_SAFE_CONFIG = ("-c", "core.fsmonitor=false")
# The throwaway-index pass: no sparse checkout, no split index (it would write sharedindex files
# into .git), no untracked cache, and stat data compared in full.
_FRESH_CONFIG = (
    "-c", "core.sparseCheckout=false", "-c", "index.sparse=false", "-c", "core.splitIndex=false",
    "-c", "core.untrackedCache=false", "-c", "core.ignoreStat=false", "-c", "core.checkStat=default",
    "-c", "core.trustctime=true",
)
_GITIGNORE = ".gitignore"


@dataclass(frozen=True)
class GitFacts:
    """What git says changed between ``base`` and the work tree, split by where the change sits."""

    root: str
    base: str  # the object id --base resolved to (a commit, or a tree such as EMPTY_TREE)
    head: str | None  # None in a repository with no commits
    committed: tuple[str, ...]  # base..HEAD, tree to tree
    staged: tuple[str, ...]  # HEAD..index
    unstaged: tuple[str, ...]  # index..work tree
    untracked: tuple[str, ...]  # not ignored by a .gitignore (.git/info/exclude and core.excludesFile do not count)
    patch_error: str | None = None  # why the result's patch does not apply to base; None if it does or there is none
    hidden: tuple[str, ...] = ()  # changed, but plain `git status` does not show it (index flags, stat data, excludes)

    @property
    def changed(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.committed + self.staged + self.unstaged + self.untracked)))

    def where(self, path: str) -> str:
        """``committed``, ``staged``, ``unstaged`` or ``untracked``: the first place the change shows."""
        for name in ("committed", "staged", "unstaged", "untracked"):
            if path in getattr(self, name):
                return f"{name}, hidden from plain git status" if path in self.hidden else name
        return "unchanged"


def read_git_facts(repo: str | os.PathLike[str], base: str, patch: str | None = None) -> GitFacts:
    """The facts for ``repo`` against ``base``; InputError when it is not a repository or base is unknown."""
    root, base_id = resolve_repository(repo, base)
    head = _try(root, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
    committed = _tree_diff(root, base_id, head) if head else ()
    staged, unstaged, untracked = _status(root)
    seen = set(staged + unstaged + untracked)
    worktree, others = _untrusting_status(root, head)
    hidden_unstaged = [path for path in worktree if path not in seen]
    hidden_untracked = [path for path in others if path not in seen]
    unstaged = tuple(sorted(set(unstaged + tuple(hidden_unstaged))))
    untracked = tuple(sorted(set(untracked + tuple(hidden_untracked))))
    patch_error = _patch_error(root, base_id, patch) if patch and patch.strip() else None
    return GitFacts(str(root), base_id, head, committed, staged, unstaged, untracked, patch_error,
                    tuple(sorted(set(hidden_unstaged + hidden_untracked))))


def resolve_repository(repo: str | os.PathLike[str], base: str) -> tuple[str, str]:
    """(the work tree's top level, the object id ``base`` names); InputError when either cannot be read."""
    root = _toplevel(Path(repo))
    return root, _resolve_base(root, base)


def tracked_at(root: str, base: str, path: str) -> bool:
    """True when ``path`` is a file in ``base``'s tree."""
    return bool(_git(root, "ls-tree", "-z", "--name-only", base, "--", path).stdout)


def _toplevel(repo: Path) -> str:
    if not repo.is_dir():
        raise InputError(f"{repo}: no such directory", field="repo")
    proc = _run(["git", *_SAFE_CONFIG, "-C", str(repo), "rev-parse", "--show-toplevel"])
    if proc.returncode != 0:
        raise InputError(f"{repo}: not a git work tree ({_first_line(proc.stderr)})", field="repo")
    return proc.stdout.decode("utf-8", "surrogateescape").rstrip("\n")


def _resolve_base(root: str, base: str) -> str:
    for kind in ("commit", "tree"):
        found = _try(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{{kind}}}")
        if found:
            return found
    if _try(root, "rev-parse", "--verify", "--quiet", "HEAD"):
        hint = "; give the commit the step started from"
    else:
        hint = f" (the repository has no commits: give {field_ref('base')} {EMPTY_TREE}, git's empty tree)"
    raise InputError(f"{base[:80]}: not a commit in {root}{hint}", field="base")


def _tree_diff(root: str, base: str, head: str) -> tuple[str, ...]:
    out = _git(root, "diff-tree", "-r", "-z", "--name-only", "--no-renames", base, head).stdout
    return _paths(out.split(b"\0"))


def _status(root: str) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Staged, unstaged and untracked paths from `git status --porcelain=v2` (paths from the top level)."""
    out = _git(root, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames",
               "--ignore-submodules=none").stdout
    staged, unstaged, untracked = [], [], []
    for entry in out.split(b"\0"):
        kind = entry[:1]
        if kind == b"?":
            untracked.append(entry[2:])
        elif kind in (b"1", b"u"):
            # `1 XY sub mH mI mW hH hI path`; `u XY sub m1 m2 m3 mW h1 h2 h3 path`
            fields = entry.split(b" ", 8 if kind == b"1" else 10)
            xy, path = fields[1], fields[-1]
            if xy[:1] != b".":
                staged.append(path)
            if xy[1:2] != b".":
                unstaged.append(path)
    return _paths(staged), _paths(unstaged), _paths(untracked)


def _untrusting_status(root: str, head: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(work-tree paths that differ from HEAD, untracked paths), read against a throwaway index of HEAD.

    Nothing the executor could have set in .git is trusted: no index flags or stat data (the
    fresh index has none, so every file's content is hashed), and of the exclude rules only
    .gitignore files count. A .gitignore that git ignores (one that ignores itself) is listed:
    it is a change like any other.
    """
    with tempfile.TemporaryDirectory(prefix="judge-status-") as scratch:
        env = {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
        if head:
            _git(root, *_FRESH_CONFIG, "read-tree", head, env=env)
        # Records the stat data of files whose content matches HEAD (in the throwaway index only);
        # exit 1 just means some differ.
        _run(_command(root, *_FRESH_CONFIG, "update-index", "-q", "--refresh"), None, env)
        worktree = _git(root, *_FRESH_CONFIG, "diff-files", "-z", "--name-only", "--no-renames",
                        "--ignore-submodules=none", env=env).stdout
        others = _git(root, *_FRESH_CONFIG, "ls-files", "-z", "--others",
                      f"--exclude-per-directory={_GITIGNORE}", env=env).stdout
        ignored = _git(root, *_FRESH_CONFIG, "ls-files", "-z", "--others", "--ignored", "--directory",
                       f"--exclude-per-directory={_GITIGNORE}", env=env).stdout
    planted = [p for p in ignored.split(b"\0") if p == _GITIGNORE.encode() or p.endswith(b"/" + _GITIGNORE.encode())]
    return _paths(worktree.split(b"\0")), _paths(others.split(b"\0") + planted)


def _patch_error(root: str, base: str, patch: str) -> str | None:
    """Why ``patch`` does not apply to ``base``, checked in a throwaway index; None when it applies."""
    text = _without_binary_placeholders(undo_transport_crlf(patch))
    if not text.strip():
        return None
    try:
        data = text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as exc:  # a lone surrogate such as \ud800: no bytes on disk can match it
        return f"the patch holds {text[exc.start]!r} at character {exc.start}, which is not valid UTF-8 text"
    with tempfile.TemporaryDirectory(prefix="judge-apply-") as scratch:
        env = {"GIT_INDEX_FILE": os.path.join(scratch, "index")}
        _git(root, "read-tree", base, env=env)
        proc = _run(_command(root, "apply", "--check", "--cached", "--whitespace=nowarn", "-"), data, env)
        if proc.returncode != 0 and b"\ndiff --git " not in b"\n" + data:
            # a plain `diff -u` patch may carry no a/ b/ prefixes: try it as written before calling it broken
            retry = _run(_command(root, "apply", "--check", "--cached", "--whitespace=nowarn", "-p0", "-"), data, env)
            proc = proc if retry.returncode != 0 else retry
    if proc.returncode == 0:
        return None
    return _first_lines(proc.stderr) or f"git apply exited {proc.returncode}"


def _without_binary_placeholders(patch: str) -> str:
    """The patch less its `Binary files a/x and b/x differ` sections: they carry no content to apply.

    git refuses them ("without full index line"); that is the diff format's limit, not a lie,
    and the file itself is still checked against git by the claim rules.
    """
    sections = re.split(r"(?m)^(?=diff --git )", patch)
    kept = [s for s in sections if not (BINARY_PLACEHOLDER.search(s) and "\nGIT binary patch\n" not in s)]
    return "".join(kept)


def _git(root: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    proc = _run(_command(root, *args), None, env)
    if proc.returncode != 0:
        name = next((a for a, before in zip(args, ("", *args)) if a != "-c" and before != "-c"), "")
        raise InputError(f"{root}: git {name} failed ({_first_line(proc.stderr)})", field="repo")
    return proc


def _try(root: str, *args: str) -> str | None:
    """The stripped output of a git command, or None when it fails."""
    proc = _run(_command(root, *args))
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("ascii", "replace").strip() or None


def _command(root: str, *args: str) -> list[str]:
    return ["git", *_SAFE_CONFIG, "-C", root, *args]


def _run(argv: list[str], data: bytes | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_LITERAL_PATHSPECS": "1", "LC_ALL": "C",
                "GIT_TERMINAL_PROMPT": "0", **(env or {})}
    try:
        return subprocess.run(argv, input=data, capture_output=True, env=full_env, timeout=_TIMEOUT_S,
                              stdin=None if data is not None else subprocess.DEVNULL)
    except FileNotFoundError:
        raise InputError("git is not installed or not on PATH; judge needs it to check a workspace") from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git took longer than {_TIMEOUT_S} s on {argv[4]}; check the repository and try again") from None


def _paths(raw: list[bytes]) -> tuple[str, ...]:
    return tuple(sorted({p.decode("utf-8", "surrogateescape") for p in raw if p}))


def _first_line(stderr: bytes) -> str:
    lines = stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0][:300] if lines else "no message"


def _first_lines(stderr: bytes, limit: int = 3) -> str:
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return "; ".join(lines[:limit])[:500]
