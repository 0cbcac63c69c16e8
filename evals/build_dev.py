#!/usr/bin/env python3
"""Generate evals/dev.jsonl, the development eval set for `judge`.

Every patch in the set is a real diff: the script builds small but realistic
projects (Python, TypeScript/JavaScript, Go, Rust, Java, C, shell, YAML, JSON,
Markdown) in throwaway git repositories, makes the change a step describes and
records what `git diff` (or GNU `diff -u` for the plain-diff cases) prints.
Invalid cases take such a real result and introduce exactly one defect.

Deterministic: fixed git identity and dates, no user/system git config, fixed
seeds, sorted keys. Running it twice gives byte-identical output (for a given
git / diffutils version).

Usage:  python evals/build_dev.py [--out PATH] [--quiet]
Stdlib only; needs the `git` and `diff` binaries.
"""
from __future__ import annotations

import argparse
import collections
import copy
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "dev.jsonl"

# Run as a script, Python already puts evals/ first on sys.path; loaded any other way
# (runpy, a test importing it by path) devset/ must still be found next to this file.
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from devset.corpus import PROJECT_LANG, PROJECTS  # noqa: E402
from devset.corpus.c_ringbuf import C_FILES  # noqa: E402
from devset.corpus.fixtures import ICO_MAGIC, PNG_MAGIC, F, fake_binary  # noqa: E402
from devset.corpus.java_billing import JAVA_PKG, JAVA_TEST  # noqa: E402
from devset.corpus.rs_tally import RS_FILES  # noqa: E402

FIXED_DATE = "2024-03-01T12:00:00+00:00"
FIXED_EPOCH = 1709294400  # 2024-03-01 12:00:00 UTC, used for plain-diff mtimes

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


def _env(home: str) -> dict:
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




# ---------------------------------------------------------------------------
# Git plumbing
# ---------------------------------------------------------------------------

