"""The append-only JSONL ledger (seed 003): was an operation of a given kind recorded for a given id?

A ledger entry is one JSON object per line. Its kind is its ``op`` field; the id it is
about may sit in ``commitment``, ``target`` or ``id``, at the top level or inside
``payload`` (Mentu writes ``{"op": "close", "payload": {"commitment": "cmt_1"}}``).
A line that is not a JSON object is corrupt: it is counted with its line number and
skipped, never fatal. Lines are read one at a time with a length cap (judge.workspace.jsonl).

The ledger is the orchestrator's: a ledger inside the judged repository is refused, since the executor
could append the line it is asked to show (even to a file git ignores).
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import BinaryIO, Iterator

from judge.errors import WorkspaceRefused
from judge.workspace.confine import is_inside
from judge.workspace.jsonl import json_lines

__all__ = ["ID_KEYS", "LedgerFacts", "check_ledger", "read_ledger", "refuse_inside_repository"]

ID_KEYS = ("commitment", "target", "id")


@dataclass(frozen=True)
class LedgerFacts:
    path: str
    op: str
    target: str
    found_line: int | None  # the first line recording ``op`` for ``target``; None when no line does
    corrupt_lines: tuple[int, ...]
    entries: int  # lines that are JSON objects


def read_ledger(path: str | os.PathLike[str], op: str, target: str) -> LedgerFacts:
    """Scan the ledger at ``path``; InputError when it cannot be opened at all."""
    found, corrupt, entries = None, [], 0
    with _reading(path) as handle:
        for number, entry in json_lines(handle):
            if entry is None:
                corrupt.append(number)
                continue
            entries += 1
            if found is None and _records(entry, op, target):
                found = number
    return LedgerFacts(str(path), op, target, found, tuple(corrupt), entries)


def check_ledger(path: str | os.PathLike[str]) -> None:
    """InputError when the ledger at ``path`` cannot be opened for reading."""
    with _reading(path):
        pass


def refuse_inside_repository(path: str | os.PathLike[str], repo: str | os.PathLike[str]) -> None:
    """InputError naming the fix when the ledger at ``path`` lies inside the judged repository ``repo``."""
    if is_inside(path, repo):
        raise WorkspaceRefused(f"{path}: is inside the judged repository {repo}, where the executor could append the "
                         "line judge looks for; keep the ledger outside the repository", field="ledger")


@contextmanager
def _reading(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """The ledger opened for reading; an error opening or reading it is an InputError naming the file."""
    try:
        with open(path, "rb") as handle:
            yield handle
    except FileNotFoundError:
        raise WorkspaceRefused(f"{path}: no such file", field="ledger") from None
    except IsADirectoryError:
        raise WorkspaceRefused(f"{path}: is a directory; give the ledger's .jsonl file", field="ledger") from None
    except OSError as exc:
        raise WorkspaceRefused(f"{path}: cannot read it ({exc.strerror or exc})", field="ledger") from None


def _records(entry: dict, op: str, target: str) -> bool:
    if entry.get("op") != op:
        return False
    payload = entry.get("payload")
    places = (entry, payload) if isinstance(payload, dict) else (entry,)
    return any(place.get(key) == target for place in places for key in ID_KEYS)
