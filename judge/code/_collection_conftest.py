"""What ``conftest.py`` and test modules do to collection: ``collect_ignore``, hooks that drop or answer for tests,
exits that end the run as a pass, ``__test__ = False``."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from judge.code._collection_base import Narrowing, _MAX_ENTRIES, _TEST_FILE, _TEST_NAME, _grade_ignored
from judge.lazy_pattern import lazy_compile


_PY_BLOCK = lazy_compile(r"^(\s*)(?:async\s+)?(def|class|if|elif|else|for|while|try|except|with|finally)\b\s*(.*)$")
_PY_STRING = lazy_compile(r'[rRbBuUfF]{0,2}(?:"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')')
_EXIT = lazy_compile(r"(?:\bos\._exit|\bsys\.exit|(?<![\w.])exit|(?<![\w.])quit)\s*\(\s*([^()]*?)\s*\)|"
                     r"\braise\s+SystemExit\b(?:\s*\(\s*([^()]*?)\s*\))?|\bpytest\.exit\s*\((.*)\)")
_PASS_CODE = lazy_compile(r"^(?:0|None|False|(?:pytest\.)?ExitCode\.OK|)$")
_FORCED_PASS = lazy_compile(r"\b(?:session\.exitstatus\s*=\s*(?:0|False|(?:pytest\.)?ExitCode\.OK)\b|"
                            r"\w+\.testsfailed\s*=\s*0\b|\w+\.outcome\s*=\s*[\"']passed[\"'])")
_COLLECT_IGNORE = lazy_compile(r"\b(collect_ignore(?:_glob)?)\s*(?:\+?=|\.(?:append|extend|insert)\s*\()")
_DROP_ITEMS = lazy_compile(r"\bitems\s*\[\s*:\s*\]\s*=|\bitems\.(?:remove|clear|pop)\s*\(|\bdel\s+items\b|"
                           r"pytest_deselected\s*\(|\.add_marker\s*\(\s*(?:pytest\.mark\.)?\w*(?:skip|xfail)\w*")
_EMPTIED = lazy_compile(r"\bitems\.clear\s*\(\s*\)|\bitems\s*\[\s*:\s*\]\s*=\s*\[\s*\]")
# A condition on the environment, options or markers: code that drops tests only where they cannot run.
_ENV_CONDITION = lazy_compile(r"getoption|getini|config\.option|environ|getenv|version_info|sys\.platform|platform\.|"
                              r"os\.name|\bPY\w*|PYPY|\bIS_\w+|\bHAS_\w+|\bWIN\w*|find_spec|importorskip|which\(|"
                              r"keywords|marker|ExitCode\.NO_TESTS|NO_TESTS_COLLECTED|==\s*5\b|ImportError|"
                              r"ModuleNotFoundError|\bCI\b|\bpid\b|fork")
_FORKED = lazy_compile(r"\bpid\b|fork")
_CONSTANT_TRUE = lazy_compile(r"^\s*(?:True|1|not\s+(?:False|0|None))\s*:")
_RUNS_THE_TEST = lazy_compile(r"\.obj\b|funcargs|testfunction|\.runtest\(|run_until_complete|asyncio|trio|anyio")


# Any statement worth a closer look has one of these words.
_TRIGGER = lazy_compile(r"exit|SystemExit|testsfailed|outcome|collect_ignore|items|deselect|add_marker|return")


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
        conditions = _conditions(blocks)
        forked = any(_FORKED.search(c) for c in conditions)  # a forked child's exit ends the child, not the run
        certain = passes and (conftest and not forked or not conditions)
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
    below = []
    for line in lines[index + 1:index + 200]:
        if owner is not None and line.strip() and len(line) - len(line.lstrip()) <= owner.indent:
            break  # the class ends here
        below.append(line)
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
