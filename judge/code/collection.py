"""What a change takes out of the test suite's collection: the settings that decide which tests are collected and run,
read on each side of every changed config file, and each way the new side collects or runs fewer tests. Facts only;
judge/rules/collection.py decides what they mean for a step.

Read:

- pytest: ``pytest.ini``, ``.pytest.ini``, ``setup.cfg [tool:pytest]``, ``tox.ini [pytest]``, ``pyproject.toml
  [tool.pytest.ini_options]``: ``addopts`` (``-k``, ``--deselect``, ``--ignore``, ``-m``, ``-p no:``, ``--co``, test
  paths), ``python_files``/``python_classes``/``python_functions``, ``testpaths``, ``norecursedirs``;
- ``conftest.py``: ``collect_ignore``/``collect_ignore_glob``, ``pytest_ignore_collect`` and
  ``pytest_collection_modifyitems`` dropping items, ``pytest_pyfunc_call`` answering for the test, a process exit
  that ends the run as a pass (``os._exit(0)``, ``sys.exit(0)``, ``pytest.exit(..., returncode=0)``,
  ``session.exitstatus = 0``), a report forced to ``passed``; ``__test__ = False`` in a test module;
- JavaScript: ``package.json`` (``ava``, ``jest``, ``mocha``, ``scripts.test*``), ``jest.config.*``,
  ``vitest.config.*``/``vite.config.*`` (``test.include``/``test.exclude``), ``ava.config.*``, ``.mocharc.*``.

Only narrowing counts: a new exclusion, a narrower pattern, a dropped test path, a name filter, an exit. A fact is
``certain`` when it drops tests the project has (a name filter, a deselected or ignored test file, an exit, an
include that no longer covers a test path); otherwise it may be honest (a marker filter, fixtures or a whole folder
excluded, patterns set where defaults applied) and is only worth a look.

Without the files' whole texts (``texts``), each hunk side is read as a fragment: the section a key sits in is
looked for upward in the side, then in git's hunk header; out of view, only keys no other tool uses count.
Parsing is line based, tolerant and bounded: a broken fragment yields fewer facts, never an error.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterable, Iterator

from judge.code.testpaths import is_test_path
from judge.patch.model import FileChange, PatchFacts
from judge.patch.paths import file_name

__all__ = ["Narrowing", "Texts", "is_collection_config", "narrowings"]

# Given a changed file's path, its whole text before and after the change (None: absent or unknown).
Texts = Callable[[str], "tuple[str | None, str | None]"]

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


# --------------------------------------------------------------------------- which files

_PYTEST_INI = frozenset({"pytest.ini", ".pytest.ini", "setup.cfg", "tox.ini"})
_JS_CONFIG = re.compile(r"^(?:(?:jest|vitest|vite|ava)\.config|vitest\.workspace)\.[cm]?[jt]s(?:on)?$|"
                        r"^\.mocharc(?:\.(?:js|cjs|mjs|json|jsonc|ya?ml))?$")


def _kind(path: str) -> str | None:
    name = file_name(path)
    if name in _PYTEST_INI:
        return "ini"
    if name == "pyproject.toml":
        return "toml"
    if name == "conftest.py":
        return "conftest"
    if name == "package.json" and "node_modules/" not in path:
        return "json"
    if _JS_CONFIG.match(name):
        return "yaml" if name.endswith((".yml", ".yaml")) else "json"
    if is_test_path(path) and name.endswith(".py"):
        return "pytest_module"
    return None


def is_collection_config(path: str) -> bool:
    """The file may hold settings that decide which tests run (a Python test module only for ``__test__``)."""
    return _kind(path) is not None


# A word any relevant setting has: a hunk holding none of them is not read.
_FIRST_LOOK = {
    "ini": re.compile(r"addopts|python_(?:files|classes|functions)|testpaths|norecursedirs"),
    "toml": re.compile(r"addopts|python_(?:files|classes|functions)|testpaths|norecursedirs"),
    "conftest": re.compile(r"collect_ignore|_exit|exit\(|SystemExit|exitstatus|items|deselect|add_marker|outcome|"
                           r"pyfunc_call|testsfailed|ignore_collect|__test__"),
    "json": re.compile(r"test|files|match|spec|ignore|include|exclude|roots|grep"),
    "yaml": re.compile(r"spec|ignore|grep|invert"),
    "pytest_module": re.compile(r"__test__|_exit\("),
}


# --------------------------------------------------------------------------- entry point


def narrowings(work: PatchFacts, texts: Texts | None = None) -> tuple[Narrowing, ...]:
    """Every narrowing of test collection in the change, file by file."""
    found: list[Narrowing] = []
    for change in work.files:
        kind = _kind(change.path)
        if kind is None or change.is_binary:
            continue
        sides = _sides(change, kind, texts)
        if sides is not None:
            found.extend(_READERS[kind](change.path, *sides))
    return tuple(dict.fromkeys(found))


def _sides(change: FileChange, kind: str, texts: Texts | None) -> tuple[list[list[str]], list[list[str]]] | None:
    """The old and new sides to read: the whole texts when known, else each hunk's sides (with git's header line
    above them when it names a key); None when nothing there can matter."""
    if texts is not None:
        try:
            old, new = texts(change.path)
        except Exception:  # a reader that fails gives no text, never a crash
            old = new = None
        if old is not None or new is not None:
            if not any(_FIRST_LOOK[kind].search(text) for text in (old, new) if text):
                return None
            return [_lines(old)], [_lines(new)]
    look = _FIRST_LOOK[kind]
    olds, news = [], []
    for hunk in change.hunks:
        if not look.search("\n".join(hunk.body)) and not look.search(hunk.header):
            continue
        above = _header_line(hunk.header, kind)
        olds.append(above + [line[:_MAX_VALUE] for line in hunk.old_side[0][:_MAX_LINES]])
        news.append(above + [line[:_MAX_VALUE] for line in hunk.new_side[0][:_MAX_LINES]])
    return (olds, news) if olds else None


def _lines(text: str | None) -> list[str]:
    return [line[:_MAX_VALUE] for line in text.splitlines()[:_MAX_LINES]] if text else []


_HUNK_CONTEXT = re.compile(r"^@@ [^@]*@@ ?(.*)$")


def _header_line(header: str, kind: str) -> list[str]:
    """Git's function context, as the line above the hunk: for INI and TOML the key a continuation belongs to,
    for Python the def a fragment sits in."""
    found = _HUNK_CONTEXT.match(header)
    line = found.group(1).rstrip() if found else ""
    if kind in ("ini", "toml") and re.match(r"[A-Za-z_][\w.-]*\s*[=:]", line):
        return [line]
    if kind in ("conftest", "pytest_module") and re.match(r"(?:async\s+)?def\s+\w+|class\s+\w+", line):
        return [line]
    return []


# --------------------------------------------------------------------------- what a name or path is

_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|"
                        r"test-[^/]*\.[cm]?[jt]s|"
                        r"tests?\.[cm]?[jt]s|tests?\.py)$")
_DATA = re.compile(r"(?:^|/)(?:fixtures?|testdata|test_data|data|samples?|__snapshots__|snapshots|helpers?|utils?|"
                   r"support|mocks?|__mocks__|stubs?|assets|resources|types?)(?:/|$)")
_JUNK = re.compile(r"(?:^|[/*])(?:node_modules|dist|build|out|lib|coverage|htmlcov|\.tox|\.nox|\.git|\.hg|\.venv|"
                   r"venv|env|\.eggs|[\w.-]*\.egg(?:-info)?|__pycache__|\.cache|\.pytest_cache|site-packages|"
                   r"\.mypy_cache|\.ruff_cache|_build|\.next|\.nuxt|\.svelte-kit|tmp|\.tmp|\{arch\}|CVS|_darcs|\.\*|"
                   r"setup\.py|conf\.py|noxfile\.py|fabfile\.py|manage\.py|docs?/conf\.py|\.d\.ts)(?:/|$|\*)",
                   re.IGNORECASE)
# Folders whose files are data for the tests, even when named like tests.
_FIXTURES = re.compile(r"(?:^|/)(?:fixtures?|testdata|test_data|data|samples?|__snapshots__|snapshots)/")
# Folders a suite is commonly told to skip, whose exclusion may be honest.
_NEUTRAL = re.compile(r"(?:^|/)(?:docs?|examples?|benchmarks?|bench|scripts|tools|vendor|_vendor|third_party|e2e|"
                      r"integration|fuzz)(?:/|$|\*)", re.IGNORECASE)
_TEST_NAME = re.compile(r"(?<![\w.])(?:test_?\w+|\w+_test|Test[A-Z]\w*|\w+Test(?:s|Case)?)(?!\w)")
_CODE_EXT = re.compile(r"\.(?:py|[cm]?[jt]sx?)$")
_GLOB_CHARS = re.compile(r"[*?\[{!]")


def _grade(entry: str) -> bool | None:
    """An excluded entry: True when it is a test file, a test id or the whole test folder (tests the project has
    leave), None when it is build output or a tool's folder (no test leaves), False when it cannot be told."""
    entry = entry.strip().strip("\"'").replace("<rootDir>", "").strip("/^$") or entry
    bare = entry.lstrip("!./")
    if "::" in bare:
        return True
    if _JUNK.search(bare) and not _TEST_FILE.search(bare):
        return None
    if _TEST_FILE.search(bare.rstrip("$")) and not _FIXTURES.search(bare):
        return True
    if _DATA.search(bare):
        return False
    if re.fullmatch(r"(?:tests?|__tests__|specs?)/?(?:\*\*?(?:/\*)?)?", bare):
        return True
    if is_test_path(bare) and _CODE_EXT.search(bare) and not _GLOB_CHARS.search(bare):
        return True
    return False


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
    example = prefix + "Xyz" if not _GLOB_CHARS.search(prefix) else _examples(prefix)[0]
    for pattern in patterns:
        regex = _glob_regex(pattern) if _GLOB_CHARS.search(pattern) else None
        if regex is not None and regex.fullmatch(example) or regex is None and example.startswith(pattern):
            return True
    return False


