"""What the signals read of a change: the work they judge, its changed lines one hunk side at a time (numbered,
the code told from comments), and which files nobody wrote by hand."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterator

from judge.code.sides import added_text
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.first_look import FirstLook
from judge.patch.model import FileChange, Hunk, PatchFacts
from judge.patch.lexer import Syntax, line_shapes, syntax_for
from judge.text_cache import text_cache

__all__ = ["Line", "added_text", "changed_holding", "generated", "hunk_side", "judged_work"]


@dataclass(frozen=True)
class Line:
    number: int  # line number in the file on its side (new file for added and context lines)
    text: str  # the line as written
    code: str  # the line without comments (strings kept); the text itself where the language is not understood
    changed: bool  # added (new side) or removed (old side), not context


@text_cache(maxsize=16)
def hunk_side(hunk: Hunk, sign: str, syntax: Syntax) -> tuple[Line, ...]:
    """One side of a hunk in order, context included, so a string or comment opened in the context is known.
    Cached, a few hunks: the signals read a small change's added lines one after the other (a large change's
    sides are not kept: their lines would stay in memory after the validation)."""
    number = hunk.new_start if sign == "+" else hunk.old_start
    texts, changed = hunk.new_side if sign == "+" else hunk.old_side
    codes = line_shapes(texts, syntax) if syntax.knows_tokens else texts
    return tuple(Line(number + i, text, code, flag) for i, (text, code, flag) in enumerate(zip(texts, codes, changed)))


def changed_holding(change: FileChange, sign: str, look: FirstLook, lowered: str | None = None) -> Iterator[Line]:
    """The changed lines of a side where ``look`` finds something. A match in a line is one, starting at the same
    place, in all the side's changed lines read as one text: the lines where a match starts there are searched one by
    one. Only hunks with such a line are lexed, up to the last of them (the lexer reads forward: a line's shape
    depends on the lines above it only). ``lowered``: that text lower-cased, when the caller has it (added_text's)."""
    lines = [hunk.added if sign == "+" else hunk.removed for hunk in change.hunks]
    if lowered is None:
        lowered = "\n".join(["\n".join(each) for each in lines if each]).lower()
    found = _lines_with_match(look, lowered)
    if not found:
        return
    syntax = syntax_for(change.path)
    first = 0  # the index, among all the changed lines, of the hunk's first
    for hunk, each in zip(change.hunks, lines):
        ends = first + len(each)
        wanted = [index - first for index in found[bisect_left(found, first) : bisect_left(found, ends)]
                  if look.search(each[index - first].lower())]
        first = ends
        if not wanted:
            continue
        texts, changed = hunk.new_side if sign == "+" else hunk.old_side
        rows = [row for row, flag in enumerate(changed) if flag]  # the side's row of each changed line
        rows = [rows[index] for index in wanted]
        codes = line_shapes(texts[: rows[-1] + 1], syntax) if syntax.knows_tokens else texts
        number = hunk.new_start if sign == "+" else hunk.old_start
        yield from (Line(number + row, texts[row], codes[row], True) for row in rows)


def _lines_with_match(look: FirstLook, text: str) -> list[int]:
    """The lines of ``text`` (by index) that a match of ``look`` starts on or runs over, found in one scan (RE2 on a
    long text): a match that starts at some place of a line either is one of these or starts inside one of them (the
    scan takes the leftmost match after the last), and neither engine finds less than Python's."""
    found: list[int] = []
    line, counted = 0, 0
    for match in look.scan(text):
        start, end = match.span()
        line += text.count("\n", counted, start)
        counted = start
        last = line + text.count("\n", start, end)
        found.extend(range(max(line, found[-1] + 1 if found else 0), last + 1))
    return found


def judged_work(ctx: StepContext) -> PatchFacts | None:
    """The work a signal reads; none when the result reports a failure."""
    return ctx.work if ctx.result.success else None


_GENERATED = lazy_compile(r"^(?:dist|build)/|[.-](?:min|bundle)\.[cm]?js$|\.d\.[cm]?ts$")


def generated(path: str) -> bool:
    """Build output, minified or bundled code, type declarations: nobody wrote these lines as they stand."""
    return bool(_GENERATED.search(path))
