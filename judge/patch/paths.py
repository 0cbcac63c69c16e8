"""Repository paths: normalising what agents write and refusing names that escape, alias or hide.

A path is unsafe when writing it could land outside the work tree or in .git/, or when some platform an
orchestrator runs on reads it as another name: Windows drops trailing dots and spaces, opens a device
for `CON` or `com1.txt`, reads `a:b` as a drive or an alternate data stream, `\\` as a separator and
`GIT~1` as the short name of `.git`; macOS ignores invisible code points (`.git` then U+200C) and case. The
references are git's own checks (verify_path, is_ntfs_dotgit, is_hfs_dotgit in git's path.c and utf8.c).
The same holds for the name those platforms store: case folded and NFC-composed (``alias_form``), and a
symlink is unsafe when its target leaves the work tree or enters .git (``link_target_reason``).
Globs are matched by judge.patch.globs.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

from judge.lazy_pattern import lazy_compile

__all__ = [
    "MAX_PATH_BYTES", "MAX_PATH_SEGMENTS", "SYMLINK_MODE", "alias_form", "file_name", "link_target_reason", "file_suffix", "normalize_path", "unquote_git_path",
    "unsafe_reason", "segment_reason",
]

_SLASHES = lazy_compile(r"/{2,}")
_DOT_SEGMENT = lazy_compile(r"(?<=/)\./")
_SEPARATORS = lazy_compile(r"[\\/]")
# Linux's PATH_MAX, 16 times Windows' MAX_PATH: no honest repository path comes close, and
# every rule after unsafe_path (globs, name checks) then works on bounded input.
MAX_PATH_BYTES = 4096
MAX_PATH_SEGMENTS = 256

# `\303\244`, `\t`, `\"`: the C escapes git uses inside a quoted path.
_C_ESCAPE = lazy_compile(r'\\([0-7]{1,3}|[abtnvfr"\\])')
_C_SIMPLE = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_WINDOWS_DRIVE = lazy_compile(r"^[A-Za-z]:")
# Code points that show nothing, so a name reads as another ("Trojan Source"), and that HFS+ ignores
# (`.git` + U+200C is `.git` there): C0/C1 controls, line and paragraph separators, unpaired surrogates,
# and Unicode's Default_Ignorable_Code_Point set (zero-width, bidi, joiners, fillers, variation selectors, tags).
_INVISIBLE = lazy_compile(
    r"[\x00-\x1f\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e"
    r"\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\ud800-\udfff\U0001bca0-\U0001bca3"
    r"\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
# Windows opens a device for these names, whatever the extension (`nul.txt`) or trailing spaces before it;
# ¹²³ are digits to Windows too.
_DEVICES = frozenset({"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$"}) | {
    f"{port}{digit}" for port in ("COM", "LPT") for digit in "0123456789\u00b9\u00b2\u00b3"
}
# An 8.3 short name (`GIT~1`, `PROGRA~1.TXT`, `GI7EBA~1`): on NTFS it can stand for another, long name.
_SHORT_NAME = lazy_compile(r"[^.~]{1,6}~[0-9]+(\.[^.]{0,3})?")
SYMLINK_MODE = "120000"  # git's mode of a symbolic link; its blob is the target


def alias_form(path: str) -> str:
    """The name a case-insensitive, normalising file system (macOS, Windows) stores for ``path``: case folded
    and NFC-composed, so ``Config/SECRETS.yml`` and ``config/secrets.yml``, NFD and NFC ``café``, are one name."""
    if path.isascii():
        return path.lower()
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", path).casefold())


def normalize_path(path: str) -> str:
    """``./src//a.py`` -> ``src/a.py``. ``..`` stays for unsafe_reason to see.

    Nothing else changes: white space, a CR or quotes around a name are part of the file git writes
    (`docs/b.md ` is another file than `docs/b.md`), so unsafe_reason must see them; a git-quoted
    name is unquoted once, by whoever reads it from git's output.
    """
    while path.startswith("./"):
        path = path[2:]
    if "//" in path:
        path = _SLASHES.sub("/", path)
    return _DOT_SEGMENT.sub("", path) if "/./" in path else path


def file_name(path: str) -> str:
    """``PurePosixPath(path).name`` without building the path: the last part that is not empty or ``.``."""
    last = path.rpartition("/")[2]
    if last and last != ".":
        return last
    parts = [part for part in path.split("/") if part and part != "."]
    return parts[-1] if parts else ""


def file_suffix(path: str) -> str:
    """``PurePosixPath(path).suffix``: the name's last ``.ext``, or "" (a leading or trailing dot is none)."""
    name = file_name(path)
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


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


# A path nearly every change writes (`src/app/main.py`): ASCII letters, digits, `_`, `-` and inner dots only (with
# IGNORECASE, `[a-z]` would also take `ſ` and `K`: the path must be ASCII), no segment that starts with a dot, ends
# with one or is a Windows device name. None of the checks below can find anything in it (no separator but `/`, no
# `:`, `~`, space, control or invisible character, `.git` alias or short name), so it is safe at one match when its
# length and its segment count are within the bounds.
_PLAIN = lazy_compile(r"(?:(?!(?:con|prn|aux|nul|com[0-9]|lpt[0-9])(?:[./]|\Z))[a-z0-9_-][a-z0-9_.-]*(?<!\.)(?:/|\Z))+",
                      re.IGNORECASE)


