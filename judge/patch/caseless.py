"""Case-insensitive patterns that read ASCII text, nearly all the text judge reads, several times faster.

Python's ``re.IGNORECASE`` compares character by character through case tables and keeps the engine from
skipping ahead, which makes a search 3 to 10 times slower. A pattern written in lower case finds, in the
lower-cased copy of an ASCII text, exactly what it finds with IGNORECASE in the text itself, at the same
places. A text that is not ASCII is folded the same way, one character for one: IGNORECASE lets only four
characters beyond ASCII match an ASCII pattern (dotted and dotless I, the Kelvin sign, the long s), so those
become the letter they match, and every other character, lower-cased, matches no ASCII letter and the same
classes (``\\s``, ``\\w``, a negated set) with or without IGNORECASE. So that the readings cannot
differ, a pattern must be ASCII, have no upper-case letter (no ``\\S``, ``\\W``, ``\\B``...) and no escape
that names a character by its code (``\\x41`` is ``A``).

``long``: texts of that many characters or more are searched by RE2 (a long alternation of words is several times
faster there; the pattern must be one RE2 reads as Python does, see judge.patch.first_look).
"""

from __future__ import annotations

import re

from judge.lazy_pattern import lazy_compile
from judge.patch.first_look import FirstLook

__all__ = ["Caseless", "fold"]

_UNSAFE = lazy_compile(r"[A-Z]|\\[xuUN0-9]|\(\?[a-zA-Z-]")  # upper case, code escapes, inline flags


def fold(text: str) -> str:
    """``text`` as the lower-case patterns read it: lower-cased, and the three foreign letters that IGNORECASE
    matches to ASCII ones but lower() does not make ASCII (dotted I, dotless i, long s) replaced by them; one
    character for one, so positions hold (dotted I is the one letter that lower() makes two). The tests check
    every code point against the running Python's own case tables."""
    if text.isascii():
        return text.lower()
    return text.replace("\u0130", "i").lower().replace("\u0131", "i").replace("\u017f", "s")


class Caseless:
    """``re.compile(pattern, flags | re.IGNORECASE)`` for yes/no questions: ``search`` and ``match`` say whether
    the pattern occurs (a match of the folded copy would quote the text lower-cased)."""

    def __init__(self, pattern: str | re.Pattern[str], flags: int = 0, *, long: int | None = None) -> None:
        if isinstance(pattern, re.Pattern):
            pattern, flags = pattern.pattern, pattern.flags
        if not pattern.isascii() or _UNSAFE.search(pattern):
            raise ValueError(f"not a lower-case ASCII pattern: {pattern[:80]!r}")
        flags &= ~re.IGNORECASE
        self._lowered = lazy_compile(pattern, flags)
        self._look = FirstLook(pattern, long) if long is not None and not flags else None

    @property
    def folded(self) -> re.Pattern[str]:
        """The pattern to search in ``fold(text)`` itself: for a text searched in parts, folded once."""
        return self._lowered  # type: ignore[return-value]

    def search(self, text: str, pos: int = 0) -> bool:
        if self._look is not None and not pos:
            return self._look.search(fold(text))
        return self._lowered.search(fold(text), pos) is not None

    def match(self, text: str, pos: int = 0) -> bool:
        return self._lowered.match(fold(text), pos) is not None
