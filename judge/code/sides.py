"""The two sides of a hunk as text: what the file held there before the change and what it holds after.

A side is the hunk's context lines plus that side's changed lines, in order. It is a fragment of
the file, so a parser may see a block cut at either end; each line keeps whether it was changed,
so a detector can tell the step's own lines from the code around them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import compress
from typing import Iterable, Literal

from judge.lazy_pattern import lazy_compile
from judge.patch.model import FileChange, Hunk, fact
from judge.patch.lexer import LogicalLine, iter_logical_lines, syntax_for
from judge.text_cache import text_cache

__all__ = ["Side", "added_text", "opening_of", "side_of", "sides_of", "writes_code"]


@dataclass(frozen=True)
class Side:
    lines: tuple[str, ...]
    changed: tuple[bool, ...]  # per line: a `-` (old side) or `+` (new side) line, not context
    at_end: bool = False  # the side runs to the end of the file

    @fact
    def text(self) -> str:
        return "\n".join((*self.lines, ""))  # each line and its "\n", in one join

    @fact
    def changed_lines(self) -> tuple[str, ...]:
        return tuple(compress(self.lines, self.changed))


def side_of(hunk: Hunk, which: Literal["old", "new"]) -> Side:
    lines, changed = hunk.old_side if which == "old" else hunk.new_side
    return Side(lines, changed, hunk.reaches_end)


def sides_of(hunk: Hunk) -> tuple[Side, Side]:
    """``(side_of(hunk, "old"), side_of(hunk, "new"))``, made in one pass over the body."""
    (old, old_changed), (new, new_changed) = hunk.sides
    return Side(old, old_changed, hunk.reaches_end), Side(new, new_changed, hunk.reaches_end)


def added_text(change: FileChange) -> str:
    """Every added line of the file as one text: one regex search over it is a cheap first look. Kept for the last
    two files a validation read: judge_manipulation, checks_suppressed and special_cased_input each read a file's."""
    return _added_text(_Same(change))


class _Same:
    """A file change as a cache key: the same object (hashing a FileChange would read every line of it)."""

    __slots__ = ("change",)

    def __init__(self, change: FileChange) -> None:
        self.change = change

    def __hash__(self) -> int:
        return id(self.change)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Same) and other.change is self.change


@text_cache(maxsize=2)
def _added_text(key: _Same) -> str:
    return "\n".join(["\n".join(added) for added in [hunk.added for hunk in key.change.hunks] if added])


def opening_of(hunk: Hunk, which: Literal["old", "new"], lines: int) -> Side:
    """The side's first lines, from the hunk's first ``lines`` body lines: what a reader that stops at the first line
    it looks for needs, without copying a long hunk's every line. Read from the same start as the whole side, it
    reads those lines as the whole side does (a reader goes left to right)."""
    sign = "-" if which == "old" else "+"
    kept = [line for line in hunk.body[:lines] if line.startswith((" ", sign))]
    return Side(tuple([line[1:] for line in kept]), tuple([line[0] == sign for line in kept]))


_DOCSTRING = lazy_compile(r"^[rRuUbB]{0,2}(\"\"\"|'''|\"|').*\1$", re.DOTALL)  # a logical line that is a string alone


def writes_code(side: Side, path: str, docstrings_are_notes: bool = True,
                lines: Iterable[LogicalLine] | None = None) -> bool:
    """A changed line of the side is code, not a comment (nor, by default, a Python docstring). Read up to the first
    such line only: most changes write code early. ``lines``: the side's logical lines when they are read otherwise
    than from its first line (judge.code.fragments.python_lines: from inside a docstring the side opens in)."""
    if not any(side.changed):
        return False
    for line in iter_logical_lines(side.lines, syntax_for(path)) if lines is None else lines:
        if line.code and any(side.changed[line.first : line.last + 1]):
            if not (docstrings_are_notes and path.endswith((".py", ".pyi")) and _DOCSTRING.match(line.code)):
                return True
    return False
