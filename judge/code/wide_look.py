"""A Python pattern's search, run first as a wider pattern RE2 reads in one linear pass: the wider one rules most texts
out at a fraction of the cost of Python's engine trying each alternative at each character, and only a text it finds
something in is searched again by the pattern itself. The answer is the pattern's own, whatever the text.

The wider pattern reads \\s, \\w and \\d as Python does on text (Unicode white space, letters, digits: RE2's are
ASCII); a word boundary next to one of the pattern's own ASCII word characters holds for RE2 wherever it holds for
Python. A negative lookaround of one character class, ``(?<![...])`` or ``(?![...])``, becomes a character read
outside the class (or the text's start or end): the same texts hold a match as long as no other part of the pattern
reads that character, so only a lookbehind that opens an alternative and a lookahead that closes one are read so
(any other is an error when the wider pattern is built). The class keeps only the characters of \\w, \\s and \\d
every engine agrees on (ASCII), so the character read outside it is one Python's would allow.
Whatever else RE2 cannot read (other lookarounds) the caller lists to leave out: fewer conditions find more.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

from judge.lazy_pattern import lazy_compile
from judge.patch.first_look import re2_reads

__all__ = ["WideLook"]

# Python's \s, \w and \d on text, as RE2 classes (tests/code/test_wide_look.py checks every code point).
_SPACE = r"\s\x{0b}\x{1c}-\x{1f}\x{85}\p{Z}"
_WORD = r"\p{L}\p{N}_"
_WIDER = ((r"\s", f"[{_SPACE}]"), (r"\w", f"[{_WORD}]"), (r"\d", r"\p{N}"))
# A negative lookaround of one class (not itself negated): ``(?<!`` or ``(?!``, and the class's characters.
_NOT_BESIDE = lazy_compile(r"\(\?(<?)!\[(?!\^)((?:\\.|[^\]\\])+)\]\)")
# In a class read outside of: what Python's \w, \s and \d hold for sure, in any Unicode version either engine has.
_NARROW = {r"\w": "0-9A-Za-z_", r"\s": r"\t\n\x{0b}\f\r ", r"\d": "0-9"}
_ESCAPE = lazy_compile(r"\\.")


class WideLook:
    """``search(text)``: whether ``pattern`` finds something in ``text``; ``loose``: parts of it RE2 cannot read
    (lookarounds but those of one class, word boundaries next to \\w), left out of the wider search. \\w and \\s may
    stand in a character class only as ``[\\w.]``."""

    def __init__(self, pattern: str, loose: tuple[str, ...] = ()) -> None:
        self.python = lazy_compile(pattern)
        self.source = pattern
        self.loose = loose

    def search(self, text: str) -> bool:
        return (not re2_reads(text) or self._re2.search(text) is not None) and self.python.search(text) is not None

    @cached_property
    def _re2(self) -> Any:
        import re2

        source = _NOT_BESIDE.sub(_read_outside, self.source)
        for part in self.loose:
            source = source.replace(part, "")
        source = source.replace(r"[\w.]", f"[{_WORD}.]")
        for narrow, wide in _WIDER:
            source = source.replace(narrow, wide)
        return re2.compile(source)


def _read_outside(lookaround: re.Match[str]) -> str:
    """``(?<![c])`` as ``(?:^|[^c])``, ``(?![c])`` as ``(?:[^c]|$)``: one character more in the match, where the
    lookaround would look (a search only asks whether there is one)."""
    behind, members = lookaround.groups()
    source, start, end = lookaround.string, lookaround.start(), lookaround.end()
    if not (_top_level_edge(source, start) if behind else _top_level_edge(source, end)):
        # the character looked at may be one another part of the pattern reads: one more in the match would miss it
        raise ValueError(f"WideLook: {lookaround.group()} must open (lookbehind) or close (lookahead) an alternative "
                         "of the whole pattern")
    outside = "[^" + _ESCAPE.sub(lambda escape: _NARROW.get(escape.group(), escape.group()), members) + "]"
    return f"(?:^|{outside})" if behind else f"(?:{outside}|$)"


def _top_level_edge(source: str, at: int) -> bool:
    """``at`` is where an alternative of the whole pattern starts or ends: outside every group, at the pattern's
    start or end or next to a ``|`` (escapes and character classes read as such)."""
    depth, i, edges = 0, 0, {0, len(source)}
    while i < len(source):
        char = source[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":  # a class: its first character (or the one after ^) may be a ]
            i += 2 if source.startswith("[^", i) else 1
            i += 1 if i < len(source) and source[i] == "]" else 0
            while i < len(source) and source[i] != "]":
                i += 2 if source[i] == "\\" else 1
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            edges.update((i, i + 1))
        i += 1
    return at in edges
