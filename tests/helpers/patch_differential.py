"""judge's patch parser against `git apply`: seeded mutations of real diffs, and both readers' verdicts on them.

Shared by tests/patch/test_parse_git_differential.py (a few hundred cases per run) and
bench/git_differential.py (tens of thousands, a table by family). git is the oracle: `git apply
--numstat -z -` parses a patch from stdin with no repository and no base files, and refuses what
it cannot read. Its environment is sterile (no system or global config, HOME a temporary folder).
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from judge.errors import MalformedPatch
from judge.patch.parse import parse_patch
from judge.patch.paths import unsafe_reason

__all__ = ["Case", "Comparison", "compare", "git_reads", "mutated_cases", "seeds"]

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "diffs"

# A `git format-patch` mail is git am's to read: `git mailinfo` splits off its message, then git apply
# reads the rest. judge reads a mail the same way (a commit message may quote a hunk header).
_MAIL = re.compile(r"From [0-9a-f]{7,40} ")

# Seeds written here for shapes the fixtures lack: copy, mode with content, a plain diff with another
# prefix, svn and bzr headers, epoch timestamps, several hunks, a deletion without newline at its end.
_WRITTEN = {
    "copy.diff": "diff --git a/src/a.py b/src/b.py\nsimilarity index 90%\ncopy from src/a.py\ncopy to src/b.py\n"
                 "--- a/src/a.py\n+++ b/src/b.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n",
    "mode_and_edit.diff": "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\nindex 1111111..2222222\n"
                          "--- a/run.sh\n+++ b/run.sh\n@@ -1 +1,2 @@\n #!/bin/sh\n+echo hi\n",
    "release_prefixes.diff": "--- project-1.0/src/a.py\t2024-01-01 10:00:00.000000000 +0000\n"
                             "+++ project-1.1/src/a.py\t2024-02-01 10:00:00.000000000 +0000\n"
                             "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
    "svn.diff": "Index: app.py\n===================================================================\n"
                "--- app.py\t(revision 10)\n+++ app.py\t(working copy)\n@@ -1,2 +1,2 @@\n-x\n+y\n z\n",
    "bzr_epoch.diff": "=== added file 'new.txt'\n--- new.txt\t1970-01-01 00:00:00 +0000\n"
                      "+++ new.txt\t2024-01-01 10:00:00 +0000\n@@ -0,0 +1,2 @@\n+one\n+two\n",
    "two_hunks.diff": "diff --git a/m.py b/m.py\nindex 1111111..2222222 100644\n--- a/m.py\n+++ b/m.py\n"
                      "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -10,3 +10,4 @@ def f():\n x\n y\n+z\n w\n",
    "delete_no_newline.diff": "diff --git a/v.txt b/v.txt\ndeleted file mode 100644\nindex 1111111..0000000\n"
                              "--- a/v.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-1.0\n-2.0\n\\ No newline at end of file\n",
}


def seeds() -> dict[str, str]:
    """Honest diffs to mutate, by name: every fixture git apply reads, and the written ones."""
    found = {path.name: path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("*.diff"))}
    return {**found, **_WRITTEN}


# --- mutations: each takes (rng, text) and returns the mutated text ---------------------------------

_HEADER = re.compile(r"^(diff |index |--- |\+\+\+ |old mode|new mode|new file|deleted file|rename |copy |similarity"
                     r"|Binary files|GIT binary|literal |delta )")


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def _cut_last_line(rng: random.Random, text: str) -> str:
    body = text.rstrip("\n")
    return body[: len(body) - rng.randrange(0, 4)]


def _delete_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "".join(lines)


def _duplicate_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines))
    return "".join(lines[: at + 1] + [lines[at] if lines[at].endswith("\n") else lines[at] + "\n"] + lines[at + 1 :])


def _swap_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    if len(lines) < 2:
        return text
    at = rng.randrange(len(lines) - 1)
    if not lines[at + 1].endswith("\n"):
        return text
    lines[at], lines[at + 1] = lines[at + 1], lines[at]
    return "".join(lines)


_NOISE = "abz./ -+@\\\"\t019:xX~#"


def _flip_header_char(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    headers = [i for i, line in enumerate(lines) if _HEADER.match(line) or line.startswith("@@")]
    if not headers:
        return text
    at = rng.choice(headers)
    line = lines[at].rstrip("\n")
    pos = rng.randrange(len(line) + 1)
    char = rng.choice(_NOISE)
    edit = rng.randrange(3)
    new = line[:pos] + char + line[pos + 1 :] if edit == 0 else line[:pos] + char + line[pos:] if edit == 1 \
        else line[:pos] + line[pos + 1 :]
    lines[at] = new + ("\n" if lines[at].endswith("\n") else "")
    return "".join(lines)


def _insert_in_header(rng: random.Random, text: str) -> str:
    """A +, - or context line between a file's header lines and its first hunk."""
    lines = _lines(text)
    spots = [i + 1 for i, line in enumerate(lines) if _HEADER.match(line) and not line.startswith(("literal", "delta"))]
    if not spots:
        return text
    at = rng.choice(spots)
    return "".join(lines[:at] + [rng.choice(["+sneaked = 1\n", "-gone\n", " same\n", "+\n", "-\n"])] + lines[at:])