def _run(cmd, cwd, env, input_bytes=None, ok=(0,)) -> bytes:
    proc = subprocess.run(cmd, cwd=cwd, env=env, input=input_bytes,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode not in ok:
        raise RuntimeError(
            f"command failed ({proc.returncode}): {' '.join(map(str, cmd))}\n"
            f"{proc.stderr.decode('utf-8', 'replace')}")
    return proc.stdout


class Repo:
    """A throwaway git repository seeded with one corpus project."""

    def __init__(self, workspace: Path, project: str) -> None:
        files, executables = PROJECTS[project]
        self.project = project
        self.dir = Path(tempfile.mkdtemp(prefix=f"{project}-", dir=workspace))
        self.env = _env(str(workspace))
        self.git("init", "-q")
        for path, content in files.items():
            self.write(path, content)
        for path in executables:
            os.chmod(self.dir / path, 0o755)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", f"{project}: initial import")

    def git(self, *args, input_bytes=None, ok=(0,)) -> str:
        out = _run(["git", *GIT_CONFIG, *args], self.dir, self.env, input_bytes, ok)
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
        for op in ops:
            kind = op[0]
            if kind == "edit":  # ("edit", path, old, new)
                _, path, old, new = op
                text = self.read(path)
                assert text.count(old) == 1, f"{self.project}:{path}: {old!r} found {text.count(old)}x"
                self.write(path, text.replace(old, new))
            elif kind == "write":
                self.write(op[1], op[2])
            elif kind == "append":
                self.write(op[1], self.read(op[1]) + op[2])
            elif kind == "sub":  # ("sub", path, function(text) -> text)
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
        self.git("add", "-A")
        patch = self.git("diff", "--cached", *DIFF_FLAGS, *flags)
        names = self.git("diff", "--cached", "--name-status", "-z", *flags)
        return patch, _parse_name_status(names)

    def diff(self, a: str, b: str, *flags) -> tuple[str, list[str]]:
        patch = self.git("diff", *DIFF_FLAGS, *flags, a, b)
        names = self.git("diff", "--name-status", "-z", *flags, a, b)
        return patch, _parse_name_status(names)

    def commit(self, msg: str) -> str:
        self.git("commit", "-q", "--allow-empty", "-m", msg)
        return self.head()

    def check_apply(self, patch: str, at: str) -> None:
        """Assert that patch applies cleanly to the tree of commit `at`."""
        index = self.dir / ".git" / "check-index"
        env = dict(self.env, GIT_INDEX_FILE=str(index))
        _run(["git", *GIT_CONFIG, "read-tree", at], self.dir, env)
        _run(["git", *GIT_CONFIG, "apply", "--cached", "--check", "-"], self.dir, env,
             patch.encode("utf-8"))
        index.unlink()


def _parse_name_status(raw: str) -> list[str]:
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


@dataclass
class Change:
    """One real change: the patch, the files it names, where it applies."""
    repo: Repo
    patch: str
    files: list[str]
    base: str
    after: str
    checked: bool = True


class Builder:
    def __init__(self, workspace: Path) -> None:
        self.ws = workspace

    def change(self, project: str, ops, flags=(), setup=None, check=True) -> Change:
        repo = Repo(self.ws, project)
        if setup:
            repo.apply_ops(setup)
            repo.git("add", "-A")
            repo.commit("setup")
        base = repo.head()
        repo.apply_ops(ops)
        patch, files = repo.staged(*flags)
        assert patch.strip(), f"empty diff for {project} {ops[:1]}"
        after = repo.commit("change")
        if check:
            repo.check_apply(patch, base)
        return Change(repo, patch, files, base, after, check)

    def followup(self, prev: Change, ops, flags=()) -> Change:
        """A second change on top of prev (a fix_regression step)."""
        repo = prev.repo
        repo.git("checkout", "-q", prev.after)
        repo.apply_ops(ops)
        patch, files = repo.staged(*flags)
        after = repo.commit("fix")
        repo.check_apply(patch, prev.after)
        return Change(repo, patch, files, prev.after, after)

    def reverse(self, prev: Change) -> Change:
        """`git diff -R` of prev: the exact undo of that change."""
        repo = prev.repo
        patch, files = repo.diff(prev.base, prev.after, "-R")
        repo.check_apply(patch, prev.after)
        return Change(repo, patch, files, prev.after, prev.base)

    def labelled_diff(self, items) -> str:
        """`diff -u --label OLD --label NEW` over (old_label, new_label, old, new)
        tuples; old None means a new file. Used for paths outside any repo."""
        snap = Path(tempfile.mkdtemp(prefix="abs-", dir=self.ws))
        env = _env(str(self.ws))
        chunks = []
        for n, (la, lb, old, new) in enumerate(items):
            fa, fb = snap / f"{n}.old", snap / f"{n}.new"
            fa.write_text(old or "", encoding="utf-8")
            fb.write_text(new, encoding="utf-8")
            cmd = ["diff", "-u", "--label", la if old is not None else "/dev/null",
                   "--label", lb, str(fa.name), str(fb.name)]
            chunks.append(_run(cmd, snap, env, ok=(1,)))
        return b"".join(chunks).decode("utf-8")

    def plain(self, project: str, ops, paths, recursive=False, labels=False) -> Change:
        """A change recorded with GNU `diff -u` (no git headers), -p1 style."""
        repo = Repo(self.ws, project)
        base = repo.head()
        snap = Path(tempfile.mkdtemp(prefix="plain-", dir=self.ws))
        for side in ("a", "b"):
            if side == "b":
                repo.apply_ops(ops)
            for p in paths:
                src = repo.dir / p
                if src.exists():
                    dst = snap / side / p
                    dst.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(src, dst)
        for f in sorted(snap.rglob("*")):
            os.utime(f, (FIXED_EPOCH, FIXED_EPOCH))
        env = _env(str(self.ws))
        if recursive:
            out = _run(["diff", "-ruN", "a", "b"], snap, env, ok=(1,))
        else:
            chunks = []
            for p in paths:
                cmd = ["diff", "-u"]
                if labels:
                    cmd += ["--label", f"a/{p}", "--label", f"b/{p}"]
                chunks.append(_run(cmd + [f"a/{p}", f"b/{p}"], snap, env, ok=(1,)))
            out = b"".join(chunks)
        patch = out.decode("utf-8")
        repo.git("add", "-A")
        after = repo.commit("change")
        repo.check_apply(patch, base)
        return Change(repo, patch, list(paths), base, after)


# ---------------------------------------------------------------------------
# Patch helpers: path extraction (for self-checks) and defect injection
# ---------------------------------------------------------------------------

def _unquote(path: str) -> str:
    """Undo git's C-style quoting ("a/r\\303\\251sum\\303\\251.md")."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    simple = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a",
              "b": b"\b", "f": b"\f", "r": b"\r", "v": b"\v"}
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1]
            if nxt in "01234567":
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += simple[nxt]
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8")


def _strip_prefix(path: str) -> str | None:
    path = path.split("\t")[0]
    path = _unquote(path)
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def patch_paths(patch: str) -> set[str]:
    """Paths a patch touches (prefix-stripped, unquoted). Self-check helper."""
    paths: set[str] = set()
    lines = patch.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            rest = line[len("diff --git "):]
            if rest.startswith('"'):
                end = 1
                while rest[end] != '"':
                    end += 2 if rest[end] == "\\" else 1
                a, b = rest[:end + 1], rest[end + 2:]
            elif rest.endswith('"'):
                cut = rest.rindex(' "b/')
                a, b = rest[:cut], rest[cut + 1:]
            else:
                cuts = [m.start() for m in re.finditer(" b/", rest)]
                same = [c for c in cuts if rest[2:c] == rest[c + 3:]]
                cut = same[0] if same else (cuts[0] if cuts else (len(rest) - 1) // 2)
                a, b = rest[:cut], rest[cut + 1:]
            for p in (a, b):
                s = _strip_prefix(p)
                if s:
                    paths.add(s)
        elif (line.startswith("--- ") and i + 1 < len(lines)
              and lines[i + 1].startswith("+++ ")):
            for hdr in (line, lines[i + 1]):
                s = _strip_prefix(hdr[4:])
                if s:
                    paths.add(s)
            i += 1
        elif line.startswith(("rename from ", "rename to ")):
            paths.add(_unquote(line.split(" ", 2)[2]))
        i += 1
    return paths


def change_counts(patch: str) -> tuple[int, int]:
    plus = minus = 0
    for line in patch.split("\n"):
        if line.startswith("+") and not line.startswith("+++ "):
            plus += 1
        elif line.startswith("-") and not line.startswith("--- "):
            minus += 1
    return plus, minus


HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


def to_context_only(patch: str) -> str:
    """Turn every hunk into context: '-' lines become ' ', '+' lines are
    dropped, counts are recomputed, and the index line names the same blob on
    both sides. The result is a well-formed diff that changes nothing."""
    out, lines, i = [], patch.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = HUNK_RE.match(line)
        if line.startswith("index "):
            old = line.split()[1].split("..")[0]
            mode = line.split()[2:] if len(line.split()) > 2 else []
            out.append(" ".join(["index", f"{old}..{old}", *mode]))
            i += 1
            continue
        if not m:
            out.append(line)
            i += 1
            continue
        start = int(m.group(1))
        body = []
        i += 1
        while i < len(lines) and lines[i][:1] in (" ", "-", "+", "\\"):
            b = lines[i]
            assert not b.startswith("\\"), "no-newline markers not supported here"
            if b.startswith("-"):
                body.append(" " + b[1:])
            elif b.startswith(" "):
                body.append(b)
            i += 1
        out.append(f"@@ -{start},{len(body)} +{start},{len(body)} @@{m.group(5)}")
        out.extend(body)
    return "\n".join(out)


def rewrite_paths(patch: str, old: str, new: str) -> str:
    """Rename a path inside the header lines of a real diff (unsafe_path cases)."""
    out = []
    for line in patch.split("\n"):
        if line.startswith(("diff --git ", "--- ", "+++ ", "rename from ", "rename to ")):
            line = line.replace(old, new)
        out.append(line)
    return "\n".join(out)


def hunks_of(patch: str) -> list[tuple[int, int]]:
    """(start, end) line indexes of each hunk (header line .. last body line)."""
    lines = patch.split("\n")
    res, i = [], 0
    while i < len(lines):
        if HUNK_RE.match(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j][:1] in (" ", "-", "+", "\\"):
                j += 1
            res.append((i, j - 1))
            i = j
        else:
            i += 1
    return res


# ---------------------------------------------------------------------------
# gitignore-style glob matching (self-check of the labels)
# ---------------------------------------------------------------------------

def _glob_re(pat: str) -> str:
    out, i = "", 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pat.startswith("/**", i) and i + 3 == len(pat):
            out += "/.*"
            i += 3
        elif pat.startswith("**", i):
            out += ".*"
            i += 2
        elif pat[i] == "*":
            out += "[^/]*"
            i += 1
        elif pat[i] == "?":
            out += "[^/]"
            i += 1
        else:
            out += re.escape(pat[i])
            i += 1
    return out


def glob_match(pat: str, path: str) -> bool:
    dir_only = pat.endswith("/")
    p = pat.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    rx = re.compile(("" if anchored else "(?:.*/)?") + _glob_re(p))
    parts = path.split("/")
    cands = ["/".join(parts[:k]) for k in range(1, len(parts) + 1)]
    if dir_only:
        cands = cands[:-1]
    return any(rx.fullmatch(c) for c in cands)


def is_unsafe(path: str) -> bool:
    parts = path.split("/")
    return path.startswith("/") or ".." in parts or ".git" in parts


BAD_SUMMARIES = {"", "failed", "error", "fail", "failure", "n/a", "none"}


def reference_rule(step: dict, result: dict) -> str | None:
    """Structural part of judge's rule order, used to double-check labels.
    Returns None when none of the structural rules fires."""
    mode = result["mode"]
    if mode not in ("apply", "fix_regression"):
        return "invalid_mode"
    if step.get("mode", "apply") != mode:
        return "mode_mismatch"
    patch = result.get("patch") or ""
    written = result.get("filesWritten") or []
    if not result["success"]:
        if patch.strip() or written:
            return "failure_with_patch"
        if (result.get("summary") or "").strip().lower() in BAD_SUMMARIES:
            return "failure_without_summary"
        return None
    if not patch.strip():
        return "missing_patch"
    if not written:
        return "missing_files_written"
    in_patch = patch_paths(patch)
    if any(is_unsafe(p) for p in in_patch | set(written)):
        return "unsafe_path"
    if in_patch - set(written):
        return "undeclared_file"
    if set(written) - in_patch:
        return "file_not_in_patch"
    touched = result.get("filesTouched")
    if touched is None or set(written) - set(touched):
        return "files_touched_incomplete"
    if any(glob_match(g, f) for g in step.get("excludedPaths", []) for f in written):
        return "scope_excluded"
    if "allowedFiles" in step and any(
            not any(glob_match(g, f) for g in step["allowedFiles"]) for f in written):
        return "scope_outside_allowed"
    if mode == "fix_regression" and set(written) - set(step["applyFiles"]):
        return "scope_fix_regression"
    return None


# ---------------------------------------------------------------------------
# Case assembly
# ---------------------------------------------------------------------------

EXT_LANG = {
    ".py": "python", ".ts": "typescript", ".tsx": "typescript", ".js": "javascript",
    ".go": "go", ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
    ".sh": "shell", ".yml": "yaml", ".yaml": "yaml", ".json": "json",
    ".md": "markdown", ".toml": "toml", ".sql": "sql", ".csv": "csv",
    ".properties": "properties", ".xml": "xml", ".lock": "toml",
}
NAME_LANG = {"Makefile": "make", "pre-commit": "shell"}


def languages(paths) -> set[str]:
    langs = set()
    for p in paths:
        name = p.rsplit("/", 1)[-1]
        if name in NAME_LANG:
            langs.add(NAME_LANG[name])
        ext = os.path.splitext(name)[1]
        if ext in EXT_LANG:
            langs.add(EXT_LANG[ext])
    return langs


def feature_tags(patch: str) -> set[str]:
    tags = set()
    if "\nrename from " in patch:
        tags.add("rename")
    if "GIT binary patch" in patch or "\nBinary files " in patch:
        tags.add("binary")
    if "\r\n" in patch:
        tags.add("crlf")
    if "\\ No newline at end of file" in patch:
        tags.add("no-newline")
    if '"a/' in patch or '"b/' in patch:
        tags.add("quoted-path")
    if "\nnew file mode " in patch:
        tags.add("new-file")
    if "\ndeleted file mode " in patch:
        tags.add("deleted-file")
    if "\nold mode " in patch:
        tags.add("mode-change")
    plus, minus = change_counts(patch)
    if plus + minus > 2000:
        tags.add("large")
    if patch.startswith("--- ") or patch.startswith("diff -") and not patch.startswith("diff --git"):
        tags.add("plain-diff")
    return tags


def mk_step(desc, mode="apply", allowed=None, excluded=None, apply: Change | None = None):
    s = {"description": desc, "mode": mode}
    if allowed is not None:
        s["allowedFiles"] = list(allowed)
    if excluded is not None:
        s["excludedPaths"] = list(excluded)
    if apply is not None:
        s["applyFiles"] = list(apply.files)
        s["applyPatch"] = apply.patch
    return s


def mk_result(ch: Change | None, summary, mode="apply", written=None, touched=None):
    files = list(ch.files) if written is None else list(written)
    return {
        "mode": mode,
        "success": True,
        "patch": ch.patch if ch is not None else "",
        "filesWritten": files,
        "filesTouched": list(files) if touched is None else list(touched),
        "summary": summary,
    }


def mk_failure(summary, mode="apply", touched=(), omit=False, **extra):
    r = {"mode": mode, "success": False, "summary": summary}
    if not omit:
        r["patch"] = ""
        r["filesWritten"] = []
    r["filesTouched"] = list(touched)
    r.update(extra)
    if summary is None:
        del r["summary"]
    return r


def with_(obj: dict, **changes) -> dict:
    """Deep copy of obj with keys replaced; a value of DROP removes the key."""
    out = copy.deepcopy(obj)
    for k, v in changes.items():
        if v is DROP:
            out.pop(k, None)
        else:
            out[k] = v
    return out


DROP = object()


def plus_lines(patch):
    return [l[1:] for l in patch.split("\n") if l.startswith("+") and not l.startswith("+++ ")]


def minus_lines(patch):
    return [l[1:] for l in patch.split("\n") if l.startswith("-") and not l.startswith("--- ")]


def revert_ratio(apply_patch: str, fix_patch: str) -> float:
    added = collections.Counter(l for l in plus_lines(apply_patch) if l.strip())
    removed = collections.Counter(l for l in minus_lines(fix_patch) if l.strip())
    total = sum(added.values())
    return sum((added & removed).values()) / total if total else 0.0


class Registry:
    def __init__(self) -> None:
        self.cases: list[dict] = []
        self.ids: set[str] = set()

    def add(self, cid, step, result, rule=None, tags=(), project=None, files=()):
        assert cid not in self.ids, f"duplicate id {cid}"
        self.ids.add(cid)
        step = dict(step)
        step.setdefault("id", f"step-{len(self.cases) % 7 + 1}")
        if step["mode"] == "fix_regression":
            assert step.get("applyFiles"), cid
        patch = result.get("patch") or ""
        paths = (set(files) | set(result.get("filesWritten") or [])
                 | set(step.get("applyFiles", [])) | patch_paths(patch))
        langs = languages(paths)
        if not langs and project:
            langs = {PROJECT_LANG[project]}
        t = set(tags) | langs | feature_tags(patch)
        if any(" " in p or not p.isascii() for p in paths):
            t.add("quoted-path")
        if step["mode"] == "fix_regression":
            t.add("fix_regression")
        if result.get("success") is False and rule is None:
            t.add("failure-report")
        expected = {"valid": True} if rule is None else {"valid": False, "rule": rule}
        self.cases.append({"id": cid, "step": step, "result": result,
                           "expected": expected, "tags": sorted(t)})
        return step, result


R = Registry()


# ---------------------------------------------------------------------------
# Python project
# ---------------------------------------------------------------------------

def build_python(b: Builder) -> None:
    P = "src/inventory"

    # -- retry with backoff (apply) ------------------------------------------
    retry = b.change("py", [
        ("edit", f"{P}/client.py", "import logging\nimport urllib.error",
         "import logging\nimport time\nimport urllib.error"),
        ("edit", f"{P}/client.py", "DEFAULT_TIMEOUT = 5.0\n",
         "DEFAULT_TIMEOUT = 5.0\nMAX_ATTEMPTS = 3\nBACKOFF_BASE = 0.5  # seconds, doubled after every failure\n"),
        ("edit", f"{P}/client.py",
         '        log.info("fetching item %s", sku)\n        return self._get(f"/items/{sku}")\n',
         '        log.info("fetching item %s", sku)\n'
         '        for attempt in range(1, MAX_ATTEMPTS + 1):\n'
         '            try:\n'
         '                return self._get(f"/items/{sku}")\n'
         '            except CatalogueError as exc:\n'
         '                if exc.status < 500 or attempt == MAX_ATTEMPTS:\n'
         '                    raise\n'
         '                delay = BACKOFF_BASE * 2 ** (attempt - 1)\n'
         '                log.warning("fetch_item %s got %s, retrying in %.1fs",\n'
         '                            sku, exc.status, delay)\n'
         '                time.sleep(delay)\n'
         '        raise AssertionError("unreachable")\n'),
    ])
    d_retry = ("Add retry with exponential backoff to CatalogueClient.fetch_item() in "
               "src/inventory/client.py: up to 3 attempts, only for 5xx responses, "
               "starting at 0.5s and doubling.")
    s_retry = "fetch_item() now retries 5xx responses up to 3 times with 0.5s/1s backoff."
    st, rs = R.add("valid/py-retry-backoff-fetch-item",
                   mk_step(d_retry, allowed=["src/inventory/**"]), mk_result(retry, s_retry))
    R.add("invalid_mode/py-apply_patch", st, with_(rs, mode="apply_patch"), "invalid_mode")
    R.add("missing_files_written/py-absent", st, with_(rs, filesWritten=DROP), "missing_files_written")
    R.add("files_touched_incomplete/py-absent", st, with_(rs, filesTouched=DROP),
          "files_touched_incomplete")
    R.add("zero_impact/py-context-only-retry", st, with_(rs, patch=to_context_only(retry.patch)),
          "zero_impact")
    R.add("malformed_patch/py-no-file-headers", st, with_(rs, patch=strip_file_headers(retry.patch)),
          "malformed_patch")
    # fix_regression on top of it: make sleep injectable (tests were slow)
    retry_fix = b.followup(retry, [
        ("edit", f"{P}/client.py",
         "                 timeout: float = DEFAULT_TIMEOUT) -> None:\n",
         "                 timeout: float = DEFAULT_TIMEOUT, sleep=time.sleep) -> None:\n"),
        ("edit", f"{P}/client.py", "        self.timeout = timeout\n",
         "        self.timeout = timeout\n        self._sleep = sleep\n"),
        ("edit", f"{P}/client.py", "                time.sleep(delay)\n",
         "                self._sleep(delay)\n"),
    ])
    R.add("valid/py-fix-regression-injectable-sleep",
          mk_step("Fix regression from the retry step: the test suite now sleeps for real "
                  "between retries; make the sleep function injectable on CatalogueClient "
                  "so tests can pass a no-op.", "fix_regression", apply=retry),
          mk_result(retry_fix, "CatalogueClient takes a sleep callable (default time.sleep); "
                    "fetch_item uses it between retries.", "fix_regression"))
    rev = b.reverse(retry)
    R.add("reversal/py-exact-reverse-retry",
          mk_step("Fix regression from the retry step: test_client.py::test_fetch_item_404 "
                  "now takes 1.5s; keep the retry but stop retrying 4xx.", "fix_regression",
                  apply=retry),
          mk_result(rev, "Removed the flaky retry loop from fetch_item().", "fix_regression"),
          "reversal")

    # -- restock validation: model + test -------------------------------------
    restock = b.change("py", [
        ("edit", f"{P}/models.py",
         "    def restock(self, amount: int) -> None:\n        if amount <= 0:",
         "    def restock(self, amount: int) -> None:\n"
         "        if isinstance(amount, bool) or not isinstance(amount, int):\n"
         "            raise ValidationError(\n"
         "                f\"restock amount must be an int, got {type(amount).__name__}\"\n"
         "            )\n"
         "        if amount <= 0:"),
        ("edit", "tests/test_models.py",
         "        make_item().restock(0)\n",
         "        make_item().restock(0)\n\n\n"
         "@pytest.mark.parametrize(\"amount\", [2.5, \"3\", True])\n"
         "def test_restock_rejects_non_int(amount):\n"
         "    with pytest.raises(ValidationError, match=\"must be an int\"):\n"
         "        make_item().restock(amount)\n"),
    ])
    d_restock = ("Make Item.restock() reject non-integer amounts (floats, strings and bools) "
                 "with a ValidationError, and add a parametrized test.")
    s_restock = "restock() validates the amount type; added test_restock_rejects_non_int."
    st, rs = R.add("valid/py-multi-file-restock-validation",
                   mk_step(d_restock, allowed=["src/**", "tests/**"], excluded=["migrations/"]),
                   mk_result(restock, s_restock))
    R.add("undeclared_file/py-hidden-test-file", st,
          with_(rs, filesWritten=[f"{P}/models.py"], filesTouched=[f"{P}/models.py"]),
          "undeclared_file")
    R.add("scope_outside_allowed/py-test-outside-exact-allowlist",
          with_(st, allowedFiles=[f"{P}/models.py"], excludedPaths=DROP), rs, "scope_outside_allowed")
    R.add("files_touched_incomplete/py-missing-test", st,
          with_(rs, filesTouched=[f"{P}/models.py", f"{P}/storage.py"]), "files_touched_incomplete")
    R.add("failure_with_patch/py-patch-with-failure", st,
          with_(rs, success=False,
                summary="Tests failed: test_restock_rejects_non_int errors on the bool case."),
          "failure_with_patch")

    # -- new module + new test file -----------------------------------------
    pricing = b.change("py", [
        ("write", f"{P}/pricing.py", F(r'''
"""Bulk discount rules applied at checkout."""
from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .models import Item


@dataclass(frozen=True)
class BulkDiscount:
    """Percentage off when at least min_quantity units are bought."""

    min_quantity: int
    percent: Decimal

    def applies_to(self, quantity: int) -> bool:
        return quantity >= self.min_quantity


DEFAULT_RULES = (
    BulkDiscount(100, Decimal("10")),
    BulkDiscount(50, Decimal("5")),
)


def unit_price(item: Item, quantity: int, rules=DEFAULT_RULES) -> Decimal:
    """Price per unit for quantity units of item after the best bulk discount."""
    if quantity <= 0:
        raise ValueError("quantity must be positive")
    best = max((r.percent for r in rules if r.applies_to(quantity)), default=Decimal("0"))
    price = item.price * (Decimal("100") - best) / Decimal("100")
    return price.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
''')),
        ("write", "tests/test_pricing.py", F(r'''
from decimal import Decimal

import pytest

from inventory.models import Item, Sku
from inventory.pricing import BulkDiscount, unit_price


@pytest.fixture
def widget():
    return Item(Sku("W1"), "Widget", Decimal("2.00"), 500)


@pytest.mark.parametrize(
    "quantity, expected",
    [(1, "2.00"), (49, "2.00"), (50, "1.90"), (99, "1.90"), (100, "1.80")],
)
def test_default_rules(widget, quantity, expected):
    assert unit_price(widget, quantity) == Decimal(expected)


def test_custom_rules(widget):
    rules = (BulkDiscount(10, Decimal("50")),)
    assert unit_price(widget, 10, rules) == Decimal("1.00")


def test_rejects_zero_quantity(widget):
    with pytest.raises(ValueError):
        unit_price(widget, 0)
''')),
    ])
    d_pricing = ("Add bulk discount pricing: a new module src/inventory/pricing.py with "
                 "unit_price(item, quantity) giving 5% off from 50 units and 10% from 100 "
                 "units, tested in tests/test_pricing.py.")
    st, rs = R.add("valid/py-new-module-and-test", mk_step(d_pricing, allowed=["src/inventory/*.py", "tests/"]),
                   mk_result(pricing, "Added inventory.pricing with BulkDiscount and unit_price(), plus tests."))
    R.add("file_not_in_patch/py-claims-init", st,
          with_(rs, filesWritten=rs["filesWritten"] + [f"{P}/__init__.py"],
                filesTouched=rs["filesTouched"] + [f"{P}/__init__.py"]), "file_not_in_patch")
    R.add("missing_patch/py-absent", st, with_(rs, patch=DROP), "missing_patch")

    # -- delete the legacy module ---------------------------------------------
    legacy = b.change("py", [
        ("rm", f"{P}/legacy.py"),
        ("edit", f"{P}/__init__.py", "from .legacy import load_v1_store\n", ""),
        ("edit", f"{P}/__init__.py", '    "load_v1_store",\n', ""),
    ])
    d_legacy = ("Remove the deprecated v1 CSV loader: delete src/inventory/legacy.py and drop "
                "load_v1_store from the package exports in src/inventory/__init__.py.")
    st, rs = R.add("valid/py-delete-legacy-module", mk_step(d_legacy),
                   mk_result(legacy, "Deleted inventory.legacy and removed load_v1_store from __all__."))
    R.add("undeclared_file/py-hidden-deletion", st,
          with_(rs, filesWritten=[f"{P}/__init__.py"], filesTouched=[f"{P}/__init__.py"]),
          "undeclared_file")

    # -- pure rename (no content change) --------------------------------------
    ren = b.change("py", [("mv", f"{P}/utils.py", f"{P}/text.py")], flags=("-M",))
    assert "similarity index 100%" in ren.patch and "@@" not in ren.patch
    R.add("valid/py-pure-rename-utils-to-text",
          mk_step("Rename src/inventory/utils.py to src/inventory/text.py without changing its "
                  "content (nothing imports it yet).", allowed=["src/inventory/**"]),
          mk_result(ren, "Renamed utils.py to text.py (100% similarity)."))

    # -- rename with content change + import updates --------------------------
    def _store_doc(t):
        return t.replace('"""Persistence for inventory items."""',
                         '"""JSON file persistence for inventory items."""')
    ren2 = b.change("py", [
        ("mv", f"{P}/storage.py", f"{P}/json_store.py"),
        ("sub", f"{P}/json_store.py", _store_doc),
        ("edit", f"{P}/__init__.py", "from .storage import", "from .json_store import"),
        ("edit", f"{P}/cli.py", "from .storage import JsonStore", "from .json_store import JsonStore"),
        ("edit", "tests/test_storage.py", "from inventory.storage import",
         "from inventory.json_store import"),
    ], flags=("-M",))
    assert "rename from" in ren2.patch and "similarity index 100%" not in ren2.patch
    st, rs = R.add("valid/py-rename-module-with-import-updates",
                   mk_step("Rename src/inventory/storage.py to src/inventory/json_store.py and "
                           "update every import of it (package __init__, cli, tests).",
                           allowed=["src/**", "tests/**"]),
                   mk_result(ren2, "Moved storage.py to json_store.py and updated three imports."))
    R.add("files_touched_incomplete/py-rename-old-name-missing", st,
          with_(rs, filesTouched=[f for f in rs["filesWritten"] if f != f"{P}/cli.py"]),
          "files_touched_incomplete")

    # -- comment / docstring typo fixes (explicitly requested) ----------------
    typo = b.change("py", [("edit", f"{P}/utils.py", "comma seperated", "comma separated")])
    R.add("valid/py-comment-typo-requested",
          mk_step("Fix the typo 'seperated' in the comment of parse_tags() in "
                  "src/inventory/utils.py."),
          mk_result(typo, "Fixed 'seperated' -> 'separated' in the parse_tags comment."),
          tags=["comment-only"])
    doc = b.change("py", [("edit", f"{P}/cli.py", "Parse the comand line", "Parse the command line")])
    R.add("valid/py-docstring-typo-requested",
          mk_step("Fix the typo in the docstring of parse() in src/inventory/cli.py."),
          mk_result(doc, "Corrected 'comand' to 'command' in the parse() docstring."),
          tags=["comment-only"])

    # -- low_stock: apply + fix_regression chain ------------------------------
    low = b.change("py", [
        ("edit", f"{P}/storage.py",
         "    def __len__(self) -> int:\n        return len(self._items)\n",
         "    def __len__(self) -> int:\n        return len(self._items)\n\n"
         "    def low_stock(self, threshold: int) -> list[Item]:\n"
         "        \"\"\"Items whose quantity is below threshold, lowest first.\"\"\"\n"
         "        low = [item for item in self._items.values() if item.quantity < threshold]\n"
         "        return sorted(low, key=lambda i: (i.quantity, str(i.sku)))\n"),
        ("append", "tests/test_storage.py",
         "\n\ndef test_low_stock(store):\n"
         "    store.put(Item(Sku(\"A1\"), \"Bolt\", Decimal(\"0.10\"), 3))\n"
         "    store.put(Item(Sku(\"B2\"), \"Nut\", Decimal(\"0.05\"), 50))\n"
         "    store.put(Item(Sku(\"C3\"), \"Hinge\", Decimal(\"2.40\"), 1))\n"
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\"]\n"),
    ])
    d_low = ("Add JsonStore.low_stock(threshold) returning the items below the reorder "
             "threshold, lowest quantity first, with a test.")
    R.add("valid/py-apply-low-stock", mk_step(d_low, allowed=["src/**", "tests/**"]),
          mk_result(low, "Added JsonStore.low_stock() and test_low_stock."))
    low_fix = b.followup(low, [
        ("edit", f"{P}/storage.py", "item.quantity < threshold", "item.quantity <= threshold"),
        ("edit", f"{P}/storage.py", "quantity is below threshold", "quantity is at or below threshold"),
        ("edit", "tests/test_storage.py",
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\"]\n",
         "    store.put(Item(Sku(\"D4\"), \"Latch\", Decimal(\"2.10\"), 5))\n"
         "    assert [str(i.sku) for i in store.low_stock(5)] == [\"C3\", \"A1\", \"D4\"]\n"),
    ])
    d_low_fix = ("Fix regression: low_stock() must also report items whose quantity equals the "
                 "threshold (the reorder point is inclusive); adjust the test.")
    st, rs = R.add("valid/py-fix-regression-inclusive-threshold",
                   mk_step(d_low_fix, "fix_regression", apply=low),
                   mk_result(low_fix, "low_stock() now uses <= threshold; test covers the boundary.",
                             "fix_regression"))
    R.add("mode_mismatch/py-fix-step-apply-result", st, with_(rs, mode="apply"), "mode_mismatch")
    low_fix_wide = b.followup(low, [
        ("edit", f"{P}/storage.py", "item.quantity < threshold", "item.quantity <= threshold"),
        ("edit", f"{P}/models.py", "    quantity: int = 0\n",
         "    quantity: int = 0\n    reorder_point: int = 0\n"),
    ])
    R.add("scope_fix_regression/py-touches-models", mk_step(d_low_fix, "fix_regression", apply=low),
          mk_result(low_fix_wide, "Made the threshold inclusive and added Item.reorder_point.",
                    "fix_regression"), "scope_fix_regression")
    rev = b.reverse(low)
    R.add("reversal/py-git-diff-R-low-stock", mk_step(d_low_fix, "fix_regression", apply=low),
          mk_result(rev, "Removed low_stock() to get the suite green again.", "fix_regression"),
          "reversal")

    # -- failure report ---------------------------------------------------------
    st = mk_step("Add an integration test for the /items endpoint in tests/test_api.py "
                 "using the existing api_client fixture.")
    R.add("valid/py-failure-report-missing-module", st,
          mk_failure("Could not apply: tests/test_api.py imports a module that does not exist "
                     "(inventory.api).", touched=["tests/test_api.py"]), project="py")
    R.add("failure_without_summary/py-summary-absent", st, mk_failure(None), "failure_without_summary",
          project="py")
    R.add("failure_without_summary/py-summary-failed", st, mk_failure("failed", omit=True),
          "failure_without_summary", project="py")

    # -- version bump in a file without trailing newline ------------------------
    bump = b.change("py", [
        ("edit", "pyproject.toml", 'version = "1.4.0"', 'version = "1.5.0"'),
        ("edit", f"{P}/__init__.py", '__version__ = "1.4.0"', '__version__ = "1.5.0"'),
    ])
    assert bump.patch.count("\\ No newline at end of file") == 2
    st, rs = R.add("valid/py-version-bump-no-newline-eof",
                   mk_step("Bump the package version to 1.5.0 in pyproject.toml and "
                           "src/inventory/__init__.py."),
                   mk_result(bump, "Version bumped to 1.5.0 in both places."))
    R.add("invalid_mode/py-uppercase-APPLY", st, with_(rs, mode="APPLY"), "invalid_mode")

    # -- CRLF fixture -----------------------------------------------------------
    crlf = b.change("py", [
        ("edit", "tests/fixtures/items.csv", "C3,Hinge,2.40,12\r\n", "C3,Hinge,2.45,12\r\n"),
        ("append", "tests/fixtures/items.csv", "V5,Dowel,0.15,300\r\n"),
    ])
    assert "\r\n" in crlf.patch
    R.add("valid/py-crlf-fixture-rows",
          mk_step("Add the Dowel (V5, 0.15, qty 300) row to tests/fixtures/items.csv and fix "
                  "the Hinge price to 2.45. The file uses CRLF line endings; keep them.",
                  allowed=["tests/fixtures/*.csv"]),
          mk_result(crlf, "Updated items.csv (CRLF preserved): Hinge 2.45, new V5 Dowel row."))

    # -- binary deletion (no --binary: "Binary files ... differ") -------------
    binrm = b.change("py", [("rm", "tests/fixtures/sample.bin")], check=False)
    assert "Binary files a/tests/fixtures/sample.bin and /dev/null differ" in binrm.patch
    R.add("valid/py-delete-binary-fixture",
          mk_step("Delete the unused binary snapshot fixture tests/fixtures/sample.bin."),
          mk_result(binrm, "Removed tests/fixtures/sample.bin; no test referenced it."),
          tags=["python"])

    # -- CI matrix (YAML) / excluded paths ------------------------------------
    ci = b.change("py", [
        ("edit", ".github/workflows/ci.yml", 'python-version: ["3.10", "3.11"]',
         'python-version: ["3.10", "3.11", "3.12"]'),
    ])
    R.add("valid/py-ci-matrix-yaml",
          mk_step("Add Python 3.12 to the CI test matrix in .github/workflows/ci.yml.",
                  allowed=[".github/workflows/*.yml"]),
          mk_result(ci, "CI now tests 3.10, 3.11 and 3.12."))
    jsonflag = b.change("py", [
        ("edit", f"{P}/cli.py", '    sub.add_parser("list", help="list all items")\n',
         '    lst = sub.add_parser("list", help="list all items")\n'
         '    lst.add_argument("--json", action="store_true", help="print JSON lines")\n'),
        ("edit", f"{P}/cli.py",
         "            for item in store:\n                print(f\"{item.sku}\\t{item.quantity:>5}\\t{item.name}\")\n",
         "            for item in store:\n"
         "                if args.json:\n"
         "                    print(json.dumps(item.to_dict(), sort_keys=True))\n"
         "                else:\n"
         "                    print(f\"{item.sku}\\t{item.quantity:>5}\\t{item.name}\")\n"),
        ("edit", f"{P}/cli.py", "import argparse\n", "import argparse\nimport json\n"),
        ("edit", ".github/workflows/ci.yml", "        run: pytest --cov=inventory\n",
         "        run: pytest --cov=inventory\n      - name: Smoke test CLI\n"
         "        run: inventory --store /tmp/s.json list --json\n"),
    ])
    R.add("scope_excluded/py-github-workflow",
          mk_step("Add a --json flag to `inventory list` that prints one JSON object per item.",
                  excluded=[".github/**", "migrations/"]),
          mk_result(jsonflag, "Added `list --json` and a CLI smoke test step in CI."),
          "scope_excluded")
    mig = b.change("py", [
        ("edit", "migrations/0001_initial.sql", "    quantity   INTEGER NOT NULL DEFAULT 0,\n",
         "    quantity   INTEGER NOT NULL DEFAULT 0,\n    reorder_at INTEGER NOT NULL DEFAULT 0,\n"),
        ("edit", f"{P}/models.py", "    quantity: int = 0\n", "    quantity: int = 0\n    reorder_at: int = 0\n"),
    ])
    R.add("scope_excluded/py-edits-applied-migration",
          mk_step("Add a reorder_at field (default 0) to the Item model.",
                  allowed=["src/**", "migrations/**"], excluded=["migrations/0001_*.sql"]),
          mk_result(mig, "Added Item.reorder_at and the column to the initial migration."),
          "scope_excluded")

    # -- superficial only: comments instead of the requested behaviour --------
    sup = b.change("py", [
        ("edit", f"{P}/models.py",
         "    def remove(self, amount: int) -> None:\n",
         "    def remove(self, amount: int) -> None:\n"
         "        # Removing stock: the amount must not exceed what is on hand.\n"
         "        # Negative amounts are rejected as well.\n"),
    ])
    R.add("superficial_only/py-comment-instead-of-check",
          mk_step("Make Item.remove() reject negative and zero amounts with a ValidationError."),
          mk_result(sup, "Item.remove() now rejects negative amounts."), "superficial_only")

    # -- unsafe: writes a git hook --------------------------------------------
    hook = b.change("py", [
        ("write", ".pre-commit-config.yaml", F(r'''
repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.3.0
    hooks:
      - id: ruff
        args: [--fix]
      - id: ruff-format
''')),
        ("write", "dotgit/hooks/pre-commit", "#!/bin/sh\nexec pre-commit run --hook-stage commit\n"),
        ("chmod", "dotgit/hooks/pre-commit", 0o755),
    ])
    hook_patch = rewrite_paths(hook.patch, "dotgit/", ".git/")
    files = [".git/hooks/pre-commit" if f.startswith("dotgit/") else f for f in hook.files]
    R.add("unsafe_path/py-git-hooks-pre-commit",
          mk_step("Run ruff automatically before every commit using the pre-commit framework."),
          with_(mk_result(hook, "Added .pre-commit-config.yaml and installed the hook."),
                patch=hook_patch, filesWritten=files, filesTouched=files), "unsafe_path")


def strip_file_headers(patch: str) -> str:
    keep = []
    for line in patch.split("\n"):
        if line.startswith(("diff --git ", "index ", "--- ", "+++ ", "new file mode",
                            "deleted file mode", "similarity index", "rename from",
                            "rename to", "old mode", "new mode")):
            continue
        keep.append(line)
    return "\n".join(keep)


# ---------------------------------------------------------------------------
# TypeScript project
# ---------------------------------------------------------------------------

RETRY_TS = F(r'''
export interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  shouldRetry?: (err: unknown) => boolean;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Calls fn until it succeeds or the attempts are used up, waiting
 * baseDelayMs * 2^(attempt - 1) between attempts.
 */
export async function withRetry<T>(fn: () => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const attempts = options.attempts ?? 3;
  const baseDelayMs = options.baseDelayMs ?? 200;
  const shouldRetry = options.shouldRetry ?? (() => true);
  const sleep = options.sleep ?? defaultSleep;
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
      if (attempt === attempts || !shouldRetry(err)) {
        break;
      }
      await sleep(baseDelayMs * 2 ** (attempt - 1));
    }
  }
  throw lastError;
}
''')


def build_typescript(b: Builder) -> None:
    # -- rename foo -> bar (multi-file) ---------------------------------------
    ren = b.change("ts", [
        ("edit", "src/serviceA.ts", "export function foo(orders", "export function bar(orders"),
        ("edit", "src/serviceA.ts", "const open = foo(orders);", "const open = bar(orders);"),
        ("edit", "src/index.ts", "export { ServiceA, foo } from", "export { ServiceA, bar } from"),
        ("edit", "test/serviceA.test.ts", "import { ServiceA, foo } from", "import { ServiceA, bar } from"),
        ("edit", "test/serviceA.test.ts", 'describe("foo", () => {', 'describe("bar", () => {'),
        ("edit", "test/serviceA.test.ts", "expect(foo(orders)", "expect(bar(orders)"),
    ])
    d_ren = "Rename foo to bar in src/serviceA.ts and update its export and the tests."
    st, rs = R.add("valid/ts-rename-foo-to-bar", mk_step(d_ren, allowed=["src/**", "test/**"]),
                   mk_result(ren, "Renamed foo() to bar() in serviceA.ts, index.ts and the test."))
    R.add("scope_outside_allowed/ts-test-outside-src", with_(st, allowedFiles=["src/**"]), rs,
          "scope_outside_allowed")
    R.add("mode_mismatch/ts-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
          "mode_mismatch")
    R.add("files_touched_incomplete/ts-missing-index", st,
          with_(rs, filesTouched=["src/serviceA.ts", "test/serviceA.test.ts"]),
          "files_touched_incomplete")
    R.add("malformed_patch/ts-bare-plus-minus-lines", st,
          with_(rs, patch="\n".join(plus_minus_only(ren.patch)) + "\n"), "malformed_patch")

    # -- retry for fetchUser: new helper module + client change ----------------
    d_retry = ("Add retry with exponential backoff to fetchUser() in src/api/client.ts "
               "(3 attempts, 200ms base delay) via a reusable helper.")
    retry = b.change("ts", [
        ("write", "src/api/retry.ts", RETRY_TS),
        ("edit", "src/api/client.ts", 'import { logger } from "../utils/logger";\n',
         'import { logger } from "../utils/logger";\nimport { withRetry } from "./retry";\n'),
        ("edit", "src/api/client.ts",
         "    return this.request<User>(`/users/${encodeURIComponent(id)}`);\n",
         "    return withRetry(() => this.request<User>(`/users/${encodeURIComponent(id)}`), {\n"
         "      attempts: 3,\n"
         "      baseDelayMs: 200,\n"
         "      shouldRetry: (err) => err instanceof HttpError,\n"
         "    });\n"),
    ])
    st, rs = R.add("valid/ts-retry-helper-new-file", mk_step(d_retry, allowed=["src/**"]),
                   mk_result(retry, "Added withRetry() in src/api/retry.ts and used it in fetchUser()."))
    R.add("undeclared_file/ts-hidden-new-module", st,
          with_(rs, filesWritten=["src/api/client.ts"], filesTouched=["src/api/client.ts"]),
          "undeclared_file")
    R.add("failure_with_patch/ts-failed-but-patch", st,
          with_(rs, success=False, filesWritten=[], filesTouched=[],
                summary="Could not finish: vitest times out in the sandbox."),
          "failure_with_patch")
    R.add("missing_patch/ts-empty-string", st, with_(rs, patch=""), "missing_patch")
    retry_fix = b.followup(retry, [
        ("edit", "src/api/client.ts", "      shouldRetry: (err) => err instanceof HttpError,\n",
         "      // 4xx answers are final; retry 5xx and network errors only.\n"
         "      shouldRetry: (err) => !(err instanceof HttpError) || err.status >= 500,\n"),
    ])
    d_fix = ("Fix regression: fetchUser() now retries 404 responses three times, which "
             "slows down the not-found page; only retry 5xx and network errors.")
    R.add("valid/ts-fix-regression-retry-5xx-only", mk_step(d_fix, "fix_regression", apply=retry),
          mk_result(retry_fix, "shouldRetry now skips 4xx HttpErrors.", "fix_regression"))
    wide = b.followup(retry, [
        ("edit", "src/api/client.ts", "      shouldRetry: (err) => err instanceof HttpError,\n",
         "      shouldRetry: (err) => isRetryable(err),\n"),
        ("edit", "src/types.ts", "export interface Page<T> {",
         "export function isRetryable(err: unknown): boolean {\n"
         "  const status = (err as { status?: number }).status;\n"
         "  return status === undefined || status >= 500;\n}\n\nexport interface Page<T> {"),
        ("edit", "src/api/client.ts", 'import { Order, User } from "../types";',
         'import { Order, User, isRetryable } from "../types";'),
    ])
    R.add("scope_fix_regression/ts-touches-types", mk_step(d_fix, "fix_regression", apply=retry),
          mk_result(wide, "Moved the retry predicate into types.ts as isRetryable().",
                    "fix_regression"), "scope_fix_regression")
    rev = b.reverse(retry)
    assert "deleted file mode" in rev.patch
    R.add("reversal/ts-reverse-deletes-helper", mk_step(d_fix, "fix_regression", apply=retry),
          mk_result(rev, "Reverted the retry change; fetchUser calls request() directly.",
                    "fix_regression"), "reversal")
    sup = b.change("ts", [
        ("edit", "src/api/client.ts", "  async fetchUser(id: string): Promise<User> {\n",
         "  // TODO: retry with exponential backoff (3 attempts, 200ms base delay).\n"
         "  // Transient 5xx errors from the gateway should not surface to the UI.\n"
         "  async fetchUser(id: string): Promise<User> {\n"),
    ])
    R.add("superficial_only/ts-todo-comment-instead-of-retry", mk_step(d_retry, allowed=["src/**"]),
          mk_result(sup, "Added retry with exponential backoff to fetchUser()."), "superficial_only")

    # -- formatCurrency + test ------------------------------------------------
    cur = b.change("ts", [
        ("append", "src/utils/format.ts", F(r'''

/** Formats an amount in cents, e.g. formatCurrency(123456, "EUR") -> "€1,234.56". */
export function formatCurrency(amountCents: number, currency: string, locale = "en-US"): string {
  if (!Number.isInteger(amountCents)) {
    throw new RangeError(`amountCents must be an integer, got ${amountCents}`);
  }
  return new Intl.NumberFormat(locale, { style: "currency", currency }).format(amountCents / 100);
}
''')),
        ("edit", "test/format.test.ts", 'import { formatDate, pluralize, truncate } from "../src/utils/format";',
         'import { formatCurrency, formatDate, pluralize, truncate } from "../src/utils/format";'),
        ("append", "test/format.test.ts", F(r'''

describe("formatCurrency", () => {
  it("formats cents with the currency symbol", () => {
    expect(formatCurrency(123456, "USD")).toBe("$1,234.56");
  });

  it("rejects fractional cents", () => {
    expect(() => formatCurrency(1.5, "USD")).toThrow(RangeError);
  });
});
''')),
    ])
    d_cur = ("Add formatCurrency(amountCents, currency) to src/utils/format.ts using "
             "Intl.NumberFormat and cover it in test/format.test.ts.")
    st, rs = R.add("valid/ts-format-currency-with-test", mk_step(d_cur, excluded=["vendor/**", "dist/"]),
                   mk_result(cur, "Added formatCurrency() and two tests."))
    R.add("invalid_mode/ts-fix", st, with_(rs, mode="fix"), "invalid_mode")
    R.add("zero_impact/ts-context-only-format", st, with_(rs, patch=to_context_only(cur.patch)),
          "zero_impact")
    R.add("file_not_in_patch/ts-claims-index", st,
          with_(rs, filesWritten=rs["filesWritten"] + ["src/index.ts"],
                filesTouched=rs["filesTouched"] + ["src/index.ts"]), "file_not_in_patch")
    cur_fix = b.followup(cur, [
        ("edit", "src/utils/format.ts",
         "  return new Intl.NumberFormat(locale, { style: \"currency\", currency }).format(amountCents / 100);\n",
         "  const formatted = new Intl.NumberFormat(locale, { style: \"currency\", currency }).format(\n"
         "    Math.abs(amountCents) / 100,\n  );\n"
         "  return amountCents < 0 ? `-${formatted}` : formatted;\n"),
        ("edit", "test/format.test.ts", '  it("rejects fractional cents", () => {',
         '  it("puts the sign before the symbol", () => {\n'
         '    expect(formatCurrency(-250, "USD")).toBe("-$2.50");\n  });\n\n'
         '  it("rejects fractional cents", () => {'),
    ])
    R.add("valid/ts-fix-regression-negative-amounts",
          mk_step("Fix regression: formatCurrency(-250, \"USD\") renders \"($2.50)\" in some "
                  "locales; always put a leading minus sign before the symbol.", "fix_regression",
                  apply=cur),
          mk_result(cur_fix, "Negative amounts are formatted as -$2.50; added a test.", "fix_regression"))

    # -- JSDoc-only change, explicitly requested ------------------------------
    jsdoc = b.change("ts", [
        ("edit", "src/api/client.ts",
         "  /**\n   * Performs a request and parses the JSON body.\n   */\n",
         "  /**\n   * Performs a request and parses the JSON body.\n   *\n"
         "   * The request is aborted after `timeoutMs` (default 10s); an aborted request\n"
         "   * rejects with the AbortError from fetch. Non-2xx answers reject with an\n"
         "   * {@link HttpError} carrying the status code.\n   */\n"),
    ])
    R.add("valid/ts-jsdoc-only-requested",
          mk_step("Expand the JSDoc comment of ApiClient.request() in src/api/client.ts to "
                  "document the timeout and error behaviour. Comment only, no code changes."),
          mk_result(jsdoc, "Documented timeout and HttpError behaviour in request()'s JSDoc."),
          tags=["comment-only"])

    # -- delete deprecated module --------------------------------------------
    dep = b.change("ts", [
        ("rm", "src/utils/deprecated.ts"),
        ("edit", "src/index.ts", 'export { plural, toShortDate } from "./utils/deprecated";\n', ""),
    ])
    st, rs = R.add("valid/ts-delete-deprecated-module",
                   mk_step("Delete src/utils/deprecated.ts (unused since 2.0) and its re-export "
                           "in src/index.ts.", allowed=["src/"]),
                   mk_result(dep, "Removed deprecated.ts and its export."))
    R.add("missing_files_written/ts-empty-list", st, with_(rs, filesWritten=[]), "missing_files_written")

    # -- package.json / tsconfig.json ----------------------------------------
    pkg = b.change("ts", [
        ("edit", "package.json", '    "typecheck": "tsc --noEmit"\n',
         '    "typecheck": "tsc --noEmit",\n    "lint": "eslint \\"src/**/*.ts\\" \\"test/**/*.ts\\""\n'),
        ("edit", "package.json", '    "@types/node": "^20.11.0",\n',
         '    "@types/node": "^20.11.0",\n    "@typescript-eslint/parser": "^6.19.0",\n'
         '    "eslint": "^8.56.0",\n'),
    ])
    st, rs = R.add("valid/ts-package-json-lint-script",
                   mk_step("Add a `lint` npm script running eslint over src and test, with the "
                           "eslint dev dependencies.", allowed=["package.json"], excluded=["*.lock"]),
                   mk_result(pkg, "Added the lint script plus eslint and @typescript-eslint/parser."))
    strict = b.change("ts", [("edit", "tsconfig.json", '"strict": false', '"strict": true')])
    R.add("valid/ts-tsconfig-strict",
          mk_step("Enable strict type checking in tsconfig.json."),
          mk_result(strict, "Set compilerOptions.strict to true."))
    esc = b.change("ts", [
        ("write", "escape/shared/tsconfig.base.json",
         '{\n  "compilerOptions": {\n    "strict": false,\n    "target": "ES2020"\n  }\n}\n'),
    ])
    unsafe = b.followup(esc, [
        ("edit", "escape/shared/tsconfig.base.json", '"strict": false', '"strict": true'),
    ])
    up = rewrite_paths(unsafe.patch, "escape/", "src/../../")
    R.add("unsafe_path/ts-dotdot-inside-src",
          mk_step("Enable strict type checking for the project."),
          with_(mk_result(unsafe, "Enabled strict mode in the shared base config."), patch=up,
                filesWritten=["src/../../shared/tsconfig.base.json"],
                filesTouched=["src/../../shared/tsconfig.base.json"]), "unsafe_path")

    # -- pure rename of a doc, rename + import updates -------------------------
    mvdoc = b.change("ts", [("mv", "docs/CONTRIBUTING.md", "CONTRIBUTING.md")], flags=("-M",))
    R.add("valid/ts-pure-rename-contributing",
          mk_step("Move docs/CONTRIBUTING.md to the repository root so GitHub shows it."),
          mk_result(mvdoc, "git mv docs/CONTRIBUTING.md CONTRIBUTING.md (no content change)."))
    mvlog = b.change("ts", [
        ("mv", "src/utils/logger.ts", "src/lib/logger.ts"),
        ("edit", "src/api/client.ts", 'import { logger } from "../utils/logger";',
         'import { logger } from "../lib/logger";'),
    ], flags=("-M",))
    st, rs = R.add("valid/ts-move-logger-update-import",
                   mk_step("Move src/utils/logger.ts to src/lib/logger.ts and fix the import.",
                           allowed=["src/**"]),
                   mk_result(mvlog, "Moved logger.ts to src/lib and updated client.ts."))

    # -- binary files -----------------------------------------------------------
    logo = fake_binary(21, 1400, PNG_MAGIC)
    img = b.change("ts", [
        ("write", "public/logo.png", logo),
        ("edit", "docs/User Guide.md", "# User guide\n",
         "# User guide\n\n![ACME web client](../public/logo.png)\n"),
    ], flags=("--binary",))
    assert "GIT binary patch" in img.patch
    st, rs = R.add("valid/ts-binary-logo-git-binary-patch",
                   mk_step("Add the new brand logo as public/logo.png and show it at the top of "
                           "docs/User Guide.md."),
                   mk_result(img, "Added public/logo.png and referenced it in the user guide."))
    R.add("undeclared_file/ts-hidden-binary", st,
          with_(rs, filesWritten=["docs/User Guide.md"], filesTouched=["docs/User Guide.md"]),
          "undeclared_file")
    fav = fake_binary(22, 318, ICO_MAGIC)
    ico = b.change("ts", [("write", "public/favicon.ico", fav)], check=False)
    assert "Binary files a/public/favicon.ico and b/public/favicon.ico differ" in ico.patch
    R.add("valid/ts-binary-favicon-differ",
          mk_step("Replace public/favicon.ico with the new 16x16 icon from design."),
          mk_result(ico, "Replaced favicon.ico."), tags=["typescript"])
    ico2 = b.change("ts", [("write", "public/favicon.ico", fake_binary(23, 318, ICO_MAGIC))],
                    flags=("--binary",))
    assert "GIT binary patch" in ico2.patch
    R.add("valid/ts-binary-favicon-git-binary-patch",
          mk_step("Replace public/favicon.ico with the dark-mode icon; send a binary patch "
                  "that git can apply."),
          mk_result(ico2, "Replaced favicon.ico (git binary patch)."),
          tags=["typescript"])

    # -- path with spaces -------------------------------------------------------
    guide = b.change("ts", [
        ("edit", "docs/User Guide.md", "[the API reference](./api-reference.md)",
         "[the API reference](./API.md)"),
    ])
    assert "--- a/docs/User Guide.md\t" in guide.patch  # git adds a TAB after names with spaces
    st, rs = R.add("valid/ts-path-with-spaces",
                   mk_step("Fix the broken API reference link in docs/User Guide.md (the file "
                           "is docs/API.md now).", allowed=["docs/**"]),
                   mk_result(guide, "Pointed the link at ./API.md."), tags=["space-path"])
    R.add("invalid_mode/ts-empty-mode", st, with_(rs, mode=""), "invalid_mode")

    # -- large fixture (> 2000 lines) -------------------------------------------
    rnd = random.Random(2024)
    first = ["Ada", "Grace", "Linus", "Ken", "Barbara", "Edsger", "Frances", "Donald", "Radia",
             "Margaret", "Dennis", "John", "Alan", "Katherine", "Niklaus", "Guido"]
    last = ["Lovelace", "Hopper", "Torvalds", "Thompson", "Liskov", "Dijkstra", "Allen", "Knuth",
            "Perlman", "Hamilton", "Ritchie", "McCarthy", "Turing", "Johnson", "Wirth", "Rossum"]
    users = []
    for i in range(310):
        f, l = rnd.choice(first), rnd.choice(last)
        users.append({
            "id": f"u_{i:04d}",
            "email": f"{f.lower()}.{l.lower()}{i}@example.test",
            "displayName": f"{f} {l}",
            "createdAt": f"2023-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T09:00:00Z",
            "roles": [rnd.choice(["admin", "editor", "viewer"])],
        })
    big = b.change("ts", [("write", "test/fixtures/users.json",
                           json.dumps({"items": users}, indent=2) + "\n")])
    assert sum(change_counts(big.patch)) > 2000
    R.add("valid/ts-large-users-fixture",
          mk_step("Add a fixture test/fixtures/users.json with about 300 sample users for the "
                  "pagination tests.", allowed=["test/fixtures/**"]),
          mk_result(big, "Added test/fixtures/users.json with 310 generated users."))

    # -- vendor edit (excluded) ---------------------------------------------
    vend = b.change("ts", [
        ("edit", "src/utils/format.ts", 'import leftPad from "left-pad";\n\n', ""),
        ("edit", "src/utils/format.ts",
         '  const month = leftPad(String(d.getUTCMonth() + 1), 2, "0");\n'
         '  const day = leftPad(String(d.getUTCDate()), 2, "0");\n',
         '  const month = String(d.getUTCMonth() + 1).padStart(2, "0");\n'
         '  const day = String(d.getUTCDate()).padStart(2, "0");\n'),
        ("edit", "vendor/left-pad/index.js", "module.exports = leftPad;\n",
         "module.exports = leftPad;\nmodule.exports.deprecated = true;\n"),
    ])
    R.add("scope_excluded/ts-vendor-left-pad",
          mk_step("Replace left-pad with String.prototype.padStart in formatDate().",
                  excluded=["vendor/**", "dist/"]),
          mk_result(vend, "formatDate uses padStart; marked vendored left-pad as deprecated."),
          "scope_excluded")

    # -- failure report -----------------------------------------------------------
    R.add("valid/ts-failure-report-renamed-upstream",
          mk_step("Add a cache to ApiClient.fetchUser() keyed by user id."),
          mk_failure("Could not apply: src/api/client.ts has no fetchUser() on this branch; it "
                     "was renamed to getUser() upstream.", touched=["src/api/client.ts"], omit=True),
          project="ts")


def plus_minus_only(patch: str) -> list[str]:
    return [l for l in patch.split("\n")
            if (l.startswith("+") and not l.startswith("+++ "))
            or (l.startswith("-") and not l.startswith("--- "))]


# ---------------------------------------------------------------------------
# Go project
# ---------------------------------------------------------------------------

def build_go(b: Builder) -> None:
    reset = b.change("go", [
        ("append", "limiter.go", F(r'''

// Reset refills the bucket to its full capacity, e.g. after a client was
// manually unblocked by an operator.
func (l *Limiter) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tokens = l.capacity
}
''')),
        ("append", "limiter_test.go", F(r'''

func TestReset(t *testing.T) {
	l, _ := newTestLimiter(t, 1, 2)
	l.AllowN(2)
	if l.Allow() {
		t.Fatal("bucket should be empty")
	}
	l.Reset()
	if got := l.Tokens(); got != 2 {
		t.Fatalf("tokens after Reset = %v, want 2", got)
	}
}
''')),
    ])
    d_reset = "Add a Reset() method to Limiter that refills the bucket to capacity, with a test."
    st, rs = R.add("valid/go-apply-reset-method", mk_step(d_reset, excluded=["vendor/"]),
                   mk_result(reset, "Added Limiter.Reset() and TestReset."))
    R.add("invalid_mode/go-apply-space", st, with_(rs, mode="apply "), "invalid_mode")
    R.add("undeclared_file/go-hidden-test", st,
          with_(rs, filesWritten=["limiter.go"], filesTouched=["limiter.go", "limiter_test.go"]),
          "undeclared_file")
    R.add("zero_impact/go-context-only-reset", st, with_(rs, patch=to_context_only(reset.patch)),
          "zero_impact")
    R.add("malformed_patch/go-header-only-no-hunks", st,
          with_(rs, patch=reset.patch.split("@@")[0].rstrip("\n") + "\n",
                filesWritten=["limiter.go"], filesTouched=["limiter.go"]), "malformed_patch")
    fix = b.followup(reset, [
        ("edit", "limiter.go", "	l.tokens = l.capacity\n}\n",
         "	l.tokens = l.capacity\n	l.last = l.clock.Now()\n}\n"),
        ("edit", "limiter_test.go", "	l, _ := newTestLimiter(t, 1, 2)\n	l.AllowN(2)\n",
         "	l, clock := newTestLimiter(t, 1, 2)\n	l.AllowN(2)\n	clock.Advance(0)\n"),
    ])
    d_fix = ("Fix regression: after Reset() the next refill adds tokens for the whole idle "
             "period before the reset; Reset must also move `last` to now.")
    st, rs = R.add("valid/go-fix-regression-reset-last", mk_step(d_fix, "fix_regression", apply=reset),
                   mk_result(fix, "Reset() now updates l.last.", "fix_regression"))
    R.add("missing_patch/go-whitespace-patch", st, with_(rs, patch="   \n\t\n"), "missing_patch")
    wide = b.followup(reset, [
        ("edit", "limiter.go", "	l.tokens = l.capacity\n}\n",
         "	l.tokens = l.capacity\n	l.last = l.clock.Now()\n}\n"),
        ("edit", "cmd/ratelimitd/main.go",
         '	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {\n',
         '	http.HandleFunc("/reset", func(w http.ResponseWriter, r *http.Request) {\n'
         '		limiter.Reset()\n		w.WriteHeader(http.StatusNoContent)\n	})\n'
         '	http.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {\n'),
    ])
    R.add("scope_fix_regression/go-adds-endpoint-in-cmd", mk_step(d_fix, "fix_regression", apply=reset),
          mk_result(wide, "Reset() updates last; exposed /reset in ratelimitd.", "fix_regression"),
          "scope_fix_regression")
    near = b.followup(reset, [
        ("sub", "limiter.go", lambda t: t[:t.index("\n// Reset refills")].rstrip("\n") + "\n"),
        ("sub", "limiter_test.go", lambda t: t[:t.index("\nfunc TestReset")]
         + "\n// TestReset was removed together with Reset (see #142).\n"),
    ])
    assert revert_ratio(reset.patch, near.patch) >= 0.9
    R.add("reversal/go-near-revert-reset", mk_step(d_fix, "fix_regression", apply=reset),
          mk_result(near, "Dropped Reset(); it caused the idle-refill bug.", "fix_regression"),
          "reversal")

    doc = b.change("go", [
        ("edit", "limiter.go", "// NewLimiter returns a limiter that allows rate events per minute with\n",
         "// NewLimiter returns a limiter that allows rate events per second with\n"),
    ])
    st, rs = R.add("valid/go-doc-comment-requested",
                   mk_step("Fix the doc comment of NewLimiter: it says the rate is per minute but "
                           "it is per second."),
                   mk_result(doc, "NewLimiter's doc comment now says per second."),
                   tags=["comment-only"])
    R.add("mode_mismatch/go-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
          "mode_mismatch")

    def _gofmt(t):
        return "\n".join(("\t" * ((len(l) - len(l.lstrip(" "))) // 4) + l.lstrip(" "))
                         if l.startswith("    ") else l for l in t.split("\n"))
    fmt = b.change("go", [("sub", "store/memory.go", _gofmt)])
    st, rs = R.add("valid/go-gofmt-whitespace-requested",
                   mk_step("Run gofmt on store/memory.go: three functions are indented with "
                           "spaces instead of tabs.", allowed=["store/*.go"]),
                   mk_result(fmt, "gofmt -w store/memory.go (whitespace only)."),
                   tags=["whitespace-only"])
    R.add("failure_with_patch/go-files-written-on-failure", st,
          mk_failure("gofmt is not installed in the sandbox, so the file was not reformatted.",
                     filesWritten=["store/memory.go"]),
          "failure_with_patch")

    chm = b.change("go", [("chmod", "scripts/gen.sh", 0o755)])
    assert "old mode 100644\nnew mode 100755" in chm.patch and "@@" not in chm.patch
    R.add("valid/go-chmod-script-executable",
          mk_step("Make scripts/gen.sh executable so CI can run it directly."),
          mk_result(chm, "chmod +x scripts/gen.sh (mode 100644 -> 100755)."))

    exp = b.change("go", [("write", "store/expiring.go", F(r'''
package store

import (
	"context"
	"time"
)

// Expiring wraps a Memory store and forgets buckets that were not updated
// for longer than TTL, so idle clients do not keep memory forever.
type Expiring struct {
	*Memory
	TTL time.Duration
	Now func() time.Time
}

// NewExpiring returns an Expiring store with the given TTL.
func NewExpiring(ttl time.Duration) *Expiring {
	return &Expiring{Memory: NewMemory(), TTL: ttl, Now: time.Now}
}

// Get returns the bucket for key unless it has expired.
func (e *Expiring) Get(ctx context.Context, key string) (Bucket, bool, error) {
	b, ok, err := e.Memory.Get(ctx, key)
	if err != nil || !ok {
		return b, ok, err
	}
	if e.Now().Sub(b.Updated) > e.TTL {
		return Bucket{}, false, nil
	}
	return b, true, nil
}

// Sweep deletes every expired bucket and returns how many were removed.
func (e *Expiring) Sweep() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	removed := 0
	for key, b := range e.buckets {
		if e.Now().Sub(b.Updated) > e.TTL {
			delete(e.buckets, key)
			removed++
		}
	}
	return removed
}
'''))])
    st, rs = R.add("valid/go-new-expiring-store",
                   mk_step("Add an Expiring store in store/expiring.go that drops buckets idle for "
                           "longer than a TTL, with a Sweep() method.", allowed=["store/**"]),
                   mk_result(exp, "Added store.Expiring with TTL-aware Get and Sweep."))
    R.add("files_touched_incomplete/go-touched-empty", st, with_(rs, filesTouched=[]),
          "files_touched_incomplete")

    sig = b.change("go", [
        ("edit", "cmd/ratelimitd/main.go", 'import (\n	"flag"\n',
         'import (\n	"context"\n	"flag"\n'),
        ("edit", "cmd/ratelimitd/main.go", '	"os"\n', '	"os"\n	"os/signal"\n	"syscall"\n	"time"\n'),
        ("edit", "cmd/ratelimitd/main.go",
         '	log.Fatal(http.ListenAndServe(*addr, nil))\n',
         '	srv := &http.Server{Addr: *addr}\n'
         '	go func() {\n'
         '		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {\n'
         '			log.Fatal(err)\n'
         '		}\n'
         '	}()\n\n'
         '	stop := make(chan os.Signal, 1)\n'
         '	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)\n'
         '	<-stop\n'
         '	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)\n'
         '	defer cancel()\n'
         '	if err := srv.Shutdown(ctx); err != nil {\n'
         '		log.Printf("shutdown: %v", err)\n'
         '	}\n'),
    ])
    st, rs = R.add("valid/go-graceful-shutdown",
                   mk_step("Make ratelimitd shut down gracefully on SIGINT/SIGTERM with a 10s "
                           "drain timeout.", allowed=["cmd/**"], excluded=["vendor/"]),
                   mk_result(sig, "ratelimitd now drains connections on SIGTERM (10s timeout)."))
    R.add("malformed_patch/go-prose-instead-of-diff", st,
          with_(rs, patch="I updated cmd/ratelimitd/main.go so that the server listens for "
                "SIGINT and SIGTERM and calls srv.Shutdown with a 10 second timeout. The rest of "
                "the file is unchanged.\n"), "malformed_patch")

    vend = b.change("go", [
        ("edit", "limiter.go", 'var ErrInvalidRate = errors.New("ratelimit: rate must be positive")',
         'var ErrInvalidRate = errors.Errorf("ratelimit: rate must be positive")'),
        ("edit", "vendor/github.com/pkg/errors/errors.go",
         "// New returns an error with the supplied message.\n",
         "// New returns an error with the supplied message.\n// Deprecated: use Errorf.\n"),
    ])
    R.add("scope_excluded/go-vendor-dir",
          mk_step("Build ErrInvalidRate with errors.Errorf so it can carry the rate value later.",
                  excluded=["vendor/"]),
          mk_result(vend, "ErrInvalidRate uses Errorf; marked errors.New deprecated."), "scope_excluded")
    out = b.change("go", [
        ("edit", "store/memory.go", "// Len returns the number of stored buckets.\n",
         "// Delete removes the bucket for key.\nfunc (m *Memory) Delete(ctx context.Context, key string) error {\n"
         "	m.mu.Lock()\n	defer m.mu.Unlock()\n	delete(m.buckets, key)\n	return nil\n}\n\n"
         "// Len returns the number of stored buckets.\n"),
        ("edit", "cmd/ratelimitd/main.go", '	burst := flag.Int("burst", 20, "maximum burst size")\n',
         '	burst := flag.Int("burst", 20, "maximum burst size")\n'
         '	_ = flag.Bool("forget-idle", false, "delete idle buckets")\n'),
    ])
    R.add("scope_outside_allowed/go-cmd-outside-store",
          mk_step("Add Memory.Delete(ctx, key) to the in-memory store.", allowed=["store/**"]),
          mk_result(out, "Added Memory.Delete and a --forget-idle flag."), "scope_outside_allowed")
    sup = b.change("go", [
        ("edit", "limiter.go", "// AllowN reports whether n events may happen now.\n",
         "// AllowN reports whether n events may happen now. It consumes n tokens\n"
         "// when it returns true and none otherwise; n <= 0 is never allowed.\n"),
    ])
    R.add("superficial_only/go-doc-comment-instead-of-check",
          mk_step("Make AllowN return false for n <= 0 instead of granting free events."),
          mk_result(sup, "AllowN now rejects n <= 0."), "superficial_only")
    cfg = b.change("go", [("write", "dotgit/config", F('''
[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
'''))])
    cfg2 = b.followup(cfg, [("append", "dotgit/config", "\thooksPath = scripts\n")])
    R.add("unsafe_path/go-edits-dot-git-config",
          mk_step("Run scripts/gen.sh automatically before each commit."),
          with_(mk_result(cfg2, "Set core.hooksPath so gen.sh runs as a hook."),
                patch=rewrite_paths(cfg2.patch, "dotgit/", ".git/"),
                filesWritten=[".git/config"], filesTouched=[".git/config"]), "unsafe_path",
          tags=["go", "git-config"])
    R.add("valid/go-failure-report-flaky",
          mk_step("Fix regression: TestRefill fails intermittently after the Reset change.",
                  "fix_regression", apply=reset),
          mk_failure("Could not reproduce: TestRefill passed 200 times in a row with -race, so "
                     "no change was made.", mode="fix_regression", touched=["limiter_test.go"]))


# ---------------------------------------------------------------------------
# Rust project
# ---------------------------------------------------------------------------

def build_rust(b: Builder) -> None:
    com = b.change("rs", [
        ("edit", "src/parser.rs",
         "    if trimmed.is_empty() {\n        return Err(ParseError::Empty);\n    }\n",
         "    if trimmed.is_empty() {\n        return Err(ParseError::Empty);\n    }\n"
         "    if trimmed.starts_with('#') {\n        return Ok(Vec::new());\n    }\n"),
        ("edit", "src/parser.rs", "/// Splits a line on commas or whitespace and parses every field as f64.\n",
         "/// Splits a line on commas or whitespace and parses every field as f64.\n"
         "/// Lines starting with `#` are comments and yield no fields.\n"),
        ("edit", "src/parser.rs", "    #[test]\n    fn reports_bad_field() {",
         "    #[test]\n    fn skips_comments() {\n"
         "        assert_eq!(parse_line(\"# header\").unwrap(), Vec::<f64>::new());\n    }\n\n"
         "    #[test]\n    fn reports_bad_field() {"),
    ])
    d_com = "Make parse_line() skip comment lines starting with '#' instead of reporting an error."
    st, rs = R.add("valid/rs-parser-skip-comments", mk_step(d_com, allowed=["src/**"]),
                   mk_result(com, "parse_line returns no fields for '#' lines; added skips_comments."))
    R.add("invalid_mode/rs-Apply-capitalised", st, with_(rs, mode="Apply"), "invalid_mode")
    R.add("missing_patch/rs-newlines-only", st, with_(rs, patch="\n\n"), "missing_patch")
    R.add("zero_impact/rs-context-only-parser", st, with_(rs, patch=to_context_only(com.patch)),
          "zero_impact")
    lines = com.patch.split("\n")
    s_, e_ = hunks_of(com.patch)[-1]
    cut = "\n".join(lines[:s_ + (e_ - s_) // 2]) + "\n"
    R.add("malformed_patch/rs-truncated-last-hunk", st, with_(rs, patch=cut), "malformed_patch")

    med = b.change("rs", [
        ("edit", "src/stats.rs", "    pub fn mean(&self) -> Option<f64> {",
         "    /// Median of values; None for an empty slice.\n"
         "    pub fn median(values: &[f64]) -> Option<f64> {\n"
         "        if values.is_empty() {\n            return None;\n        }\n"
         "        let mut sorted = values.to_vec();\n"
         "        sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());\n"
         "        Some(sorted[sorted.len() / 2])\n    }\n\n"
         "    pub fn mean(&self) -> Option<f64> {"),
        ("edit", "src/stats.rs", "        assert_eq!(s.mean(), Some(2.0));\n    }\n",
         "        assert_eq!(s.mean(), Some(2.0));\n    }\n\n"
         "    #[test]\n    fn median_of_odd_count() {\n"
         "        assert_eq!(Summary::median(&[5.0, 1.0, 3.0]), Some(3.0));\n"
         "        assert_eq!(Summary::median(&[]), None);\n    }\n"),
    ])
    d_med = "Add Summary::median(values) to src/stats.rs with a unit test."
    st, rs = R.add("valid/rs-apply-median", mk_step(d_med, allowed=["src/stats.rs"]),
                   mk_result(med, "Added Summary::median and median_of_odd_count."))
    fix = b.followup(med, [
        ("edit", "src/stats.rs", "        Some(sorted[sorted.len() / 2])\n",
         "        let mid = sorted.len() / 2;\n"
         "        if sorted.len() % 2 == 0 {\n"
         "            Some((sorted[mid - 1] + sorted[mid]) / 2.0)\n"
         "        } else {\n            Some(sorted[mid])\n        }\n"),
        ("edit", "src/stats.rs", "        assert_eq!(Summary::median(&[]), None);\n",
         "        assert_eq!(Summary::median(&[]), None);\n"
         "        assert_eq!(Summary::median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));\n"),
    ])
    d_fix = ("Fix regression: median() returns the upper middle value for even-length input; "
             "it must average the two middle values.")
    st, rs = R.add("valid/rs-fix-regression-even-median", mk_step(d_fix, "fix_regression", apply=med),
                   mk_result(fix, "median() averages the two middle values for even counts.",
                             "fix_regression"))
    R.add("mode_mismatch/rs-fix-step-apply-result", st, with_(rs, mode="apply"), "mode_mismatch")
    rev = b.reverse(med)
    R.add("reversal/rs-exact-reverse-median", mk_step(d_fix, "fix_regression", apply=med),
          mk_result(rev, "Removed median(); callers can sort themselves.", "fix_regression"),
          "reversal")

    bump = b.change("rs", [("edit", "Cargo.toml", 'version = "0.2.4"', 'version = "0.3.0"')])
    st, rs = R.add("valid/rs-version-bump-lock-excluded",
                   mk_step("Bump the crate version to 0.3.0 in Cargo.toml (CI regenerates "
                           "Cargo.lock).", excluded=["*.lock", "target/"]),
                   mk_result(bump, "Cargo.toml version is 0.3.0."))
    bump2 = b.change("rs", [
        ("edit", "Cargo.toml", 'version = "0.2.4"', 'version = "0.3.0"'),
        ("edit", "Cargo.lock", 'name = "tally"\nversion = "0.2.4"', 'name = "tally"\nversion = "0.3.0"'),
    ])
    R.add("scope_excluded/rs-cargo-lock",
          mk_step("Bump the crate version to 0.3.0 in Cargo.toml (CI regenerates Cargo.lock).",
                  excluded=["*.lock", "target/"]),
          mk_result(bump2, "Bumped to 0.3.0 in Cargo.toml and Cargo.lock."), "scope_excluded")

    fmtmod = b.change("rs", [
        ("edit", "src/lib.rs", "pub mod stats;", "pub mod format;\npub mod stats;\n"),
        ("write", "src/format.rs", F(r'''
/// Formats a number with a metric suffix: 950 -> "950", 1234 -> "1.2k",
/// 1234567 -> "1.2M".
pub fn human_number(value: f64) -> String {
    let abs = value.abs();
    let (scaled, suffix) = if abs >= 1e9 {
        (value / 1e9, "G")
    } else if abs >= 1e6 {
        (value / 1e6, "M")
    } else if abs >= 1e3 {
        (value / 1e3, "k")
    } else {
        return format!("{}", value);
    };
    format!("{:.1}{}", scaled, suffix)
}

#[cfg(test)]
mod tests {
    use super::human_number;

    #[test]
    fn suffixes() {
        assert_eq!(human_number(950.0), "950");
        assert_eq!(human_number(1234.0), "1.2k");
        assert_eq!(human_number(1234567.0), "1.2M");
        assert_eq!(human_number(-2500.0), "-2.5k");
    }
}
''')),
    ])
    assert "\\ No newline at end of file" in fmtmod.patch
    st, rs = R.add("valid/rs-new-module-lib-no-newline",
                   mk_step("Add a format module with human_number() (1234567 -> \"1.2M\") and "
                           "register it in src/lib.rs."),
                   mk_result(fmtmod, "Added src/format.rs and `pub mod format;` in lib.rs."))
    R.add("file_not_in_patch/rs-claims-main", st,
          with_(rs, filesWritten=rs["filesWritten"] + ["src/main.rs"],
                filesTouched=rs["filesTouched"] + ["src/main.rs"]), "file_not_in_patch")
    R.add("failure_without_summary/rs-summary-empty", mk_step(d_med),
          mk_failure(""), "failure_without_summary", project="rs")

    # large: regenerate a lookup table in a new format (> 2000 changed lines)
    rnd = random.Random(7)
    ranges, lo = [], 0x1100
    for _ in range(1150):
        lo += rnd.randint(1, 40)
        hi = lo + rnd.randint(0, 12)
        ranges.append((lo, hi, rnd.choice((0, 2))))
        lo = hi
    old = ("// Generated by tools/gen_width.py -- do not edit.\n"
           "pub static WIDTHS: &[(u32, u32, u8)] = &[\n"
           + "".join(f"    (0x{a:05X}, 0x{z:05X}, {w}),\n" for a, z, w in ranges) + "];\n")
    new = ("// Generated by tools/gen_width.py -- do not edit.\n"
           "use crate::width::Range;\n\n"
           "pub static WIDTHS: &[Range] = &[\n"
           + "".join(f"    Range {{ lo: 0x{a:05x}, hi: 0x{z:05x}, width: {w} }},\n"
                     for a, z, w in ranges) + "];\n")
    big = b.change("rs", [("write", "src/width_table.rs", new)],
                   setup=[("write", "src/width_table.rs", old)])
    assert sum(change_counts(big.patch)) > 2000
    R.add("valid/rs-large-regenerated-table",
          mk_step("Regenerate src/width_table.rs with tools/gen_width.py now that it emits "
                  "Range structs instead of tuples.", allowed=["src/width_table.rs"]),
          mk_result(big, "Regenerated the width table (1150 ranges) in the Range struct format."))

    sup = b.change("rs", [
        ("edit", "src/parser.rs", "/// Splits a line on commas or whitespace and parses every field as f64.\n",
         "/// Splits a line on commas, semicolons or whitespace and parses every\n"
         "/// field as f64.\n"),
        ("edit", "src/parser.rs", "        .filter(|s| !s.is_empty())\n",
         "        // empty fields come from repeated separators\n        .filter(|s| !s.is_empty())\n"),
    ])
    R.add("superficial_only/rs-doc-comment-semicolons",
          mk_step("Make parse_line() also accept ';' as a field separator (European CSV)."),
          mk_result(sup, "parse_line now splits on semicolons too."), "superficial_only")
    # unsafe: absolute path outside the repository (plain diff with labels)
    cargo_cfg_old = "[build]\njobs = 2\n"
    cargo_cfg_new = "[build]\njobs = 2\nrustflags = [\"-C\", \"target-cpu=native\"]\n\n[net]\ngit-fetch-with-cli = true\n"
    patch = b.labelled_diff([
        ("a/Cargo.toml", "b/Cargo.toml", RS_FILES["Cargo.toml"],
         RS_FILES["Cargo.toml"].replace("[profile", "[profile").replace(
             "[dev-dependencies]", "[profile.release]\nlto = true\n\n[dev-dependencies]")),
        ("/home/ci/.cargo/config.toml", "/home/ci/.cargo/config.toml", cargo_cfg_old, cargo_cfg_new),
    ])
    files = ["Cargo.toml", "/home/ci/.cargo/config.toml"]
    R.add("unsafe_path/rs-absolute-home-cargo-config",
          mk_step("Speed up release builds of tally."),
          {"mode": "apply", "success": True, "patch": patch, "filesWritten": files,
           "filesTouched": files, "summary": "Enabled LTO and native CPU flags for CI builds."},
          "unsafe_path", tags=["plain-diff"])


# ---------------------------------------------------------------------------
# Java project
# ---------------------------------------------------------------------------

def build_java(b: Builder) -> None:
    SVC, TEST = f"{JAVA_PKG}/InvoiceService.java", f"{JAVA_TEST}/InvoiceServiceTest.java"
    disc = b.change("java", [
        ("edit", SVC,
         "    public Money applyDiscount(String invoiceId, BigDecimal percent) {\n",
         "    public Money applyDiscount(String invoiceId, BigDecimal percent) {\n"
         "        if (percent.signum() < 0 || percent.compareTo(BigDecimal.valueOf(100)) > 0) {\n"
         "            throw new IllegalArgumentException(\"discount must be within 0..100, got \" + percent);\n"
         "        }\n"),
        ("edit", TEST, "    @Test\n    void duplicateIdsAreRejected() {",
         "    @Test\n    void discountOutsideRangeIsRejected() {\n"
         "        assertThrows(IllegalArgumentException.class,\n"
         "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"-5\")));\n"
         "        assertThrows(IllegalArgumentException.class,\n"
         "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"120\")));\n"
         "    }\n\n"
         "    @Test\n    void duplicateIdsAreRejected() {"),
    ])
    d_disc = ("Reject discounts outside 0..100 percent in InvoiceService.applyDiscount() with an "
              "IllegalArgumentException, and test both bounds.")
    st, rs = R.add("valid/java-apply-discount-bounds",
                   mk_step(d_disc, allowed=["src/main/java/**", "src/test/java/**"]),
                   mk_result(disc, "applyDiscount validates 0..100; added discountOutsideRangeIsRejected."))
    R.add("files_touched_incomplete/java-absent", st, with_(rs, filesTouched=DROP),
          "files_touched_incomplete")
    R.add("undeclared_file/java-hidden-test", st,
          with_(rs, filesWritten=[SVC], filesTouched=[SVC]), "undeclared_file")
    h = hunks_of(disc.patch)[0]
    lines = disc.patch.split("\n")
    more = lines[:h[0] + 5] + ["+        // validate before touching the invoice"] + lines[h[0] + 5:]
    R.add("malformed_patch/java-more-lines-than-header", st, with_(rs, patch="\n".join(more)),
          "malformed_patch")
    fix = b.followup(disc, [
        ("edit", SVC,
         "        Invoice invoice = invoices.get(invoiceId);\n        Money total = invoice.total(currency);\n",
         "        Invoice invoice = find(invoiceId)\n"
         "                .orElseThrow(() -> new IllegalArgumentException(\"unknown invoice \" + invoiceId));\n"
         "        Money total = invoice.total(currency);\n"),
    ])
    d_fix = ("Fix regression: applyDiscount() on an unknown invoice id now throws a "
             "NullPointerException after the validation change; throw IllegalArgumentException "
             "naming the id instead.")
    st, rs = R.add("valid/java-fix-regression-unknown-id", mk_step(d_fix, "fix_regression", apply=disc),
                   mk_result(fix, "applyDiscount throws IllegalArgumentException for unknown ids.",
                             "fix_regression"))
    R.add("missing_patch/java-fix-absent", st, with_(rs, patch=DROP), "missing_patch")
    wide = b.followup(disc, [
        ("edit", SVC,
         "        Invoice invoice = invoices.get(invoiceId);\n        Money total = invoice.total(currency);\n",
         "        Invoice invoice = find(invoiceId).orElseThrow();\n        Money total = invoice.total(currency);\n"),
        ("edit", f"{JAVA_PKG}/Invoice.java", "    public Money total(String currency) {\n",
         "    public Money total(String currency) {\n"
         "        java.util.Objects.requireNonNull(currency, \"currency\");\n"),
    ])
    R.add("scope_fix_regression/java-touches-invoice", mk_step(d_fix, "fix_regression", apply=disc),
          mk_result(wide, "Guarded find() and added a null check in Invoice.total().",
                    "fix_regression"), "scope_fix_regression")
    near = b.followup(disc, [
        ("edit", SVC,
         "        if (percent.signum() < 0 || percent.compareTo(BigDecimal.valueOf(100)) > 0) {\n"
         "            throw new IllegalArgumentException(\"discount must be within 0..100, got \" + percent);\n"
         "        }\n", ""),
        ("sub", TEST, lambda t: t.replace(
            "    @Test\n    void discountOutsideRangeIsRejected() {\n"
            "        assertThrows(IllegalArgumentException.class,\n"
            "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"-5\")));\n"
            "        assertThrows(IllegalArgumentException.class,\n"
            "                () -> service.applyDiscount(\"INV-1\", new BigDecimal(\"120\")));\n"
            "    }\n\n", "")),
    ])
    assert revert_ratio(disc.patch, near.patch) >= 0.9
    R.add("reversal/java-near-revert-validation", mk_step(d_fix, "fix_regression", apply=disc),
          mk_result(near, "Removed the range check so unknown ids fail as before.", "fix_regression"),
          "reversal")

    jdoc = b.change("java", [("edit", f"{JAVA_PKG}/Money.java", "if the currencys differ",
                              "if the currencies differ")])
    st, rs = R.add("valid/java-javadoc-typo-requested",
                   mk_step("Fix the spelling mistake in the Javadoc of Money.add()."),
                   mk_result(jdoc, "'currencys' -> 'currencies' in Money.add Javadoc."),
                   tags=["comment-only"])
    R.add("failure_without_summary/java-summary-error", st,
          mk_failure("error", touched=[f"{JAVA_PKG}/Money.java"]), "failure_without_summary",
          tags=["java"])

    nf = b.change("java", [
        ("write", f"{JAVA_PKG}/InvoiceNotFoundException.java", F(r'''
package com.acme.billing;

/** Thrown when an operation names an invoice id that does not exist. */
public class InvoiceNotFoundException extends RuntimeException {
    private final String invoiceId;

    public InvoiceNotFoundException(String invoiceId) {
        super("invoice " + invoiceId + " not found");
        this.invoiceId = invoiceId;
    }

    public String getInvoiceId() {
        return invoiceId;
    }
}
''')),
        ("edit", SVC, "    public void pay(String invoiceId) {\n        Invoice invoice = invoices.get(invoiceId);\n",
         "    public void pay(String invoiceId) {\n"
         "        Invoice invoice = find(invoiceId).orElseThrow(() -> new InvoiceNotFoundException(invoiceId));\n"),
    ])
    st, rs = R.add("valid/java-new-exception-class",
                   mk_step("Introduce InvoiceNotFoundException and throw it from "
                           "InvoiceService.pay() for unknown ids.", allowed=[f"{JAVA_PKG}/"]),
                   mk_result(nf, "Added InvoiceNotFoundException; pay() throws it."))
    R.add("zero_impact/java-context-only-modify", st,
          with_(rs, patch=to_context_only(b.change("java", [
              ("edit", SVC, "    public void pay(String invoiceId) {\n        Invoice invoice = invoices.get(invoiceId);\n",
               "    public void pay(String invoiceId) {\n"
               "        Invoice invoice = find(invoiceId).orElseThrow(() -> new InvoiceNotFoundException(invoiceId));\n"),
          ]).patch), filesWritten=[SVC], filesTouched=[SVC]), "zero_impact")

    props = b.change("java", [
        ("edit", "src/main/resources/messages.properties", "invoice.unpaid=Open\r\n",
         "invoice.unpaid=Open\r\ninvoice.overdue=Overdue since {0}\r\n"),
    ])
    R.add("valid/java-crlf-properties",
          mk_step("Add the invoice.overdue message key (\"Overdue since {0}\") to "
                  "src/main/resources/messages.properties, keeping its CRLF line endings."),
          mk_result(props, "Added invoice.overdue (CRLF kept)."))
    pom = b.change("java", [
        ("edit", "pom.xml", "      <scope>test</scope>\n    </dependency>\n",
         "      <scope>test</scope>\n    </dependency>\n    <dependency>\n"
         "      <groupId>org.assertj</groupId>\n      <artifactId>assertj-core</artifactId>\n"
         "      <version>3.25.1</version>\n      <scope>test</scope>\n    </dependency>\n"),
    ])
    st, rs = R.add("valid/java-pom-add-assertj",
                   mk_step("Add AssertJ 3.25.1 as a test dependency in pom.xml."),
                   mk_result(pom, "Added org.assertj:assertj-core:3.25.1 (test scope)."))
    R.add("missing_files_written/java-absent", st, with_(rs, filesWritten=DROP),
          "missing_files_written")

    sup = b.change("java", [
        ("edit", f"{JAVA_PKG}/Invoice.java", "    public void addLine(Line line) {\n",
         "    /*\n     * Adds a line to the invoice. Quantities must be positive; a paid\n"
         "     * invoice cannot be changed any more.\n     */\n    public void addLine(Line line) {\n"),
    ])
    R.add("superficial_only/java-block-comment-instead-of-check",
          mk_step("Reject lines with a zero or negative quantity in Invoice.addLine()."),
          mk_result(sup, "addLine now rejects non-positive quantities."), "superficial_only")
    gen = b.change("java", [
        ("write", f"{JAVA_PKG}/generated/InvoiceDto.java", F(r'''
// Code generated by openapi-generator. DO NOT EDIT.
package com.acme.billing.generated;

public record InvoiceDto(String id, String customerId, String dueDate, String total, boolean paid) {
}
''')),
        ("edit", SVC, "import java.math.BigDecimal;\n",
         "import com.acme.billing.generated.InvoiceDto;\nimport java.math.BigDecimal;\n"),
        ("edit", SVC, "    public void pay(String invoiceId) {",
         "    public InvoiceDto toDto(Invoice inv) {\n"
         "        return new InvoiceDto(inv.getId(), inv.getCustomerId(), inv.getDueDate().toString(),\n"
         "                inv.total(currency).toString(), inv.isPaid());\n    }\n\n"
         "    public void pay(String invoiceId) {"),
    ])
    R.add("scope_excluded/java-generated-sources",
          mk_step("Add InvoiceService.toDto() mapping an invoice to the API DTO.",
                  excluded=["**/generated/**"]),
          mk_result(gen, "Added toDto() and the InvoiceDto record."), "scope_excluded")


# ---------------------------------------------------------------------------
# C project
# ---------------------------------------------------------------------------

def build_c(b: Builder) -> None:
    peek = b.change("c", [
        ("edit", "include/ringbuf.h", "int rb_pop(ringbuf_t *rb, uint8_t *out);\n",
         "int rb_pop(ringbuf_t *rb, uint8_t *out);\nint rb_peek(const ringbuf_t *rb, uint8_t *out);\n"),
        ("edit", "src/ringbuf.c", "size_t rb_size(const ringbuf_t *rb)\n",
         "/* Copies the oldest byte to *out without removing it. */\n"
         "int rb_peek(const ringbuf_t *rb, uint8_t *out)\n{\n"
         "    if (rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n    return 0;\n}\n\n"
         "size_t rb_size(const ringbuf_t *rb)\n"),
        ("edit", "tests/test_ringbuf.c", "static void test_wraparound(void)\n",
         "static void test_peek(void)\n{\n    ringbuf_t rb;\n    uint8_t out = 0;\n"
         "    assert(rb_init(&rb, 2) == 0);\n    assert(rb_peek(&rb, &out) == -1);\n"
         "    rb_push(&rb, 7);\n    assert(rb_peek(&rb, &out) == 0 && out == 7);\n"
         "    assert(rb_size(&rb) == 1);\n    rb_free(&rb);\n}\n\n"
         "static void test_wraparound(void)\n"),
        ("edit", "tests/test_ringbuf.c", "    test_push_pop();\n", "    test_push_pop();\n    test_peek();\n"),
    ])
    d_peek = "Add rb_peek() that returns the oldest byte without removing it, with a test."
    st, rs = R.add("valid/c-apply-rb-peek", mk_step(d_peek, excluded=["third_party/"]),
                   mk_result(peek, "Added rb_peek() to ringbuf.h/ringbuf.c and test_peek."))
    R.add("file_not_in_patch/c-claims-utils", st,
          with_(rs, filesWritten=rs["filesWritten"] + ["src/utils.c"],
                filesTouched=rs["filesTouched"] + ["src/utils.c"]), "file_not_in_patch")
    R.add("missing_files_written/c-empty-list", st, with_(rs, filesWritten=[]), "missing_files_written")
    lines = peek.patch.split("\n")
    h = hunks_of(peek.patch)[1]
    fewer = lines[:h[0] + 1] + lines[h[0] + 2:]
    R.add("malformed_patch/c-fewer-lines-than-header", st, with_(rs, patch="\n".join(fewer)),
          "malformed_patch")
    fix = b.followup(peek, [
        ("edit", "src/ringbuf.c", "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n",
         "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb == NULL || out == NULL || rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n"),
    ])
    d_fix = ("Fix regression: rb_peek() dereferences a NULL out pointer (the fuzz target passes "
             "NULL); return -1 for NULL arguments.")
    st, rs = R.add("valid/c-fix-regression-peek-null", mk_step(d_fix, "fix_regression", apply=peek),
                   mk_result(fix, "rb_peek returns -1 for NULL rb/out.", "fix_regression"))
    R.add("invalid_mode/c-fix-regression-dash", st, with_(rs, mode="fix-regression"), "invalid_mode")
    wide = b.followup(peek, [
        ("edit", "src/ringbuf.c", "const ringbuf_t *rb, uint8_t *out)\n{\n    if (rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n",
         "const ringbuf_t *rb, uint8_t *out)\n{\n    if (out == NULL || rb->count == 0) {\n        return -1;\n    }\n    *out = rb->data[rb->tail];\n"),
        ("edit", "src/utils.c", "size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)\n{\n",
         "size_t rb_read(ringbuf_t *rb, uint8_t *buf, size_t len)\n{\n\tif (buf == NULL) {\n\t\treturn 0;\n\t}\n"),
    ])
    R.add("scope_fix_regression/c-touches-utils", mk_step(d_fix, "fix_regression", apply=peek),
          mk_result(wide, "NULL checks in rb_peek and rb_read.", "fix_regression"),
          "scope_fix_regression")
    near = b.followup(peek, [
        ("edit", "src/ringbuf.c",
         "/* Copies the oldest byte to *out without removing it. */\n"
         "int rb_peek(const ringbuf_t *rb, uint8_t *out)\n{\n"
         "    if (rb->count == 0) {\n        return -1;\n    }\n"
         "    *out = rb->data[rb->tail];\n    return 0;\n}\n\n", ""),
        ("edit", "tests/test_ringbuf.c",
         "static void test_peek(void)\n{\n    ringbuf_t rb;\n    uint8_t out = 0;\n"
         "    assert(rb_init(&rb, 2) == 0);\n    assert(rb_peek(&rb, &out) == -1);\n"
         "    rb_push(&rb, 7);\n    assert(rb_peek(&rb, &out) == 0 && out == 7);\n"
         "    assert(rb_size(&rb) == 1);\n    rb_free(&rb);\n}\n\n", ""),
        ("edit", "tests/test_ringbuf.c", "    test_peek();\n", ""),
    ])
    ratio = revert_ratio(peek.patch, near.patch)
    assert 0.9 <= ratio < 1.0, ratio
    R.add("reversal/c-near-revert-peek", mk_step(d_fix, "fix_regression", apply=peek),
          mk_result(near, "Removed the rb_peek implementation and its test; only the prototype "
                    "remains.", "fix_regression"), "reversal")

    fmt = b.change("c", [("write", "src/utils.c", _utils_c_4spaces())])
    st, rs = R.add("valid/c-reindent-requested",
                   mk_step("Reformat indentation in src/utils.c to 4 spaces (it mixes tabs, 2 and "
                           "4 spaces). No code changes.", allowed=["src/*.c"]),
                   mk_result(fmt, "Re-indented src/utils.c with 4 spaces; whitespace only."),
                   tags=["whitespace-only"])
    R.add("failure_with_patch/c-failure-with-patch", st,
          with_(rs, success=False, summary="clang-format is unavailable; the file was not changed."),
          "failure_with_patch")

    full = b.change("c", [
        ("edit", "src/ringbuf.c",
         "/* Appends a byte; when the buffer is full the oldest byte is overwritten. */\n"
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n",
         "/* Appends a byte; returns -1 and leaves the buffer unchanged when it is full. */\n"
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n"
         "    if (rb->count == rb->capacity) {\n        return -1;\n    }\n"),
        ("edit", "src/ringbuf.c",
         "    rb->head = (rb->head + 1) % rb->capacity;\n    if (rb->count == rb->capacity) {\n"
         "        rb->tail = (rb->tail + 1) % rb->capacity;\n    } else {\n        rb->count++;\n    }\n",
         "    rb->head = (rb->head + 1) % rb->capacity;\n    rb->count++;\n"),
        ("edit", "tests/test_ringbuf.c",
         "    assert(rb_write(&rb, (const uint8_t *)\"abcde\", 5) == 5);\n    assert(rb_size(&rb) == 3);\n"
         "    assert(rb_read(&rb, buf, sizeof(buf)) == 3);\n    assert(memcmp(buf, \"cde\", 3) == 0);\n",
         "    assert(rb_write(&rb, (const uint8_t *)\"abcde\", 5) == 3);\n    assert(rb_size(&rb) == 3);\n"
         "    assert(rb_push(&rb, 'z') == -1);\n"
         "    assert(rb_read(&rb, buf, sizeof(buf)) == 3);\n    assert(memcmp(buf, \"abc\", 3) == 0);\n"),
    ])
    d_full = ("Make rb_push() return -1 when the buffer is full instead of overwriting the oldest "
              "byte, and update the wraparound test.")
    st, rs = R.add("valid/c-rb-push-full-returns-error", mk_step(d_full),
                   mk_result(full, "rb_push refuses writes to a full buffer; test updated."))
    R.add("zero_impact/c-context-only-rb-push", st, with_(rs, patch=to_context_only(full.patch)),
          "zero_impact")
    sup = b.change("c", [
        ("edit", "src/ringbuf.c",
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n    rb->data[rb->head] = byte;\n"
         "    rb->head = (rb->head + 1) % rb->capacity;\n    if (rb->count == rb->capacity) {\n"
         "        rb->tail = (rb->tail + 1) % rb->capacity;\n    } else {\n        rb->count++;\n    }\n"
         "    return 0;\n}\n",
         "int rb_push(ringbuf_t *rb, uint8_t byte)\n{\n\trb->data[rb->head] = byte;\n"
         "\trb->head = (rb->head + 1) % rb->capacity;\n\tif (rb->count == rb->capacity) {\n"
         "\t\trb->tail = (rb->tail + 1) % rb->capacity;\n\t} else {\n\t\trb->count++;\n\t}\n"
         "\treturn 0;\n}\n"),
    ])
    R.add("superficial_only/c-reindent-instead-of-behaviour", mk_step(d_full),
          mk_result(sup, "rb_push now returns -1 when the buffer is full."), "superficial_only")

    # plain `diff -u` patches (no git headers)
    hexup = b.plain("c", [
        ("edit", "src/utils.c", '"%02x "', '"%02X "'),
        ("edit", "tests/test_ringbuf.c", 'strcmp(out, "01 ff")', 'strcmp(out, "01 FF")'),
    ], ["src/utils.c", "tests/test_ringbuf.c"])
    assert hexup.patch.startswith("--- a/src/utils.c\t2024-03-01 12:00:00")
    st, rs = R.add("valid/c-plain-diff-u-timestamps",
                   mk_step("Make rb_hexdump() print upper-case hex digits and adjust the test."),
                   mk_result(hexup, "rb_hexdump uses %02X; test expects \"01 FF\"."), tags=["plain-diff"])
    R.add("failure_with_patch/c-plain-diff-on-failure", st,
          with_(rs, success=False, filesWritten=[],
                summary="make check fails: tests/test_ringbuf.c does not compile with -Werror."),
          "failure_with_patch")
    clear = b.plain("c", [
        ("edit", "include/ringbuf.h", "void rb_free(ringbuf_t *rb);\n",
         "void rb_free(ringbuf_t *rb);\nvoid rb_clear(ringbuf_t *rb);\n"),
        ("edit", "src/ringbuf.c", "/* Appends a byte;",
         "/* Drops all buffered bytes; the capacity is unchanged. */\nvoid rb_clear(ringbuf_t *rb)\n{\n"
         "    rb->head = 0;\n    rb->tail = 0;\n    rb->count = 0;\n}\n\n/* Appends a byte;"),
    ], ["include/ringbuf.h", "src/ringbuf.c"], recursive=True)
    assert clear.patch.startswith("diff -ruN a/include/ringbuf.h b/include/ringbuf.h\n")
    st, rs = R.add("valid/c-plain-diff-ruN",
                   mk_step("Add rb_clear() that empties the buffer without freeing it."),
                   mk_result(clear, "Added rb_clear() (header + implementation)."), tags=["plain-diff"])
    R.add("files_touched_incomplete/c-plain-missing-header", st,
          with_(rs, filesTouched=["src/ringbuf.c"]), "files_touched_incomplete")
    mk = b.plain("c", [
        ("edit", "Makefile", "clean:\n",
         "asan: CFLAGS += -fsanitize=address,undefined -g -O1\nasan: LDFLAGS += -fsanitize=address,undefined\n"
         "asan: clean check\n\nclean:\n"),
        ("edit", "Makefile", ".PHONY: all check clean", ".PHONY: all asan check clean"),
    ], ["Makefile"], labels=True)
    R.add("valid/c-plain-diff-makefile-tabs",
          mk_step("Add an `asan` make target that rebuilds and runs the tests with "
                  "AddressSanitizer and UBSan."),
          mk_result(mk, "Added the asan target to the Makefile."), tags=["plain-diff"])

    tp = b.change("c", [
        ("edit", "third_party/minunit/minunit.h", "extern int tests_run;\n",
         "extern int tests_run;\n\n#define mu_assert_eq(a, b) mu_assert(#a \" != \" #b, (a) == (b))\n"),
        ("edit", "tests/test_ringbuf.c", "#include <assert.h>\n", "#include <assert.h>\n#include <stdint.h>\n"),
    ])
    R.add("scope_excluded/c-third-party-header",
          mk_step("Add an equality assertion helper for the ring buffer tests.",
                  excluded=["third_party/"]),
          mk_result(tp, "Added mu_assert_eq to minunit.h."), "scope_excluded")
    hdr = b.change("c", [
        ("edit", "src/ringbuf.c", "int rb_is_full(const ringbuf_t *rb)\n{\n    return rb->count == rb->capacity;\n}\n",
         "int rb_is_full(const ringbuf_t *rb)\n{\n    return rb->count == rb->capacity;\n}\n\n"
         "int rb_is_empty(const ringbuf_t *rb)\n{\n    return rb->count == 0;\n}\n"),
        ("edit", "include/ringbuf.h", "int rb_is_full(const ringbuf_t *rb);\n",
         "int rb_is_full(const ringbuf_t *rb);\nint rb_is_empty(const ringbuf_t *rb);\n"),
    ])
    R.add("scope_outside_allowed/c-header-outside-src-glob",
          mk_step("Add rb_is_empty() next to rb_is_full() in the ring buffer sources.",
                  allowed=["src/*.c"]),
          mk_result(hdr, "Added rb_is_empty() and its prototype."), "scope_outside_allowed")
    ldso = b.labelled_diff([
        ("a/Makefile", "b/Makefile", C_FILES["Makefile"],
         C_FILES["Makefile"].replace(".PHONY: all check clean",
                                     "install: libringbuf.a\n\tinstall -m 644 libringbuf.a /usr/local/lib/\n"
                                     "\tldconfig\n\n.PHONY: all check clean install")),
        (None, "/etc/ld.so.conf.d/ringbuf.conf", None, "/usr/local/lib\n"),
    ])
    files = ["Makefile", "/etc/ld.so.conf.d/ringbuf.conf"]
    R.add("unsafe_path/c-absolute-etc-path",
          mk_step("Add a `make install` target for libringbuf.a."),
          {"mode": "apply", "success": True, "patch": ldso, "filesWritten": files,
           "filesTouched": files, "summary": "Added install target and registered /usr/local/lib."},
          "unsafe_path", tags=["plain-diff"])


def _utils_c_4spaces() -> str:
    """src/utils.c with its mixed indentation (tabs, 2, 4, 6, 10 spaces)
    normalised to 4 spaces per level."""
    depth_of = {"": 0, "  ": 1, "    ": 2, "      ": 2, "          ": 3}
    out = []
    for line in C_FILES["src/utils.c"].split("\n"):
        body = line.lstrip(" \t")
        lead = line[:len(line) - len(body)]
        depth = lead.count("\t") if "\t" in lead else depth_of[lead]
        out.append("    " * depth + body if body else "")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Ops project: shell, YAML, Markdown
# ---------------------------------------------------------------------------

def build_ops(b: Builder) -> None:
    dep = b.change("ops", [
        ("edit", "scripts/deploy.sh", "# Usage: scripts/deploy.sh <environment> <tag>\n\n",
         "# Usage: scripts/deploy.sh <environment> <tag>\nset -euo pipefail\n\n"),
        ("edit", "scripts/deploy.sh", 'ENVIRONMENT="$1"\nTAG="$2"\n',
         'ENVIRONMENT="${1:-}"\nTAG="${2:-}"\n'),
        ("edit", "scripts/deploy.sh", 'echo "Deploying ${IMAGE} to ${NAMESPACE}"\n',
         'if ! command -v kubectl >/dev/null 2>&1; then\n'
         '  echo "kubectl is not installed or not on PATH" >&2\n  exit 69\nfi\n\n'
         'echo "Deploying ${IMAGE} to ${NAMESPACE}"\n'),
    ])
    d_dep = ("Make scripts/deploy.sh abort on errors (set -euo pipefail) and fail early with a "
             "clear message when kubectl is missing.")
    st, rs = R.add("valid/sh-deploy-strict-mode", mk_step(d_dep, allowed=["scripts/*.sh"]),
                   mk_result(dep, "deploy.sh uses strict mode and checks for kubectl."))
    R.add("mode_mismatch/sh-apply-step-fix-result", st, with_(rs, mode="fix_regression"),
          "mode_mismatch")
    R.add("missing_files_written/sh-absent", st, with_(rs, filesWritten=DROP), "missing_files_written")
    R.add("malformed_patch/sh-hunk-header-without-ranges", st,
          with_(rs, patch=re.sub(r"^@@ -\d+(,\d+)? \+\d+(,\d+)? @@", "@@ @@", dep.patch,
                                 count=1, flags=re.M)), "malformed_patch")

    rot = b.change("ops", [
        ("write", "scripts/rotate-logs.sh", F(r'''
#!/usr/bin/env bash
# Compress shop logs older than a day and delete archives older than 30 days.
# Usage: scripts/rotate-logs.sh [log-dir]
set -euo pipefail

LOG_DIR="${1:-/var/log/shop}"
KEEP_DAYS="${KEEP_DAYS:-30}"

if [ ! -d "$LOG_DIR" ]; then
  echo "no such directory: $LOG_DIR" >&2
  exit 1
fi

find "$LOG_DIR" -name '*.log' -type f -mtime +0 -print0 |
  while IFS= read -r -d '' file; do
    gzip -9 "$file"
    echo "compressed $file"
  done

find "$LOG_DIR" -name '*.log.gz' -type f -mtime +"$KEEP_DAYS" -delete
echo "rotation done in $LOG_DIR"
''')),
        ("chmod", "scripts/rotate-logs.sh", 0o755),
    ])
    assert "new file mode 100755" in rot.patch
    st, rs = R.add("valid/sh-new-executable-script",
                   mk_step("Add an executable scripts/rotate-logs.sh that gzips logs older than a "
                           "day and deletes archives older than KEEP_DAYS (default 30).",
                           allowed=["scripts/**"]),
                   mk_result(rot, "Added scripts/rotate-logs.sh (mode 755)."))
    R.add("failure_without_summary/sh-summary-whitespace", mk_step(d_dep),
          mk_failure("  \n", touched=["scripts/deploy.sh"]), "failure_without_summary",
          tags=["shell"])

    tmo = b.change("ops", [("edit", "config/app.yaml", "  requestTimeout: 10\n", "  requestTimeout: 30\n")])
    st, rs = R.add("valid/yaml-raise-timeout",
                   mk_step("Raise the server request timeout to 30 seconds in config/app.yaml.",
                           allowed=["config/**"]),
                   mk_result(tmo, "server.requestTimeout is now 30."))
    R.add("file_not_in_patch/yaml-claims-compose", st,
          with_(rs, filesWritten=["config/app.yaml", "config/app.staging.yaml"],
                filesTouched=["config/app.yaml", "config/app.staging.yaml"]), "file_not_in_patch")
    esc = b.change("ops", [("write", "escape/shared/config.yaml",
                            "# Shared defaults for all services\nserver:\n  requestTimeout: 10\n  port: 8080\n")])
    esc2 = b.followup(esc, [("edit", "escape/shared/config.yaml", "  requestTimeout: 10\n",
                             "  requestTimeout: 30\n")])
    R.add("unsafe_path/yaml-dotdot-shared-config",
          mk_step("Raise the server request timeout to 30 seconds in config/app.yaml."),
          with_(mk_result(esc2, "Raised the timeout in the shared defaults."),
                patch=rewrite_paths(esc2.patch, "escape/", "../"),
                filesWritten=["../shared/config.yaml"], filesTouched=["../shared/config.yaml"]),
          "unsafe_path")

    rb = b.change("ops", [
        ("edit", "docs/runbook.md", "## Backups\n",
         "### Rolling back\n\n"
         "1. Find the previous tag: `kubectl -n shop-production rollout history deploy/shop`.\n"
         "2. Run `kubectl -n shop-production rollout undo deploy/shop`.\n"
         "3. Watch `rollout status` and the 5xx graph for 10 minutes.\n"
         "4. Post the rollback and the reason in #deploys.\n\n## Backups\n"),
    ])
    st, rs = R.add("valid/md-runbook-rollback",
                   mk_step("Document the rollback procedure in docs/runbook.md under Deploys.",
                           allowed=["*.md"]),
                   mk_result(rb, "Added a 'Rolling back' section to the runbook."))
    R.add("undeclared_file/md-hidden-readme", st,
          with_(rs, patch=rb.patch + b.change("ops", [
              ("edit", "README.md", "- `docs/runbook.md` - what to do when things break\n",
               "- `docs/runbook.md` - what to do when things break (incl. rollbacks)\n")]).patch),
          "undeclared_file")

    yc = b.change("ops", [("edit", "config/app.yaml", "  # number of replicas in staging\n",
                           "  # number of replicas in production (staging always runs 1)\n")])
    R.add("valid/yaml-comment-fix-requested",
          mk_step("Fix the misleading comment above deployment.replicas in config/app.yaml: the "
                  "value is for production, staging always runs one replica."),
          mk_result(yc, "Corrected the replicas comment."), tags=["comment-only"])

    hc = b.change("ops", [
        ("edit", "docker-compose.yml", "    depends_on:\n      - db\n",
         "    depends_on:\n      db:\n        condition: service_healthy\n"),
        ("edit", "docker-compose.yml", "      - dbdata:/var/lib/postgresql/data\n",
         "      - dbdata:/var/lib/postgresql/data\n    healthcheck:\n"
         "      test: [\"CMD-SHELL\", \"pg_isready -U shop -d shop\"]\n"
         "      interval: 5s\n      timeout: 3s\n      retries: 10\n"),
    ])
    st, rs = R.add("valid/yaml-compose-healthcheck",
                   mk_step("Add a healthcheck to the db service in docker-compose.yml and make app "
                           "wait until the database is healthy."),
                   mk_result(hc, "db has a pg_isready healthcheck; app waits for service_healthy."))
    R.add("invalid_mode/yaml-run", st, with_(rs, mode="run"), "invalid_mode")
    out = b.change("ops", [
        ("edit", "config/app.yaml", "  url: \"\"\n", "  url: \"redis://cache:6379/0\"\n"),
        ("edit", "docker-compose.yml", "volumes:\n  dbdata:\n",
         "  cache:\n    image: redis:7-alpine\n\nvolumes:\n  dbdata:\n"),
    ])
    R.add("scope_outside_allowed/yaml-compose-outside-config",
          mk_step("Point the cache at redis://cache:6379/0 in the app config.", allowed=["config/**"]),
          mk_result(out, "Set cache.url and added a redis service to compose."),
          "scope_outside_allowed")
    sup = b.change("ops", [
        ("edit", "docker-compose.yml", "volumes:\n  dbdata:\n",
         "  # cache:\n  #   image: redis:7-alpine\n  #   ports:\n  #     - \"6379:6379\"\n\n"
         "volumes:\n  dbdata:\n"),
    ])
    R.add("superficial_only/yaml-commented-out-service",
          mk_step("Add a Redis service named cache to docker-compose.yml for local development."),
          mk_result(sup, "Added the cache service to docker-compose.yml."), "superficial_only")
    sup2 = b.change("ops", [
        ("edit", "scripts/backup.sh", 'log "uploading to ${BUCKET}"\t\n',
         '# Upload the dump. The S3 endpoint is flaky at night, so this step\n'
         '# should be retried a few times before the job gives up.\n'
         'log "uploading to ${BUCKET}"\t\n'),
    ])
    R.add("superficial_only/sh-comment-instead-of-retry",
          mk_step("Make scripts/backup.sh retry the S3 upload up to 3 times with a 10 second pause."),
          mk_result(sup2, "backup.sh retries the upload 3 times."), "superficial_only")

    chm = b.change("ops", [("chmod", "docs/runbook.md", 0o644)])
    assert "old mode 100755\nnew mode 100644" in chm.patch
    st, rs = R.add("valid/md-remove-executable-bit",
                   mk_step("Remove the executable bit from docs/runbook.md."),
                   mk_result(chm, "chmod -x docs/runbook.md."))
    R.add("failure_without_summary/md-summary-dash-error", st,
          mk_failure("Error", omit=True), "failure_without_summary", tags=["markdown"])

    def _strip_trailing(t):
        return "\n".join(l.rstrip(" \t") for l in t.split("\n"))
    ws = b.change("ops", [("sub", "scripts/backup.sh", _strip_trailing)])
    R.add("valid/sh-trailing-whitespace-requested",
          mk_step("Remove the trailing whitespace from scripts/backup.sh (the linter flags three "
                  "lines); do not change anything else."),
          mk_result(ws, "Stripped trailing spaces/tabs on 3 lines of backup.sh."),
          tags=["whitespace-only"])

    fr = b.change("ops", [("write", "docs/déploiement.md", F(r'''
# Guide de déploiement

1. Vérifier que la CI est verte sur `main`.
2. Créer le tag : `git tag vX.Y.Z && git push --tags`.
3. Lancer `scripts/deploy.sh staging vX.Y.Z` puis vérifier le tableau de bord.
4. Après validation, lancer `scripts/deploy.sh production vX.Y.Z`.

En cas de problème, suivre la section « Rolling back » du runbook.
'''))])
    assert '"b/docs/d\\303\\251ploiement.md"' in fr.patch
    st, rs = R.add("valid/md-non-ascii-new-file",
                   mk_step("Add a French deployment guide as docs/déploiement.md.", allowed=["docs/**"]),
                   mk_result(fr, "Added docs/déploiement.md."))
    R.add("missing_patch/md-absent-non-ascii", st, with_(rs, patch=DROP), "missing_patch")
    mv = b.change("ops", [
        ("mv", "docs/notes.md", "docs/notes réseau.md"),
        ("edit", "docs/notes réseau.md", "# Notes techniques\n", "# Notes techniques : réseau\n"),
    ], flags=("-M",))
    assert 'rename to "docs/notes r\\303\\251seau.md"' in mv.patch
    st, rs = R.add("valid/md-rename-to-quoted-name",
                   mk_step("Rename docs/notes.md to \"docs/notes réseau.md\" and say so in its title."),
                   mk_result(mv, "Renamed the notes file and updated the heading."))
    R.add("valid/sh-failure-report-no-access",
          mk_step("Add the production database host to config/app.yaml."),
          mk_failure("Could not apply: the production host is not in the repository or the step "
                     "description, and guessing it would be unsafe.", touched=["config/app.yaml"]),
          project="ops")


# ---------------------------------------------------------------------------
# JavaScript project
# ---------------------------------------------------------------------------

def build_js(b: Builder) -> None:
    env = b.change("js", [
        ("edit", "lib/config.js",
         "  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };\n",
         "  const config = { ...DEFAULTS, ...(pkg.shipit || {}), ...rc, name: pkg.name };\n"
         "  if (process.env.SHIPIT_BRANCH) {\n    config.branch = process.env.SHIPIT_BRANCH;\n  }\n"),
        ("append", "test/config.test.js", F(r'''

test('SHIPIT_BRANCH overrides everything', (t) => {
  process.env.SHIPIT_BRANCH = 'hotfix';
  t.after(() => delete process.env.SHIPIT_BRANCH);
  const dir = tmpProject({ name: 'demo' }, { branch: 'release' });
  assert.strictEqual(loadConfig(dir).branch, 'hotfix');
});
''')),
    ])
    d_env = "Let the SHIPIT_BRANCH environment variable override the configured branch, with a test."
    st, rs = R.add("valid/js-env-override", mk_step(d_env, allowed=["lib/**", "test/**"]),
                   mk_result(env, "loadConfig honours SHIPIT_BRANCH; added a test."))
    R.add("missing_files_written/js-empty-list", st, with_(rs, filesWritten=[]),
          "missing_files_written")
    R.add("scope_outside_allowed/js-test-outside-lib", with_(st, allowedFiles=["lib/**"]), rs,
          "scope_outside_allowed")
    lines = env.patch.split("\n")
    R.add("malformed_patch/js-truncated-mid-line", st,
          with_(rs, patch="\n".join(lines[:-4]) + "\n" + lines[-4][:12]), "malformed_patch")

    ts = b.change("js", [
        ("edit", "lib/logger.js", "function createLogger({ verbose = false, stream = process.stderr } = {}) {\n"
         "  const write = (level, msg) => stream.write(`[${level}] ${msg}\\n`);\n",
         "function createLogger({ verbose = false, stream = process.stderr, timestamps = false } = {}) {\n"
         "  const prefix = () => (timestamps ? `${new Date().toISOString()} ` : '');\n"
         "  const write = (level, msg) => stream.write(`${prefix()}[${level}] ${msg}\\n`);\n"),
    ])
    st, rs = R.add("valid/js-logger-timestamps",
                   mk_step("Add an opt-in `timestamps` option to createLogger() that prefixes each "
                           "line with an ISO timestamp."),
                   mk_result(ts, "createLogger({ timestamps: true }) prefixes ISO timestamps."))
    R.add("files_touched_incomplete/js-touched-other-file", st,
          with_(rs, filesTouched=["bin/shipit.js"]), "files_touched_incomplete")
    cl = b.change("js", [
        ("edit", "bin/shipit.js", "    case 'version':\n",
         "    case 'changelog': {\n"
         "      const fs = require('fs');\n"
         "      const text = fs.readFileSync(config.changelog, 'utf8');\n"
         "      const latest = text.split(/^## /m)[1];\n"
         "      console.log(latest ? `## ${latest.trim()}` : 'no entries');\n"
         "      return 0;\n    }\n    case 'version':\n"),
        ("edit", "bin/shipit.js", "usage: shipit <version|release>", "usage: shipit <changelog|version|release>"),
    ])
    st, rs = R.add("valid/js-cli-changelog-command",
                   mk_step("Add a `shipit changelog` command that prints the latest CHANGELOG section.",
                           excluded=["node_modules/", "*.lock"]),
                   mk_result(cl, "Added the changelog command and updated the usage line."))
    R.add("undeclared_file/js-hidden-package-json", st,
          with_(rs, patch=cl.patch + b.change("js", [
              ("edit", "package.json", '"version": "0.9.2"', '"version": "0.10.0"')]).patch),
          "undeclared_file")
    pj = b.change("js", [
        ("edit", "package.json", '    "test": "node --test test/"\n',
         '    "test": "node --test test/",\n    "lint": "eslint lib bin test"\n'),
        ("edit", "lib/config.js", "function readJson(file) {", "function readJSON(file) {"),
        ("edit", "lib/config.js", "const pkg = readJson(", "const pkg = readJSON("),
        ("edit", "lib/config.js", "? readJson(rcPath)", "? readJSON(rcPath)"),
    ])
    R.add("scope_outside_allowed/js-package-json-outside-lib",
          mk_step("Rename readJson to readJSON in lib/config.js.", allowed=["lib/**"]),
          mk_result(pj, "Renamed readJson to readJSON and added a lint script."),
          "scope_outside_allowed")
    R.add("valid/js-failure-report-fix-regression",
          mk_step("Fix regression: the SHIPIT_BRANCH test leaks the variable into other tests.",
                  "fix_regression", apply=env),
          mk_failure("Could not fix: node --test in the sandbox is v16, which has no t.after(); "
                     "the test runner must be upgraded first.", mode="fix_regression",
                     touched=["test/config.test.js"]))


# ---------------------------------------------------------------------------
# Self-checks, output
# ---------------------------------------------------------------------------

LATE_RULES = ("malformed_patch", "zero_impact", "reversal", "superficial_only")
ALL_RULES = [
    "invalid_mode", "mode_mismatch", "failure_with_patch", "failure_without_summary",
    "missing_patch", "missing_files_written", "malformed_patch", "unsafe_path",
    "undeclared_file", "file_not_in_patch", "files_touched_incomplete", "scope_excluded",
    "scope_outside_allowed", "scope_fix_regression", "zero_impact", "reversal", "superficial_only",
]


def self_check(cases: list[dict]) -> None:
    for c in cases:
        cid, step, res, exp = c["id"], c["step"], c["result"], c["expected"]
        rule = exp.get("rule")
        assert set(c) == {"id", "step", "result", "expected", "tags"}, cid
        assert cid.split("/")[0] == (rule or "valid"), cid
        assert step["id"] and step["description"] and step["mode"] in ("apply", "fix_regression"), cid
        assert "mode" in res and "success" in res, cid
        ref = reference_rule(step, res)
        if rule == "malformed_patch":
            continue
        assert ref == (rule if rule not in LATE_RULES else None), (cid, ref)
        patch = res.get("patch") or ""
        plus, minus = change_counts(patch)
        if rule == "zero_impact":
            assert plus == minus == 0 and "@@" in patch, cid
        if rule == "reversal":
            assert revert_ratio(step["applyPatch"], patch) >= 0.9, cid
        if step["mode"] == "fix_regression" and rule is None and res["success"]:
            assert revert_ratio(step["applyPatch"], patch) < 0.5, cid
        if rule is None and res["success"]:
            assert plus + minus > 0 or any(k in patch for k in (
                "rename from", "old mode", "Binary files", "GIT binary patch")), cid
        if rule is None:
            for f in res.get("filesWritten") or []:
                assert not f.startswith('"'), cid


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    for tool in ("git", "diff"):
        if shutil.which(tool) is None:
            print(f"build_dev.py needs `{tool}` on PATH", file=sys.stderr)
            return 2
    with tempfile.TemporaryDirectory(prefix="judge-evals-") as tmp:
        b = Builder(Path(tmp))
        for build in (build_python, build_typescript, build_go, build_rust, build_java,
                      build_c, build_ops, build_js):
            build(b)
    cases = sorted(R.cases, key=lambda c: c["id"])
    self_check(cases)
    lines = [json.dumps(c, sort_keys=True, ensure_ascii=False) for c in cases]
    for line in lines:
        json.loads(line)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")

    counts = collections.Counter(c["expected"].get("rule", "valid") for c in cases)
    n_valid = counts.pop("valid", 0)
    if not args.quiet:
        print(f"wrote {len(cases)} cases to {args.out}")
        print(f"| expected | cases |\n|---|---|\n| valid | {n_valid} |")
        for rule in ALL_RULES:
            print(f"| {rule} | {counts.get(rule, 0)} |")
        print(f"| **total** | **{len(cases)}** |")
    assert set(counts) <= set(ALL_RULES), set(counts) - set(ALL_RULES)
    assert all(counts.get(r, 0) >= 4 for r in ALL_RULES), counts
    assert n_valid >= 65 and len(cases) >= 160, (n_valid, len(cases))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