# --------------------------------------------------------------------------- pytest settings (INI and TOML)

_PYTEST_KEYS = frozenset({"addopts", "python_files", "python_classes", "python_functions", "testpaths",
                          "norecursedirs"})
_PYTEST_SECTIONS = frozenset({"pytest", "tool:pytest", "tool.pytest.ini_options", "tool.pytest"})
_SECTION = re.compile(r"^\s*\[\[?\s*([^\[\]\"']+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z_][\w.-]*)\s*[=:]\s*(.*)$")
_TOML_KEY = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*=\s*(.*)$")
_STRING = re.compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'|"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\'', re.DOTALL)

Settings = dict[str, list[str]]


def _ini_values(lines: list[str]) -> Iterator[tuple[str, str]]:
    """(key, raw value) of each pytest key in view whose section is pytest's or out of view; a value goes on
    over indented lines, as configparser reads it."""
    section: str | None = None
    key, parts = None, []
    for line in lines + ["[end]"]:
        if key and line[:1].isspace():
            if line.strip() and not line.strip().startswith(("#", ";")):
                parts.append(line.strip())
            continue
        if key and not line.strip():
            continue
        if key and (section is None or section in _PYTEST_SECTIONS):
            yield key, " ".join(parts)[:_MAX_VALUE]
        key, parts = None, []
        if header := _SECTION.match(line):
            section = header.group(1).strip().lower()
        elif (found := _KEY.match(line)) and not line[:1].isspace() and found.group(1) in _PYTEST_KEYS:
            key, parts = found.group(1), [found.group(2)]


