"""How `git apply` reads a patch before it touches a file: apply.c's parser, ported, refusing what git refuses.

judge must never accept a patch git calls corrupt, and must read each file entry under the name git
writes. So this module walks the lines exactly as git's parser does (find_header, the git extended
header, fragments, binary hunks; `git apply --numstat`, which needs no base files) and returns what
git read: one GitEntry per file, with git's names, modes and kind. Every refusal is a MalformedPatch
naming the line. Checked against git itself by tests/patch/test_parse_git_differential.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import accumulate
from typing import Callable

from judge.errors import MalformedPatch, quote_line
from judge.lazy_pattern import lazy_compile
from judge.patch.binary import BinaryBudget, read_binary_patch
from judge.patch.git_names import (C_SPACE, find_name, find_name_traditional, git_header_name, has_epoch_timestamp,
                                   is_dev_null)
from judge.patch.model import fact

__all__ = ["FRAGMENT", "GitEntry", "canonical_mode", "check_kind_against_hunks", "count_hunk", "read_as_git",
           "read_git_header"]

DEV_NULL = "/dev/null"

# `@@ -12,7 +12,8 @@ anything`: git's parse_fragment_header (the counts default to 1).
FRAGMENT = lazy_compile(r"@@ -([0-9]+)(?:,([0-9]+))? \+([0-9]+)(?:,([0-9]+))? @@")
# strtoul(line, &end, 8) as git reads a mode: white space, a sign, octal digits, then white space.
_MODE = lazy_compile(r"[ \t\n\v\f\r]*([+-]?)([0-7]+)(?=[ \t\n\v\f\r])")
_HEXSZ = 40  # git outside a repository reads SHA-1 object names


@dataclass
class GitEntry:
    """One file as git reads it: names after -p, the kind of change, its modes and line counts."""

    line: int  # 1-based line of its `diff --git` or `---` line
    is_git: bool
    old_name: str | None = None
    new_name: str | None = None
    def_name: str | None = None  # the name a `diff --git` line gives when both its sides agree
    is_new: int = -1  # git's tri-state: -1 unknown, 0 no, 1 yes
    is_delete: int = -1
    is_rename: bool = False
    is_copy: bool = False
    old_mode: int | None = None
    new_mode: int | None = None
    is_binary: bool = False
    binary_placeholder: bool = False
    plain_names: tuple[str | None, str | None] = (None, None)  # a plain diff's `---` and `+++` names, each alone
    written_names: tuple[str | None, str | None] = (None, None)  # the same, no leading directory dropped
    p_value: int = 1  # leading directories git drops from a plain diff's names
    hunk_count: int = 0
    old_lines: int = 0
    new_lines: int = 0
    extension_line: int = 0


def read_as_git(lines: list[str], complete: bool) -> tuple[GitEntry, ...]:
    """The file entries git reads in ``lines`` (the patch split on "\\n"; ``complete``: it ended in "\\n")."""
    return _GitReader(lines, complete).read()


def read_git_header(lines: list[str], index: int, complete: bool) -> tuple[GitEntry, int]:
    """The `diff --git` header at ``index`` as git reads it, and the index of the line that ends it (its first
    hunk's header, or a line git does not know). Read at -p1: git keeps that value until a plain diff's
    `---`/`+++` pair, so this is how git reads every header of a patch that has no plain-diff entry."""
    return _GitReader(lines, complete)._git_header(index)


def count_hunk(entry: GitEntry, old_lines: int, new_lines: int) -> None:
    """Add one hunk git read whole (`@@ -a,OLD +c,NEW @@`) to ``entry``."""
    entry.hunk_count += 1
    entry.old_lines += old_lines
    entry.new_lines += new_lines


def check_kind_against_hunks(entry: GitEntry) -> None:
    """After an entry's hunks: what they remove and keep must fit a created or deleted file (git's
    checks once it read the fragments); settles an unknown kind as git does."""
    if entry.is_new < 0 and (entry.old_lines or entry.hunk_count > 1):
        entry.is_new = 0
    if entry.is_delete < 0 and (entry.new_lines or entry.hunk_count > 1):
        entry.is_delete = 0
    if entry.is_new > 0 and entry.old_lines:
        raise MalformedPatch(f"the file {entry.new_name} is created by the entry at line {entry.line} but its "
                             "hunks remove lines from it (git: new file depends on old contents)", entry.line)
    if entry.is_delete > 0 and entry.new_lines:
        raise MalformedPatch(f"the file {entry.old_name} is deleted by the entry at line {entry.line} but its "
                             "hunks leave lines in it (git: deleted file still has contents)", entry.line)


def canonical_mode(mode: int) -> int:
    """git's canon_mode: a regular file is 100644 or 100755; a symlink, directory or anything else one value."""
    kind = mode & 0o170000
    if kind == 0o100000:
        return 0o100755 if mode & 0o111 else 0o100644
    if kind in (0o120000, 0o040000):
        return kind
    return 0o160000


