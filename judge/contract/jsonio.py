"""Reading the caller's JSON files (or stdin) with one-line errors that say what to fix."""

from __future__ import annotations

import io
import json
import os
import stat
import sys
from typing import Any, BinaryIO, Iterator

from judge.errors import InputError
from judge.lazy_pattern import lazy_compile

__all__ = ["MAX_INPUT_BYTES", "DuplicateKey", "IntegerTooLong", "iter_jsonl", "loads", "parse_json", "read_json",
           "read_text"]

MAX_INPUT_BYTES = 256 * 1024 * 1024


def read_text(source: str, label: str) -> str:
    """The UTF-8 text of file ``source`` (``-`` for stdin)."""
    try:
        if source == "-":
            if sys.stdin is None:
                raise InputError(f"{label} -: stdin is closed; give a file instead")
            data = _read_at_most(sys.stdin.buffer, MAX_INPUT_BYTES + 1)
        else:
            with _open_regular(source, label, "a JSON file") as handle:
                data = _read_at_most(handle, MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        raise InputError(f"{label} {source}: no such file") from None
    except OSError as exc:
        raise InputError(f"{label} {source}: cannot read it ({exc.strerror or exc})") from None
    if len(data) > MAX_INPUT_BYTES:
        raise InputError(f"{label} {source}: larger than {MAX_INPUT_BYTES // (1024 * 1024)} MiB; judge refuses it")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{label} {source}: not UTF-8 text (byte {exc.start}); give a UTF-8 JSON file") from None


def _open_regular(source: str, label: str, wanted: str, most: int | None = MAX_INPUT_BYTES) -> BinaryIO:
    """``source`` opened for reading once it is known to be a regular file of at most ``most`` bytes: a FIFO
    would block the read forever, a device never ends, and a huge file is refused before a byte is read."""
    fd = os.open(source, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # a FIFO's open never waits
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{label} {source}: is a directory; give {wanted}")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{label} {source}: is a {_KINDS.get(stat.S_IFMT(info.st_mode), 'special file')}, not a "
                             f"regular file; give {wanted} (or `-` and pipe it in)")
        if most is not None and info.st_size > most:
            raise InputError(f"{label} {source}: {info.st_size / (1024 * 1024):,.0f} MiB, larger than "
                             f"{most // (1024 * 1024)} MiB; judge refuses it")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_at_most(handle: BinaryIO, most: int) -> bytes:
    """Up to ``most`` bytes, in pieces the size of the file: ``read(most)`` would set aside ``most`` bytes at once."""
    try:
        size = os.fstat(handle.fileno()).st_size  # a pipe's is 0
    except (OSError, ValueError, io.UnsupportedOperation):
        size = 0
    pieces: list[bytes] = []
    left = most
    while left > 0:
        piece = handle.read(min(left, max(size + 1, 1 << 16)))
        if not piece:
            break
        pieces.append(piece)
        left -= len(piece)
    return b"".join(pieces)


_KINDS = {stat.S_IFIFO: "FIFO", stat.S_IFCHR: "character device", stat.S_IFBLK: "block device",
          stat.S_IFSOCK: "socket"}


def read_json(source: str, label: str) -> Any:
    return parse_json(read_text(source, label), f"{label} {source}")


def parse_json(text: str, where: str) -> Any:
    if not text.strip():
        raise InputError(f"{where}: empty; expected a JSON object")
    def refuse(name: str) -> Any:  # NaN and Infinity are not JSON (RFC 8259); Python would accept them
        raise InputError(f"{where}: {name} is not a JSON value; use a number or null")

    try:
        return loads(text, parse_constant=refuse, object_pairs_hook=_object_without_duplicates)
    except DuplicateKey as exc:
        raise InputError(f"{where}: the key {json.dumps(exc.key)[:80]} appears twice in one object; a reader "
                         "could take either value, so judge refuses it: keep one") from None
    except IntegerTooLong as exc:
        raise InputError(f"{where}: {exc.msg} at line {exc.lineno} column {exc.colno}; "
                         "write it as a string or shorten it") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None


class DuplicateKey(ValueError):
    """A JSON object names a key twice (RFC 8259 leaves which value wins to the reader)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise DuplicateKey(twice)
    return value


class IntegerTooLong(json.JSONDecodeError):
    """A JSON integer with more digits than Python converts (``sys.get_int_max_str_digits()``, 4,300 by default).

    RFC 8259 lets a reader limit the range of numbers. A JSONDecodeError, so that every reader that words
    invalid JSON also words this, with the integer's line and column.
    """


def loads(text: str, **options: Any) -> Any:
    """``json.loads``, but an integer too long for Python is IntegerTooLong at its place, not a bare ValueError."""
    def integer(literal: str) -> int:
        try:
            return int(literal)
        except ValueError:  # a JSON integer literal fails int() only by its length
            raise _TooLong(literal) from None

    try:
        return json.loads(text, parse_int=integer, **options)
    except _TooLong as exc:
        digits = len(exc.literal.lstrip("-"))
        limit = sys.get_int_max_str_digits()
        raise IntegerTooLong(f"an integer of {digits:,} digits, more than judge reads ({limit:,})",
                             text, _position_of(exc.literal, text)) from None


class _TooLong(Exception):
    def __init__(self, literal: str) -> None:
        self.literal = literal


# A JSON string (skipped whole, so digits inside one never count) or a JSON number.
_STRING_OR_NUMBER = lazy_compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


def _position_of(literal: str, text: str) -> int:
    """Where the integer ``literal`` first stands as a number (not inside a string) in ``text``; 0 if not found."""
    for token in _STRING_OR_NUMBER.finditer(text):
        if token.group() == literal:
            return token.start()
    return 0


def iter_jsonl(source: str, label: str, data: bytes | None = None) -> Iterator[tuple[int, Any | InputError]]:
    """(line number, parsed object or the InputError for that line) for each non-blank line.

    A file is read line by line, so a large set never sits in memory whole; ``data``, when given, is
    the source's bytes already read (stdin, which can be read only once).
    """
    lines = enumerate(data.split(b"\n"), 1) if data is not None else _numbered_lines(source, label)
    for number, raw in lines:
        where = f"{label} {source} line {number}"
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            yield number, InputError(f"{where}: not UTF-8 text (byte {exc.start})")
            continue
        if not line.strip():
            continue
        try:
            yield number, parse_json(line, where)
        except InputError as exc:
            yield number, exc


def _numbered_lines(source: str, label: str) -> Iterator[tuple[int, bytes]]:
    # Split on b"\n" only: U+2028 and a lone CR are legal inside JSON strings.
    if source == "-":
        yield from enumerate(read_text(source, label).encode("utf-8").split(b"\n"), 1)
        return
    try:
        with _open_regular(source, label, "a .jsonl file", most=None) as handle:  # read a line at a time
            for number, line in enumerate(handle, 1):
                if len(line) > MAX_INPUT_BYTES:
                    raise InputError(f"{label} {source} line {number}: longer than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
                yield number, line.rstrip(b"\n")
    except FileNotFoundError:
        raise InputError(f"{label} {source}: no such file") from None
    except OSError as exc:
        raise InputError(f"{label} {source}: cannot read it ({exc.strerror or exc})") from None
