"""What guard_never_true and special_cased_input both read: the branch lines a change adds to source code, and
how a signal quotes one."""

from __future__ import annotations

import re
from typing import Iterator

from judge.code.testpaths import is_test_path
from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange, Hunk, PatchFacts
from judge.patch.paths import file_suffix
from judge.rules.signals._lines import generated

__all__ = ["CODE_SUFFIXES", "CONDITION_LINES", "LITERAL", "MAYBE_CONDITION", "branch_heads", "judged_code", "quoted"]


CODE_SUFFIXES = frozenset({".py", ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts"})
MAYBE_CONDITION = lazy_compile(r"\s*(?:else\s*)?(?:if|elif|while)\b")
CONDITION_LINES = lazy_compile(r"^[ \t}]*(?:else\s+)?(?:if|elif|while)\b.*$", re.MULTILINE)
# CONDITION_LINES' matches, in a text with a line end put before its first line: the same lines, found from a literal
# (a `^` in MULTILINE has the engine try every position)
_AFTER_LINE_END = lazy_compile(r"\n(" + CONDITION_LINES.pattern.removeprefix("^").removesuffix("$") + ")")
_QUOTED = 120  # characters of a line quoted in a signal


def quoted(text: str) -> str:
    text = text.strip()
    return "`" + (text if len(text) <= _QUOTED else text[:_QUOTED] + "…") + "`"


def branch_heads(hunk: Hunk) -> str:
    """The hunk's added lines that open a branch or a loop (CONDITION_LINES), joined by line ends. Each holds `if` or
    `while` (`elif` holds `if`): a hunk whose body holds neither, as most do not, is not searched line by line."""
    body = "\n".join(hunk.body)
    if "if" not in body and "while" not in body:
        return ""
    return "\n".join(_AFTER_LINE_END.findall("\n".join(("",) + hunk.added)))


def judged_code(work: PatchFacts) -> Iterator[FileChange]:
    """The patch's source files a condition in could be a new code path: code, not tests, not generated."""
    for change in work.files:
        if not change.is_deleted and file_suffix(change.path).lower() in CODE_SUFFIXES \
                and not is_test_path(change.path) and not generated(change.path):
            yield change


LITERAL = r"""(?:-?\d+(?:\.\d+)?|"[^"\\]*"|'[^'\\]*'|True|False|None|true|false|null|undefined)"""