class _GitReader:
    """The walk of git's apply_patch over one patch: the state it keeps between entries is the -p value."""

    def __init__(self, lines: list[str], complete: bool) -> None:
        self.lines = lines
        self.complete = complete
        self.p_value = 1
        self.p_known = False
        self.budget = BinaryBudget()

    @fact
    def sizes(self) -> list[int]:
        """Each line's bytes with its line end (an ASCII line's length is its size: no need to encode it).
        Made on first use: reading one `diff --git` header (read_git_header) needs none."""
        sizes = [(len(line) if line.isascii() else len(line.encode("utf-8", "surrogateescape"))) + 1
                 for line in self.lines]
        if sizes and not self.complete:
            sizes[-1] -= 1
        return sizes

    @fact
    def remaining(self) -> list[int]:
        """Bytes from the start of each line to the end of the patch."""
        remaining = list(accumulate(reversed(self.sizes), initial=0))
        remaining.reverse()
        return remaining

    def read(self) -> tuple[GitEntry, ...]:
        entries: list[GitEntry] = []
        index = 0
        while index < len(self.lines):
            found = self._find_header(index)
            if found is None:
                break
            entry, index = found
            index = self._read_body(entry, index)
            entries.append(entry)
        if not entries:
            raise MalformedPatch("git apply finds no file in it (no `diff --git` header, and no `---`/`+++` "
                                 "pair followed by an @@ hunk); produce the patch with `git diff`")
        return tuple(entries)

    def _ends_line(self, index: int) -> bool:
        return index < len(self.lines) - 1 or (index == len(self.lines) - 1 and self.complete)

    # --- find_header ---------------------------------------------------------------------------------

    def _find_header(self, index: int) -> tuple[GitEntry, int] | None:
        lines = self.lines
        while index < len(lines):
            line, size = lines[index], self.sizes[index]
            if size < 6:
                index += 1
                continue
            if line.startswith("@@ -") and self._fragment_counts(index) is not None:
                raise MalformedPatch(f"line {index + 1} {quote_line(line)} is a hunk with no file header above it "
                                     "(git: patch fragment without header); every hunk follows its file's "
                                     "`---`/`+++` lines", index + 1)
            if self.remaining[index] < size + 6:
                break
            if line.startswith("diff --git "):
                entry, end = self._git_header(index)
                if end > index + 1:
                    return entry, end
            elif self._traditional_header_at(index):
                return self._traditional(index), index + 2
            index += 1
        return None

    def _traditional_header_at(self, index: int) -> bool:
        lines = self.lines
        if not (lines[index].startswith("--- ") and index + 1 < len(lines) and lines[index + 1].startswith("+++ ")):
            return False
        return self.remaining[index] >= self.sizes[index + 1] + 14 and index + 2 < len(lines) \
            and lines[index + 2].startswith("@@ -")

    # --- plain diffs -------------------------------------------------------------------------------

    def _traditional(self, index: int) -> GitEntry:
        first, second = self.lines[index][4:], self.lines[index + 1][4:]
        if not self.p_known:
            p, q = _guess_p_value(first), _guess_p_value(second)
            p = q if p < 0 else p
            if 0 <= p == q:
                self.p_value, self.p_known = p, True
        if is_dev_null(first) and is_dev_null(second):
            raise MalformedPatch(f"the `---` and `+++` lines at line {index + 1} are both /dev/null: the entry "
                                 "names no file (git apply would create one called dev/null); name the file as "
                                 "`--- /dev/null` / `+++ b/PATH`", index + 1)
        entry = GitEntry(line=index + 1, is_git=False, p_value=self.p_value)
        entry.plain_names = (None if is_dev_null(first) else find_name_traditional(first, None, self.p_value),
                             None if is_dev_null(second) else find_name_traditional(second, None, self.p_value))
        entry.written_names = (None if is_dev_null(first) else find_name_traditional(first, None, 0),
                               None if is_dev_null(second) else find_name_traditional(second, None, 0))
        if is_dev_null(first):
            entry.is_new, entry.is_delete = 1, 0
            name = entry.new_name = find_name_traditional(second, None, self.p_value)
        elif is_dev_null(second):
            entry.is_new, entry.is_delete = 0, 1
            name = entry.old_name = find_name_traditional(first, None, self.p_value)
        else:
            first_name = find_name_traditional(first, None, self.p_value)
            name = find_name_traditional(second, first_name, self.p_value)
            if has_epoch_timestamp(first):
                entry.is_new, entry.is_delete, entry.new_name = 1, 0, name
            elif has_epoch_timestamp(second):
                entry.is_new, entry.is_delete, entry.old_name = 0, 1, name
            else:
                entry.old_name = entry.new_name = name
        if name is None:
            raise MalformedPatch(f"git finds no file name in the `---`/`+++` lines at line {index + 1} "
                                 f"({quote_line(self.lines[index])}); name the file as `--- a/PATH` / `+++ b/PATH`",
                                 index + 1)
        return entry

    # --- the git extended header ---------------------------------------------------------------------

    def _git_header(self, index: int) -> tuple[GitEntry, int]:
        entry = GitEntry(line=index + 1, is_git=True, is_new=0, is_delete=0)
        entry.def_name = git_header_name(self.p_value, self.lines[index][len("diff --git ") :] + "\n")
        end = index + 1
        last = len(self.lines) - 1 if self.complete else len(self.lines) - 2  # the last line with its line end
        while end <= last:
            done = _HeaderLine(self, entry, end).apply()
            extensions = (entry.is_delete == 1) + (entry.is_new == 1) + entry.is_rename + entry.is_copy
            if extensions > 1:
                raise MalformedPatch(
                    f"the header lines {entry.extension_line} and {end + 1} contradict each other "
                    f"({quote_line(self.lines[end])} after a file was already said to be created, deleted, renamed or "
                    "copied; git: inconsistent header lines); a file entry is one of these at most", end + 1)
            if extensions and not entry.extension_line:
                entry.extension_line = end + 1
            if done:
                break
            end += 1
        self._check_git_names(entry, end)
        return entry, end

    def _check_git_names(self, entry: GitEntry, end: int) -> None:
        if entry.old_name is None and entry.new_name is None:
            if entry.def_name is None:
                raise MalformedPatch(
                    f"the `diff --git` header at line {entry.line} gives git no file name "
                    f"({quote_line(self.lines[entry.line - 1])}: its two sides must name the same file as "
                    "`a/PATH b/PATH`, or `---`/`+++` or rename lines must name it)", entry.line)
            entry.old_name = entry.new_name = entry.def_name
        if (entry.new_name is None and entry.is_delete != 1) or (entry.old_name is None and entry.is_new != 1):
            raise MalformedPatch(f"the git header at line {entry.line} lacks a file name (line {end + 1}): a file "
                                 "that is neither created nor deleted needs both its old and new name", entry.line)

    # --- hunks and binary data ---------------------------------------------------------------------

    def _read_body(self, entry: GitEntry, index: int) -> int:
        while index < len(self.lines) and self.remaining[index] > 4 and self.lines[index].startswith("@@ -"):
            index = self._fragment(entry, index)
        if entry.hunk_count:
            check_kind_against_hunks(entry)
            return index
        line = self.lines[index] if index < len(self.lines) else ""
        if line == "GIT binary patch" and self._ends_line(index):
            entry.is_binary = True
            return read_binary_patch(self.lines, index + 1, self.complete, self.budget)
        if self._ends_line(index) and line.endswith(" differ") and line.startswith(("Binary files ", "Files ")):
            entry.is_binary = entry.binary_placeholder = True
            return index + 1
        return index

    def _fragment_counts(self, index: int) -> tuple[int, int] | None:
        match = FRAGMENT.match(self.lines[index]) if self._ends_line(index) else None
        if match is None:
            return None
        return int(match.group(2) or 1), int(match.group(4) or 1)

    def _fragment(self, entry: GitEntry, start: int) -> int:
        counts = self._fragment_counts(start)
        if counts is None:
            raise _corrupt(start, "is not a complete hunk header `@@ -a,b +c,d @@`", self.lines[start])
        old, new = counts
        changed = 0
        index = start + 1
        lines, sizes = self.lines, self.sizes
        cut_at = len(lines) - 1 if not self.complete else -1  # the last line, when the patch lacks a final line end
        while index < len(lines) and (old or new):
            line = lines[index]
            if index == cut_at:
                raise _corrupt(index, "is cut off: the patch ends inside a hunk, without a line end", line)
            kind = line[:1]
            if kind in ("", " "):
                old, new = old - 1, new - 1
            elif kind == "-":
                old, changed = old - 1, changed + 1
            elif kind == "+":
                new, changed = new - 1, changed + 1
            elif kind != "\\" or sizes[index] < 12 or not line.startswith("\\ "):
                raise _corrupt(index, "does not start with ' ', '+', '-' or '\\ ' inside a hunk", line)
            if old < 0 or new < 0:
                raise _corrupt(index, "is past the lines the hunk header counts", line)
            index += 1
        if old or new:
            raise _corrupt(start, "counts more lines than the patch has (truncated patch or wrong counts)",
                           self.lines[start])
        if not changed:
            raise _corrupt(start, "changes nothing: a hunk needs at least one + or - line", self.lines[start])
        if index < len(self.lines) and self.remaining[index] > 12 and self.lines[index].startswith("\\ "):
            index += 1
        count_hunk(entry, *counts)
        return index


