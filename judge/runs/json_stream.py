"""JSON text made a piece at a time: a long string is escaped in slices, so a 16 MiB output never becomes one 96 MB string.

``ensure_ascii`` escapes turn one character into up to six (``\\u0000``, ``\\ufffd``), and the
record's two outputs are up to ``MAX_LIMIT`` bytes each: escaping them whole multiplied judge's
memory. Joined, the pieces are exactly what ``json.dumps`` gives.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any, Iterator, Mapping

__all__ = ["object_pieces", "string_pieces"]

_SLICE = 64 * 1024  # characters escaped at once


def string_pieces(text: str) -> Iterator[str]:
    """``json.dumps(text, ensure_ascii=True)`` in pieces; a slice never splits a character (str holds code points)."""
    yield '"'
    for start in range(0, len(text), _SLICE):
        yield encode_basestring_ascii(text[start:start + _SLICE])[1:-1]
    yield '"'


def object_pieces(record: Mapping[str, Any], *, indent: int | None = None) -> Iterator[str]:
    """``json.dumps(record, ensure_ascii=True, indent=indent)`` in pieces, for a flat object whose big values are str."""
    if not record:
        yield "{}"
        return
    newline = "" if indent is None else "\n" + " " * indent
    yield "{" + newline
    for number, (key, value) in enumerate(record.items()):
        if number:
            yield ", " if indent is None else "," + newline
        yield json.dumps(str(key), ensure_ascii=True) + ": "
        if isinstance(value, str):
            yield from string_pieces(value)
        else:  # small here; indented one level deeper (a JSON string never holds a raw newline)
            yield json.dumps(value, ensure_ascii=True, indent=indent).replace("\n", newline)
    yield ("" if indent is None else "\n") + "}"
