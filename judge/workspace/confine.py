"""Keeping files named after ids inside their root: no separators, no `..`, no absolute paths, no symlinks out,
no name some platform reads as another (bidi marks, `CON`, `a:b`, trailing dots; judge.patch.paths.segment_reason)."""

from __future__ import annotations

import os
from pathlib import Path

from judge.errors import InputError
from judge.patch.paths import segment_reason

__all__ = ["segment_problem", "check_segment", "confined", "is_inside"]

_MAX_SEGMENT_BYTES = 200


def segment_problem(value: str) -> str | None:
    """Why ``value`` cannot be one file-name segment under a root, or None when it can."""
    if not value:
        return "is empty"
    if value in (".", ".."):
        return "is a relative directory name"
    if "/" in value or "\\" in value:
        return "contains a path separator"
    if len(value.encode("utf-8", "surrogatepass")) > _MAX_SEGMENT_BYTES:
        return f"is longer than {_MAX_SEGMENT_BYTES} bytes"
    return segment_reason(value)


def check_segment(value: str, field: str | None = None) -> str:
    """``value`` unchanged when it is a safe file-name segment; otherwise a one-line InputError naming
    ``field``, the input it came from (a bare "path segment" when it came from none)."""
    problem = segment_problem(value)
    if problem:
        message = f"{value[:80]!r} {problem}; use a plain name such as step-1"
        raise InputError(message, field=field) if field else InputError(f"path segment {message}")
    return value


def confined(root: Path, *segments: str) -> Path:
    """``root/segments...`` with symlinks resolved; InputError when it would land outside ``root``.

    Every segment must pass ``segment_problem``; resolving catches a symlinked directory on the way
    that points elsewhere (an executor can plant one in the work tree).
    """
    for segment in segments:
        check_segment(segment)
    real_root = root.resolve()
    target = real_root.joinpath(*segments).resolve()
    if target != real_root and not target.is_relative_to(real_root):
        shown = "/".join(segments)
        raise InputError(f"{root}/{shown}: a symlink leads outside {root}; remove the link")
    return target


def is_inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """Whether ``path``, links resolved, is ``root`` or lies below it."""
    where, top = os.path.realpath(path), os.path.realpath(root)
    return where == top or where.startswith(top.rstrip(os.sep) + os.sep)
