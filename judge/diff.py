"""Facts about a unified diff: which files it changes, how, and which lines.

unidiff parses the structure (git, hg, svn, bzr and plain ``diff -u`` headers,
binary markers, hunk counts) in its cheap ``metadata_only`` mode; a second,
lighter pass over the same lines collects the added and removed lines of each
hunk, so a multi-megabyte patch never becomes one Python object per line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from unidiff import PatchSet
from unidiff.constants import RE_HUNK_HEADER
from unidiff.errors import UnidiffParseError

from judge.paths import unquote_git_path

__all__ = ["FileChange", "Hunk", "MalformedPatch", "PatchFacts", "parse_patch", "undo_transport_crlf"]

DEV_NULL = "/dev/null"

# Pairs of (source, target) path prefixes git writes: a/ b/ by default, the mnemonic
# ones of diff.mnemonicPrefix, 1/ 2/ of `git diff --no-index`; `git diff -R` swaps them.
_FORWARD_PAIRS = {("a", "b"), ("c", "w"), ("i", "w"), ("c", "i"), ("o", "w"), ("1", "2")}
_GIT_PREFIX_PAIRS = frozenset(_FORWARD_PAIRS | {(t, s) for s, t in _FORWARD_PAIRS})



class MalformedPatch(ValueError):
    """The patch is not a unified diff that could be applied and rolled back safely."""

    def __init__(self, problem: str, line: int | None = None) -> None:
        self.problem = problem
        self.line = line
        super().__init__(problem if line is None else f"{problem} (patch line {line})")


@dataclass(frozen=True)
class Hunk:
    """One ``@@ -a,b +c,d @@`` block: where it starts, and its body lines in order."""

    line: int  # 1-based line of the hunk header within the patch
    header: str
    body: tuple[str, ...]  # each line with its ' ', '+' or '-' and without its line end
    added_count: int
    removed_count: int

    @property
    def added(self) -> tuple[str, ...]:
        return tuple(line[1:] for line in self.body if line[0] == "+")

    @property
    def removed(self) -> tuple[str, ...]:
        return tuple(line[1:] for line in self.body if line[0] == "-")


@dataclass(frozen=True)
class FileChange:
    """One file's entry in a patch. Paths are repository-relative, unquoted, prefix-free."""

    old_path: str | None  # None when the patch creates the file
    new_path: str | None  # None when the patch deletes the file
    line: int  # 1-based line where this file's entry starts
    hunks: tuple[Hunk, ...]
    is_binary: bool = False
    is_rename: bool = False
    is_copy: bool = False
    old_mode: str | None = None
    new_mode: str | None = None

    @property
    def path(self) -> str:
        """The path the change leaves behind (the old one for a deletion)."""
        return self.new_path if self.new_path is not None else self.old_path  # type: ignore[return-value]

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path this change writes to: both ends of a rename; a copy writes only its new file."""
        if self.is_copy:
            return (self.path,)
        return tuple(dict.fromkeys(p for p in (self.old_path, self.new_path) if p is not None))

    @property
    def is_added(self) -> bool:
        return self.old_path is None

    @property
    def is_deleted(self) -> bool:
        return self.new_path is None

    @property
    def is_mode_change(self) -> bool:
        return self.old_mode is not None and self.new_mode is not None and self.old_mode != self.new_mode

    @property
    def added_count(self) -> int:
        return sum(h.added_count for h in self.hunks)

    @property
    def removed_count(self) -> int:
        return sum(h.removed_count for h in self.hunks)

    @property
    def changes_without_lines(self) -> bool:
        """A real change that needs no +/- lines: new/deleted/renamed/copied file, binary, chmod."""
        return self.is_added or self.is_deleted or self.is_rename or self.is_copy or self.is_binary or self.is_mode_change


@dataclass(frozen=True)
class PatchFacts:
    """Everything the rules need to know about a patch."""

    files: tuple[FileChange, ...]

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path the patch writes to, in patch order, without repeats."""
        return tuple(dict.fromkeys(p for f in self.files for p in f.paths))

    @property
    def added_count(self) -> int:
        return sum(f.added_count for f in self.files)

    @property
    def removed_count(self) -> int:
        return sum(f.removed_count for f in self.files)


