"""Gitignore-style globs (a step's allowedFiles and excludedPaths), matched in time linear in the path's length.

The semantics are .gitignore's, as pathspec 1.x reads its "gitignore" patterns (a differential test in
tests/fuzz/test_fuzz_paths.py holds the two together), with three deliberate differences marked *, each
git's reading (tests/patch/test_paths.py holds a list of globs to a real ``git check-ignore``):

- ``*`` and ``?`` never cross a ``/``; ``**`` as a whole segment does (``src/**``, ``**/test_*.py``,
  ``a/**/b``); ``**`` inside a segment (``a**b``) is a plain ``*``.
- A pattern without a ``/`` (other than a trailing one) matches at any depth: ``*.lock`` matches
  ``a/b/c.lock``; ``vendor/`` matches everything under any ``vendor`` directory.
- A pattern with a ``/`` is anchored at the repository root: ``/build`` and ``build/x.py``.
- A pattern that matches a directory matches every file below it: ``src`` matches ``src/a/b.py``.
  * So does ``src/*``: for git ``src/a`` is then an ignored directory, and so is all below it; pathspec
  matches only ``src/a`` itself, which would let ``excludedPaths: ["vendor/*"]`` be dodged by nesting.
- A trailing ``/`` matches directories only: ``vendor/`` matches ``a/vendor/x`` but not a file ``vendor``;
  ``a/**/`` matches ``a/b/c`` but not the file ``a/b``.
  * ``/`` alone matches nothing, as in git (pathspec: everything).
- ``[a-z]``, ``[abc]``, ``[!x]`` and ``[^x]`` match one character; a ``]`` first in the class is one of
  its characters, ``\\`` inside a class escapes the next (``[\\]]``), ``[:upper:]`` and git's other POSIX
  classes (ASCII) are members, an unknown one is refused, an unclosed ``[`` is a literal ``[``.
  * A class never matches ``/`` (pathspec's ``[!x]`` does, so ``a[!x]b`` would match ``a/b``).
- ``\\`` outside a class escapes the next character (``\\*``, ``\\#``, ``\\!``, ``\\ ``).
- ``!pattern`` re-includes what an earlier pattern matched; the last matching pattern wins
  (unlike git, a file can be re-included even when its parent directory was matched).
- A blank pattern or a ``#`` comment matches nothing; trailing spaces (not tabs) are dropped unless
  escaped: ``x\\  `` is ``x`` and one space.

``alias_matches_any`` matches the names a case-insensitive, normalising file system (macOS, Windows) takes
for one: path and globs both case-folded and NFC-composed, so ``Config/SECRETS.yml`` and an NFD ``café/``
meet an ``excludedPaths`` that names ``config/secrets.yml`` or ``café/``.

Why matching is linear. A pattern is cut at its ``**`` segments into blocks of consecutive
one-segment globs. A path matches when the blocks occur in order at segment boundaries, the first at
the root unless the pattern starts with ``**``; whatever follows the last block lies below a matched
directory, so it matches too. As in the classic ``*`` wildcard argument, taking each block at its
leftmost occurrence after the previous one is never worse than any later occurrence (it leaves the
most room for the rest), so one forward search per block suffices: the blocks never rescan the path.
Each block is one regular expression that cannot backtrack: it is tried only at segment starts (a
lookbehind fails in O(1) anywhere else), its pieces are fixed-width (literals, ``?``, classes) except
where a glob has ``*``, and there each star-free chunk after a ``*`` is found at its leftmost place
inside the segment and then committed to, with the atomic idiom ``(?=(X))(?P=g)`` (lookarounds never
backtrack; Python 3.10 has no atomic groups). A chunk search costs O(L·c) in a segment of L characters
(c: the chunk's length), and a segment is looked at by at most b attempts (b: the block's segments), so
matching a path of n characters costs O(n·m) for a pattern of m characters, with m at most
MAX_GLOB_CHARS: linear in the path, whatever the number of ``*`` or ``**``. bench/bench_globs.py measures it.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator

from judge.patch.paths import alias_form

__all__ = ["GlobError", "MAX_GLOB_CHARS", "alias_matches_any", "glob_problem", "matches_any"]

# As long as the longest path judge accepts (judge.patch.paths.MAX_PATH_BYTES): a longer glob could
# only ever name unsafe paths, and the bound keeps the per-character cost of matching a constant.
MAX_GLOB_CHARS = 4096

class GlobError(ValueError):
    """A glob that cannot be compiled; the message says why, in a phrase that follows the glob."""


@dataclass(frozen=True)
class _Glob:
    include: bool  # False for `!pattern`
    blocks: tuple[re.Pattern[str], ...]  # one-segment globs between `**` segments, in order
    floating: bool  # starts with `**`: the first block may sit at any depth
    everything: str | None = None  # "any" (`**`, `*`) or "nested" (`**/`, `*/`): no blocks to search


def glob_problem(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used as a glob (a phrase following it), or None when it can."""
    try:
        _compile(pattern)
    except GlobError as exc:
        return str(exc)
    return None


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    """True when the gitignore-style ``patterns`` (last match wins, ``!`` negates) match ``path``.

    GlobError when a pattern cannot be compiled (a step's globs are checked when the step is read).
    """
    globs = _compile_all(tuple(patterns))
    # pathspec's normalisation, kept so a path reads the same as before: one leading `/` or `./` goes.
    if path.startswith("/"):
        path = path[1:]
    elif path.startswith("./"):
        path = path[2:]
    for glob in reversed(globs):
        if _matches(glob, path):
            return glob.include
    return False


