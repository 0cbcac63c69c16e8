"""Which file a diff entry names: git's a/ b/ prefixes, rename and copy lines, plain diffs' empty sides.

A patch must name each file the same way everywhere: a disagreement between lines is how a
patch smuggles a change past a reader that trusts one line while `git apply` trusts another.
"""

from __future__ import annotations

from judge.errors import MalformedPatch
from judge.patch.grammar import DEV_NULL, GIT_PREFIX_PAIRS, HUNK_HEADER
from judge.patch.model import Hunk
from judge.patch.paths import unquote_git_path

__all__ = ["entry_start", "git_names", "plain_diff_creation", "strip_prefixes"]


def git_names(lines: list[str], start: int, old: str | None, new: str | None) -> tuple[str | None, str | None]:
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
        source, target = strip_prefixes(header.get("--- ", DEV_NULL), header.get("+++ ", DEV_NULL))
        for said, named, key in ((source, old, "--- "), (target, new, "+++ ")):
            if key in header and said != (named if named is not None else DEV_NULL):
                raise MalformedPatch(
                    f"the {key.strip()} line names {said!r} but the git header says {named or DEV_NULL!r}: "
                    "a patch must name each file the same way everywhere",
                    start,
                )
    return old, new


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
