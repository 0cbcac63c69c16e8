"""Placeholder work: a change whose only additions are notes about the work instead of the work.

The change adds no line of code and removes none; what it adds are comments or docstrings, and at
least one of them is a TODO/FIXME/XXX note, a docstring, or a comment that restates the step's
description. Plain comment edits without any of those are superficial_only's to judge. A step that
asks for comments or documentation (``ASKS_FOR_COMMENTS``) gets a signal instead.
"""

from __future__ import annotations

from typing import Iterator

from judge import rule_ids as ids
from judge.code.change import FileView
from judge.code.fragments import opens_in_docstring, python_lines
from judge.code.sides import added_text, opening_of, writes_code
from judge.context import StepContext
from judge.lazy_pattern import lazy_compile
from judge.patch.first_look import FirstLook
from judge.patch.lexer import logical_lines, syntax_for
from judge.patch.model import FileChange, Hunk
from judge.rules.asks import ASKS_FOR_COMMENTS
from judge.rules.phrasing import names
from judge.findings import Finding

__all__ = ["placeholder_only"]

_NOTE = lazy_compile(r"\b(?:TODO|FIXME|XXX|HACK|TBD)\b|\b(?:todo|fixme)\b")
_WORD = lazy_compile(r"[a-z][a-z0-9_]{3,}")
_COMMON = frozenset({"that", "this", "with", "from", "into", "when", "then", "than", "them", "they", "make", "sure",
                     "should", "must", "each", "every", "also", "only", "have", "will", "does", "code", "file"})


def placeholder_only(ctx: StepContext) -> Iterator[Finding]:
    work = ctx.work
    if not (ctx.result.success and work and work.added_count):
        return
    wanted = _wanted(ctx.step.description)
    if not any(_may_note(change, wanted) for change in work.files):
        return  # no added line can be a note: whether code was written or not, there is nothing to report
    notes: list[str] = []
    for file in ctx.changes.files:  # type: ignore[union-attr]  # work is there, so the model is
        found = _notes(file, ctx.step.description)
        if found is None:
            return  # this file changes code (or is not code): not a placeholder
        notes += found
    if not notes:
        return
    files = tuple(change.path for change in work.files if change.added_count)
    kinds = ", ".join(dict.fromkeys(notes))
    if ASKS_FOR_COMMENTS.search(ctx.step.description):
        yield Finding(rule=ids.PLACEHOLDER_ONLY, severity="signal", files=files,
                      message=f"{names(files)} only gain {kinds}; the step asks for comments or documentation.")
        return
    yield Finding(
        rule=ids.PLACEHOLDER_ONLY,
        files=files,
        message=f"the change only adds {kinds} to {names(files)}: notes about the work, no code. "
        "Implement what the step describes; if it cannot be done, report success: false with the reason.",
    )


def _notes(file: FileView, description: str) -> list[str] | None:
    """The kinds of note the file gains; None when it changes code or is not a code file."""
    change = file.change
    syntax = syntax_for(change.path)
    if change.changes_without_lines and not change.is_added or not syntax.knows_tokens or not syntax.line_comments \
            and syntax.block_comment is None:
        return None
    notes = []
    for hunk in file.hunks:
        if _writes_code_early(hunk.hunk, change.path):
            return None
        old, new = hunk.old, hunk.new
        # A Python hunk that opens inside a docstring is read from inside it: from its first line, the closing quotes
        # would open a string and hide the code below them. Only its TODO notes and restatements count as notes then.
        cut = change.path.endswith((".py", ".pyi")) and (opens_in_docstring(old) or opens_in_docstring(new))
        if writes_code(old, change.path, docstrings_are_notes=False, lines=python_lines(old) if cut else None) \
                or writes_code(new, change.path, lines=python_lines(new) if cut else None):
            return None
        docstring_lines = {i for line in logical_lines(new.lines, syntax) if line.code
                           for i in range(line.first, line.last + 1)}
        found = []
        for index, text in enumerate(new.lines):  # no line of code was written: each is a comment or a docstring
            if not new.changed[index] or not text.strip():
                continue
            if _NOTE.search(text):
                found.append("TODO notes")
            elif index in docstring_lines and not cut:  # in a cut docstring, which lines are its text is a guess
                found.append("docstrings")
            elif _restates(text, description):
                found.append("a comment restating the step")
        if cut and not found:
            return None
        notes += found
    return notes


def _may_note(change: FileChange, wanted: set[str]) -> bool:
    """A line the file gains may be one _notes counts, as the raw text tells: (Python) a quote in its hunks, where a
    docstring could be (one opened above an added line holds it), or in its added lines a TODO note or most words of
    the step (``wanted``: its words, _wanted's, read once for every file). A necessary condition of a note, read in a
    few plain searches (no word or note spans a line end; the added lines are read once for the signals)."""
    if change.path.endswith((".py", ".pyi")):
        body = "\n".join(["\n".join(hunk.body) for hunk in change.hunks])
        if '"' in body or "'" in body:
            return True
    text = added_text(change)
    if _NOTE_WORDS.search(text) and _NOTE.search(text):
        return True
    if len(wanted) < 3:
        return False  # _restates never holds
    text = text.lower()
    return sum(word in text for word in wanted) >= 0.6 * len(wanted)


# What every _NOTE match holds: one RE2 scan for them all, at any length (seven plain searches of a file's text
# cost twice as much).
_NOTE_WORDS = FirstLook("TODO|FIXME|XXX|HACK|TBD|todo|fixme", long=0)


def _wanted(description: str) -> set[str]:
    return set(_WORD.findall(description.lower())) - _COMMON


def _writes_code_early(hunk: Hunk, path: str) -> bool:
    """writes_code of either side, read on a long hunk's first lines: a line of code the change wrote among them is
    one writes_code of the whole side finds too (it reads the same lines the same way, and stops at the first such
    line). False: not among the first lines, the whole sides will tell."""
    if len(hunk.body) <= _EARLY_LINES:
        return False  # the whole sides are as short
    return writes_code(opening_of(hunk, "old", _EARLY_LINES), path, docstrings_are_notes=False) or \
        writes_code(opening_of(hunk, "new", _EARLY_LINES), path)


_EARLY_LINES = 40


def _restates(comment: str, description: str) -> bool:
    wanted = _wanted(description)
    said = set(_WORD.findall(comment.lower()))
    return len(wanted) >= 3 and len(wanted & said) >= 0.6 * len(wanted)
