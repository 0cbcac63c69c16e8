"""The one way the harness opens its SQLite files (run store, verdict cache): WAL, shared across processes,
and only when the file is one of ours — another database is refused, never written into.

Each file carries its layout's version in ``PRAGMA user_version``. Version 0 is a file from before
versions existed: it is taken when its tables are ours (a missing one is added) and stamped. A newer
version than this judge knows is refused, so an old judge never writes into a layout it cannot read.

A write transaction waits for another process's write lock, retrying with a growing pause, for at most
``LOCK_WAIT_SECONDS``; then the caller's ``locked`` error says so (an InputError for the run store).
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterator

from judge.errors import InputError

__all__ = ["LOCK_WAIT_SECONDS", "connect", "transaction"]

# Longer than any write judge makes (milliseconds) by far: a lock held this long is another program's.
LOCK_WAIT_SECONDS = 120.0
_FIRST_PAUSE, _LONGEST_PAUSE = 0.05, 2.0


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
def transaction(db: sqlite3.Connection, locked: Callable[[float], Exception] | None = None,
                wait: float | None = None) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an exception): the write lock is taken at once, so what the
    transaction reads stays true until it commits, whichever process writes next.

    With ``locked``, another process's write lock is waited for up to ``wait`` seconds (default
    LOCK_WAIT_SECONDS), then ``locked(seconds waited)`` is raised; without it, the connection's own
    timeout applies and SQLite's error is raised."""
    if locked is None:
        db.execute("BEGIN IMMEDIATE")
    else:
        _begin_waiting(db, LOCK_WAIT_SECONDS if wait is None else wait, locked)
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _begin_waiting(db: sqlite3.Connection, wait: float, locked: Callable[[float], Exception]) -> None:
    """BEGIN IMMEDIATE, retried with a doubling pause while another connection holds the write lock."""
    usual = db.execute("PRAGMA busy_timeout").fetchone()[0]
    deadline = time.monotonic() + wait
    pause = _FIRST_PAUSE
    try:
        while True:
            left = deadline - time.monotonic()
            # SQLite's busy handler polls within each attempt; an attempt never outlasts the bound.
            db.execute(f"PRAGMA busy_timeout = {max(1, int(min(pause, left) * 1000))}")
            try:
                db.execute("BEGIN IMMEDIATE")
                return
            except sqlite3.OperationalError as exc:
                if not _busy(exc):
                    raise
            if time.monotonic() >= deadline:
                raise locked(wait) from None
            pause = min(pause * 2, _LONGEST_PAUSE)
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(usual)}")


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Another connection holds the lock (SQLITE_BUSY, SQLITE_LOCKED), as opposed to a real failure."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return "locked" in str(exc) or "busy" in str(exc)


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