class _HeaderLine:
    """One line of a git extended header, applied to the entry as git's optable does."""

    _TABLE = (("@@ -", "end"), ("--- ", "old_name"), ("+++ ", "new_name"), ("old mode ", "old_mode"),
              ("new mode ", "new_mode"), ("deleted file mode ", "deleted"), ("new file mode ", "new_file"),
              ("copy from ", "copy_from"), ("copy to ", "copy_to"), ("rename old ", "rename_from"),
              ("rename new ", "rename_to"), ("rename from ", "rename_from"), ("rename to ", "rename_to"),
              ("similarity index ", "ignored"), ("dissimilarity index ", "ignored"), ("index ", "index"))

    def __init__(self, reader: _GitReader, entry: GitEntry, index: int) -> None:
        self.reader, self.entry, self.index = reader, entry, index
        self.line = reader.lines[index]

    def apply(self) -> bool:
        """True when the header ends at this line (a hunk or a line git does not know)."""
        for prefix, action in _HEADER_ACTIONS.get(self.line[:1], ()):
            if self.line.startswith(prefix):
                self.rest = self.line[len(prefix) :]
                return action(self)
        return True

    def _end(self) -> bool:
        return True

    def _ignored(self) -> bool:
        return False

    def _window(self, text: str) -> str:
        """``text`` and the lines after it, as git's C string functions see them running past a line's end."""
        following = self.reader.lines[self.index + 1 : self.index + 4]
        return "\n".join([text, *following]) + ("\n" if self.index + 4 >= len(self.reader.lines) and
                                                  self.reader.complete else "")

    def _mode(self, text: str) -> int:
        # The window matters only when the text is all white space (the match would read on into the next
        # lines); otherwise what follows the text there is a line end, when there is one.
        match = _MODE.match(text + "\n" if self.reader._ends_line(self.index) and text.strip(C_SPACE) else self._window(text))
        if match is None:
            raise MalformedPatch(f"line {self.index + 1} {quote_line(self.line)} has no valid octal file mode "
                                 "(git: invalid mode); write modes as git does, e.g. `100644` or `100755`",
                                 self.index + 1)
        value = int(match.group(2), 8) & 0xFFFFFFFF
        return canonical_mode((-value) & 0xFFFFFFFF if match.group(1) == "-" else value)

    def _verify(self, current: str | None, is_null: bool, side: str) -> str | None:
        found = find_name(self.rest, None, self.reader.p_value)
        if current is None and not is_null:
            return found
        if current is not None and (is_null or found != current):
            expected = DEV_NULL if is_null else current
            raise MalformedPatch(f"line {self.index + 1} {quote_line(self.line)} names the {side} file differently "
                                 f"from the lines above it ({expected!r}); a patch must name each file the same "
                                 "way everywhere", self.index + 1)
        if current is None and not is_dev_null(self.rest):
            raise MalformedPatch(f"line {self.index + 1} {quote_line(self.line)} must be `/dev/null`: the header says "
                                 f"the file is {'created' if side == 'old' else 'deleted'}", self.index + 1)
        return current

    def _old_name(self) -> bool:
        self.entry.old_name = self._verify(self.entry.old_name, self.entry.is_new == 1, "old")
        return False

    def _new_name(self) -> bool:
        self.entry.new_name = self._verify(self.entry.new_name, self.entry.is_delete == 1, "new")
        return False

    def _old_mode(self) -> bool:
        self.entry.old_mode = self._mode(self.rest)
        return False

    def _new_mode(self) -> bool:
        self.entry.new_mode = self._mode(self.rest)
        return False

    def _deleted(self) -> bool:
        self.entry.is_delete, self.entry.old_name = 1, self.entry.def_name
        return self._old_mode()

    def _new_file(self) -> bool:
        self.entry.is_new, self.entry.new_name = 1, self.entry.def_name
        return self._new_mode()

    def _extension_name(self) -> str | None:
        p_value = self.reader.p_value
        return find_name(self.rest, None, p_value - 1 if p_value else 0, terminate=0)

    def _copy_from(self) -> bool:
        self.entry.is_copy, self.entry.old_name = True, self._extension_name()
        return False

    def _copy_to(self) -> bool:
        self.entry.is_copy, self.entry.new_name = True, self._extension_name()
        return False

    def _rename_from(self) -> bool:
        self.entry.is_rename, self.entry.old_name = True, self._extension_name()
        return False

    def _rename_to(self) -> bool:
        self.entry.is_rename, self.entry.new_name = True, self._extension_name()
        return False

    def _index(self) -> bool:
        """`index 1a2b..3c4d 100644`: git reads the mode after the object names, when there is one."""
        rest = self.rest
        dots = rest.find(".", 0, _HEXSZ + 1)
        if 0 <= dots < len(rest) - 1:  # everything git reads here is on this line
            if rest[dots + 1] != ".":
                return False
            after = rest[dots + 2 :]
            space = after.find(" ")
            if 0 <= space <= _HEXSZ:
                self.entry.old_mode = self._mode(after[space + 1 :])
            return False
        window = self._window(rest)
        dots = window.find(".", 0, _HEXSZ + 1)
        if dots < 0 or window[dots + 1 : dots + 2] != ".":
            return False
        after = window[dots + 2 :]
        space, line_end = after.find(" "), after.find("\n")
        line_end = len(after) if line_end < 0 else line_end
        end = line_end if space < 0 or line_end < space else space
        if end <= _HEXSZ and after[end : end + 1] == " ":
            self.entry.old_mode = self._mode(after[end + 1 :].split("\n", 1)[0])
        return False


def _by_first_character(table: tuple[tuple[str, str], ...]) -> dict[str, tuple[tuple[str, Callable[[_HeaderLine], bool]], ...]]:
    """_HeaderLine._TABLE grouped by the first character of each prefix, the table's order kept within a group."""
    grouped: dict[str, tuple[tuple[str, Callable[[_HeaderLine], bool]], ...]] = {}
    for prefix, action in table:
        grouped[prefix[0]] = grouped.get(prefix[0], ()) + ((prefix, getattr(_HeaderLine, "_" + action)),)
    return grouped


_HEADER_ACTIONS = _by_first_character(_HeaderLine._TABLE)


def _guess_p_value(rest: str) -> int:
    if is_dev_null(rest):
        return -1
    name = find_name_traditional(rest, None, 0)
    if name is None:
        return -1
    return 0 if "/" not in name else -1


def _corrupt(index: int, problem: str, line: str) -> MalformedPatch:
    return MalformedPatch(f"line {index + 1} {quote_line(line)} {problem} (git: corrupt patch at line {index + 1})",
                          index + 1)