def parse_patch(text: str) -> PatchFacts:
    """Parse ``text`` as a unified diff, or raise MalformedPatch naming the problem and the line."""
    text = undo_transport_crlf(text)
    lines = _blank_email_prose(_split_lines(text))
    reader = _CountingLines(lines)
    try:
        patch_set = PatchSet(reader, metadata_only=True)
    except UnidiffParseError as exc:
        raise MalformedPatch(_describe_unidiff_error(str(exc), lines, reader.count), reader.count) from None
    except Exception as exc:  # a parser bug must still read as "malformed", never as a crash
        raise MalformedPatch(f"unparseable diff ({type(exc).__name__})", reader.count) from None
    if not patch_set:
        raise MalformedPatch("no file headers found (expected `diff --git a/... b/...` or `--- a/...` / `+++ b/...`)")
    hunks = _collect_hunks(lines, [len(f) for f in patch_set])
    files = tuple(_file_change(pf, file_hunks, lines) for pf, file_hunks in zip(patch_set, hunks))
    for change in files:
        if not change.hunks and not change.changes_without_lines:
            raise MalformedPatch(
                f"file {change.path} has a header but no @@ hunks (a text change needs hunks; truncated?)",
                change.line,
            )
    return PatchFacts(files)


# A header line that ends in LF alone: proof the patch was not converted to CRLF as a whole.
_LF_HEADER = re.compile(r"^(?:diff |--- |\+\+\+ |@@ )[^\n]*(?<!\r)\n", re.MULTILINE)


def undo_transport_crlf(text: str) -> str:
    """The patch as it was made: CRLF line ends undone when the whole patch was converted to CRLF in transit."""
    return text.replace("\r\n", "\n") if _is_crlf_transported(text) else text


def _is_crlf_transported(text: str) -> bool:
    """A patch saved or sent with CRLF line ends: every line, headers included, ends in CRLF.

    Then each CRLF is one line end; a file's own CRs (CRLF content) are the extra CR before it.
    """
    first_end = text.find("\n")
    return first_end > 0 and text[first_end - 1] == "\r" and _LF_HEADER.search(text) is None


