"""The one way the harness opens its SQLite files (run store, verdict cache): WAL, shared across processes,
and only when the file is one of ours — another database is refused, never written into.

Each file carries its layout's version in ``PRAGMA user_version``. Version 0 is a file from before
versions existed: it is taken when its tables are ours (a missing one is added) and stamped. A newer
version than this judge knows is refused, so an old judge never writes into a layout it cannot read.
"""

from __future__ import annotations

import contextlib
import sqlite3
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from judge.errors import InputError

__all__ = ["connect", "transaction"]


def connect(path: Path, field: str, kind: str, schema: tuple[str, ...], version: int, remedy: str) -> sqlite3.Connection:
    """``path`` opened (its folder made) in autocommit WAL mode, checked against ``schema`` (CREATE TABLE
    statements) and brought to it; InputError naming ``field`` and saying ``remedy`` when it is not a judge
    ``kind`` file of this layout."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(path), timeout=30, isolation_level=None, check_same_thread=False)
    except (sqlite3.Error, OSError) as exc:
        raise InputError(f"{path}: cannot open it as a judge {kind} ({exc}); {remedy}", field=field) from None
    try:
        problem = _mismatch(db, schema, version)  # read only: WAL mode alone would rewrite a stranger's header
        if problem is None:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            with transaction(db):  # again under the write lock: another process may have made it meanwhile
                problem = _mismatch(db, schema, version)
                if problem is None:
                    for statement in schema:
                        db.execute(statement)
                    db.execute(f"PRAGMA user_version = {int(version)}")
    except sqlite3.OperationalError as exc:  # locked for longer than the timeout, unwritable, ...
        db.close()
        raise InputError(f"{path}: cannot use it as a judge {kind} ({exc})", field=field) from None
    except sqlite3.DatabaseError as exc:  # "file is not a database", a corrupt one
        db.close()
        raise InputError(f"{path}: not a judge {kind} ({exc}); {remedy}", field=field) from None
    if problem is not None:
        db.close()
        raise InputError(f"{path}: not a judge {kind} of layout v{version} ({problem}); {remedy}", field=field)
    return db


@contextlib.contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception): the write lock is taken at once, so what the
    transaction reads stays true until it commits, whichever process writes next."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _mismatch(db: sqlite3.Connection, schema: tuple[str, ...], version: int) -> str | None:
    """Why the open file is not of this layout, or None: an empty file, or one with some of its tables, is
    (the missing ones are then created)."""
    found = db.execute("PRAGMA user_version").fetchone()[0]
    if found > version:
        return f"it is v{found}, written by a newer judge"
    expected = _columns_of(schema)
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
              if not name.startswith("sqlite_")}
    foreign = sorted(tables - set(expected))
    if foreign:
        return f"it holds the table{'s' if len(foreign) > 1 else ''} {', '.join(foreign)}"
    for table in sorted(tables):
        columns = tuple(row[1] for row in db.execute(f'PRAGMA table_info("{table}")'))
        if columns != expected[table]:
            return f"its table {table} has the columns {', '.join(columns)}"
    return None


@lru_cache(maxsize=None)
def _columns_of(schema: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Each table of ``schema`` with its column names, as SQLite itself reads the statements."""
    scratch = sqlite3.connect(":memory:")
    try:
        for statement in schema:
            scratch.execute(statement)
        tables = [name for (name,) in scratch.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: tuple(row[1] for row in scratch.execute(f'PRAGMA table_info("{name}")')) for name in tables}
    finally:
        scratch.close()