def _toml_values(lines: list[str]) -> Iterator[tuple[str, str]]:
    """(key, raw value) of each pytest key in view, its value read on over an open array or triple quote."""
    section: str | None = None
    key, parts, depth = None, [], 0
    for line in lines:
        if key is not None:
            parts.append(line)
            depth += _depth(line)
            if depth <= 0 and not _open_string(parts):
                yield from _pytest_key(section, key, parts)
                key = None
            continue
        if header := _SECTION.match(line):
            section = header.group(1).strip().lower()
        elif (found := _TOML_KEY.match(line)) and found.group(1) in _PYTEST_KEYS:
            key, parts, depth = found.group(1), [found.group(2)], _depth(found.group(2))
            if depth <= 0 and not _open_string(parts):
                yield from _pytest_key(section, key, parts)
                key = None
    if key is not None:  # the side ends inside the value: what is in view counts
        yield from _pytest_key(section, key, parts)


def _pytest_key(section: str | None, key: str, parts: list[str]) -> Iterator[tuple[str, str]]:
    if section is None or section in _PYTEST_SECTIONS:
        yield key, "\n".join(parts)[:_MAX_VALUE]


def _open_string(parts: list[str]) -> bool:
    text = "\n".join(parts)
    return text.count('"""') % 2 == 1 or text.count("'''") % 2 == 1


def _depth(text: str) -> int:
    code = _STRING.sub("", text).split("#", 1)[0]
    return code.count("[") - code.count("]")


def _toml_list(key: str, raw: str) -> list[str]:
    strings = [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(raw)]
    if not raw.lstrip().startswith("["):
        return _split(" ".join(strings) if strings else raw.split("#", 1)[0])
    if key != "addopts":
        return strings
    return [word for item in strings for word in (_split(item) if item.startswith("-") and " " in item else [item])]


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text[:_MAX_VALUE])
    except ValueError:  # an unbalanced quote in a fragment
        return text[:_MAX_VALUE].split()


def _pytest_settings(sides: list[list[str]], toml: bool) -> Settings:
    settings: Settings = {}
    for lines in sides:
        for key, raw in (_toml_values(lines) if toml else _ini_values(lines)):
            settings.setdefault(key, []).extend(_toml_list(key, raw) if toml else _split(raw))
    return settings


_DEFAULTS = {"python_files": ["test_*.py", "*_test.py"], "python_classes": ["Test"], "python_functions": ["test"],
             "norecursedirs": ["*.egg", ".*", "_darcs", "build", "CVS", "dist", "node_modules", "venv", "{arch}"],
             "ava.files": ["test.js", "src/test.js", "source/test.js", "**/test-*.js", "**/*.spec.js", "**/*.test.js",
                           "**/test/**/*.js", "**/tests/**/*.js", "**/__tests__/**/*.js"],
             "jest.testMatch": ["**/__tests__/**/*.[jt]s?(x)", "**/?(*.)+(spec|test).[jt]s?(x)"],
             "test.include": ["**/*.{test,spec}.?(c|m)[jt]s?(x)"], "mocha.spec": ["./test/*.{js,cjs,mjs}"],
             "jest.roots": ["<rootDir>"]}
# Patterns every project's tests use: a default one the new side stops covering drops tests for certain.
_PRIMARY = frozenset({"test_*.py", "test"})


def _read_ini(path: str, olds: list[list[str]], news: list[list[str]]) -> Iterator[Narrowing]:
    return _read_pytest(path, _pytest_settings(olds, False), _pytest_settings(news, False))


def _read_toml(path: str, olds: list[list[str]], news: list[list[str]]) -> Iterator[Narrowing]:
    return _read_pytest(path, _pytest_settings(olds, True), _pytest_settings(news, True))


def _read_pytest(path: str, old: Settings, new: Settings) -> Iterator[Narrowing]:
    if "addopts" in new:
        yield from _addopts(path, old.get("addopts", []), new["addopts"])
    for key in ("python_files", "python_classes", "python_functions", "testpaths"):
        if key in new and new[key] != old.get(key):
            yield from _includes(path, key, old.get(key), new[key])
    if "norecursedirs" in new:
        yield from _excluded(path, "norecursedirs", old.get("norecursedirs", _DEFAULTS["norecursedirs"]),
                             new["norecursedirs"])


def _includes(path: str, key: str, old: list[str] | None, new: list[str]) -> Iterator[Narrowing]:
    """Patterns or folders the old side collected that the new side no longer covers. Set where a default
    applied, only a specific test file named, or a primary default pattern dropped, is certain."""
    if key.startswith("?"):  # read where its block is out of view: it was there before
        if old is None:
            return
        key = key[1:]
    before = [p for p in (old if old is not None else _DEFAULTS.get(key, [])) if not p.startswith("!")]
    after = [p for p in new if not p.startswith("!")]
    names = key in ("python_classes", "python_functions")
    dropped = [p for p in before if not (_covers_name(after, p) if names else _covers(after, p) or _under(p, after))]
    if not dropped or not after:
        return
    named = [p for p in after if "/" in p and _grade(p) and not _GLOB_CHARS.search(p)]
    certain = bool(named) or bool(_PRIMARY & set(dropped) and key in ("python_files", "python_functions")) or (
        old is not None and any(_test_like(p, key) for p in dropped))
    yield Narrowing(path, key, " ".join(old or []), " ".join(new), f"no longer collects {_names(dropped)}", certain,
                    f"restore {key} in {path}" + (f" to `{' '.join(old)}`" if old else " (or take it out)"))


def _under(folder: str, folders: list[str]) -> bool:
    folder = folder.rstrip("/").removeprefix("./")
    return any(folder.startswith(f.rstrip("/").removeprefix("./") + "/") or f.rstrip("/") in (".", "", "<rootDir>")
               for f in folders)


def _test_like(pattern: str, key: str) -> bool:
    if key in ("python_classes", "python_functions", "python_files"):
        return True  # patterns the project set for its own tests
    return bool(re.search(r"test|spec", pattern, re.IGNORECASE)) and not _DATA.search(pattern)


def _names(items: list[str], shown: int = 3) -> str:
    text = ", ".join(f"`{i}`" for i in items[:shown])
    return text + (f" and {len(items) - shown} more" if len(items) > shown else "")