def _split_lines(text: str) -> list[str]:
    """Lines without their "\\n" (split on "\\n" only: a CR inside a line, as in CRLF files, is content).

    Hunk bodies keep these very string objects, so a big patch is held in memory about once.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# `From 62ea0ea... Mon Sep 17 00:00:00 2001`: the first line of each mail `git format-patch` writes.
_MAIL_FROM = re.compile(r"^From [0-9a-f]{7,40} ")


def _blank_email_prose(lines: list[str]) -> list[str]:
    """A commit message may quote a hunk header; only those `@@` lines are blanked, so they cannot start
    a hunk. The message runs from a mail's `From <sha>` line to its `---` separator (or the first
    `diff --git`); anything else in it stays, so a diff hidden there is still read (and refused)."""
    out: list[str] = []
    in_prose = False
    for line in lines:
        if _MAIL_FROM.match(line):
            in_prose = True
        elif line.rstrip("\r") == "---" or line.startswith("diff --git "):
            in_prose = False
        out.append("" if in_prose and line.startswith("@@") else line)
    return out


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


def _collect_hunks(lines: list[str], hunks_per_file: list[int]) -> list[list[Hunk]]:
    """Walk the hunks unidiff already validated, keeping their +/- lines, and reject stray body lines."""
    per_file: list[list[Hunk]] = [[] for _ in hunks_per_file]
    owner = [i for i, n in enumerate(hunks_per_file) for _ in range(n)]
    index = 0
    hunk_no = 0
    while index < len(lines):
        header = RE_HUNK_HEADER.match(lines[index])
        if header is None:
            _reject_header_debris(lines, index)
            index += 1
            continue
        hunk, index = _read_hunk(lines, index, header)
        if hunk_no < len(owner):
            per_file[owner[hunk_no]].append(hunk)
        hunk_no += 1
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


def _file_change(pf, hunks: list[Hunk], lines: list[str]) -> FileChange:
    info = [line.rstrip("\r\n") for line in (pf.patch_info or ())]
    is_git = any(line.startswith("diff --git ") for line in info)
    source, target = unquote_git_path(pf.source_file or ""), unquote_git_path(pf.target_file or "")
    source, target = _strip_prefixes(source, target)
    old_path = None if source in (DEV_NULL, "") and target else source
    new_path = None if target == DEV_NULL else target
    if not is_git and len(hunks) == 1:
        old_path, new_path = _plain_diff_creation(hunks[0], old_path, new_path)
    if is_git:
        old_path, new_path = _git_names(lines, pf.diff_line_no or 1, old_path, new_path)
    is_copy = any(line.startswith("copy from ") for line in info)
    is_rename = is_git and not is_copy and None not in (old_path, new_path) and old_path != new_path
    if not is_git and old_path is not None and new_path is not None:
        old_path = new_path  # plain `diff -u old new`: the target name is the file's name
    return FileChange(
        old_path=old_path,
        new_path=new_path,
        line=pf.diff_line_no if is_git else _entry_start(lines, pf.diff_line_no or 1),
        hunks=tuple(hunks),
        is_binary=bool(pf.is_binary_file),
        is_rename=is_rename,
        is_copy=is_copy,
        old_mode=_mode(info, "old mode "),
        new_mode=_mode(info, "new mode "),
    )


def _git_names(lines: list[str], start: int, old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """The names git itself applies: `rename/copy from/to` win over the `diff --git` line, and the
    `---`/`+++` lines must agree with them. A disagreement is how a patch smuggles a change past
    a reader that trusts one line while `git apply` trusts another: it is malformed."""
    header: dict[str, str] = {}
    for line in lines[start : start + 40]:
        line = line.rstrip("\r\n")
        if line.startswith(("@@", "diff --git ")):
            break
        for key in ("rename from ", "rename to ", "copy from ", "copy to ", "--- ", "+++ "):
            if line.startswith(key):
                header[key] = unquote_git_path(line[len(key) :].split("\t")[0])
    old = header.get("rename from ", header.get("copy from ", old))
    new = header.get("rename to ", header.get("copy to ", new))
    if "--- " in header or "+++ " in header:
        source, target = _strip_prefixes(header.get("--- ", DEV_NULL), header.get("+++ ", DEV_NULL))
        for said, named, key in ((source, old, "--- "), (target, new, "+++ ")):
            if key in header and said != (named if named is not None else DEV_NULL):
                raise MalformedPatch(
                    f"the {key.strip()} line names {said!r} but the git header says {named or DEV_NULL!r}: "
                    "a patch must name each file the same way everywhere",
                    start,
                )
    return old, new


def _entry_start(lines: list[str], target_line: int) -> int:
    """A plain diff's entry starts above its `+++` line: at `---`, or at a `diff`/`Index:` line above that."""
    index = target_line - 1
    if index > 0 and lines[index - 1].startswith("--- "):
        index -= 1
    while index > 0 and lines[index - 1].startswith(("diff ", "Index: ", "====", "=== ")):
        index -= 1
    return index + 1


def _strip_prefixes(source: str, target: str) -> tuple[str, str]:
    """Drop git's a/ b/ (or mnemonic) prefixes when the two sides carry a matching pair."""
    src = None if source == DEV_NULL else source
    tgt = None if target == DEV_NULL else target
    src_letter, tgt_letter = _prefix_letter(src), _prefix_letter(tgt)
    if src is not None and tgt is not None:
        matched = (src_letter, tgt_letter) in _GIT_PREFIX_PAIRS
    elif src is not None:
        matched = src_letter in {s for s, _ in _GIT_PREFIX_PAIRS}
    elif tgt is not None:
        matched = tgt_letter in {t for _, t in _GIT_PREFIX_PAIRS}
    else:
        matched = False
    if not matched:
        return source, target
    return (source if src is None else src[2:]), (target if tgt is None else tgt[2:])


def _prefix_letter(path: str | None) -> str | None:
    return path[0] if path is not None and len(path) > 2 and path[1] == "/" else None


def _plain_diff_creation(hunk: Hunk, old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """bzr and plain diffs mark a created/deleted file by an empty side (`@@ -0,0`), not /dev/null."""
    match = RE_HUNK_HEADER.match(hunk.header)
    if match is None:
        return old, new
    src_start, src_len = int(match.group(1)), 1 if match.group(2) is None else int(match.group(2))
    tgt_start, tgt_len = int(match.group(3)), 1 if match.group(4) is None else int(match.group(4))
    if src_start == 0 and src_len == 0 and tgt_len > 0 and new is not None:
        return None, new
    if tgt_start == 0 and tgt_len == 0 and src_len > 0 and old is not None:
        return old, None
    return old, new


def _mode(info: list[str], prefix: str) -> str | None:
    return next((line[len(prefix) :].strip() for line in info if line.startswith(prefix)), None)
