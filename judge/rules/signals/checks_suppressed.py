"""checks_suppressed: the change adds comments that silence a checker (type checker, linter, coverage) or, in
TypeScript, casts that switch the type checker off for a value."""

from __future__ import annotations

import re
from collections import Counter
from typing import Iterator

from judge import rule_ids as ids
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.caseless import fold
from judge.patch.first_look import FirstLook
from judge.patch.paths import file_suffix
from judge.patch.lexer import syntax_for
from judge.rules.signals._finding import signal, where
from judge.rules.signals._lines import Line, added_text, changed_holding, generated, judged_work
from judge.findings import Finding

__all__ = ["checks_suppressed"]


# Comments that silence a checker (type checker, linter, coverage). Only a comment counts: the same
# words inside a string are data. Labels are judge's words, shown instead of the executor's line. Each with a word
# every match holds, folded (judge/patch/caseless.py: what IGNORECASE matches, lower-cased): a line whose folded text
# lacks the word is not searched.
_SUPPRESSIONS = (
    ("# type: ignore", "ignore", lazy_compile(r"#\s*type:\s*ignore")),
    ("# noqa", "noqa", lazy_compile(r"#\s*(?:(?:ruff|flake8)\s*:\s*)?noqa\b", re.IGNORECASE)),
    ("# pragma: no cover/branch", "pragma", lazy_compile(r"pragma:\s*no\s*(?:cover|branch)", re.IGNORECASE)),
    ("# pylint: disable", "pylint", lazy_compile(r"pylint:\s*disable", re.IGNORECASE)),
    ("# pyright: ignore", "pyright", lazy_compile(r"pyright:\s*ignore")),
    ("# mypy: ignore-errors", "mypy", lazy_compile(r"mypy:\s*ignore-errors")),
    ("# nosec", "nosec", lazy_compile(r"#\s*nosec\b")),
    ("eslint-disable", "eslint-disable", lazy_compile(r"eslint-disable")),
    ("@ts-ignore", "@ts-ignore", lazy_compile(r"@ts-ignore\b")),
    ("@ts-nocheck", "@ts-nocheck", lazy_compile(r"@ts-nocheck\b")),
    ("@ts-expect-error", "@ts-expect-error", lazy_compile(r"@ts-expect-error\b")),
    ("istanbul/c8 ignore", "ignore", lazy_compile(r"\b(?:istanbul|c8|v8)\s+ignore\b")),
    ("nolint", "nolint", lazy_compile(r"//\s*nolint\b")),
    ("rubocop:disable", "rubocop", lazy_compile(r"rubocop\s*:\s*disable")),
    ("NOSONAR", "nosonar", lazy_compile(r"NOSONAR")),
)


# The first look, on lower-cased text, per file, hunk and line: every suppression (and cast) holds one of these words.
# `type:\s*ignore`, not `type:`: annotations (`content_type: str`) would send most typed Python to the lexer.
_MAYBE_SUPPRESSION = FirstLook(r"noqa|type:\s*ignore|pragma|pylint|pyright|mypy|nosec|eslint-disable|@ts-|istanbul|"
                               r"[cv]8\s+ignore|nolint|rubocop|nosonar|as\s+(?:any|unknown)", long=200)
# The same look in a long text as written, RE2 folding case: every letter it matches in the lower-cased text is one
# RE2 folds to it (lower() makes ASCII only of A-Z, the Kelvin sign and the dotted I, which no match can use: an
# i then a combining dot), so no lower-cased copy of each file's added text is made. RE2 finds more (the long s):
# a file it lets through that the look would not has no line changed_holding reads.
_MAYBE_SUPPRESSION_ANY_CASE = FirstLook("(?i)" + _MAYBE_SUPPRESSION.source, long=0)


def _suppressions(line: Line, typescript: bool = False) -> Counter[str]:
    """The suppressions in the line's comments: in its text more often than in its code (strings are kept); in
    TypeScript, also the casts in its code that switch the type checker off for a value."""
    folded = fold(line.text)
    found = Counter({label: 1 for label, word, pattern in _SUPPRESSIONS
                     if word in folded and len(pattern.findall(line.text)) > len(pattern.findall(line.code))})
    if typescript and "as " in line.code:
        code = _STRING.sub("", line.code)
        found.update({label: 1 for label, pattern in _CASTS if pattern.search(code)})
    return found


# `value as any`, `value as unknown as Target`: the checker no longer sees what the value is.
_CASTS = (("`as any` cast", lazy_compile(r"\bas\s+any\b")), ("`as unknown as` cast", lazy_compile(r"\bas\s+unknown\s+as\b")))
_STRING = lazy_compile(r"([\"'`])(?:\\.|(?!\1).)*\1")
_TYPESCRIPT = frozenset({".ts", ".tsx", ".mts", ".cts"})


def checks_suppressed(ctx: StepContext) -> Iterator[Finding]:
    work = judged_work(ctx)
    if not work:
        return
    found: dict[str, list[int]] = {}
    labels: set[str] = set()
    for change in work.files:
        if change.is_deleted or generated(change.path) or not syntax_for(change.path).knows_tokens:
            continue
        added = added_text(change)
        if not (_MAYBE_SUPPRESSION_ANY_CASE.search(added) if len(added) >= _MAYBE_SUPPRESSION.long
                else _MAYBE_SUPPRESSION.search(added.lower())):
            continue  # the lexer is only needed to tell a comment from a string
        added = added.lower()
        typescript = file_suffix(change.path).lower() in _TYPESCRIPT
        removed = sum((_suppressions(line, typescript) for line in changed_holding(change, "-", _MAYBE_SUPPRESSION)),
                      Counter())
        for line in changed_holding(change, "+", _MAYBE_SUPPRESSION, added):
            for label in _suppressions(line, typescript):
                if removed[label]:
                    removed[label] -= 1  # the same suppression kept on an edited line adds nothing
                    continue
                found.setdefault(change.path, []).append(line.number)
                labels.add(label)
    if found:
        kinds = ", ".join(sorted(labels))
        yield signal(ids.CHECKS_SUPPRESSED, f"the change adds comments that silence a checker ({kinds}) in "
                     f"{where(found)}: check that the code was fixed rather than the check turned off.", list(found))
