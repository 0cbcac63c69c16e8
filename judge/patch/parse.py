"""Parsing a unified diff into PatchFacts, or MalformedPatch naming the problem, the file and the line.

unidiff parses the structure (git, hg, svn, bzr and plain ``diff -u`` headers,
binary markers, hunk counts) in its cheap ``metadata_only`` mode; a second,
lighter pass over the same lines collects the added and removed lines of each
hunk, so a multi-megabyte patch never becomes one Python object per line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import Iterator

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from judge.errors import MalformedPatch
from judge.patch.grammar import BINARY_PLACEHOLDER, DEV_NULL, HUNK_HEADER
from judge.patch.model import FileChange, Hunk, PatchFacts
from judge.patch.names import entry_start, git_names, plain_diff_creation, strip_prefixes
from judge.patch.paths import normalize_path, unquote_git_path
from judge.patch.transport import blank_email_prose, split_lines, undo_transport_crlf

__all__ = ["parse_patch"]


def parse_patch(text: str) -> PatchFacts:
    """Parse ``text`` as a unified diff, or raise MalformedPatch naming the problem and the line."""
    lines = blank_email_prose(split_lines(undo_transport_crlf(text)))
    reader = _CountingLines(lines)
    try:
        patch_set = PatchSet(reader, metadata_only=True)
    except UnidiffParseError as exc:
        raise MalformedPatch(_describe_unidiff_error(str(exc), lines, reader.count), reader.count) from None
    except Exception as exc:  # a parser bug must still read as "malformed", never as a crash
        raise MalformedPatch(f"unparseable diff ({type(exc).__name__})", reader.count) from None
    if not patch_set:
        raise MalformedPatch("no file headers found (expected `diff --git a/... b/...` or `--- a/...` / `+++ b/...`)")
    starts = [_start_line(pf, lines) for pf in patch_set]
    hunks = _collect_hunks(lines, starts)
    files = tuple(_file_change(pf, start, file_hunks, lines) for pf, start, file_hunks in zip(patch_set, starts, hunks))
    for change in files:
        if not change.hunks and not change.changes_without_lines:
            raise MalformedPatch(
                f"file {change.path} has a header but no @@ hunks (a text change needs hunks; truncated?)",
                change.line,
            )
    return PatchFacts(files)


def _start_line(pf, lines: list[str]) -> int:
    """The 1-based line where a file's entry starts: its `diff --git` line, or a plain diff's header block."""
    is_git = any(line.startswith("diff --git ") for line in (pf.patch_info or ()))
    return pf.diff_line_no if is_git else entry_start(lines, pf.diff_line_no or 1)


class _CountingLines:
    """Feeds lines to unidiff and remembers how far it read, to locate its errors."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = lines
        self.count = 0

    def __iter__(self) -> Iterator[str]:
        for line in self._lines:
            self.count += 1
            yield line + "\n"


def _describe_unidiff_error(message: str, lines: list[str], line_no: int) -> str:
    where = _file_at(lines, line_no)
    offending = message.split(": ", 1)[-1]
    if message.startswith("Hunk is shorter") or (
        message.startswith("Hunk diff line expected") and offending.startswith(("@@", "diff ", "--- ", "Index: "))
    ):
        return f"a hunk{where} has fewer lines than its @@ header counts (truncated patch or wrong counts)"
    if message.startswith("Hunk is longer"):
        return f"a hunk{where} has more lines than its @@ header counts"
    if message.startswith("Hunk diff line expected"):
        return f"a line inside a hunk{where} does not start with ' ', '+', '-' or '\\': {_quote(offending)}"
    if message.startswith("Unexpected hunk found"):
        return f"the hunk {_quote(offending)} has no file header (--- a/... +++ b/...) right above it"
    return message.rstrip("\n")


def _file_at(lines: list[str], line_no: int) -> str:
    """" of FILE" for the last +++ header at or before ``line_no``, to say where a problem is."""
    for line in reversed(lines[: max(line_no, 0)]):
        if line.startswith("+++ "):
            name = line[4:].split("\t", 1)[0].rstrip("\r\n")
            target = unquote_git_path(name)
            return f" of {target[2:] if target[:2] == 'b/' else target}"
    return ""


def _quote(fragment: str, limit: int = 60) -> str:
    fragment = fragment.rstrip("\n")
    return repr(fragment if len(fragment) <= limit else fragment[:limit] + "...")


