"""Which file a diff entry names: git's a/ b/ prefixes, rename and copy lines, plain diffs' empty sides.

A patch must name each file the same way everywhere: a disagreement between lines is how a
patch smuggles a change past a reader that trusts one line while `git apply` trusts another.
"""

from __future__ import annotations

from judge.errors import MalformedPatch, quote_line
from judge.patch.git_apply import GitEntry
from judge.patch.grammar import DEV_NULL, GIT_PREFIX_PAIRS, HUNK_HEADER
from judge.patch.model import Hunk
from judge.patch.paths import unsafe_reason

__all__ = ["check_entry_names", "entry_start", "has_unsafe_written_name", "plain_diff_creation", "strip_prefixes"]


def check_entry_names(entry: GitEntry, header: str) -> None:
    """One file entry names one file, unless a git header says it renames or copies it.

    Otherwise readers disagree on the file: for `--- a/setup.py` / `+++ b/setup.py.md` git apply and
    patch write setup.py while a reader of the `+++` line sees a Markdown file. ``header`` is the
    entry's first line, quoted in the message.
    """
    if entry.is_git:
        if entry.is_rename or entry.is_copy:
            return
        named = [name for name in (entry.old_name, entry.new_name) if name is not None]
        if entry.def_name is not None and all(name == entry.def_name for name in named):
            return
        sides = ([entry.def_name] if entry.def_name is not None else []) + named
        names = " and ".join(repr(name) for name in dict.fromkeys(sides)) if len(set(sides)) > 1 \
            else _header_sides(header)
        raise MalformedPatch(
            f"the git entry at line {entry.line} ({quote_line(header, 80)}) names two different files, {names}, "
            f"without `rename from`/`rename to` or `copy from`/`copy to` lines; {_WHAT_TO_DO}", entry.line)
    first, second = entry.plain_names
    if first is not None and second is not None and first != second:
        written = entry.new_name or entry.old_name
        raise MalformedPatch(
            f"the --- line names {first!r} and the +++ line names {second!r} (line {entry.line}): "
            f"git apply and patch would write {written!r}; {_WHAT_TO_DO}", entry.line)
    _check_dropped_directory(entry)


def _check_dropped_directory(entry: GitEntry) -> None:
    """A plain diff naming a file without an a/ b/ pair (`--- docs/x.py` / `+++ docs/x.py`, svn's
    `Index:` diffs, `--- /dev/null` / `+++ docs/x.py`): git apply drops its first directory (-p1) and
    `patch -p0` keeps it, so the file written depends on the tool."""
    if entry.p_value != 1 or has_unsafe_written_name(entry):
        return
    written = [name for name in entry.written_names if name is not None]
    firsts = [name.split("/", 1)[0] for name in written]
    if len(written) == 2 and (tuple(firsts) in GIT_PREFIX_PAIRS or written[0] != written[1]):
        return  # an a/ b/ pair, or release directories (`project-1.0/` `project-1.1/`) only -p1 reads as one file
    if len(written) == 1 and any(firsts[0] in pair for pair in GIT_PREFIX_PAIRS):
        return
    read = entry.new_name or entry.old_name
    raise MalformedPatch(
        f"the plain diff at line {entry.line} names {written[-1]!r} with no a/ b/ prefix: git apply would write "
        f"{read!r} (it drops the first directory), patch -p0 would write {written[-1]!r}; produce the patch "
        "with `git diff` (its a/ and b/ prefixes say which part is the path)", entry.line)


def has_unsafe_written_name(entry: GitEntry) -> bool:
    """A plain diff naming a file unsafely as written (`+++ /etc/x`, `--- C:/x`, a name starting with a tab),
    on either side: git would drop a directory, or the whole side, and write a safe-looking name, so judge
    keeps every side as written for unsafe_path to refuse."""
    return not entry.is_git and any(name is not None and unsafe_reason(name) is not None
                                    for name in entry.written_names)


_WHAT_TO_DO = ("declare a rename with a git diff (`rename from`/`rename to`) or name the same file on both lines "
               "(`git diff` writes both)")


def _header_sides(header: str) -> str:
    """The text after `diff --git `, to show what a header names when git could not read one name from it."""
    return repr(header[len("diff --git ") :][:120])


def entry_start(lines: list[str], target_line: int) -> int:
    """A plain diff's entry starts above its `+++` line: at `---`, or at a `diff`/`Index:` line above that."""
    index = target_line - 1
    if index > 0 and lines[index - 1].startswith("--- "):
        index -= 1
    while index > 0 and lines[index - 1].startswith(("diff ", "Index: ", "====", "=== ")):
        index -= 1
    return index + 1


def strip_prefixes(source: str, target: str) -> tuple[str, str]:
    """Drop git's a/ b/ (or mnemonic) prefixes when the two sides carry a matching pair."""
    src = None if source == DEV_NULL else source
    tgt = None if target == DEV_NULL else target
    src_letter, tgt_letter = _prefix_letter(src), _prefix_letter(tgt)
    if src is not None and tgt is not None:
        matched = (src_letter, tgt_letter) in GIT_PREFIX_PAIRS
    elif src is not None:
        matched = src_letter in {s for s, _ in GIT_PREFIX_PAIRS}
    elif tgt is not None:
        matched = tgt_letter in {t for _, t in GIT_PREFIX_PAIRS}
    else:
        matched = False
    if not matched:
        return source, target
    return (source if src is None else src[2:]), (target if tgt is None else tgt[2:])


def _prefix_letter(path: str | None) -> str | None:
    return path[0] if path is not None and len(path) > 2 and path[1] == "/" else None


def plain_diff_creation(hunk: Hunk, old: str | None, new: str | None) -> tuple[str | None, str | None]:
    """bzr and plain diffs mark a created/deleted file by an empty side (`@@ -0,0`), not /dev/null."""
    match = HUNK_HEADER.match(hunk.header)
    if match is None:
        return old, new
    src_start, src_len = int(match.group(1)), 1 if match.group(2) is None else int(match.group(2))
    tgt_start, tgt_len = int(match.group(3)), 1 if match.group(4) is None else int(match.group(4))
    if src_start == 0 and src_len == 0 and tgt_len > 0 and new is not None:
        return None, new
    if tgt_start == 0 and tgt_len == 0 and src_len > 0 and old is not None:
        return old, None
    return old, new
