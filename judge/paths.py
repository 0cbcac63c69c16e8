"""Repository paths: normalising what agents write, spotting unsafe ones, matching globs.

Globs follow .gitignore semantics exactly (through pathspec's GitIgnoreSpec):

- ``*`` and ``?`` never cross a ``/``; ``**`` does (``src/**``, ``**/test_*.py``, ``a/**/b``).
- A pattern without a ``/`` (other than a trailing one) matches at any depth:
  ``*.lock`` matches ``a/b/c.lock``; ``vendor/`` matches everything under any ``vendor`` directory.
- A pattern with a ``/`` is anchored at the repository root: ``/build`` and ``build/x.py``.
- A pattern that matches a directory matches every file below it: ``src`` matches ``src/a/b.py``.
- ``!pattern`` re-includes what an earlier pattern matched; the last matching pattern wins
  (unlike git, a file can be re-included even when its parent directory was matched).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterable

import pathspec

__all__ = ["normalize_path", "unsafe_reason", "matches_any"]

_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def normalize_path(path: str) -> str:
    """``./src//a.py`` -> ``src/a.py``. Leaves ``..`` alone: that is for unsafe_reason to see."""
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    path = re.sub(r"/{2,}", "/", path)
    return re.sub(r"(?<=/)\./", "", path)


def unsafe_reason(path: str) -> str | None:
    """Why writing to ``path`` could escape or corrupt the repository, or None when it is safe."""
    if not path:
        return "the path is empty"
    if _CONTROL.search(path):
        return "the path contains control characters"
    if path.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(path):
        return "the path is absolute"
    if path.startswith("~"):
        return "the path starts with ~ (a home directory)"
    segments = re.split(r"[\\/]", path)
    if ".." in segments:
        return "the path has a '..' segment"
    if any(segment.lower() == ".git" for segment in segments):
        return "the path is inside a .git directory"
    return None


@lru_cache(maxsize=256)
def _spec(patterns: tuple[str, ...]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    """True when the gitignore-style ``patterns`` (last match wins, ``!`` negates) match ``path``."""
    return _spec(tuple(patterns)).match_file(path)
