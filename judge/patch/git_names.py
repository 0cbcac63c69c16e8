"""How `git apply` finds a file's name on a header line: C quoting, -p leading directories, timestamps.

A faithful port of the name finding in git's apply.c (find_name, find_name_traditional,
git_header_name, is_dev_null): judge must read the very name git writes, including in the odd
cases (a name git cannot find, a `.orig` twin, a tab before a timestamp), or a patch could name
one file to judge and another to git.
"""

from __future__ import annotations

from bisect import bisect_left

from judge.lazy_pattern import lazy_compile

__all__ = ["C_SPACE", "find_name", "find_name_traditional", "git_header_name", "is_dev_null", "unquote_c_style"]

C_SPACE = " \t\n\v\f\r"  # C's isspace(): what git's parser skips or stops at

_C_ESCAPES = {"a": 7, "b": 8, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11, "\\": 92, '"': 34}

# `name\t2010-07-05 19:41:17.620000023 -0500`, `name 10-07-05 19:41:17`: the timestamp plain diffs put
# after a name (apply.c's diff_timestamp_len); group 1 is everything after the name.
_TIMESTAMP = lazy_compile(
    r"(\t|(?<! ) +)(?:[0-9]{2})?[0-9]{2}-[0-9]{2}-[0-9]{2}(?: [0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?)?"
    r"(?: [+-](?:[0-9]{4}|[0-9]{2}:[0-9]{2}))?\Z"
)

# `1970-01-01 00:00:00.000000000 +0000`: GNU diff's epoch timestamp, its mark of a created or deleted file.
_EPOCH = lazy_compile(r"(1969-12-31|1970-01-01) ([0-2][0-9]):([0-5][0-9]):00(?:\.0+)? ([-+])([0-2][0-9]):?([0-5][0-9])\Z")

_TERM_TAB = 2


def unquote_c_style(text: str) -> tuple[str, int] | None:
    """``"a\\tb" rest`` -> ("a<TAB>b", index after the closing quote); None when git's unquoting fails."""
    if not text.startswith('"'):
        return None
    raw = bytearray()
    pos = 1
    while pos < len(text):
        char = text[pos]
        if char == '"':
            return raw.decode("utf-8", "replace"), pos + 1
        if char != "\\":
            raw += char.encode("utf-8", "surrogateescape")
            pos += 1
            continue
        escape = text[pos + 1 : pos + 2]
        if escape in _C_ESCAPES:
            raw.append(_C_ESCAPES[escape])
            pos += 2
        elif _OCTAL_ESCAPE.fullmatch(text, pos + 1, pos + 4):
            raw.append(int(text[pos + 1 : pos + 4], 8))
            pos += 4
        else:
            return None
    return None


def is_dev_null(rest: str) -> bool:
    """`/dev/null` followed by white space (the line's end counts)."""
    return rest.startswith("/dev/null") and (len(rest) == 9 or rest[9] in C_SPACE)


_SLASHES = lazy_compile(r"/{2,}")
_SLASH = lazy_compile(r"/")
_BLANK = lazy_compile(r"[ \t]")
_OCTAL_ESCAPE = lazy_compile(r"[0-3][0-7][0-7]")


def _squash_slash(name: str | None) -> str | None:
    return name if name is None or "//" not in name else _SLASHES.sub("/", name)


def _find_name_gnu(rest: str, p_value: int) -> str | None:
    unquoted = unquote_c_style(rest)
    if unquoted is None:
        return None
    name = unquoted[0]
    for _ in range(p_value):
        slash = name.find("/")
        if slash < 0:
            return None
        name = name[slash + 1 :]
    return _squash_slash(name)


# Where git stops reading a name: C white space but the space, and the tab too when a tab terminates names.
_NAME_END = lazy_compile(r"[\n\v\f\r]")
_NAME_END_AT_TAB = lazy_compile(r"[\t\n\v\f\r]")


def _find_name_common(rest: str, default: str | None, p_value: int, terminate: int, bounded: bool) -> str | None:
    """The name after ``p_value`` leading directories, up to the first white space git stops at."""
    stop = None if bounded else (_NAME_END_AT_TAB if terminate & _TERM_TAB else _NAME_END).search(rest)
    end = len(rest) if stop is None else stop.start()
    start: int | None = 0 if p_value == 0 else None
    if p_value > 0:  # the name starts after the p_value-th slash
        slash = -1
        for _ in range(p_value):
            slash = rest.find("/", slash + 1, end)
            if slash < 0:
                break
        else:
            start = slash + 1
    if start is None or end == start:
        return _squash_slash(default)
    name = rest[start:end]
    # git prefers the shorter name when the other is it with something tacked on ("file.orig", "file~").
    if default is not None and len(default) < len(name) and name.startswith(default):
        return _squash_slash(default)
    return _squash_slash(name)


