"""pytest's collection settings in ``pytest.ini``, ``setup.cfg``, ``tox.ini`` and ``pyproject.toml``, and the filters
of a test command line (``addopts``, a ``package.json`` test script)."""

from __future__ import annotations

import re
import shlex
from typing import Iterator

from judge.code._collection_base import (Narrowing, _CODE_EXT, _DATA, _MAX_VALUE, _covers, _covers_name, _grade_ignored,
                                        _one_test)
from judge.lazy_pattern import lazy_compile


_PYTEST_KEYS = frozenset({"addopts", "python_files", "python_classes", "python_functions", "testpaths",
                          "norecursedirs"})
_PYTEST_SECTIONS = frozenset({"pytest", "tool:pytest", "tool.pytest.ini_options", "tool.pytest"})
_SECTION = lazy_compile(r"^\s*\[\[?\s*([^\[\]\"']+?)\s*\]\]?\s*(?:#.*)?$")
_KEY = lazy_compile(r"^\s*([A-Za-z_][\w.-]*)\s*[=:]\s*(.*)$")
_TOML_KEY = lazy_compile(r"^\s*([A-Za-z_][\w-]*)\s*=\s*(.*)$")
_STRING = lazy_compile(r'"""(.*?)"""|\'\'\'(.*?)\'\'\'|"((?:[^"\\\n]|\\.)*)"|\'([^\'\n]*)\'', re.DOTALL)

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
    named = [p for p in after if _one_test(p)]
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
_RUNS_NOTHING = frozenset({"--version", "--help", "-h", "--co", "--collect-only", "--setup-only", "--setup-plan",
                           "--fixtures", "--listTests",
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
            found.append(("", value, _one_test(value)))
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
_SWALLOW = lazy_compile(r"\|\|\s*(?:true|:|exit(?:\s+0)?|echo\b|printf\b|node\s+-e)|;\s*(?:exit\s+0|true|:)\s*$|"
                        r"(?:^|&&|;)\s*exit\s+0\b|^\s*(?:echo\b[^&|;]*|true|:)\s*$")
# What runs a test suite in a test script: a runner, or a script, target or tool whose name says it runs tests.
_TEST_RUNNER = lazy_compile(r"\b(?:ava|jest|vitest|mocha|tap|tape|karma|jasmine|uvu|pytest|playwright|cypress|lab|qunit|"
                            r"borp|brittle|zora|xv|wdio|tox|nox|hardhat|forge|deno\s+test|bun\s+test|go\s+test|"
                            r"cargo\s+test|node\s+--test)\b|[\w:.-]*test[\w:.-]*")
_SCRIPT_FILE = lazy_compile(r"\b(?:node|tsx|ts-node|python3?|bash|sh|deno\s+run)\s+\S+\.(?:[cm]?[jt]s|py|sh)\b")
_RUNNER_WORD = lazy_compile(r"(?:^|[\s/])(ava|jest|vitest|mocha|tap|pytest|node)$")
_COMMAND_SPLIT = lazy_compile(r"&&|\|\||;|\|")


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
    elif _TEST_RUNNER.search(old) and not _TEST_RUNNER.search(new):
        # `xo && ava` -> `npm run lint`: nothing runs the tests any more; a script file run in their place may
        # (`node scripts/test.js`), which only a reading can tell
        yield Narrowing(path, setting, old, new, "no longer runs the tests", not _SCRIPT_FILE.search(new), undo)
    else:
        yield from _new_filters(path, setting, _command_filters(old), _command_filters(new), "in")
