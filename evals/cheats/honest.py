"""An honest change (one code file's real change, the function it changes, the tests around it) and the cheat
made from it, both as files before and after; `render` records either as a real `git diff`."""
from __future__ import annotations

import difflib
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from devset.gitrepo import Repo

from . import jsedits, pyedits

LANGS = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
         ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript", ".cts": "typescript"}
# What test runners collect by default (pytest, unittest, Jest, Vitest, Mocha, AVA, tape, node:test).
_TEST_PATH = re.compile(r"(?:^|/)(?:tests?|__tests__|spec)/|(?:^|/)test_[^/]*\.py$|_test\.py$"
                        r"|\.(?:test|spec)\.[cm]?[jt]sx?$")


def language(path: str) -> str | None:
    if path.endswith((".d.ts", ".d.mts", ".d.cts")):
        return None
    return LANGS.get(Path(path).suffix)


def is_test(path: str) -> bool:
    return bool(_TEST_PATH.search(path))


@dataclass(frozen=True)
class Honest:
    origin: str  # the release pair or corpus project
    focus: str  # the changed code file the step is about
    lang: str
    function: str  # the changed function the step names
    run: tuple[int, int] | None  # lines of the focus (after): whole statements the change added, if any
    base: Mapping[str, bytes]  # the files before: the focus and its candidate test files
    after: Mapping[str, bytes]  # the honest change: the focus after
    tests: tuple[str, ...]  # test files in base, the most related first
    description: str

    @property
    def source(self) -> str:
        return f"{self.origin}:{self.focus}"

    @property
    def summary(self) -> str:
        return f"Updated `{self.function}` in {self.focus}."

    def text(self, path: str, after: bool = False) -> str:
        return (self.after if after and path in self.after else self.base)[path].decode("utf-8")


@dataclass(frozen=True)
class Cheat:
    kind: str
    rule: str
    lang: str  # language of the file the cheat alters
    files: Mapping[str, bytes | None]  # laid over the honest change's files (None: the file deleted)
    note: str  # what was done where, for the case's notes
    extra_base: Mapping[str, bytes] = field(default_factory=dict)  # files the base needs for the cheat
    bare_binary: tuple[str, ...] = ()  # paths diffed without --binary: `Binary files a/x and b/x differ`
    summary: str | None = None
    signal: bool = False  # rule is a signal id: judge must carry it, not reject on it without a model


def added_lines(old: str, new: str, tags: tuple[str, ...] = ("insert", "replace")) -> set[int]:
    """1-based numbers of the lines of new that a line diff marks inserted or replaced (or only those of tags)."""
    matcher = difflib.SequenceMatcher(None, old.splitlines(), new.splitlines(), autojunk=False)
    return {n + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag in tags for n in range(j1, j2)}


def make_honest(origin: str, base: Mapping[str, bytes], focus: str, new: bytes, tests: list[str]) -> Honest | None:
    """The honest change of focus from base to new, when it changes a function by adding whole statements."""
    lang = language(focus)
    try:
        old_text, new_text = base[focus].decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if lang is None or "\0" in new_text:
        return None
    # Lines the change inserted make the most telling runs to disable; lines it rewrote come second.
    found = None
    for added in (added_lines(old_text, new_text, ("insert",)), added_lines(old_text, new_text)):
        found = _python_function(old_text, new_text, added) if lang == "python" else _js_function(new_text, added)
        if found is not None and found[1] is not None:
            break
    if found is None:
        return None
    name, run, existed = found
    verb = "Update" if existed else "Add"
    where = "in" if existed else "to"
    return Honest(origin, focus, lang, name, run, dict(base), {focus: new}, tuple(tests),
                  f"{verb} `{name}` {where} {focus}")


def _python_function(old: str, new: str, added: set[int]) -> tuple[str, tuple[int, int] | None, bool] | None:
    """The first function given whole new statements, else the smallest function with an added line."""
    if pyedits.parse(old) is None:
        return None
    before = {f.name for f in pyedits.functions(old)}
    found = [f for f in pyedits.functions(new) if not f.node.name.startswith("test")]
    for func in found:
        run = pyedits.added_run(func, added)
        if run:
            return func.name, run, func.name in before
    touched = [f for f in found if any(f.start <= n <= f.end for n in added)]
    if not touched:
        return None
    func = min(touched, key=lambda f: f.end - f.start)
    return func.name, None, func.name in before


def _js_function(new: str, added: set[int]) -> tuple[str, tuple[int, int] | None, bool] | None:
    source = jsedits.source_of(new)
    named = [(o, source.function_name(o)) for o in sorted(source.pairs) if new[o] == "{"]
    names = Counter(name for _, name in named)
    unique = [(o, name) for o, name in named if name and names[name] == 1]  # the description names one function
    for _, name in unique:
        run = jsedits.added_run(new, name, added)
        if run:
            return name, run, True
    touched = [(source.pairs[o] - o, name) for o, name in unique
               if any(source.line_of(o) < n < source.line_of(source.pairs[o]) for n in added)]
    return (min(touched)[1], None, True) if touched else None


def render(workspace: Path, base: Mapping[str, bytes], after: Mapping[str, bytes | None],
           bare_binary: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """The patch and the paths of base -> after, as `git diff --cached --binary` prints them in a throwaway
    repository (paths in bare_binary without --binary), and the paths it names."""
    repo = Repo(workspace, "cheat", dict(base), ())
    try:
        for path, data in after.items():
            if data is None:
                (repo.dir / path).unlink()
            else:
                repo.write(path, data)
        repo.git("add", "-A")
        plain = sorted(set(after) - set(bare_binary))
        flags = ("--no-ext-diff", "--no-color", "--no-textconv")
        patch = repo.git("diff", "--cached", *flags, "--binary", "--", *plain) if plain else ""
        if bare_binary:
            patch += repo.git("diff", "--cached", *flags, "--", *bare_binary)
        names = repo.git("diff", "--cached", "--name-only", "-z").split("\0")
        return patch, [n for n in names if n]
    finally:
        shutil.rmtree(repo.dir)
