"""A first look for words in a long text: one RE2 scan where Python's engine is slow, Python's where it is fast.

A first look is a necessary condition: a text it finds nothing in cannot match the detailed patterns behind it,
so most texts are done after one scan. Python's engine tries an alternation of words at every position of the
text, one alternative after the other; RE2 runs the whole alternation in one linear pass (a few times faster on
the added lines of a large change). RE2 is imported on the first long text, so a run that judges only small
changes never loads it.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Iterator

from judge.lazy_pattern import lazy_compile

__all__ = ["FirstLook", "re2_reads"]

# RE2's \s is ASCII without the vertical tab; Python's also holds the vertical tab, NBSP and the other Unicode spaces.
# A look must find at least what the Python patterns behind it find, so its \s takes them all (RE2's ASCII \b only
# finds more word starts, not fewer).
_PYTHON_SPACE = r"[\s\x{0b}\x{1c}-\x{1f}\x{85}\p{Z}]"


def re2_reads(text: str) -> bool:
    """RE2 can read ``text``: it reads UTF-8, which a text with a lone surrogate (a file that is not UTF-8, read from
    a work tree with surrogateescape) has none of; Python's engine reads that one instead."""
    if text.isascii():  # one flag's read; encoding a long text is not
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class FirstLook:
    """``search(text)``: whether ``pattern`` occurs in ``text``, RE2 on texts of ``long`` characters or more."""

    def __init__(self, pattern: str, long: int = 1_000) -> None:
        self.source = pattern
        self.python = lazy_compile(pattern)
        self.long = long

    def search(self, text: str) -> bool:
        return self._engine(text).search(text) is not None

    def scan(self, text: str) -> Iterator[Any]:
        """The matches of ``text``, left to right, none overlapping (each with ``span()``): where the pattern may
        match, found by the engine ``search`` would use."""
        return self._engine(text).finditer(text)

    def _engine(self, text: str) -> Any:
        return self._re2 if len(text) >= self.long and re2_reads(text) else self.python

    @cached_property
    def _re2(self) -> Any:
        import re2

        return re2.compile(self.source.replace(r"\s", _PYTHON_SPACE))