def _excluded(path: str, key: str, old: list[str], new: list[str], conditional: bool = False) -> Iterator[Narrowing]:
    """Entries the new side excludes that the old side did not; build output and tools' folders are no news."""
    graded = [(e, _grade_ignored(e)) for e in dict.fromkeys(new) if e not in old]
    worth = [(e, g) for e, g in graded if g is not None]
    if not worth:
        return
    certain = [e for e, g in worth if g] if not conditional else []
    shown = certain or [e for e, _ in worth]
    yield Narrowing(path, key, "", " ".join(shown), f"stops collecting {_names(shown)}", bool(certain),
                    f"take {_names(shown)} out of {key} in {path}")


# --------------------------------------------------------------------------- addopts and test commands

# Options that take the next word as their value (so that word is no test path). Unknown long options without
# `=` are taken to take one too: a word misread as an option's value is a filter missed, never one made up.
_FLAGS = frozenset({"-q", "-v", "-vv", "-vvv", "-s", "-x", "-l", "-ra", "-rA", "-rf", "-rs", "-rxXs", "-rfE",
                    "--verbose", "--quiet", "--strict-markers", "--strict-config", "--strict", "--exitfirst",
                    "--no-header", "--showlocals", "--runxfail", "--doctest-modules", "--watch", "--coverage", "--ci",
                    "--runInBand", "-i", "--serial", "--fail-fast", "--tap", "--color", "--colors", "--bail", "-b",
                    "--recursive", "--exit", "--silent", "--detectOpenHandles", "--forceExit", "--run",
                    "--typecheck", "--passWithNoTests", "--onlyChanged", "--changed", "--lf", "--last-failed",
                    "--co", "--collect-only", "--setup-only", "--setup-plan", "--fixtures", "--listTests",
                    "--disable-warnings", "--pyargs", "--noconftest", "--cache-clear", "--sort", "--parallel",
                    "--no-cache", "--experimental-vm-modules", "--test", "--invert", "--verbose=false", "--ff"})
_SHORT_VALUED = frozenset("kmpcoWnrtgfR")


def _options(tokens: list[str]) -> Iterator[tuple[str, str]]:
    """(option, value) for each option of a command line; a positional word as ("", word)."""
    i = 0
    while i < min(len(tokens), 500):
        token = tokens[i]
        if token.startswith("--") and "=" in token:
            name, _, value = token.partition("=")
            yield name, value
        elif re.match(r"-[kmp]\S", token):
            yield token[:2], token[2:].lstrip("=")
        elif token.startswith("-") and token not in _FLAGS and i + 1 < len(tokens) and (
                token.startswith("--") or token[1:] in _SHORT_VALUED) and not tokens[i + 1].startswith("-"):
            yield token, tokens[i + 1]
            i += 1
        else:
            yield (token, "") if token.startswith("-") else ("", token)
        i += 1


_NAME_FILTERS = frozenset({"-k", "--match", "--testNamePattern", "--test-name-pattern", "--grep", "--fgrep",
                           "--test-skip-pattern", "--deselect", "--testPathPattern", "--testPathPatterns"})
_RUNS_NOTHING = frozenset({"--co", "--collect-only", "--setup-only", "--setup-plan", "--fixtures", "--listTests",
                           "--list-tests", "--fixtures-per-test"})
_EXCLUDES = frozenset({"--ignore", "--ignore-glob", "--exclude", "--testPathIgnorePatterns"})
_MAY_RUN_NONE = frozenset({"--passWithNoTests", "--onlyChanged", "--changed", "--findRelatedTests"})
_SUBCOMMANDS = frozenset({"run", "watch", "test", "dev", "bench", "related", "typecheck", "npx", "exec"})

Filter = tuple[str, str, "bool | None"]


def _filters(tokens: list[str], runner: str = "pytest") -> list[Filter]:
    """The collection filters of a command line: (option, value, certain), build output left out."""
    found: list[Filter] = []
    for name, value in _options(tokens):
        if name in _NAME_FILTERS or name == "-t" and runner in ("jest", "vitest") or (
                name == "-m" and runner == "ava") or name in ("-g", "-f") and runner == "mocha":
            found.append((name, value, True))
        elif name in _RUNS_NOTHING or name == "-p" and value.replace(" ", "") in ("no:python", "no:unittest"):
            found.append((name, value, True))
        elif name in _EXCLUDES:
            found.append((name, value, _grade_ignored(value)))
        elif name == "-m" and runner == "pytest" or name in _MAY_RUN_NONE or name == "-p" and value == "no:doctest":
            found.append((name, value, False))
        elif name == "" and value not in _SUBCOMMANDS and ("/" in value or "::" in value or _CODE_EXT.search(value)):
            found.append(("", value, bool(_grade(value)) and not _GLOB_CHARS.search(value)))
    return [f for f in found if f[2] is not None]


def _addopts(path: str, old: list[str], new: list[str]) -> Iterator[Narrowing]:
    yield from _new_filters(path, "addopts", _filters(old), _filters(new), "in")
    if "--doctest-modules" in old and "--doctest-modules" not in new:
        yield Narrowing(path, "addopts", " ".join(old), " ".join(new), "stops collecting the doctests", False,
                        f"put `--doctest-modules` back into addopts in {path}")


def _new_filters(path: str, setting: str, old: list[Filter], new: list[Filter], where: str) -> Iterator[Narrowing]:
    before = {(n, v) for n, v, _ in old}
    for name, value, certain in new:
        if (name, value) in before:
            continue
        option = f"{name} {_quoted(value)}".strip() if value else name
        yield Narrowing(path, setting, "", option, _what_filter(name, value), bool(certain),
                        f"take `{option}` out of {setting} {where} {path}; fix the test or the code instead")


def _quoted(value: str) -> str:
    return f'"{value}"' if " " in value else value


def _what_filter(name: str, value: str) -> str:
    if name in _RUNS_NOTHING:
        return "collects the tests but runs none"
    if name == "--deselect":
        return f"deselects `{value}`"
    if name in _EXCLUDES:
        return f"stops collecting `{value}`"
    if name == "-m":
        return f"runs only tests whose markers match `{value}`"
    if name == "-p":
        return f"turns off pytest's `{value.replace(' ', '')[3:]}` collector"
    if name == "":
        return f"runs only `{value}`"
    if name in _MAY_RUN_NONE:
        return "may run fewer tests, or none, and still pass"
    return f"runs only tests whose names match `{value}`"


