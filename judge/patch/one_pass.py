"""The common patch, plain `git diff` output, read in one pass to exactly what parse.py's full reading makes of it.

parse.py reads a patch three times (unidiff, its own hunk walk, git's reading), each line by line, so that
every odd patch is read and refused as those readers read and refuse it. A patch that is nothing but
`diff --git` entries, each a header that ends in its `---`/`+++` pair and then whole hunks, reads the same
to all three: git's own header reading names the files, and each hunk is read once, its line kinds
counted in C over a string of every line's first character. Anything else, or anything one of the
readers would refuse, is left to the full reading (None), which words the refusal.
"""

from __future__ import annotations

import re
from operator import itemgetter

from unidiff.constants import (RE_DIFF_GIT_DELETED_FILE, RE_DIFF_GIT_HEADER, RE_DIFF_GIT_HEADER_NO_PREFIX,
                               RE_DIFF_GIT_HEADER_URI_LIKE, RE_TARGET_FILENAME)

from judge.errors import MalformedPatch
from judge.patch.git_apply import FRAGMENT, GitEntry, check_kind_against_hunks, count_hunk, read_git_header
from judge.patch.grammar import DEV_NULL
from judge.patch.model import Hunk

__all__ = ["NO_NEWLINE", "read_git_diff"]

NO_NEWLINE = "\\ No newline at end of file"
_first_character = itemgetter(0)


def read_git_diff(lines: list[str], complete: bool) -> list[tuple[GitEntry, list[Hunk]]] | None:
    """Each entry of ``lines`` (the patch split on "\\n") as git reads it, with its hunks; None when the patch is
    not plainly `git diff` output or a reader would refuse it (parse.py's full reading then decides)."""
    if not (complete and lines and lines[0].startswith("diff --git ")):
        return None
    try:
        kinds = "".join(map(_first_character, lines))  # an empty line (IndexError) is for the full reading
        return _read_entries(lines, kinds)
    except (_NotPlain, IndexError, MalformedPatch):
        return None


class _NotPlain(Exception):
    """The patch is not one this reading knows all three readers agree on."""


def _read_entries(lines: list[str], kinds: str) -> list[tuple[GitEntry, list[Hunk]]]:
    entries: list[tuple[GitEntry, list[Hunk]]] = []
    count = len(lines)
    index = 0
    while index < count:
        if not lines[index].startswith("diff --git "):
            raise _NotPlain
        entry, end = read_git_header(lines, index, True)
        _check_unidiff_header(lines, index, end)
        hunks: list[Hunk] = []
        while end < count and lines[end].startswith("@@ -"):
            hunk, end, old, new = _read_hunk(lines, kinds, end)
            count_hunk(entry, old, new)
            hunks.append(hunk)
            if end < count and lines[end] == NO_NEWLINE:
                end += 1
        if not hunks:
            raise _NotPlain
        check_kind_against_hunks(entry)
        entries.append((entry, hunks))
        index = end
    return entries


def _check_unidiff_header(lines: list[str], index: int, end: int) -> None:
    """The header from ``index`` to ``end`` ends in its `---`/`+++` pair, and unidiff reads it as one file:
    it finds the `diff --git` line's target, and the `+++` line names that target (else it refuses)."""
    if not (end >= index + 3 and lines[end - 2].startswith("--- ") and lines[end - 1].startswith("+++ ")
            and end < len(lines) and lines[end].startswith("@@ -")):
        raise _NotPlain
    first = lines[index] + "\n"  # unidiff reads each line with its line end
    header = (RE_DIFF_GIT_HEADER.match(first) or RE_DIFF_GIT_HEADER_URI_LIKE.match(first)
              or RE_DIFF_GIT_HEADER_NO_PREFIX.match(first))
    if header is None:
        raise _NotPlain
    target = header.group("target")
    for line in lines[index + 1 : end - 2]:  # lines git knows as header lines, so none unidiff reads as a hunk
        if line.startswith(("--- ", "+++ ")):
            raise _NotPlain
        if RE_DIFF_GIT_DELETED_FILE.match(line + "\n"):
            target = DEV_NULL
    named = RE_TARGET_FILENAME.match(lines[end - 1] + "\n")
    if named is None or named.group("filename") != target:
        raise _NotPlain


def _read_hunk(lines: list[str], kinds: str, start: int) -> tuple[Hunk, int, int, int]:
    """The hunk whose header is at ``start``, read whole; the index after it; its header's two line counts.
    Its counts must match its lines exactly (no reader refuses it, and all stop at its last line) and it
    must change a line."""
    header = FRAGMENT.match(lines[start])
    if header is None:
        raise _NotPlain
    old = 1 if header.group(2) is None else int(header.group(2))
    new = 1 if header.group(4) is None else int(header.group(4))
    first = end = start + 1
    old_left, new_left = old, new
    context = added = 0
    while old_left > 0 or new_left > 0:
        # Each line counts against one side or both, so the hunk runs on at least this far: no reader stops
        # before ``stop``, and the counts of the lines up to it say where they do (the lines neither context
        # nor added are taken to be removed lines here, and checked to be below).
        stop = end + (old_left if old_left > new_left else new_left)
        if stop > len(kinds):  # the patch ends first, or a `\` line inside makes it look so
            return _read_hunk_by_line(lines, start, header, old, new)
        step_context, step_added = kinds.count(" ", end, stop), kinds.count("+", end, stop)
        old_left -= stop - end - step_added
        new_left -= step_context + step_added
        if old_left < 0 or new_left < 0:  # a side ran past its count, or a `\` line inside makes it look so
            return _read_hunk_by_line(lines, start, header, old, new)
        context += step_context
        added += step_added
        end = stop
    removed = end - first - context - added
    if kinds.count("-", first, end) != removed:  # a `\` line or another kind is inside
        return _read_hunk_by_line(lines, start, header, old, new)
    if not (added or removed):  # git: a hunk that changes nothing is corrupt
        raise _NotPlain
    return _hunk(lines, start, header, tuple(lines[first:end]), added, removed), end, old, new


def _read_hunk_by_line(lines: list[str], start: int, header: re.Match[str], old: int,
                       new: int) -> tuple[Hunk, int, int, int]:
    """The same reading for a hunk with `\\ No newline at end of file` lines inside it, which no side counts."""
    body: list[str] = []
    added = removed = 0
    index = start + 1
    old_left, new_left = old, new
    while old_left > 0 or new_left > 0:
        if index >= len(lines):
            raise _NotPlain
        line = lines[index]
        kind = line[0]
        if kind == "+":
            new_left, added = new_left - 1, added + 1
        elif kind == "-":
            old_left, removed = old_left - 1, removed + 1
        elif kind == " ":
            old_left, new_left = old_left - 1, new_left - 1
        elif line != NO_NEWLINE:
            raise _NotPlain
        if kind != "\\":
            body.append(line)
        if old_left < 0 or new_left < 0:
            raise _NotPlain
        index += 1
    if not (added or removed):
        raise _NotPlain
    return _hunk(lines, start, header, tuple(body), added, removed), index, old, new


def _hunk(lines: list[str], start: int, header: re.Match[str], body: tuple[str, ...], added: int, removed: int) -> Hunk:
    # Where git's fragment pattern matches, unidiff's HUNK_HEADER matches with the same numbers (its \d is
    # [0-9] here: a digit of another script ends neither number); its section is what follows the
    # second `@@` and one space.
    line = lines[start]
    section = line[header.end() :]
    return Hunk.made(start + 1, line.rstrip("\r"), body, added, removed, int(header.group(1)), int(header.group(3)),
                     (section[1:] if section[:1] == " " else section).rstrip("\r"))