def find_name(rest: str, default: str | None, p_value: int, terminate: int = _TERM_TAB) -> str | None:
    """A name on a git extended header line (`--- `, `rename from `...); ``terminate=0``: only the line end."""
    if rest.startswith('"'):
        name = _find_name_gnu(rest, p_value)
        if name is not None:
            return name
    return _find_name_common(rest, default, p_value, terminate, bounded=False)


def find_name_traditional(rest: str, default: str | None, p_value: int) -> str | None:
    """A name on a plain diff's `---`/`+++` line, a trailing timestamp left out."""
    if rest.startswith('"'):
        name = _find_name_gnu(rest, p_value)
        if name is not None:
            return name
    stamp = _TIMESTAMP.search(rest) if rest[-1:] in tuple("0123456789") else None
    if stamp is None:
        return _find_name_common(rest, default, p_value, _TERM_TAB, bounded=False)
    return _find_name_common(rest[: stamp.start()], default, p_value, 0, bounded=True)


def has_epoch_timestamp(rest: str) -> bool:
    """GNU diff's way to say a side does not exist: the epoch as the timestamp after the last tab."""
    tab = rest.rfind("\t")
    match = _EPOCH.match(rest[tab + 1 :]) if tab >= 0 else None
    if match is None:
        return False
    day, hour, minute, sign, zone_hours, zone_minutes = match.groups()
    zone = (int(zone_hours) * 60 + int(zone_minutes)) * (-1 if sign == "-" else 1)
    epoch_hour = 24 if day == "1969-12-31" else 0
    return int(hour) * 60 + int(minute) - zone == epoch_hour * 60


def _skip_tree_prefix(p_value: int, text: str) -> str | None:
    if p_value == 0:
        return None if text.startswith("/") else text
    for index, char in enumerate(text):
        if char == "/":
            p_value -= 1
            if p_value <= 0:
                return None if index == 0 else text[index + 1 :]
    return None


def git_header_name(p_value: int, rest: str) -> str | None:
    """The name a `diff --git A B` line gives, only when A and B name the same file (git's git_header_name).

    ``rest`` is the line after "diff --git ", with its line end as "\\n".
    """
    if rest.startswith('"'):
        return _quoted_first_header_name(p_value, rest)
    name = _skip_tree_prefix(p_value, rest)
    if name is None:
        return None
    quote = name.find('"')
    if quote >= 0:
        unquoted = unquote_c_style(name[quote:])
        second = _skip_tree_prefix(p_value, unquoted[0]) if unquoted else None
        if second is not None and len(second) < quote and name.startswith(second) and name[len(second)] in C_SPACE:
            return second
        return None
    line_end = name.find("\n")
    if line_end < 0:
        return None
    # Each space may separate the two names: where the second one starts after its -p directories is
    # found by bisecting the line's slashes, so a line of many spaces is read in linear time.
    slashes = [found.start() for found in _SLASH.finditer(name, 0, line_end)]
    for blank in _BLANK.finditer(name, 0, line_end):
        length = blank.start()
        start = _tree_prefix_end(p_value, name, length + 1, line_end, slashes)
        if start is None:
            return None  # git gives up at the first space not followed by a name it can strip
        if line_end - start == length and name.startswith(name[:length], start):
            return name[:length]
    return None


def _tree_prefix_end(p_value: int, text: str, start: int, end: int, slashes: list[int]) -> int | None:
    """_skip_tree_prefix on ``text[start:end]`` without slicing it: where the name starts, or None.

    ``slashes``: the positions of every "/" in ``text[:end]``, in order.
    """
    if p_value == 0:
        return None if text.startswith("/", start, end) else start
    first = bisect_left(slashes, start)
    if first + p_value - 1 >= len(slashes):
        return None
    slash = slashes[first + p_value - 1]
    return None if slash == start else slash + 1


def _quoted_first_header_name(p_value: int, rest: str) -> str | None:
    unquoted = unquote_c_style(rest)
    if unquoted is None:
        return None
    first = _skip_tree_prefix(p_value, unquoted[0])
    if first is None:
        return None
    after = rest[unquoted[1] :]
    second_text = after.lstrip(C_SPACE.replace("\n", ""))
    if not second_text or second_text == "\n":
        return None
    if second_text.startswith('"'):
        second = unquote_c_style(second_text)
        stripped = _skip_tree_prefix(p_value, second[0]) if second else None
        return first if stripped == first else None
    # git compares the unquoted second name with its line end included: it never matches a quoted first.
    stripped = _skip_tree_prefix(p_value, second_text)
    return first if stripped == first else None
