"""Repository paths: normalising what agents write and spotting unsafe ones (globs: judge.patch.globs)."""

from __future__ import annotations

import re


__all__ = ["normalize_path", "unquote_git_path", "unsafe_reason"]

# `\303\244`, `\t`, `\"`: the C escapes git uses inside a quoted path.
_C_ESCAPE = re.compile(r'\\([0-7]{1,3}|[abtnvfr"\\])')
_C_SIMPLE = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:[\\/]")
# C0/C1 controls, and the zero-width and bidi marks that make a name read as another ("Trojan Source").
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def normalize_path(path: str) -> str:
    """``./src//a.py`` -> ``src/a.py``; a git-quoted name is unquoted. ``..`` stays for unsafe_reason to see."""
    path = unquote_git_path(path.strip())
    while path.startswith("./"):
        path = path[2:]
    path = re.sub(r"/{2,}", "/", path)
    return re.sub(r"(?<=/)\./", "", path)


def unquote_git_path(path: str) -> str:
    """Undo git's C-style quoting: ``"a/A \\303\\242 B.py"`` -> ``a/A â B.py``."""
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    raw = bytearray()
    body = path[1:-1]
    pos = 0
    for match in _C_ESCAPE.finditer(body):
        raw += body[pos : match.start()].encode("utf-8", "surrogateescape")
        code = match.group(1)
        raw.append(_C_SIMPLE[code] if code in _C_SIMPLE else int(code, 8) & 0xFF)
        pos = match.end()
    raw += body[pos:].encode("utf-8", "surrogateescape")
    return raw.decode("utf-8", "replace")


def unsafe_reason(path: str) -> str | None:
    """Why writing to ``path`` could escape or corrupt the repository, or None when it is safe."""
    if not path:
        return "the path is empty"
    if _CONTROL.search(path):
        return "the path contains control or invisible bidi characters"
    if path.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(path):
        return "the path is absolute"
    if path.startswith("~"):
        return "the path starts with ~ (a home directory)"
    segments = re.split(r"[\\/]", path)
    if ".." in segments:
        return "the path has a '..' segment"
    # Windows reads `.git.`, `.git ` and the short name `GIT~1` as `.git` too.
    if any(segment.rstrip(". ").lower() == ".git" or segment.upper() == "GIT~1" for segment in segments):
        return "the path is inside a .git directory"
    return None
