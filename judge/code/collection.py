"""What a change takes out of the test suite's collection: the settings that decide which tests are collected and run,
read on each side of every changed config file, and each way the new side collects or runs fewer tests. Facts only;
judge/rules/tests_weakened/by_collection.py decides what they mean for a step.

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
Parsing is line based, tolerant and bounded: a broken fragment yields fewer facts, never an error. One reader a
family: judge/code/_collection_pytest.py, _collection_js.py, _collection_conftest.py; what they share (the fact,
the limits, what a path is, globs) is judge/code/_collection_base.py.
"""

from __future__ import annotations

import re
from importlib import import_module
from typing import Callable, Iterable

from judge.code._collection_base import Narrowing, _MAX_LINES, _MAX_VALUE
from judge.code.testpaths import is_test_path
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange, PatchFacts
from judge.patch.paths import file_name

__all__ = ["Narrowing", "Texts", "is_collection_config", "narrowings"]

# Given a changed file's path, its whole text before and after the change (None: absent or unknown).
Texts = Callable[[str], "tuple[str | None, str | None]"]

# --------------------------------------------------------------------------- which files

_PYTEST_INI = frozenset({"pytest.ini", ".pytest.ini", "setup.cfg", "tox.ini"})
_JS_CONFIG = lazy_compile(r"^(?:(?:jest|vitest|vite|ava)\.config|vitest\.workspace)\.[cm]?[jt]s(?:on)?$|"
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
    "ini": lazy_compile(r"addopts|python_(?:files|classes|functions)|testpaths|norecursedirs"),
    "toml": lazy_compile(r"addopts|python_(?:files|classes|functions)|testpaths|norecursedirs"),
    "conftest": lazy_compile(r"collect_ignore|_exit|exit\(|SystemExit|exitstatus|items|deselect|add_marker|outcome|"
                             r"pyfunc_call|testsfailed|ignore_collect|__test__"),
    "json": lazy_compile(r"test|files|match|spec|ignore|include|exclude|roots|grep"),
    "yaml": lazy_compile(r"spec|ignore|grep|invert"),
    "pytest_module": lazy_compile(r"__test__|_exit\("),
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
            found.extend(_reader(kind)(change.path, *sides))
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
        if not look.search("\n".join(hunk.body)) and not look.search(hunk.section):
            continue
        above = _header_line(hunk.section, kind)
        olds.append(above + [line[:_MAX_VALUE] for line in hunk.old_side[0][:_MAX_LINES]])
        news.append(above + [line[:_MAX_VALUE] for line in hunk.new_side[0][:_MAX_LINES]])
    return (olds, news) if olds else None


def _lines(text: str | None) -> list[str]:
    return [line[:_MAX_VALUE] for line in text.splitlines()[:_MAX_LINES]] if text else []


def _header_line(section: str, kind: str) -> list[str]:
    """Git's function context, as the line above the hunk: for INI and TOML the key a continuation belongs to,
    for Python the def a fragment sits in."""
    line = section.rstrip()
    if kind in ("ini", "toml") and re.match(r"[A-Za-z_][\w.-]*\s*[=:]", line):
        return [line]
    if kind in ("conftest", "pytest_module") and re.match(r"(?:async\s+)?def\s+\w+|class\s+\w+", line):
        return [line]
    return []


# Each kind's reader by (module, function): a reader's module is imported when a change first touches a setting
# file of its kind (most changes touch none, and the readers' patterns and tables cost ~10 ms to import).
_READERS: dict[str, tuple[str, str]] = {
    "ini": ("judge.code._collection_pytest", "_read_ini"), "toml": ("judge.code._collection_pytest", "_read_toml"),
    "json": ("judge.code._collection_js", "_read_js"), "yaml": ("judge.code._collection_js", "_read_yaml"),
    "conftest": ("judge.code._collection_conftest", "_read_conftest"),
    "pytest_module": ("judge.code._collection_conftest", "_read_python"),
}


def _reader(kind: str) -> Callable[[str, list[list[str]], list[list[str]]], Iterable[Narrowing]]:
    module, name = _READERS[kind]
    return getattr(import_module(module), name)
