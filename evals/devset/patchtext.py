"""Reading and damaging diff text: the paths a patch names and its +/- lines (for tags
and self-checks), and the one-defect rewrites that turn a real patch into an invalid case."""
from __future__ import annotations

import collections
import re

# "@@ -12,7 +12,9 @@ def f():": old start, old count, new start, new count, section
# heading; a count of 1 may be left out ("@@ -3 +3 @@").
HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
HUNK_BODY = (" ", "-", "+", "\\")
FILE_HEADERS = ("diff --git ", "index ", "--- ", "+++ ", "new file mode", "deleted file mode",
                "similarity index", "rename from", "rename to", "old mode", "new mode")
_C_ESCAPES = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a",
              "b": b"\b", "f": b"\f", "r": b"\r", "v": b"\v"}


def _unquote(path: str) -> str:
    """Undo git's C-style quoting ("a/r\\303\\251sum\\303\\251.md")."""
    if not (path.startswith('"') and path.endswith('"')):
        return path
    body, out, i = path[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            nxt = body[i + 1]
            if nxt in "01234567":
                out.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            out += _C_ESCAPES[nxt]
            i += 2
            continue
        out += c.encode("utf-8")
        i += 1
    return out.decode("utf-8")


def _strip_prefix(path: str) -> str | None:
    path = path.split("\t")[0]
    path = _unquote(path)
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        return path[2:]
    return path


def _split_git_header(rest: str) -> tuple[str, str]:
    """The two names after "diff --git ": quoted ones end at their closing quote;
    unquoted ones with spaces are cut where both halves name the same path."""
    if rest.startswith('"'):
        end = 1
        while rest[end] != '"':
            end += 2 if rest[end] == "\\" else 1
        return rest[:end + 1], rest[end + 2:]
    if rest.endswith('"'):
        cut = rest.rindex(' "b/')
        return rest[:cut], rest[cut + 1:]
    cuts = [m.start() for m in re.finditer(" b/", rest)]
    same = [c for c in cuts if rest[2:c] == rest[c + 3:]]
    cut = same[0] if same else (cuts[0] if cuts else (len(rest) - 1) // 2)
    return rest[:cut], rest[cut + 1:]


def patch_paths(patch: str) -> set[str]:
    """Paths a patch touches (prefix-stripped, unquoted). Self-check helper."""
    paths: set[str] = set()
    lines = patch.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        headers: tuple[str, ...] = ()
        if line.startswith("diff --git "):
            headers = _split_git_header(line[len("diff --git "):])
        elif (line.startswith("--- ") and i + 1 < len(lines)
              and lines[i + 1].startswith("+++ ")):
            headers = (line[4:], lines[i + 1][4:])
            i += 1
        elif line.startswith(("rename from ", "rename to ")):
            paths.add(_unquote(line.split(" ", 2)[2]))  # no a/ b/ prefix on these
        paths.update(p for p in map(_strip_prefix, headers) if p)
        i += 1
    return paths


def _is_added(line: str) -> bool:
    return line.startswith("+") and not line.startswith("+++ ")


def _is_removed(line: str) -> bool:
    return line.startswith("-") and not line.startswith("--- ")


def plus_lines(patch):
    return [l[1:] for l in patch.split("\n") if _is_added(l)]


def minus_lines(patch):
    return [l[1:] for l in patch.split("\n") if _is_removed(l)]


def plus_minus_only(patch: str) -> list[str]:
    """The added and removed lines, in order, without any header or context."""
    return [l for l in patch.split("\n") if _is_added(l) or _is_removed(l)]


def change_counts(patch: str) -> tuple[int, int]:
    return len(plus_lines(patch)), len(minus_lines(patch))


def revert_ratio(apply_patch: str, fix_patch: str) -> float:
    """Share of the apply step's non-blank added lines that the fix removes again."""
    added = collections.Counter(l for l in plus_lines(apply_patch) if l.strip())
    removed = collections.Counter(l for l in minus_lines(fix_patch) if l.strip())
    total = sum(added.values())
    return sum((added & removed).values()) / total if total else 0.0


def _hunk_end(lines: list[str], i: int) -> int:
    """Index of the first line at or after i that is no longer part of a hunk body."""
    while i < len(lines) and lines[i][:1] in HUNK_BODY:
        i += 1
    return i


def hunks_of(patch: str) -> list[tuple[int, int]]:
    """(start, end) line indexes of each hunk (header line .. last body line)."""
    lines = patch.split("\n")
    res, i = [], 0
    while i < len(lines):
        if HUNK_RE.match(lines[i]):
            j = _hunk_end(lines, i + 1)
            res.append((i, j - 1))
            i = j
        else:
            i += 1
    return res


def _same_blob_index(line: str) -> str:
    """An "index OLD..NEW [mode]" line that names the old blob on both sides."""
    old = line.split()[1].split("..")[0]
    mode = line.split()[2:] if len(line.split()) > 2 else []
    return " ".join(["index", f"{old}..{old}", *mode])


def to_context_only(patch: str) -> str:
    """Turn every hunk into context: '-' lines become ' ', '+' lines are
    dropped, counts are recomputed, and the index line names the same blob on
    both sides. The result is a well-formed diff that changes nothing."""
    out, lines, i = [], patch.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        m = HUNK_RE.match(line)
        if line.startswith("index "):
            out.append(_same_blob_index(line))
            i += 1
            continue
        if not m:
            out.append(line)
            i += 1
            continue
        end = _hunk_end(lines, i + 1)
        body = lines[i + 1:end]
        assert not any(b.startswith("\\") for b in body), "no-newline markers not supported here"
        body = [" " + b[1:] if b.startswith("-") else b for b in body if not b.startswith("+")]
        start = int(m.group(1))
        out.append(f"@@ -{start},{len(body)} +{start},{len(body)} @@{m.group(5)}")
        out.extend(body)
        i = end
    return "\n".join(out)


def rewrite_paths(patch: str, old: str, new: str) -> str:
    """Rename a path inside the header lines of a real diff (unsafe_path cases)."""
    out = []
    for line in patch.split("\n"):
        if line.startswith(("diff --git ", "--- ", "+++ ", "rename from ", "rename to ")):
            line = line.replace(old, new)
        out.append(line)
    return "\n".join(out)


def strip_file_headers(patch: str) -> str:
    """Only the hunks: every file header line (diff --git, index, ---/+++ ...) removed."""
    return "\n".join(l for l in patch.split("\n") if not l.startswith(FILE_HEADERS))
