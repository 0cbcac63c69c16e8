"""What the command line writes: UTF-8 JSON on stdout whatever the locale, and errors worded with its flags."""

from __future__ import annotations

import sys
from typing import Mapping

from judge.errors import InputError, name_fields

__all__ = ["error_line", "flags", "write_stdout"]

# Inputs whose flag is not `--` + the field's name with dashes.
_FLAGS = {"step_id": "--step", "limit": "--max-output"}


class _Flags(dict):
    def __missing__(self, field: str) -> str:
        return _FLAGS.get(field, "--" + field.replace("_", "-"))


def error_line(exc: InputError, names: Mapping[str, str] | None = None) -> str:
    """``judge: --repo x: not a git work tree (...)``: the library's fields worded as this command's flags
    (``names`` words those a command takes otherwise, e.g. as a positional argument).
    A lone surrogate quoted from the input becomes its escape, so that any stderr can write the line."""
    return f"judge: {exc.render(_Flags(names or {}))}\n".encode("utf-8", "backslashreplace").decode("utf-8")


def flags(text: str) -> str:
    """Library text with its fields worded as this command's flags."""
    return name_fields(text, _Flags())


def write_stdout(text: str) -> None:
    """JSON is UTF-8 whatever the locale; a lone surrogate from the input becomes its JSON escape."""
    data = text.encode("utf-8", "backslashreplace")
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:  # a text-only stream (tests, embedding): it takes str
        sys.stdout.write(data.decode("utf-8"))
        return
    sys.stdout.flush()
    buffer.write(data)
    buffer.flush()