def alias_matches_any(path: str, patterns: Iterable[str]) -> bool:
    """``matches_any`` on the names a folding file system stores: ``path`` and ``patterns`` case-folded and
    NFC-composed (``[:upper:]`` and ``[:lower:]`` read as ``[:alpha:]`` there: case is gone)."""
    return matches_any(alias_form(path), _folded(tuple(patterns)))


@lru_cache(maxsize=256)
def _folded(patterns: tuple[str, ...]) -> tuple[str, ...]:
    folded = (alias_form(p).replace("[:upper:]", "[:alpha:]").replace("[:lower:]", "[:alpha:]") for p in patterns)
    # a glob that no longer compiles once folded (the range `[Z-a]` becomes `[z-a]`) is kept as written
    return tuple(fold if glob_problem(fold) is None else p for p, fold in zip(patterns, folded))


def _matches(glob: _Glob, path: str) -> bool:
    if glob.everything == "any":
        return bool(path)
    if glob.everything == "nested":
        return "/" in path
    start = 0
    for index, block in enumerate(glob.blocks):
        found = block.search(path, start) if index or glob.floating else block.match(path)
        if found is None:
            return False
        start = found.end() + 1  # past the `/` every block but the last ends on
    return True


@lru_cache(maxsize=256)
def _compile_all(patterns: tuple[str, ...]) -> tuple[_Glob, ...]:
    return tuple(glob for glob in map(_compile, patterns) if glob is not None)


@lru_cache(maxsize=4096)
def _compile(pattern: str) -> _Glob | None:
    if len(pattern) > MAX_GLOB_CHARS:
        raise GlobError(f"is longer than {MAX_GLOB_CHARS:,} characters")
    text = _without_trailing_spaces(pattern)
    if not text or text.startswith("#"):
        return None
    include = not text.startswith("!")
    if not include:
        text = text[1:]
    if text == "/":
        return None  # git: a directory with an empty name, so nothing (pathspec: everything)
    segments = text.split("/")
    directory_only = segments[-1] == ""
    if segments[0] == "":
        del segments[0]  # a leading `/` anchors at the root
    elif len(segments) == 1 or (len(segments) == 2 and segments[1] == ""):
        if segments[0] != "**":
            segments.insert(0, "**")  # one name, with or without a trailing `/`: at any depth
    if not segments:
        raise GlobError("negates nothing: give a pattern after '!'")
    if segments[-1] == "":
        if len(segments) > 2 and segments[-2] == "**":
            # `a/**/` names the directories below `a` (a file `a/x` is not one): `a/*/` and what is below
            segments[-2] = "*"
        segments[-1] = "**"  # a directory: everything below it
    segments = [seg for k, seg in enumerate(segments) if not (seg == "**" and k and segments[k - 1] == "**")]

    if segments == ["**"]:
        return _Glob(include, (), False, "nested" if directory_only else "any")
    if segments == ["**", "*"]:
        return _Glob(include, (), False, "any")
    if segments == ["**", "*", "**"]:
        return _Glob(include, (), False, "nested")

    floating = segments[0] == "**"
    needs_below = segments[-1] == "**"  # `dir/**`: something must lie below the last block
    core = segments[int(floating) : len(segments) - int(needs_below)]
    runs = [list(run) for is_star, run in itertools.groupby(core, key=lambda seg: seg == "**") if not is_star]
    blocks = tuple(
        _block_regex(run, last=k == len(runs) - 1 and not needs_below) for k, run in enumerate(runs)
    )
    return _Glob(include, blocks, floating)