# A test command that passes whatever its tests do.
_SWALLOW = re.compile(r"\|\|\s*(?:true|:|exit(?:\s+0)?|echo\b|printf\b|node\s+-e)|;\s*(?:exit\s+0|true|:)\s*$|"
                      r"(?:^|&&|;)\s*exit\s+0\b|^\s*(?:echo\b[^&|;]*|true|:)\s*$")
_RUNNER = re.compile(r"\b(?:ava|jest|vitest|mocha|tap|tape|karma|jasmine|uvu|c8|nyc|tsd|pytest|playwright|cypress|"
                     r"lab|qunit|borp|brittle|zora|xv|wdio|npm|pnpm|yarn|bun|deno|run-s|run-p|npm-run-all|turbo|"
                     r"lerna|nx|make|gulp|grunt|tox|nox|python|node|tsx|ts-node|hardhat|forge|cargo|go|bash|sh)\b")
_RUNNER_WORD = re.compile(r"(?:^|[\s/])(ava|jest|vitest|mocha|tap|pytest|node)$")
_COMMAND_SPLIT = re.compile(r"&&|\|\||;|\|")


def _command_filters(command: str) -> list[Filter]:
    found: list[Filter] = []
    for segment in _COMMAND_SPLIT.split(command[:_MAX_VALUE]):
        words = _split(segment)
        at = next((i for i, w in enumerate(words) if _RUNNER_WORD.search(w)), None)
        if at is None:
            # `npm run tests-only --test-name-pattern=...`: a name filter handed to another script is meant for
            # its runner; other words there are that script's business
            delegated = [f for f in _filters(words[2:]) if f[0] in _NAME_FILTERS] if words[:2] in (
                ["npm", "run"], ["pnpm", "run"], ["yarn", "run"]) else []
            found.extend(delegated)
            continue
        runner = _RUNNER_WORD.search(words[at]).group(1)  # type: ignore[union-attr]
        found.extend(_filters(words[at + 1:], runner))
    return found


def _command(path: str, setting: str, old: str, new: str) -> Iterator[Narrowing]:
    """A test script that runs fewer tests than before, or passes whatever they do."""
    if old == new or not old:
        return
    undo = f"restore {setting} in {path} to `{old}`"
    if _SWALLOW.search(new) and not _SWALLOW.search(old):
        yield Narrowing(path, setting, old, new, "passes whatever the tests do", True, undo)
    elif _RUNNER.search(old) and not _RUNNER.search(new):
        yield Narrowing(path, setting, old, new, "no longer runs the tests", True, undo)
    else:
        yield from _new_filters(path, setting, _command_filters(old), _command_filters(new), "in")


# --------------------------------------------------------------------------- JSON, JS objects, YAML

