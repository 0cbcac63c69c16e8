"""Reading the caller's JSON files (or stdin) with one-line errors that say what to fix."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any, Iterator

from judge.errors import InputError

__all__ = ["MAX_INPUT_BYTES", "IntegerTooLong", "iter_jsonl", "loads", "parse_json", "read_json", "read_text"]

MAX_INPUT_BYTES = 256 * 1024 * 1024


def read_text(source: str, label: str) -> str:
    """The UTF-8 text of file ``source`` (``-`` for stdin)."""
    try:
        if source == "-":
            if sys.stdin is None:
                raise InputError(f"{label} -: stdin is closed; give a file instead")
            data = sys.stdin.buffer.read(MAX_INPUT_BYTES + 1)
        else:
            path = Path(source)
            if path.is_dir():
                raise InputError(f"{label} {source}: is a directory; give a JSON file")
            with path.open("rb") as handle:
                data = handle.read(MAX_INPUT_BYTES + 1)
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


def read_json(source: str, label: str) -> Any:
    return parse_json(read_text(source, label), f"{label} {source}")


def parse_json(text: str, where: str) -> Any:
    if not text.strip():
        raise InputError(f"{where}: empty; expected a JSON object")
    def refuse(name: str) -> Any:  # NaN and Infinity are not JSON (RFC 8259); Python would accept them
        raise InputError(f"{where}: {name} is not a JSON value; use a number or null")

    try:
        return loads(text, parse_constant=refuse)
    except IntegerTooLong as exc:
        raise InputError(f"{where}: {exc.msg} at line {exc.lineno} column {exc.colno}; "
                         "write it as a string or shorten it") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(f"{where}: JSON nested too deeply") from None


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
_STRING_OR_NUMBER = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?')


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
    path = Path(source)
    if path.is_dir():
        raise InputError(f"{label} {source}: is a directory; give a .jsonl file")
    try:
        with path.open("rb") as handle:
            for number, line in enumerate(handle, 1):
                if len(line) > MAX_INPUT_BYTES:
                    raise InputError(f"{label} {source} line {number}: longer than {MAX_INPUT_BYTES // (1024 * 1024)} MiB")
                yield number, line.rstrip(b"\n")
    except FileNotFoundError:
        raise InputError(f"{label} {source}: no such file") from None
    except OSError as exc:
        raise InputError(f"{label} {source}: cannot read it ({exc.strerror or exc})") from None