def _without_trailing_spaces(pattern: str) -> str:
    """``pattern`` without its trailing spaces, as git reads a .gitignore line: a space after a ``\\`` stays
    (``x\\  `` is ``x`` and one space), and only spaces are trimmed (a tab is part of the name)."""
    trailing: int | None = None  # where the run of unescaped spaces at the end starts
    i, end = 0, len(pattern)
    while i < end:
        char = pattern[i]
        if char == " ":
            if trailing is None:
                trailing = i
        elif char == "\\":
            i += 1
            if i == end:
                return pattern  # a lone `\\` at the end: git trims nothing (and we refuse the glob)
            trailing = None
        else:
            trailing = None
        i += 1
    return pattern if trailing is None else pattern[:trailing]


def _block_regex(globs: list[str], *, last: bool) -> re.Pattern[str]:
    names = (f"g{n}" for n in itertools.count())
    body = "/".join(_segment_regex(glob, names) for glob in globs)
    # Every block but the last must leave a `/` for the next; the last may end the path or a directory.
    end = r"(?=/|\Z)" if last else "(?=/)"
    try:
        return re.compile(r"(?<![^/])" + body + end)
    except (re.error, RecursionError, OverflowError) as exc:  # not expected: every piece is escaped
        raise GlobError(f"cannot be compiled ({exc})") from None


def _segment_regex(glob: str, names: Iterator[str]) -> str:
    """The regex of one segment glob: fixed-width pieces, and each `*` committed to its leftmost fit."""
    if glob == "*":
        name = next(names)
        return f"(?=(?P<{name}>[^/]+))(?P={name})"  # a whole segment, never an empty one (pathspec's `[^/]+`)
    chunks = list(_chunks(glob))
    head, tail = chunks[0], chunks[1:]
    if not tail:
        return "".join(head)
    *middle, last = tail
    parts = ["".join(head)]
    for chunk in middle:
        if chunk:
            name = next(names)
            parts.append(f"(?=(?P<{name}>[^/]*?{''.join(chunk)}))(?P={name})")
    name = next(names)
    # The rest of the segment, whose last len(last) characters must be `last`: at least that many are
    # taken, so the look-behind never reaches back into what the chunks before it matched.
    if last:
        parts.append(f"(?=[^/]{{{len(last)}}})")
    parts.append(f"(?=(?P<{name}>[^/]*))(?P={name})")
    if last:
        parts.append(f"(?<={''.join(last)})")
    return "".join(parts)


def _chunks(glob: str) -> Iterator[list[str]]:
    """The star-free runs of ``glob``, each a list of one-character regexes (one more run than stars)."""
    chunk: list[str] = []
    i, end = 0, len(glob)
    while i < end:
        char = glob[i]
        i += 1
        if char == "\\":
            if i == end:
                raise GlobError("ends with a lone '\\' (escape a character after it, or remove it)")
            chunk.append(re.escape(glob[i]))
            i += 1
        elif char == "*":
            yield chunk
            chunk = []
        elif char == "?":
            chunk.append("[^/]")
        elif char == "[":
            piece, i = _bracket(glob, i)
            chunk.append(piece)
        else:
            chunk.append(re.escape(char))
    yield chunk


