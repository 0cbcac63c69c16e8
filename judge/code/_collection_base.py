"""What every reader of test-collection settings shares: the Narrowing fact, the reading limits, what a path or a
name in a setting is (a test file, build output, data), and globs compared in linear time."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from judge.code.testpaths import is_test_data, is_test_path
from judge.lazy_pattern import lazy_compile
from judge.patch.first_look import re2_reads


_MAX_LINES = 4000  # per side: config files are short; a huge one is read in part
_MAX_VALUE = 4000  # characters of one setting's value
_MAX_PATTERN = 300
_MAX_ENTRIES = 100  # entries of one list read


@dataclass(frozen=True)
class Narrowing:
    """One way the new side of a config file collects or runs fewer tests than the old side."""

    path: str  # the config file
    setting: str  # "addopts", "ava.files", "scripts.test", "collect_ignore", "pytest_sessionfinish"
    old: str  # the value before ("" when the setting was absent or its default applied)
    new: str  # the value after, or the narrowing part of it
    drops: str  # what leaves collection, in words
    certain: bool  # drops tests the project has; otherwise it may be honest
    undo: str  # what to do about it

    def __str__(self) -> str:
        change = f"`{self.old}` -> `{self.new}`" if self.old else f"gained `{self.new}`"
        return f"{self.path}: {self.setting} {change}, which {self.drops}"


_TEST_FILE = lazy_compile(r"(?:^|/)(?:test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|"
                          r"test-[^/]*\.[cm]?[jt]s|"
                          r"tests?\.[cm]?[jt]s|tests?\.py)$")
_DATA = lazy_compile(r"(?:^|/)(?:fixtures?|testdata|test_data|data|samples?|__snapshots__|snapshots|helpers?|utils?|"
                     r"support|mocks?|__mocks__|stubs?|assets|resources|types?)(?:/|$)")
_JUNK = lazy_compile(r"(?:^|[/*])(?:node_modules|dist|build|out|lib|coverage|htmlcov|\.tox|\.nox|\.git|\.hg|\.venv|"
                     r"venv|env|\.eggs|[\w.-]*\.egg(?:-info)?|__pycache__|\.cache|\.pytest_cache|site-packages|"
                     r"\.mypy_cache|\.ruff_cache|_build|\.next|\.nuxt|\.svelte-kit|tmp|\.tmp|\{arch\}|CVS|_darcs|\.\*|"
                     r"setup\.py|conf\.py|noxfile\.py|fabfile\.py|manage\.py|docs?/conf\.py|\.d\.ts)(?:/|$|\*)",
                     re.IGNORECASE)
# Folders a suite is commonly told to skip, whose exclusion may be honest.
_NEUTRAL = lazy_compile(r"(?:^|/)(?:docs?|examples?|benchmarks?|bench|scripts|tools|vendor|_vendor|third_party|e2e|"
                        r"integration|fuzz)(?:/|$|\*)", re.IGNORECASE)
# Files in a test folder that hold no test: helpers, set-up, shared fixtures and types.
_SUPPORT = lazy_compile(r"(?:^|/)(?:helpers?|setup|set-up|utils?|support|common|globals?|index|config|conftest|types?|"
                        r"mocks?|fixtures?|shared|harness|bootstrap|env)(?:[._-][\w.-]*)?\.[\w]+$", re.IGNORECASE)
_TEST_NAME = lazy_compile(r"(?<![\w.])(?:test_?\w+|\w+_test|Test[A-Z]\w*|\w+Test(?:s|Case)?)(?!\w)")
_CODE_EXT = lazy_compile(r"\.(?:py|[cm]?[jt]sx?)$")
_GLOB_CHARS = lazy_compile(r"[*?\[{!]")


def _grade(entry: str) -> bool | None:
    """An excluded entry: True when it is a test file, a test id or the whole test folder (tests the project has
    leave), None when it is build output or a tool's folder (no test leaves), False when it cannot be told."""
    entry = entry.strip().strip("\"'").replace("<rootDir>", "").strip("/^$") or entry
    bare = entry.lstrip("!./")
    if "::" in bare:
        return True
    if _JUNK.search(bare) and not _TEST_FILE.search(bare):
        return None
    if _TEST_FILE.search(bare.rstrip("$")) and not is_test_data(bare):
        return True
    if _DATA.search(bare):
        return False
    if re.fullmatch(r"(?:tests?|__tests__|specs?)/?(?:\*\*?(?:/\*)?)?", bare):
        return True
    if is_test_path(bare) and _CODE_EXT.search(bare) and not _GLOB_CHARS.search(bare) and not _SUPPORT.search(bare):
        return True
    return False


def _one_test(entry: str) -> bool:
    """An entry of an include list or a command line that names one test file or test (`tests/test_api.py`,
    `test/main.ts`, `tests/test_api.py::test_get`): collecting only it drops the others. The whole test folder
    (`tests/`, `test`) is the widest choice there, never a narrowing."""
    bare = entry.strip().strip("\"'").replace("<rootDir>", "").lstrip("!./")
    return "::" in bare or not _GLOB_CHARS.search(bare) and _CODE_EXT.search(bare) is not None and bool(_grade(bare))


