"""The one way the harness opens its SQLite files (run store, verdict cache): WAL, shared across workers."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from judge.errors import InputError

__all__ = ["connect"]


def connect(path: Path, field: str, kind: str, schema: str) -> sqlite3.Connection:
    """``path`` opened (its folder made) in autocommit WAL mode with ``schema`` applied; InputError naming
    ``field`` when the file is not a database of this ``kind``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(schema)
    except sqlite3.DatabaseError as exc:
        raise InputError(f"{path}: not a judge {kind} database ({exc})", field=field) from None
    return db