def _bracket(glob: str, start: int) -> tuple[str, int]:
    """The class regex of the bracket expression opened just before ``start``, and where the glob goes on.

    Read as git's wildmatch reads it: ``!`` or ``^`` first negates, the first member may be ``]``,
    ``\\`` makes the next character a member, ``a-z`` is a range, ``[:alpha:]`` and the other POSIX
    classes (ASCII, as in git) are members; with no closing ``]`` the ``[`` is a literal (git: no match).
    """
    i, end = start, len(glob)
    negated = i < end and glob[i] in "!^"
    if negated:
        i += 1
    ranges: list[tuple[str, str]] = []
    previous: str | None = None  # the last single member: where a `-` range starts
    first = True
    while True:
        if i >= end:
            return re.escape("["), start
        char = glob[i]
        if char == "]" and not first:
            break
        first = False
        if char == "\\":
            i += 1
            if i >= end:
                return re.escape("["), start
            previous = glob[i]
            ranges.append((previous, previous))
        elif char == "-" and previous is not None and i + 1 < end and glob[i + 1] != "]":
            i += 1
            high = glob[i]
            if high == "\\":
                i += 1
                if i >= end:
                    return re.escape("["), start
                high = glob[i]
            if previous > high:
                raise GlobError(f"has the range {previous}-{high}, whose start comes after its end")
            ranges[-1] = (previous, high)
            previous = None
        elif char == "[" and glob.startswith(":", i + 1):
            close = glob.find("]", i + 2)
            if close < 0:
                return re.escape("["), start
            name = glob[i + 2 : close]
            if not name.endswith(":"):  # no `:]`: the `[` is a member, and so is what follows
                previous = "["
                ranges.append(("[", "["))
            else:
                if name[:-1] not in _POSIX_CLASSES:
                    raise GlobError(f"has the unknown character class [:{name[:-1]}:] (git's are "
                                    f"{', '.join(_POSIX_CLASSES)})")
                ranges += _POSIX_CLASSES[name[:-1]]
                previous = None
                i = close
        else:
            previous = char
            ranges.append((char, char))
        i += 1
    if negated:
        body = "".join(_class_range(low, high) for low, high in ranges) + "/"
        return f"[^{body}]", i + 1
    # A range may span `/` (`[.-0]`, `[:punct:]`): cut `/` out of it, so a class never crosses into the
    # next segment.
    kept: list[tuple[str, str]] = []
    for low, high in ranges:
        if low <= "/" <= high:
            kept += ([(low, ".")] if low < "/" else []) + ([("0", high)] if high > "/" else [])
        else:
            kept.append((low, high))
    if not kept:
        return "(?!)", i + 1
    body = "".join(_class_range(low, high) for low, high in kept)
    return f"[{body}]", i + 1


# git's wildmatch classes, on ASCII only (git's sane ctype: `space` is space, tab, LF and CR).
_POSIX_CLASSES: dict[str, tuple[tuple[str, str], ...]] = {
    "alnum": (("0", "9"), ("A", "Z"), ("a", "z")),
    "alpha": (("A", "Z"), ("a", "z")),
    "blank": ((" ", " "), ("\t", "\t")),
    "cntrl": (("\x00", "\x1f"), ("\x7f", "\x7f")),
    "digit": (("0", "9"),),
    "graph": (("!", "~"),),
    "lower": (("a", "z"),),
    "print": ((" ", "~"),),
    "punct": (("!", "/"), (":", "@"), ("[", "`"), ("{", "~")),
    "space": ((" ", " "), ("\t", "\n"), ("\r", "\r")),
    "upper": (("A", "Z"),),
    "xdigit": (("0", "9"), ("A", "F"), ("a", "f")),
}


def _class_range(low: str, high: str) -> str:
    return re.escape(low) if low == high else f"{re.escape(low)}-{re.escape(high)}"