def _grade_ignored(entry: str) -> bool | None:
    """An entry of a list of paths NOT to collect (collect_ignore_glob, --ignore-glob, an exclude list): a glob
    that is no build output, tool folder, data or documentation reaches test files (`test_compat*`, `*t_appctx*`),
    for nothing else is collected to be ignored."""
    grade = _grade(entry)
    bare = entry.lstrip("!./")
    if grade is False and _GLOB_CHARS.search(entry) and not (_DATA.search(bare) or _NEUTRAL.search(bare)):
        return True
    return grade


# --------------------------------------------------------------------------- globs

_GROUP_END = {"?": ")?", "*": ")*", "+": ")+", "@": ")", "!": ")?"}  # !(x) read as "maybe x": never narrower


@lru_cache(maxsize=None)
def _re2() -> tuple[Any, Any]:
    """RE2 and options that keep it from writing parse errors to stderr; loaded when a glob is first compared.

    The globs are the executor's: RE2 matches in time linear in the path whatever the pattern, where
    Python's engine backtracks exponentially on `**/**/**/...`."""
    import re2

    quiet = re2.Options()
    quiet.log_errors = False
    return re2, quiet


def _readable(text: str) -> str:
    """``text`` as RE2 can read it: a lone surrogate (a byte of a work-tree file that is not UTF-8, read with
    surrogateescape) stands as U+FFFD, which no glob character is."""
    return text if re2_reads(text) else _SURROGATE.sub("\ufffd", text)


_SURROGATE = lazy_compile("[\ud800-\udfff]")


def _glob_regex(pattern: str) -> Any | None:
    """A glob (``**``, ``*``, ``?``, ``[...]``, ``{a,b}``, extglobs) as a regular expression over a path."""
    text = pattern.strip()[:_MAX_PATTERN]
    text = text[2:] if text.startswith("./") else text
    out: list[str] = []
    ends: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if text.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c in _GROUP_END and text.startswith("(", i + 1):
            out.append("(?:")
            ends.append(_GROUP_END[c])
            i += 2
            continue
        if c == "[" and (end := text.find("]", i + 2)) > 0:
            body = text[i + 1:end]
            out.append("[" + ("^" + body[1:] if body[0] in "!^" else body).replace("\\", "\\\\") + "]")
            i = end + 1
            continue
        out.append(_glob_char(c, bool(ends), ends))
        i += 1
    out.extend(reversed(ends))
    re2, quiet = _re2()
    try:
        return re2.compile("".join(out), quiet)
    except re2.error:
        return None


def _glob_char(c: str, grouped: bool, ends: list[str]) -> str:
    if c == "{":
        ends.append(")")
        return "(?:"
    if c in "})" and grouped:
        return ends.pop()
    if c in ",|" and grouped:
        return "|"
    return {"*": "[^/]*", "?": "[^/]"}.get(c) or re.escape(c)


def _examples(pattern: str) -> list[str]:
    """Two paths the pattern collects: the shortest and one a folder deeper."""
    text = pattern.strip()[:_MAX_PATTERN]
    text = text[2:] if text.startswith("./") else text
    text = re.sub(r"[?*+@!]\(([^|)]*)[^)]*\)", r"\1", text)  # an extglob: its first choice
    text = re.sub(r"\{([^,}]*)[^}]*\}", r"\1", text)
    text = re.sub(r"\[[!^]?([^\]])[^\]]*\]", r"\1", text)

    def fill(path: str) -> str:
        return path.replace("**", "x").replace("*", "x").replace("?", "x")
    return list(dict.fromkeys([fill(text.replace("**/", "")), fill(text.replace("**/", "a/", 1).replace("**/", ""))]))


_EXTENSIONS = (".js", ".ts", ".mjs", ".cjs", ".jsx", ".tsx", ".mts", ".cts", ".py")


def _covers(patterns: list[str], pattern: str) -> bool:
    """What ``pattern`` collects is still collected by one of ``patterns``: it is among them, or each of its
    examples is matched (another file extension counts as the same file: a move to TypeScript narrows nothing)."""
    if pattern in patterns:
        return True
    patterns, pattern = [_readable(p) for p in patterns], _readable(pattern)
    regexes = [r for r in map(_glob_regex, patterns) if r is not None]
    if any(r.fullmatch(pattern) for r in regexes):
        return True
    for example in _examples(pattern):
        stem = re.sub(r"\.\w+$", "", example)
        variants = [example, *(stem + ext for ext in _EXTENSIONS), *(f"{example}/x{ext}" for ext in _EXTENSIONS)]
        if not any(r.fullmatch(v) for r in regexes for v in variants):
            return False
    return True


def _covers_name(patterns: list[str], prefix: str) -> bool:
    """pytest's python_classes/python_functions: a plain word is a name prefix, anything else a glob."""
    patterns, prefix = [_readable(p) for p in patterns], _readable(prefix)
    example = prefix + "Xyz" if not _GLOB_CHARS.search(prefix) else _examples(prefix)[0]
    for pattern in patterns:
        regex = _glob_regex(pattern) if _GLOB_CHARS.search(pattern) else None
        if regex is not None and regex.fullmatch(example) or regex is None and example.startswith(pattern):
            return True
    return False
