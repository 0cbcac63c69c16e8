"""Throwaway git repositories that give the same bytes on every run: fixed identity,
dates and config, no user or system git config, and the subprocess plumbing for them."""
from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

FIXED_DATE = "2024-03-01T12:00:00+00:00"
FIXED_EPOCH = 1709294400  # 2024-03-01 12:00:00 UTC, used for plain-diff mtimes

# Every setting that changes what `git diff` prints is pinned here, so a user's or a
# distribution's defaults cannot move a hunk boundary or quote a name differently.
GIT_CONFIG = [
    "-c", "core.autocrlf=false",
    "-c", "core.safecrlf=false",
    "-c", "core.quotePath=true",
    "-c", "core.fileMode=true",
    "-c", "core.precomposeUnicode=false",
    "-c", "init.defaultBranch=main",
    "-c", "diff.algorithm=myers",
    "-c", "diff.noprefix=false",
    "-c", "diff.mnemonicPrefix=false",
    "-c", "diff.renames=false",
    "-c", "diff.context=3",
    "-c", "diff.interHunkContext=0",
    "-c", "diff.indentHeuristic=true",
    "-c", "color.ui=never",
    "-c", "commit.gpgSign=false",
]
DIFF_FLAGS = ["--no-ext-diff", "--no-color", "--no-textconv"]


def deterministic_env(home: str) -> dict:
    """The caller's environment without GIT_* variables, plus a fixed identity, dates,
    locale and time zone; HOME points into the workspace so no ~/.gitconfig is read."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({
        "HOME": home,
        "TZ": "UTC",
        "LC_ALL": "C",
        "LANG": "C",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": "Eval Builder",
        "GIT_AUTHOR_EMAIL": "evals@judge.invalid",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_NAME": "Eval Builder",
        "GIT_COMMITTER_EMAIL": "evals@judge.invalid",
        "GIT_COMMITTER_DATE": FIXED_DATE,
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
    })
    return env


def run(cmd, cwd, env, input_bytes=None, ok=(0,)) -> bytes:
    """stdout of cmd; an exit code outside ok raises with the command and its stderr
    (`diff` exits 1 when the files differ, so its callers pass ok=(1,))."""
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input_bytes,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode not in ok:
        raise RuntimeError(
            f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"{proc.stderr.decode('utf-8', 'replace')}")
    return proc.stdout


def parse_name_status(raw: str) -> list[str]:
    """The paths of `git diff --name-status -z`, both sides of a rename or copy, each once."""
    tokens = [t for t in raw.split("\0") if t]
    files, i = [], 0
    while i < len(tokens):
        status = tokens[i]
        if status[0] in "RC":
            files += [tokens[i + 1], tokens[i + 2]]
            i += 3
        else:
            files.append(tokens[i + 1])
            i += 2
    out = []
    for f in files:
        if f not in out:
            out.append(f)
    return out


class Repo:
    """A throwaway git repository seeded with one corpus project."""

    def __init__(self, workspace: Path, project: str, files: dict, executables) -> None:
        self.project = project
        self.dir = Path(tempfile.mkdtemp(prefix=f"{project}-", dir=workspace))
        self.env = deterministic_env(str(workspace))
        self.git("init", "-q")
        for path, content in files.items():
            self.write(path, content)
        for path in executables:
            os.chmod(self.dir / path, 0o755)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", f"{project}: initial import")

    def git(self, *args, input_bytes=None, ok=(0,)) -> str:
        out = run(["git", *GIT_CONFIG, *args], self.dir, self.env, input_bytes, ok)
        return out.decode("utf-8")

    def head(self) -> str:
        return self.git("rev-parse", "HEAD").strip()

    def write(self, path: str, content) -> None:
        target = self.dir / path
        target.parent.mkdir(parents=True, exist_ok=True)
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        target.write_bytes(data)

    def read(self, path: str) -> str:
        return (self.dir / path).read_bytes().decode("utf-8")

    def apply_ops(self, ops) -> None:
        """Perform a change described as data: ("edit", path, old, new) replaces text
        found exactly once, ("sub", path, function) rewrites the whole text, and
        write / append / rm / mv / chmod do what they say."""
        for op in ops:
            kind = op[0]
            if kind == "edit":
                _, path, old, new = op
                text = self.read(path)
                assert text.count(old) == 1, f"{self.project}:{path}: {old!r} found {text.count(old)}x"
                self.write(path, text.replace(old, new))
            elif kind == "write":
                self.write(op[1], op[2])
            elif kind == "append":
                self.write(op[1], self.read(op[1]) + op[2])
            elif kind == "sub":
                self.write(op[1], op[2](self.read(op[1])))
            elif kind == "rm":
                (self.dir / op[1]).unlink()
            elif kind == "mv":
                dst = self.dir / op[2]
                dst.parent.mkdir(parents=True, exist_ok=True)
                os.replace(self.dir / op[1], dst)
            elif kind == "chmod":
                os.chmod(self.dir / op[1], op[2])
            else:
                raise ValueError(kind)

    def staged(self, *flags) -> tuple[str, list[str]]:
        """Stage everything; the patch of the index against HEAD and the paths it names."""
        self.git("add", "-A")
        patch = self.git("diff", "--cached", *DIFF_FLAGS, *flags)
        names = self.git("diff", "--cached", "--name-status", "-z", *flags)
        return patch, parse_name_status(names)

    def diff(self, a: str, b: str, *flags) -> tuple[str, list[str]]:
        patch = self.git("diff", *DIFF_FLAGS, *flags, a, b)
        names = self.git("diff", "--name-status", "-z", *flags, a, b)
        return patch, parse_name_status(names)

    def commit(self, msg: str) -> str:
        self.git("commit", "-q", "--allow-empty", "-m", msg)
        return self.head()

    def check_apply(self, patch: str, at: str) -> None:
        """Assert that patch applies cleanly to the tree of commit `at`."""
        index = self.dir / ".git" / "check-index"
        env = dict(self.env, GIT_INDEX_FILE=str(index))
        run(["git", *GIT_CONFIG, "read-tree", at], self.dir, env)
        run(["git", *GIT_CONFIG, "apply", "--cached", "--check", "-"], self.dir, env,
            patch.encode("utf-8"))
        index.unlink()