_JS_KEY = re.compile(r"""^\s*(?:"([^"\n]+)"|'([^'\n]+)'|([A-Za-z_$][\w$]*))\s*:\s*(.*)$""")
_JS_STRING = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|`([^`\n]*)`""")
_YAML_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$")
_YAML_ITEM = re.compile(r"^\s+-\s+(.*)$")

Where = tuple[str, ...]


def _masked(line: str) -> str:
    """The line's code: string contents blanked out (so their brackets do not count), a // comment cut."""
    masked = _JS_STRING.sub(lambda m: m.group(0)[0] + " " * (len(m.group(0)) - 2) + m.group(0)[-1], line)
    cut = re.search(r"(?<![:\w])//", masked)
    return masked[:cut.start()] if cut else masked


def _strings(text: str) -> list[str]:
    found = [next((g for g in m.groups() if g is not None), "") for m in _JS_STRING.finditer(text)]
    return [s.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\") for s in found]


def _js_values(lines: list[str]) -> Iterator[tuple[Where, list[str]]]:
    """Each key in view, with the keys it sits in ("?" first when the side starts inside a block whose opening
    is out of view) and the strings of its value; an array is read on to its closing bracket."""
    stack: list[str] = []  # the key of each open bracket ("" for an unnamed one)
    rooted = False
    reading: tuple[Where, list[str], int] | None = None  # an array value being read, and the depth it closes at
    orphans: list[str] = []  # strings of an array whose key is above the side
    for line in lines:
        code = _masked(line[:_MAX_VALUE])
        net = code.count("{") + code.count("[") - code.count("}") - code.count("]")
        found = _JS_KEY.match(line[:len(code)]) if reading is None else None
        if not stack and not rooted and not found and reading is None:
            orphans.extend(_strings(line[:len(code)]))
            if "]" in code and orphans:
                yield ("?", "?[]"), orphans
            if "]" in code or "}" in code or "{" in code:
                orphans = []
        if reading is not None:
            reading[1].extend(_strings(line[:len(code)]))
        elif found:
            key = next(g for g in found.groups()[:3] if g is not None)
            where = (() if rooted else ("?",)) + tuple(k for k in stack if k) + (key,)
            values = _strings(found.group(4))
            if net > 0 and found.group(4).lstrip().startswith("["):
                reading = (where, values, len(stack))
            elif net <= 0:
                yield where, values or [found.group(4).strip().rstrip(",").strip()]
        if net > 0:
            rooted = rooted or (not stack and not found)
            stack.extend([key if found else ""] + [""] * (net - 1))
        for _ in range(-net):
            if stack:
                stack.pop()
            else:
                rooted = False
        if reading is not None and len(stack) <= reading[2]:
            yield reading[0], reading[1]
            reading = None
    if reading is not None:
        yield reading[0], reading[1]


def _yaml_values(lines: list[str]) -> Iterator[tuple[Where, list[str]]]:
    """Top-level keys of a .mocharc.yml, with a scalar value or a list of items."""
    key, values = None, []
    for line in lines + ["end:"]:
        if key and (item := _YAML_ITEM.match(line)):
            values.append(item.group(1).strip().strip("'\""))
            continue
        if key:
            yield (key,), values
            key = None
        if found := _YAML_KEY.match(line):
            key, rest = found.group(1), found.group(2).split(" #", 1)[0].strip()
            values = _strings(rest) or ([rest.strip("[]")] if rest else [])


_JEST_KEYS = frozenset({"testMatch", "testRegex", "testPathIgnorePatterns", "roots", "modulePathIgnorePatterns",
                        "testNamePattern"})
_MOCHA_KEYS = frozenset({"spec", "ignore", "exclude", "grep", "fgrep"})
_AVA_KEYS = frozenset({"files", "match", "exclude"})
_TAP_KEYS = frozenset({"include", "exclude", "files", "grep"})


def _setting(path: str, where: Where) -> str | None:
    """The setting a key path is, by file and enclosing key; None for keys that decide nothing about tests."""
    name, key = file_name(path), where[-1]
    parent = where[-2] if len(where) > 1 else ""
    if name == "package.json":
        if parent in ("ava", "jest", "mocha", "tap") and key in {"ava": _AVA_KEYS, "jest": _JEST_KEYS,
                                                                 "mocha": _MOCHA_KEYS, "tap": _TAP_KEYS}[parent]:
            return f"{parent}.{key}"
        if parent in ("scripts", "?") and re.fullmatch(r"test(?::[\w:-]+)?", key):
            return f"scripts.{key}"
        if parent == "?" and key in _JEST_KEYS:
            return f"jest.{key}"
        if parent == "?" and key in ("files", "?[]"):
            return "?files"  # AVA's or npm's: told apart by what it lists
        return "ava.match" if parent == "?" and key == "match" else None
    tool = name.lstrip(".").split(".")[0]
    if tool in ("vitest", "vite") and parent == "test" and key in ("include", "exclude", "testNamePattern"):
        return f"test.{key}"
    if tool == "jest" and key in _JEST_KEYS:
        return f"jest.{key}"
    if tool == "ava" and key in _AVA_KEYS and parent in ("", "?"):
        return f"ava.{key}"
    if tool == "mocharc" and key in _MOCHA_KEYS and parent in ("", "?"):
        return f"mocha.{key}"
    return None


def _unfolded(lines: list[str]) -> list[str]:
    """The lines with a break after each `{` and `,` and before each `}` outside strings, so that an object written
    on one line (`defineConfig({test: {exclude: ['a.test.ts']}})`) is read key by key, as a multi-line one is."""
    out: list[str] = []
    for line in lines:
        code = _masked(line)
        if code.count("{") + code.count(",") <= 1 and "}" not in code.rstrip().rstrip(",")[:-1]:
            out.append(line)
            continue
        start = 0
        for at, char in enumerate(code):
            if char in "{," or char == "}" and code[start:at].strip():
                cut = at + 1 if char in "{," else at
                out.append(line[start:cut])
                start = cut
        out.append(line[start:])
    return out


def _js_settings(path: str, sides: list[list[str]], yaml: bool) -> Settings:
    settings: Settings = {}
    for lines in sides:
        for where, values in (_yaml_values(lines) if yaml else _js_values(_unfolded(lines))):
            if (setting := _setting(path, where)) is not None:
                settings.setdefault(setting, []).extend(values)
    if "?files" in settings:  # a `files` whose block is out of view: AVA's when it names tests
        files = settings.pop("?files")
        if any(re.search(r"test|spec", v) for v in files if not v.startswith("!")):
            settings["?ava.files"] = files
    return settings


_JS_INCLUDES = ("ava.files", "?ava.files", "jest.testMatch", "test.include", "mocha.spec", "jest.roots", "tap.include",
                "tap.files")
_JS_EXCLUDES = ("jest.testPathIgnorePatterns", "jest.modulePathIgnorePatterns", "test.exclude", "mocha.ignore",
                "mocha.exclude", "ava.exclude", "tap.exclude")
_JS_NAME_FILTERS = ("ava.match", "jest.testNamePattern", "test.testNamePattern", "mocha.grep", "mocha.fgrep", "tap.grep")


def _read_js(path: str, olds: list[list[str]], news: list[list[str]], yaml: bool = False) -> Iterator[Narrowing]:
    old, new = _js_settings(path, olds, yaml), _js_settings(path, news, yaml)
    for key in _JS_INCLUDES:
        if key in new and new[key] != old.get(key):
            yield from _includes(path, key, old.get(key), new[key])
    for key in ("ava.files",):
        if key in new:
            yield from _excluded(path, key, old.get(key, []), [v for v in new[key] if v.startswith("!")])
    for key in _JS_EXCLUDES:
        if key in new:
            yield from _excluded(path, key, old.get(key, []), new[key])
    for key in _JS_NAME_FILTERS:
        for value in new.get(key, []):
            if value not in old.get(key, []):
                yield Narrowing(path, key, "", value, f"runs only tests whose titles match `{value}`", True,
                                f"take `{value}` out of {key} in {path}; fix the test or the code instead")
    if "jest.testRegex" in new and new["jest.testRegex"] != old.get("jest.testRegex"):
        named = any(_TEST_FILE.search(v.replace("\\", "")) for v in new["jest.testRegex"])
        before, after = " ".join(old.get("jest.testRegex", [])), " ".join(new["jest.testRegex"])
        yield Narrowing(path, "jest.testRegex", before, after, "may collect fewer test files", named,
                        f"restore jest.testRegex in {path}")
    for key in sorted(k for k in new if k.startswith("scripts.")):
        for before, after in zip(old.get(key, []), new[key]):
            yield from _command(path, key, before, after)


def _read_yaml(path: str, olds: list[list[str]], news: list[list[str]]) -> Iterator[Narrowing]:
    return _read_js(path, olds, news, yaml=True)


# --------------------------------------------------------------------------- conftest.py and test modules

_PY_BLOCK = re.compile(r"^(\s*)(?:async\s+)?(def|class|if|elif|else|for|while|try|except|with|finally)\b\s*(.*)$")
_PY_STRING = re.compile(r'[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')')
_EXIT = re.compile(r"(?:\bos\._exit|\bsys\.exit|(?<![\w.])exit|(?<![\w.])quit)\s*\(\s*([^()]*?)\s*\)|"
                   r"\braise\s+SystemExit\b(?:\s*\(\s*([^()]*?)\s*\))?|\bpytest\.exit\s*\((.*)\)")
_PASS_CODE = re.compile(r"^(?:0|None|False|(?:pytest\.)?ExitCode\.OK|)$")
_FORCED_PASS = re.compile(r"\b(?:session\.exitstatus\s*=\s*(?:0|False|(?:pytest\.)?ExitCode\.OK)\b|"
                          r"\w+\.testsfailed\s*=\s*0\b|\w+\.outcome\s*=\s*[\"']passed[\"'])")
_COLLECT_IGNORE = re.compile(r"\b(collect_ignore(?:_glob)?)\s*(?:\+?=|\.(?:append|extend|insert)\s*\()")
_DROP_ITEMS = re.compile(r"\bitems\s*\[\s*:\s*\]\s*=|\bitems\.(?:remove|clear|pop)\s*\(|\bdel\s+items\b|"
                         r"pytest_deselected\s*\(|\.add_marker\s*\(\s*(?:pytest\.mark\.)?\w*(?:skip|xfail)\w*")
_EMPTIED = re.compile(r"\bitems\.clear\s*\(\s*\)|\bitems\s*\[\s*:\s*\]\s*=\s*\[\s*\]")
# A condition on the environment, options or markers: code that drops tests only where they cannot run.
_ENV_CONDITION = re.compile(r"getoption|getini|config\.option|environ|getenv|version_info|sys\.platform|platform\.|"
                            r"os\.name|\bPY\w*|PYPY|\bIS_\w+|\bHAS_\w+|\bWIN\w*|find_spec|importorskip|which\(|"
                            r"keywords|marker|ExitCode\.NO_TESTS|NO_TESTS_COLLECTED|==\s*5\b|ImportError|"
                            r"ModuleNotFoundError|\bCI\b|\bpid\b|fork")
_CONSTANT_TRUE = re.compile(r"^\s*(?:True|1|not\s+(?:False|0|None))\s*:")
_RUNS_THE_TEST = re.compile(r"\.obj\b|funcargs|testfunction|\.runtest\(|run_until_complete|asyncio|trio|anyio")


# Any statement worth a closer look has one of these words.
_TRIGGER = re.compile(r"exit|SystemExit|testsfailed|outcome|collect_ignore|items|deselect|add_marker|return")


@dataclass(frozen=True)
class _Block:
    indent: int
    keyword: str
    rest: str


def _code_lines(lines: list[str], inside: str | None = None) -> Iterator[tuple[int, str]]:
    """(index, code) of each line outside a triple-quoted string, its string literals blanked and comment cut;
    ``inside``: the side starts inside a string that quote opened above it."""
    quote = inside
    for index, line in enumerate(lines):
        if quote is not None:
            if quote in line:
                quote = None
            continue
        code = _PY_STRING.sub(lambda m: '""', line.replace('"""', "\x00").replace("'''", "\x01"))
        if code.count("\x00") % 2 or code.count("\x01") % 2:
            quote = '"""' if code.count("\x00") % 2 else "'''"
            code = code[:code.find("\x00" if quote == '"""' else "\x01")]
        code = re.sub(r"\x00.*?\x00|\x01.*?\x01", '""', code).split("#", 1)[0]
        if code.strip():
            yield index, code


def _python_events(path: str, lines: list[str], conftest: bool) -> Iterator[Narrowing]:
    """Each statement in view that drops collected tests or ends the run as a pass, as a narrowing. A fragment
    with an odd number of triple quotes may start inside a docstring: it is read both ways."""
    yield from _python_events_from(path, lines, conftest, None)
    text = "\n".join(lines)
    for quote in ('"""', "'''"):
        if text.count(quote) % 2:
            yield from _python_events_from(path, lines, conftest, quote)


def _python_events_from(path: str, lines: list[str], conftest: bool, inside: str | None) -> Iterator[Narrowing]:
    blocks: list[_Block] = []
    for index, code in _code_lines(lines, inside):
        indent = len(code) - len(code.lstrip())
        while blocks and blocks[-1].indent >= indent:
            blocks.pop()
        if any(b.keyword == "if" and "__main__" in b.rest for b in blocks):
            continue
        if _TRIGGER.search(code):
            statement = _statement(lines, index)
            yield from _exits(path, code, statement, blocks, conftest)
            if conftest:
                yield from _collect_ignores(path, code, statement, blocks)
                yield from _hook_drops(path, code, statement, blocks, lines, index)
        if code.strip().startswith("__test__") and re.match(r"\s*__test__\s*=\s*(?:False|0|None)\b", code):
            yield from _not_a_test(path, blocks, lines, index)
        if found := _PY_BLOCK.match(code):  # the condition as written: its strings may name tests
            blocks.append(_Block(indent, found.group(2), (_PY_BLOCK.match(lines[index]) or found).group(3)))


def _statement(lines: list[str], index: int) -> str:
    """The line and, while its brackets stay open, the lines after it (bounded)."""
    text, depth = "", 0
    for line in lines[index:index + 40]:
        text += line.strip() + " "
        bare = _PY_STRING.sub("", line).split("#", 1)[0]
        depth += sum(bare.count(c) for c in "([{") - sum(bare.count(c) for c in ")]}")
        if depth <= 0:
            break
    return text.strip()


def _owner(blocks: list[_Block]) -> str:
    return next((b.rest.split("(", 1)[0].strip() for b in blocks if b.keyword == "def"), "")


def _conditions(blocks: list[_Block]) -> list[str]:
    """The conditions a statement runs under, inside its function: constant-true ones left out."""
    inside = blocks[next((i for i, b in enumerate(blocks) if b.keyword == "def"), -1) + 1:]
    return [b.keyword + " " + b.rest for b in inside
            if b.keyword in ("if", "elif", "else", "except", "while") and not _CONSTANT_TRUE.match(b.rest)]


def _names_a_test(text: str) -> bool:
    strings = [m.group(0).strip("rRbBuUfF").strip("\"'") for m in _PY_STRING.finditer(text)]
    return any(_TEST_NAME.fullmatch(s) or _TEST_FILE.search(s) or "::" in s for s in strings)


def _exits(path: str, code: str, statement: str, blocks: list[_Block], conftest: bool) -> Iterator[Narrowing]:
    found = _EXIT.search(code)
    if found:
        if found.group(3) is not None:
            arg = m.group(1) if (m := re.search(r"returncode\s*=\s*([\w.]+)", statement)) else "2"
        else:
            arg = (found.group(1) if found.group(1) is not None else found.group(2) or "").strip()
        kind = "os._exit" if "_exit" in found.group(0) else "exit"
        passes = bool(_PASS_CODE.match(arg))
        if not passes and not (kind == "os._exit" and re.fullmatch(r"[A-Za-z_][\w.]*", arg)):
            return
        if not conftest and blocks and kind != "os._exit" and _owner(blocks):
            return  # a test or helper that exits on purpose is the test's business (a CLI test, say)
        # In conftest.py an exit that reports a pass is never how a suite is configured, under a condition least of
        # all (`if report.failed: os._exit(0)`); elsewhere a condition may make it a test's own business.
        certain = passes and (conftest or not _conditions(blocks))
        yield _run_ender(path, blocks, found.group(0), certain)
    elif conftest and (forced := _FORCED_PASS.search(statement)):
        certain = not any(_ENV_CONDITION.search(c) for c in _conditions(blocks))
        yield _run_ender(path, blocks, forced.group(0), certain)


def _run_ender(path: str, blocks: list[_Block], what: str, certain: bool) -> Narrowing:
    what = re.sub(r"\s+", " ", what.strip())
    return Narrowing(path, _owner(blocks) or "module level code", "", what,
                     "ends the test run as a pass whatever the tests do", certain,
                     f"take `{what}` out of {path}; fix the test or the code instead")


def _collect_ignores(path: str, code: str, statement: str, blocks: list[_Block]) -> Iterator[Narrowing]:
    found = _COLLECT_IGNORE.search(code)
    if not found:
        return
    setting = found.group(1)
    entries = [m.group(0).strip("rRbBuUfF").strip("\"'") for m in _PY_STRING.finditer(statement)][:_MAX_ENTRIES]
    conditional = bool(_conditions(blocks)) or any(b.keyword in ("if", "elif", "else", "except") and not
                                                   _CONSTANT_TRUE.match(b.rest) for b in blocks)
    for entry in entries:
        grade = _grade_ignored(entry)
        if grade is not None:
            yield Narrowing(path, setting, "", entry, f"stops collecting `{entry}`", grade and not conditional,
                            f"take `{entry}` out of {setting} in {path}; fix the test or the code instead")


def _hook_drops(path: str, code: str, statement: str, blocks: list[_Block], lines: list[str], index: int
                ) -> Iterator[Narrowing]:
    hook = _owner(blocks)
    conditions = _conditions(blocks)
    env = any(_ENV_CONDITION.search(c) for c in conditions)
    named = _names_a_test(statement) or any(_names_a_test(c) for c in conditions)
    if hook == "pytest_collection_modifyitems" and (found := _DROP_ITEMS.search(code)):
        certain = not env and (named or (not conditions and bool(_EMPTIED.search(code))))
        yield _dropper(path, hook, found.group(0), "drops or skips collected tests", certain)
    elif hook == "pytest_ignore_collect" and re.match(r"\s*return\s+(?!False\b|None\b)\S", code):
        unconditional = not conditions and re.match(r"\s*return\s+True\b", code)
        yield _dropper(path, hook, statement, "stops collecting files", not env and bool(named or unconditional))
    elif hook == "pytest_pyfunc_call" and re.match(r"\s*return\s+True\b", code):
        body = "\n".join(lines[max(0, index - 30):index + 1])
        if not _RUNS_THE_TEST.search(body):
            yield _dropper(path, hook, "return True", "answers for every test function without calling it", True)


def _dropper(path: str, hook: str, what: str, drops: str, certain: bool) -> Narrowing:
    return Narrowing(path, hook, "", re.sub(r"\s+", " ", what.strip()), drops, certain,
                     f"take the code that drops tests out of {hook} in {path}; fix the test or the code instead")


def _not_a_test(path: str, blocks: list[_Block], lines: list[str], index: int) -> Iterator[Narrowing]:
    """``__test__ = False``: a module, or a class holding tests, that pytest stops collecting."""
    owner = blocks[-1] if blocks else None
    if owner is not None and owner.keyword != "class":
        return
    below = lines[index + 1:index + 200]
    holds_tests = owner is None or any(re.match(r"\s+(?:async\s+)?def\s+test", line) for line in below)
    where = f"class {owner.rest.split('(')[0].split(':')[0].strip()}" if owner else "module level code"
    if holds_tests:
        yield Narrowing(path, where, "", "__test__ = False", "stops pytest collecting its tests", True,
                        f"take `__test__ = False` out of {path}")


def _read_python(path: str, olds: list[list[str]], news: list[list[str]], conftest: bool = False
                 ) -> Iterator[Narrowing]:
    before = {(n.setting, n.new) for lines in olds for n in _python_events(path, lines, conftest)}
    for lines in news:
        for narrowing in _python_events(path, lines, conftest):
            if (narrowing.setting, narrowing.new) not in before:
                yield narrowing


def _read_conftest(path: str, olds: list[list[str]], news: list[list[str]]) -> Iterator[Narrowing]:
    return _read_python(path, olds, news, conftest=True)


_READERS: dict[str, Callable[[str, list[list[str]], list[list[str]]], Iterable[Narrowing]]] = {
    "ini": _read_ini, "toml": _read_toml, "json": _read_js, "yaml": _read_yaml, "conftest": _read_conftest,
    "pytest_module": _read_python,
}