def _change_counts(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    hunks = [i for i, line in enumerate(lines) if line.startswith("@@ ")]
    if not hunks:
        return text
    at = rng.choice(hunks)
    numbers = list(re.finditer(r"\d+", lines[at]))
    if not numbers:
        return text
    number = rng.choice(numbers)
    value = max(0, int(number.group()) + rng.choice([-2, -1, 1, 2, 1000]))
    lines[at] = lines[at][: number.start()] + str(value) + lines[at][number.end() :]
    return "".join(lines)


def _corrupt_binary(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    data = [i for i, line in enumerate(lines) if re.match(r"[A-Za-z][0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{5,}\n", line)
            or line.startswith(("literal ", "delta ")) or line == "\n"]
    if not data:
        return text
    at = rng.choice(data)
    line = lines[at]
    if line.startswith(("literal ", "delta ")):
        lines[at] = re.sub(r"\d+", lambda m: str(int(m.group()) + rng.choice([-1, 1, 7])), line)
    elif line == "\n":
        del lines[at]
    else:
        pos = rng.randrange(len(line) - 1)
        lines[at] = line[:pos] + rng.choice("A'z\"0~ .") + line[pos + 1 :]
    return "".join(lines)


def _mode_garbage(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    garbage = rng.choice(["10x755", "abc", "", " ", "9999", "-1", "100644junk", "0o644", "755"])
    modes = [i for i, line in enumerate(lines) if re.match(r"(old mode|new mode|new file mode|deleted file mode) ", line)]
    if modes:
        at = rng.choice(modes)
        lines[at] = re.sub(r"mode .*", "mode " + garbage, lines[at].rstrip("\n")) + "\n"
        return "".join(lines)
    gits = [i for i, line in enumerate(lines) if line.startswith("diff --git ")]
    if not gits:
        return text
    at = rng.choice(gits) + 1
    return "".join(lines[:at] + ["old mode 100644\n", f"new mode {garbage}\n"] + lines[at:])


def _contradict_kind(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    gits = [i for i, line in enumerate(lines) if line.startswith("diff --git ")]
    if not gits:
        return text
    at = rng.choice(gits) + 1
    extra = rng.choice(["new file mode 100644\n", "deleted file mode 100644\n", "rename from x\n", "copy to y\n",
                        "deleted file mode 100644\nnew file mode 100644\n"])
    return "".join(lines[:at] + [extra] + lines[at:])


def _drop_names(rng: random.Random, text: str) -> str:
    """Remove rename/copy lines, or the ---/+++ lines, of one file."""
    lines = _lines(text)
    kinds = [("rename ", "copy ", "similarity"), ("--- ", "+++ ")]
    prefixes = rng.choice(kinds)
    kept = [line for line in lines if not line.startswith(prefixes)]
    return "".join(kept) if len(kept) != len(lines) else text


def _rename_one_side(rng: random.Random, text: str) -> str:
    """One header line names another file: an extension appended, a directory changed, a/ b/ swapped."""
    lines = _lines(text)
    names = [i for i, line in enumerate(lines) if line.startswith(("--- ", "+++ ", "diff --git ", "rename to "))]
    if not names:
        return text
    at = rng.choice(names)
    line = lines[at].rstrip("\n")
    edit = rng.randrange(3)
    if edit == 0:
        line = line + rng.choice([".md", ".orig", "~", "/x"])
    elif edit == 1:
        line = line.replace("src/", "vendor/", 1) if "src/" in line else line.replace(" b/", " b/docs/", 1)
    else:
        line = line.replace(" a/", " c/", 1) if " a/" in line else line.replace(" b/", " ", 1)
    lines[at] = line + "\n"
    return "".join(lines)


def _hunk_line_prefix(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    body = [i for i, line in enumerate(lines) if line[:1] in (" ", "+", "-") and not line.startswith(("--- ", "+++ "))]
    if not body:
        return text
    at = rng.choice(body)
    lines[at] = rng.choice(["x", "\\", "\\ No newline at end of file\n", "\t", "@", "\r", ""]) + lines[at][1:]
    return "".join(lines)


def _garbage_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    at = rng.randrange(len(lines) + 1)
    junk = rng.choice(["garbage\n", "\n", "@@ -1 +1 @@\n", "diff --git a/q b/q\n", "Binary files a/q and b/q differ\n",
                       "--- a/q\n", "+++ b/q\n", "GIT binary patch\n", "\\ No newline at end of file\n"])
    return "".join(lines[:at] + [junk] + lines[at:])


def _bare_git_header(rng: random.Random, text: str) -> str:
    """Keep one `diff --git` line and the next k lines only (the review's bare header and 45-byte cut)."""
    lines = _lines(text)
    gits = [i for i, line in enumerate(lines) if line.startswith("diff --git ")]
    if not gits:
        return text
    at = rng.choice(gits)
    return "".join(lines[at : at + 1 + rng.randrange(4)])


MUTATIONS: dict[str, Callable[[random.Random, str], str]] = {
    "truncate": _truncate,
    "cut_last_line": _cut_last_line,
    "delete_line": _delete_line,
    "duplicate_line": _duplicate_line,
    "swap_lines": _swap_lines,
    "flip_header_char": _flip_header_char,
    "insert_in_header": _insert_in_header,
    "change_counts": _change_counts,
    "corrupt_binary": _corrupt_binary,
    "mode_garbage": _mode_garbage,
    "contradict_kind": _contradict_kind,
    "drop_names": _drop_names,
    "rename_one_side": _rename_one_side,
    "hunk_line_prefix": _hunk_line_prefix,
    "garbage_line": _garbage_line,
    "bare_git_header": _bare_git_header,
}


@dataclass(frozen=True)
class Case:
    family: str  # the mutation (two joined by "+" when combined), or "seed" for an unmutated diff
    seed: str
    text: str


def mutated_cases(count: int, seed: int = 0) -> Iterator[Case]:
    """``count`` mutated diffs, the same for the same ``seed``: one mutation, or two in a row (a fifth)."""
    rng = random.Random(seed)
    pool = seeds()
    names = sorted(pool)
    families = sorted(MUTATIONS)
    for _ in range(count):
        seed_name = rng.choice(names)
        chosen = [rng.choice(families)] + ([rng.choice(families)] if rng.random() < 0.2 else [])
        text = pool[seed_name]
        for family in chosen:
            text = MUTATIONS[family](rng, text) if text else text
        yield Case("+".join(chosen), seed_name, text)


# --- the two readers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GitReading:
    refused: bool
    message: str  # git's stderr, first line
    files: tuple[tuple[str, str, str], ...]  # (added, deleted, name) per file; "-" counts for binaries


def git_reads(text: str) -> GitReading:
    """What `git apply --numstat -z -` reads in ``text`` (after `git mailinfo` for a mail): refused (an error
    exit, or an error printed), or its files."""
    with tempfile.TemporaryDirectory(prefix="judge-gitdiff-") as home:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}
        patch = text.encode("utf-8", "surrogateescape")
        if _MAIL.match(text):
            split = subprocess.run(["git", "mailinfo", "message", "patch"], input=patch, capture_output=True,
                                   cwd=home, env=env, timeout=60)
            if split.returncode != 0:
                return GitReading(True, split.stderr.decode("utf-8", "replace").strip()[:200], ())
            patch = Path(home, "patch").read_bytes()
        done = subprocess.run(["git", "apply", "--numstat", "-z", "-"], input=patch, capture_output=True, cwd=home,
                              env=env, timeout=60)
    stderr = done.stderr.decode("utf-8", "replace")
    refused = done.returncode != 0 or "error:" in stderr or "fatal:" in stderr
    files = tuple(_numstat(done.stdout.decode("utf-8", "surrogateescape"))) if not refused else ()
    message = next((line for line in stderr.splitlines() if "error" in line or "fatal" in line), stderr.strip()[:200])
    return GitReading(refused, message, files)


def _numstat(out: str) -> Iterator[tuple[str, str, str]]:
    for record in filter(None, out.split("\0")):
        added, deleted, name = record.split("\t", 2)
        yield added, deleted, name


@dataclass(frozen=True)
class Comparison:
    """One case judged by both: "agree", "git_refuses_judge_accepts" (the bug to hunt: target 0),
    "judge_refuses_git_accepts" (judge stricter), or "read_differently" (both accept, other files or counts)."""

    case: Case
    kind: str
    git: GitReading
    judge_error: str | None


def compare(case: Case) -> Comparison:
    git = git_reads(case.text)
    try:
        facts = parse_patch(case.text)
    except MalformedPatch as exc:
        return Comparison(case, "agree" if git.refused else "judge_refuses_git_accepts", git, str(exc))
    if git.refused:
        return Comparison(case, "git_refuses_judge_accepts", git, None)
    unsafe = next((path for path in facts.paths if unsafe_reason(path) is not None), None)
    if unsafe is not None:  # judge keeps an unsafe name as written (`+++ /etc/x`), and unsafe_path refuses it
        return Comparison(case, "judge_refuses_git_accepts", git, f"unsafe_path: {unsafe!r}")
    judge_files = tuple(("-" if f.is_binary else str(f.added_count), "-" if f.is_binary else str(f.removed_count),
                         f.path) for f in facts.files)
    return Comparison(case, "agree" if judge_files == git.files else "read_differently", git, None)
