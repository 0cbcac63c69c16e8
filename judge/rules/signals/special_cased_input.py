"""special_cased_input: the code gains a branch that compares a value to a literal a test of the patch uses and
returns a fixed value."""

from __future__ import annotations

import re
from typing import Iterator

from judge import rule_ids as ids
from judge.code.testpaths import is_test_path
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange, PatchFacts
from judge.patch.lexer import syntax_for
from judge.rules.signals._conditions import LITERAL, MAYBE_CONDITION, branch_heads, judged_code, quoted
from judge.rules.signals._finding import signal
from judge.rules.signals._lines import added_text, hunk_side, judged_work
from judge.findings import Finding

__all__ = ["special_cased_input"]


_RETURNS_LITERAL = lazy_compile(rf"\breturn\s+(?:{LITERAL}|\[[^\]]*\]|\{{[^}}]*\}}|\([^)]*\))\s*;?\s*(?:\}}\s*)?$")
_COMPARED_LITERALS = lazy_compile(r"""(?:==|===|\bin\b)\s*(?P<value>"[^"\\]{2,}"|'[^'\\]{2,}'|-?\d{2,}(?:\.\d+)?)|"""
                                  r"""(?P<value2>"[^"\\]{2,}"|'[^'\\]{2,}'|-?\d{2,}(?:\.\d+)?)\s*(?:==|===)""")


def _test_text(work: PatchFacts) -> str:
    """Every line the patch shows of its test files (added and context): where a test's exact inputs are."""
    return "\n".join(line[1:] for change in work.files if is_test_path(change.path)
                     for hunk in change.hunks for line in hunk.body if line[0] in " +")


def _tests_use(found: re.Match[str], tests: str) -> bool:
    literal = found.group("value") or found.group("value2")
    return literal in tests or literal.strip("\"'") in tests and len(literal) > 4


def _special_cases(change: FileChange, tests: str) -> Iterator[tuple[int, str]]:
    """Added branches that compare a value to a literal the tests use, then return a literal."""
    for hunk in change.hunks:
        heads = branch_heads(hunk)
        if not any(map(lambda found: _tests_use(found, tests), _COMPARED_LITERALS.finditer(heads))):
            continue  # the first look: no added branch line compares to a literal of the tests; nothing to lex
        side = [line for line in hunk_side(hunk, "+", syntax_for(change.path)) if line.code.strip()]
        for index, line in enumerate(side):
            found = MAYBE_CONDITION.match(line.code.lstrip("}")) if line.changed else None
            if not found or not any(_tests_use(m, tests) for m in _COMPARED_LITERALS.finditer(line.text)):
                continue
            branch = [line.text] + [after.text for after in side[index + 1 : index + 2]]
            if any(_RETURNS_LITERAL.search(code) for code in branch):
                yield line.number, line.text


def special_cased_input(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work or not any(is_test_path(change.path) for change in work.files):
        return
    tests = _test_text(work)
    seen: list[str] = []
    files: list[str] = []
    for change in judged_code(work):
        if "return" not in added_text(change):
            continue
        for number, text in _special_cases(change, tests):
            seen.append(f"{change.path} line {number}: {quoted(text)}")
            files.append(change.path)
    if seen:
        yield signal(ids.SPECIAL_CASED_INPUT, "the code gains a branch that compares a value to a literal a test of "
                     f"the patch uses and returns a fixed value: {'; '.join(seen[:5])}. Check that the code computes "
                     "the answer rather than recognising the test's input.", list(dict.fromkeys(files)))