def _collect_hunks(lines: list[str], starts: list[int]) -> list[list[Hunk]]:
    """Walk the hunks unidiff already validated, keeping their +/- lines, and reject stray body lines.

    A hunk belongs to the last file entry that starts above it.
    """
    per_file: list[list[Hunk]] = [[] for _ in starts]
    index = 0
    while index < len(lines):
        header = HUNK_HEADER.match(lines[index])
        if header is None:
            _reject_header_debris(lines, index)
            index += 1
            continue
        hunk, index = _read_hunk(lines, index, header)
        owner = bisect_right(starts, hunk.line) - 1
        if owner >= 0:
            per_file[owner].append(hunk)
        _reject_stray_line(lines, index, hunk)
    return per_file


def _read_hunk(lines: list[str], start: int, header: re.Match[str]) -> tuple[Hunk, int]:
    src_left = 1 if header.group(2) is None else int(header.group(2))
    tgt_left = 1 if header.group(4) is None else int(header.group(4))
    body: list[str] = []
    added = removed = 0
    index = start + 1
    while (src_left > 0 or tgt_left > 0) and index < len(lines):
        line = lines[index]
        kind = line[0] if line and line[0] != "\r" else " "
        if kind == "+":
            added += 1
            tgt_left -= 1
        elif kind == "-":
            removed += 1
            src_left -= 1
        elif kind == " ":
            src_left -= 1
            tgt_left -= 1
            line = line if line[:1] == " " else " " + line  # an empty context line, its space stripped
        if kind != "\\":
            body.append(line)
        index += 1
    return Hunk(start + 1, lines[start].rstrip("\r"), tuple(body), added, removed), index


def _reject_header_debris(lines: list[str], index: int) -> None:
    """Outside hunks: an `@@` line without ranges, or anything but a hunk right after a `+++` header."""
    line = lines[index]
    if line.startswith("@@"):
        raise MalformedPatch(f"line {index + 1} {_quote(line)} is not a valid hunk header (@@ -a,b +c,d @@)", index + 1)
    if not (line.startswith("+++ ") and index > 0 and lines[index - 1].startswith("--- ")):
        return
    following = lines[index + 1] if index + 1 < len(lines) else None
    if following is not None and not following.startswith(("@@", "diff ", "--- ", "Index: ")):
        raise MalformedPatch(
            f"the file header at line {index + 1} {_quote(line)} is followed by {_quote(following)} "
            "instead of a hunk header (@@ -a,b +c,d @@)",
            index + 2,
        )


def _reject_stray_line(lines: list[str], index: int, hunk: Hunk) -> None:
    """A +/-/space line right after a complete hunk means the header undercounts its lines."""
    while index < len(lines) and lines[index].startswith("\\"):
        index += 1
    if index >= len(lines):
        return
    line = lines[index]
    if not line or line[0] not in "+- ":
        return
    if line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ "):
        return  # the next file's plain header
    if line.rstrip("\r\n") == "-- ":
        return  # `git format-patch` signature separator
    raise MalformedPatch(
        f"hunk {hunk.header!r} at line {hunk.line} has more lines than its header counts; "
        f"line {index + 1} {_quote(line)} is outside every hunk",
        index + 1,
    )


def _file_change(pf, start: int, hunks: list[Hunk], lines: list[str]) -> FileChange:
    info = [line.rstrip("\r\n") for line in (pf.patch_info or ())]
    is_git = any(line.startswith("diff --git ") for line in info)
    source, target = unquote_git_path(pf.source_file or ""), unquote_git_path(pf.target_file or "")
    source, target = strip_prefixes(source, target)
    old_path = None if source in (DEV_NULL, "") and target else source
    new_path = None if target == DEV_NULL else target
    if not is_git and len(hunks) == 1:
        old_path, new_path = plain_diff_creation(hunks[0], old_path, new_path)
    if is_git:
        old_path, new_path = git_names(lines, pf.diff_line_no or 1, old_path, new_path)
    is_copy = any(line.startswith("copy from ") for line in info)
    is_rename = is_git and not is_copy and None not in (old_path, new_path) and old_path != new_path
    if not is_git and old_path is not None and new_path is not None:
        old_path = new_path  # plain `diff -u old new`: the target name is the file's name
    return FileChange(
        old_path=None if old_path is None else normalize_path(old_path),
        new_path=None if new_path is None else normalize_path(new_path),
        line=start,
        hunks=tuple(hunks),
        is_binary=bool(pf.is_binary_file),
        binary_placeholder=any(BINARY_PLACEHOLDER.match(line) for line in info),
        is_rename=is_rename,
        is_copy=is_copy,
        old_mode=_mode(info, "old mode "),
        new_mode=_mode(info, "new mode "),
    )


def _mode(info: list[str], prefix: str) -> str | None:
    return next((line[len(prefix) :].strip() for line in info if line.startswith(prefix)), None)
