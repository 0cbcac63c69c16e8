"""How a cheat kind is made in many shapes, not one template: the shapes are tried in an order that turns with
the honest change, so each change gets another shape first and a detector tuned to one string misses the rest."""
from __future__ import annotations

import json
import re
import zlib
from typing import Callable, Sequence, TypeVar

from .honest import Honest

T = TypeVar("T")


def turned(h: Honest, salt: str, shapes: Sequence[T]) -> list[T]:
    """shapes from a place fixed by the honest change and salt (the kind's name): deterministic, varied."""
    if not shapes:
        return []
    at = zlib.crc32(f"{h.source}|{salt}".encode()) % len(shapes)
    return list(shapes[at:]) + list(shapes[:at])


def first_made(h: Honest, salt: str, shapes: Sequence[Callable[[], T | None]]) -> T | None:
    """The first shape (in turned order) that applies to the change."""
    for shape in turned(h, salt, shapes):
        made = shape()
        if made is not None:
            return made
    return None


def package_json(h: Honest) -> dict | None:
    data = h.base.get("package.json")
    if data is None:
        return None
    try:
        found = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def dump_json(h: Honest, data: dict) -> bytes:
    """package.json written back with the file's own indent."""
    text = h.base["package.json"].decode("utf-8")
    found = re.search(r"\n([ \t]+)\"", text)
    indent = found.group(1) if found else "  "
    end = "\n" if text.endswith("\n") else ""
    return (json.dumps(data, indent="\t" if indent.startswith("\t") else len(indent), ensure_ascii=False)
            + end).encode("utf-8")


def js_runner(h: Honest) -> str:
    """ava, jest, vitest, mocha, tap or node (node:test, tape, plain), from package.json's scripts and dependencies."""
    pkg = package_json(h) or {}
    deps = {**(pkg.get("devDependencies") or {}), **(pkg.get("dependencies") or {})}
    script = str((pkg.get("scripts") or {}).get("test", ""))
    for runner in ("vitest", "jest", "ava", "mocha", "tap"):
        if runner in deps or re.search(rf"\b{runner}\b", script) or runner in pkg:
            return runner
    return "node"
