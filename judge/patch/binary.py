"""The data of a `GIT binary patch`: base85 lines of a zlib stream, checked the way `git apply` checks them.

    GIT binary patch
    literal 3               <- method ("literal" or "delta") and the inflated size
    Hc${NkU|{$E00031000  <- a length letter (A-Z: 1-26 bytes, a-z: 27-52), then base85 in groups of 5
                            <- a blank line ends the hunk; a second (reverse) hunk may follow
"""

from __future__ import annotations

import zlib

from judge.errors import MalformedPatch
from judge.lazy_pattern import lazy_compile

__all__ = ["BinaryBudget", "read_binary_patch"]

_BASE85 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
_DIGIT = {char: value for value, char in enumerate(_BASE85)}
_METHOD = lazy_compile(r"(delta|literal) ")
_NUMBER = lazy_compile(r"[ \t\n\v\f\r]*([+-]?)([0-9]*)")
_ULONG = 2**64 - 1

# A bound of judge's own (git would try to allocate whatever size a hunk claims): the total
# inflated size of every binary hunk in one patch. Patches are at most 64 MiB of text.
MAX_INFLATED = 256 * 1024 * 1024


class BinaryBudget:
    """Inflated bytes still allowed in this patch, so a zlib bomb costs bounded time and memory."""

    def __init__(self, total: int = MAX_INFLATED) -> None:
        self.left = total


def read_binary_patch(lines: list[str], index: int, complete: bool, budget: BinaryBudget) -> int:
    """Check the hunks after a `GIT binary patch` line at ``index - 1``; return the index after them."""
    end = _read_hunk(lines, index, complete, budget)
    if end is None:
        raise _corrupt(index, "a `GIT binary patch` line must be followed by `literal N` or `delta N`")
    reverse = _read_hunk(lines, end, complete, budget)
    return end if reverse is None else reverse


def _read_hunk(lines: list[str], index: int, complete: bool, budget: BinaryBudget) -> int | None:
    """None when no hunk starts at ``index``; else the index after its blank line, or MalformedPatch."""
    method = _METHOD.match(lines[index]) if index < len(lines) else None
    if method is None:
        return None
    size = _strtoul(lines[index][method.end() :])
    data = bytearray()
    index += 1
    while True:
        if index >= len(lines) or (index == len(lines) - 1 and not complete):
            raise _corrupt(index, "the binary data ends before its blank line (truncated patch?)")
        line = lines[index]
        if line == "":
            break
        data += _decode_line(line, index)
        index += 1
    _check_inflates(bytes(data), size, index, budget)
    return index + 1


def _decode_line(line: str, index: int) -> bytes:
    width = len(line.encode("utf-8", "surrogateescape")) + 1  # git counts the line end
    if width < 7 or (width - 2) % 5:
        raise _corrupt(index, f"a base85 line is 1 length letter and groups of 5 characters: {line[:60]!r}")
    letter = line[0]
    if "A" <= letter <= "Z":
        length = ord(letter) - ord("A") + 1
    elif "a" <= letter <= "z":
        length = ord(letter) - ord("a") + 27
    else:
        raise _corrupt(index, f"a base85 line must start with its length letter (A-Z, a-z): {line[:60]!r}")
    room = (width - 2) // 5 * 4
    if room < length or length <= room - 4:
        raise _corrupt(index, f"the length letter {letter!r} does not match the line's {room // 4} base85 groups")
    out = bytearray()
    for start in range(1, len(line), 5):
        out += _decode_group(line[start : start + 5], index)
    return bytes(out[:length])


def _decode_group(group: str, index: int) -> bytes:
    value = 0
    for position, char in enumerate(group):
        digit = _DIGIT.get(char)
        if digit is None:
            raise _corrupt(index, f"{char!r} is not a base85 character")
        if position == 4 and (0xFFFFFFFF // 85 < value or 0xFFFFFFFF - digit < value * 85):
            raise _corrupt(index, f"the base85 group {group!r} overflows 32 bits")
        value = value * 85 + digit
    return value.to_bytes(4, "big")


def _check_inflates(data: bytes, size: int, index: int, budget: BinaryBudget) -> None:
    """git inflates each hunk and wants exactly the size its first line gave, the stream ended."""
    if size > budget.left:
        raise _corrupt(index, f"binary data inflating to {size} bytes is more than judge reads in one patch "
                              f"({MAX_INFLATED} bytes in all)")
    stream = zlib.decompressobj()
    produced = 0
    pending = data
    try:
        while pending and not stream.eof and produced <= size:
            produced += len(stream.decompress(pending, 1 << 20))
            pending = stream.unconsumed_tail
        produced += 0 if stream.eof or produced > size else len(stream.flush(1 << 20))
    except zlib.error:
        raise _corrupt(index, "the binary data is not a valid zlib stream") from None
    if not stream.eof or produced != size:
        raise _corrupt(index, f"the binary data does not inflate to the {size} bytes its hunk announces")
    budget.left -= size


def _strtoul(text: str) -> int:
    match = _NUMBER.match(text)
    assert match is not None  # the pattern matches the empty string
    value = min(int(match.group(2) or 0), _ULONG)
    return (_ULONG + 1 - value) % (_ULONG + 1) if match.group(1) == "-" else value


def _corrupt(index: int, problem: str) -> MalformedPatch:
    return MalformedPatch(f"corrupt binary patch at line {index + 1}: {problem}; produce it with "
                          "`git diff --binary` and send it unchanged", index + 1)
