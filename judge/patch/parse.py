"""Parsing a unified diff into PatchFacts, or MalformedPatch naming the problem, the file and the line.

Plain `git diff` output, the common patch, is read in one pass (judge/patch/one_pass.py) to what the
full reading makes of it. The full reading, for every other patch, is three passes over the same lines.
unidiff parses the structure (git, hg, svn, bzr and plain ``diff -u`` headers, binary markers, hunk
counts) in its cheap ``metadata_only`` mode and words most refusals; a lighter pass collects the added
and removed lines of each hunk, so a multi-megabyte patch never becomes one Python object per line;
then git's own reading (judge/patch/git_apply.py) refuses what ``git apply`` refuses and decides each
entry's names, modes and kind, so judge reports the files git writes.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from judge.errors import MalformedPatch, quote_line
from judge.patch.git_apply import GitEntry, read_as_git
from judge.patch.grammar import DEV_NULL, HUNK_HEADER
from judge.patch.model import FileChange, Hunk, PatchFacts
from judge.patch.names import check_entry_names, entry_start, has_unsafe_written_name, plain_diff_creation, strip_prefixes
from judge.patch.one_pass import read_git_diff
from judge.patch.paths import normalize_path, unquote_git_path
from judge.patch.transport import blank_email_prose, split_lines, undo_transport_crlf

__all__ = ["parse_patch"]


def parse_patch(text: str) -> PatchFacts:
    """Parse ``text`` as a unified diff, or raise MalformedPatch naming the problem and the line."""
    undone = undo_transport_crlf(text)
    lines = blank_email_prose(split_lines(undone))
    complete = undone.endswith("\n")
    entries = read_git_diff(lines, complete)  # plain `git diff` output, read once; None leaves it to the three readings
    if entries is not None:
        try:
            return PatchFacts(tuple(_file_change(entry.line, hunks, entry, lines) for entry, hunks in entries))
        except MalformedPatch:
            pass  # the full reading refuses it, with whatever it finds first
    return _read_thrice(lines, complete)


def _read_thrice(lines: list[str], complete: bool) -> PatchFacts:
    """The full reading: unidiff, judge's hunk walk, then git's reading (see the module's docstring)."""
    reader = iter([line + "\n" for line in lines])  # how far unidiff read is what the iterator has left
    try:
        patch_set = PatchSet(reader, metadata_only=True)
    except UnidiffParseError as exc:
        read = len(lines) - reader.__length_hint__()
        raise MalformedPatch(_describe_unidiff_error(str(exc), lines, read), read) from None
    except Exception as exc:  # a parser bug must still read as "malformed", never as a crash
        read = len(lines) - reader.__length_hint__()
        raise MalformedPatch(f"unparseable diff ({type(exc).__name__})", read) from None
    if not patch_set:
        raise MalformedPatch("no file headers found (expected `diff --git a/... b/...` or `--- a/...` / `+++ b/...`)")
    starts = [_start_line(pf, lines) for pf in patch_set]
    hunks = _collect_hunks(lines, starts)
    # Hunk-less entries are refused twice on purpose: here as unidiff reads them, before git's reading can
    # word the same entry less plainly; below as git reads them, which may differ in what the entry is.
    for pf, start, file_hunks in zip(patch_set, starts, hunks):
        if not file_hunks and not _declares_change_without_lines(pf):
            _refuse_without_hunks(_unidiff_path(pf), start, lines)
    # What git reads decides the names, modes and kinds: judge must see the files git writes.
    entries = _owned_entries(read_as_git(lines, complete=complete), starts, lines)
    files = tuple(_file_change(start, file_hunks, entry, lines)
                  for start, file_hunks, entry in zip(starts, hunks, entries))
    for change in files:
        if not change.hunks and not change.changes_without_lines:
            _refuse_without_hunks(change.path, change.line, lines)
    return PatchFacts(files)


def _refuse_without_hunks(path: str, line: int, lines: list[str]) -> None:
    raise MalformedPatch(f"file {path} has a header but no @@ hunks (a text change needs hunks; truncated?): "
                         f"{_quote(lines[line - 1])}", line)


_CHANGE_WITHOUT_LINES = ("new file mode ", "deleted file mode ", "rename from ", "rename to ", "copy from ", "copy to ",
                         "old mode ", "new mode ", "GIT binary patch", "Binary files ")


def _declares_change_without_lines(pf) -> bool:
    """A header line that could make an entry a change without hunks (git's reading decides later)."""
    return bool(pf.is_binary_file) or any(line.startswith(_CHANGE_WITHOUT_LINES) for line in pf.patch_info or ())


def _unidiff_path(pf) -> str:
    source, target = strip_prefixes(unquote_git_path(pf.source_file or ""), unquote_git_path(pf.target_file or ""))
    return normalize_path(target if target not in (DEV_NULL, "") else source)


def _owned_entries(entries: tuple[GitEntry, ...], starts: list[int], lines: list[str]) -> list[GitEntry]:
    """Each file entry judge read, paired with the one git read there (by position). An entry only one of
    them reads (git skips a bare `Binary files ... differ` as prose, say) is malformed."""
    owned: list[GitEntry | None] = [None] * len(starts)
    for entry in entries:
        owner = bisect_right(starts, entry.line) - 1
        if owner < 0 or owned[owner] is not None:
            raise MalformedPatch(f"git apply reads a file entry at line {entry.line} ({_quote(lines[entry.line - 1])}) "
                                 "that is not a file entry of its own here; produce the patch with `git diff`",
                                 entry.line)
        owned[owner] = entry
    for start, entry in zip(starts, owned):
        if entry is None:
            raise MalformedPatch(f"git apply does not read the entry at line {start} ({_quote(lines[start - 1])}) as "
                                 "a file: it skips it as prose (a `Binary files ... differ` line needs its "
                                 "`diff --git` header, and carries no content); produce the patch with "
                                 "`git diff --binary`", start)
    return owned  # type: ignore[return-value]


def _start_line(pf, lines: list[str]) -> int:
    """The 1-based line where a file's entry starts: its `diff --git` line, or a plain diff's header block."""
    is_git = any(line.startswith("diff --git ") for line in (pf.patch_info or ()))
    return pf.diff_line_no if is_git else entry_start(lines, pf.diff_line_no or 1)


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


def _quote(fragment: str) -> str:
    return quote_line(fragment.rstrip("\n"))


def _collect_hunks(lines: list[str], starts: list[int]) -> list[list[Hunk]]:
    """Walk the hunks unidiff already validated, keeping their +/- lines, and reject stray body lines.

    A hunk belongs to the last file entry that starts above it.
    """
    per_file: list[list[Hunk]] = [[] for _ in starts]
    index = 0
    while index < len(lines):
        line = lines[index]
        header = HUNK_HEADER.match(line) if line.startswith("@@") else None  # the pattern starts with ^@@
        if header is None:
            if line.startswith(("@@", "+++ ")):  # the only lines _reject_header_debris may refuse
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
    return Hunk(start + 1, lines[start].rstrip("\r"), tuple(body), added, removed, int(header.group(1)),
                int(header.group(3)), (header.group(5) or "").rstrip("\r")), index


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


def _file_change(start: int, hunks: list[Hunk], entry: GitEntry, lines: list[str]) -> FileChange:
    check_entry_names(entry, lines[entry.line - 1])
    if has_unsafe_written_name(entry):
        old_path, new_path = entry.written_names  # no side dropped: unsafe_path must see the unsafe one
    else:
        old_path = None if entry.is_new == 1 else entry.old_name
        new_path = None if entry.is_delete == 1 else entry.new_name
        if not entry.is_git and len(hunks) == 1:
            old_path, new_path = plain_diff_creation(hunks[0], old_path, new_path)
    old_path = None if old_path is None else normalize_path(old_path)
    new_path = None if new_path is None else normalize_path(new_path)
    return FileChange(
        old_path=old_path,
        new_path=new_path,
        line=start,
        hunks=tuple(hunks),
        is_binary=entry.is_binary,
        binary_placeholder=entry.binary_placeholder,
        is_rename=entry.is_rename and None not in (old_path, new_path) and old_path != new_path,
        is_copy=entry.is_copy,
        old_mode=_mode(entry.old_mode),
        new_mode=_mode(entry.new_mode),
    )


def _mode(mode: int | None) -> str | None:
    return None if mode is None else format(mode, "o")