def unsafe_reason(path: str) -> str | None:
    """Why writing to ``path`` could escape the repository, corrupt it or alias another name, or None when safe.

    The name is checked as written and, when it has other than ASCII, as a folding file system stores it."""
    if path.isascii() and len(path) <= MAX_PATH_BYTES and path.count("/") < MAX_PATH_SEGMENTS \
            and not path.endswith("/") and _PLAIN.fullmatch(path):
        return None
    reason = _unsafe_as_written(path)
    if reason is None and not path.isascii():
        folded = alias_form(path)
        if folded != path and (reason := _unsafe_as_written(folded)) is not None:
            reason = f"{reason}, once case-folded and NFC-composed as macOS and Windows store it"
    return reason


def link_target_reason(link: str, target: str) -> str | None:
    """Why a symlink at ``link`` (repository-relative) pointing to ``target`` could lead outside the work tree or
    into .git, or None when it stays inside. The target is read as POSIX resolves it, and ``\\`` as Windows does."""
    shown = repr(target[:120])
    if not target:
        return None
    if target.startswith(("/", "\\")) or _WINDOWS_DRIVE.match(target):
        return f"it is a symlink to the absolute path {shown}, outside the repository"
    depth = sum(part not in ("", ".") for part in posixpath.dirname(link).split("/"))
    named = False  # a name seen in the target: a `..` after it is refused (below)
    for part in _SEPARATORS.split(target):
        if part in ("", "."):
            continue
        if part == "..":
            if named:
                # `d/../x` resolves through whatever `d` is: a symlink `d -> ..` turns it into a way out.
                return f"it is a symlink to {shown}, which climbs back out of a directory it names ('/..')"
            if depth == 0:
                return f"it is a symlink to {shown}, which leads outside the repository"
            depth -= 1
            continue
        if _is_dotgit(part) or _is_dotgit(alias_form(part)):
            return f"it is a symlink to {shown}, which leads into .git"
        named = True
    return None


def _unsafe_as_written(path: str) -> str | None:
    if not path:
        return "the path is empty"
    size = len(path.encode("utf-8", "surrogatepass"))
    if size > MAX_PATH_BYTES:
        return f"the path is {size:,} bytes long, more than the {MAX_PATH_BYTES:,} a repository path may have"
    segments = _SEPARATORS.split(path) if "\\" in path else path.split("/")
    if len(segments) > MAX_PATH_SEGMENTS:
        return f"the path has {len(segments):,} segments, more than the {MAX_PATH_SEGMENTS} a repository path may have"
    if path.startswith(("/", "\\")):
        return "the path is absolute"
    if _WINDOWS_DRIVE.match(path):
        return f"the path is absolute or relative to a Windows drive ({path[:2]})"
    if path.startswith("~"):
        return "the path starts with ~ (a home directory)"
    if ".." in segments:
        return "the path has a '..' segment"
    for segment in segments:
        if _is_dotgit(segment):
            alias = "" if segment == ".git" else f" ({segment[:60]!r} reads as .git on Windows or macOS)"
            return f"the path is inside a .git directory{alias}"
        problem = _platform_reason(segment)
        if problem:
            return f"the path's segment {segment[:60]!r} {problem}"
    if "\\" in path:
        return "the path contains '\\', a separator on Windows: use '/' between directories"
    return None


def segment_reason(segment: str) -> str | None:
    """Why the file name ``segment`` is dangerous on a platform judge's callers run on, or None.

    A phrase that follows the name ("is ..."), for unsafe_reason and for judge.workspace.confine.
    Checks `.git` and its aliases first, so a hidden `.git` is named as such.
    """
    if _is_dotgit(segment):
        return "is .git, or a name Windows or macOS reads as .git"
    return _platform_reason(segment)


def _platform_reason(segment: str) -> str | None:
    """segment_reason for a segment that is not .git."""
    invisible = _INVISIBLE.search(segment)
    if invisible:
        return f"contains control or invisible characters (U+{ord(invisible.group()):04X})"
    if ":" in segment:
        return "contains ':', which Windows reads as a drive or an alternate data stream"
    if segment.rstrip(". ") != segment and segment not in (".", ".."):
        return "ends with a dot or a space, which Windows drops (it would write another name)"
    stem = segment.split(".", 1)[0].rstrip(" ").upper()
    if stem in _DEVICES:
        return f"is the Windows device name {stem}, whatever its extension"
    if _SHORT_NAME.fullmatch(segment):
        return "has the form of a Windows 8.3 short name, which can stand for another file"
    return None


def _is_dotgit(segment: str) -> bool:
    """``segment`` names .git on NTFS or HFS+: ignorable code points, an alternate stream, trailing dots
    and spaces, case (``.GIT``, ``.gıt``), or the short name ``git~1``."""
    name = _INVISIBLE.sub("", segment).split(":", 1)[0].rstrip(". ")
    return name.casefold() in (".git", "git~1") or name.upper() in (".GIT", "GIT~1")
