"""Eval results on disk as they finish: one SQLite row per case per run, so a killed run can resume.

Every record is committed on its own (WAL journal), so `kill -9` loses at most the
cases still being judged; `--resume` judges exactly those and nothing twice. Processes
judging one run at once lease each case first (judge/eval/leases.py, table ``claims``).

A row that cannot be read back (not JSON, not a case record) is reported and its case
counts as not judged: a resumed run judges it again and replaces the row.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any, Callable, ContextManager

from judge.errors import InputError, field_ref
from judge.eval.report.model import CaseRecord
from judge.eval.sqlite import connect, transaction

__all__ = ["STORE_VERSION", "RunStore"]

STORE_VERSION = 1  # PRAGMA user_version: the layout below (0: the same tables, before claims and versions)

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY,
        created REAL NOT NULL,
        source TEXT NOT NULL,
        meta TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS results (
        run_id TEXT NOT NULL REFERENCES runs(run_id),
        case_id TEXT NOT NULL,
        inputs_hash TEXT NOT NULL,
        record TEXT NOT NULL,
        finished REAL NOT NULL,
        PRIMARY KEY (run_id, case_id)
    )""",
    # One row per case being judged: its lease (judge/eval/leases.py); the table's name predates the word.
    """CREATE TABLE IF NOT EXISTS claims (
        run_id TEXT NOT NULL,
        case_id TEXT NOT NULL,
        inputs_hash TEXT NOT NULL,
        owner TEXT NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        claimed REAL NOT NULL,
        expires REAL NOT NULL,
        PRIMARY KEY (run_id, case_id)
    )""",
)


class RunStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.db = connect(path, "store", "eval store", _SCHEMA, STORE_VERSION,
                          f"pass another {field_ref('store')}, or move that file away")

    def close(self) -> None:
        self.db.close()

    def transaction(self, wait: float | None = None) -> ContextManager[sqlite3.Connection]:
        """``with store.transaction():`` — what is read and written inside commits as one (BEGIN IMMEDIATE).

        Another process's write lock is waited for (judge.eval.sqlite.LOCK_WAIT_SECONDS, or ``wait``);
        InputError when it outlasts that."""
        return transaction(self.db, self._locked, wait)

    def _locked(self, waited: float) -> InputError:
        return InputError(f"{self.path}: the eval store is locked by another process (still after {waited:g} s); "
                          f"let that process finish or stop it, then {field_ref('resume')} the run to judge what "
                          "is not stored yet", field="store")

    def new_run(self, source: str, meta: dict[str, Any], run_id: str | None = None) -> str:
        run_id = run_id or time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
        try:
            self.db.execute("INSERT INTO runs VALUES (?, ?, ?, ?)", (run_id, time.time(), source, json.dumps(meta)))
        except sqlite3.IntegrityError:
            raise InputError(f"{run_id}: that run already exists in {self.path}; use {field_ref('resume')} {run_id}", field="run_id") from None
        return run_id

    def latest_run(self, source: str) -> str | None:
        row = self.db.execute(
            "SELECT run_id FROM runs WHERE source = ? ORDER BY created DESC, rowid DESC LIMIT 1", (source,)
        ).fetchone()
        return row[0] if row else None

    def run_meta(self, run_id: str) -> dict[str, Any]:
        row = self.db.execute("SELECT CAST(meta AS BLOB) FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise InputError(f"{run_id}: no such run in {self.path}", field="resume")
        try:
            meta = json.loads(bytes(row[0]).decode("utf-8"))
        except (TypeError, ValueError, RecursionError):
            meta = None
        if not isinstance(meta, dict):
            raise InputError(f"{run_id}: the settings of that run in {self.path} are unreadable; start a new run "
                             f"(without {field_ref('resume')})", field="resume")
        return meta

    def save(self, run_id: str, record: CaseRecord) -> None:
        """Store a case just judged. A resumed run saves only cases it had to judge again: missing ones,
        ones whose inputs changed since they were stored, and unreadable ones (their old row is replaced)."""
        self.db.execute(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)",
            (run_id, record.case_id, record.inputs_hash, json.dumps(record.to_json()), time.time()),
        )

    def record(self, run_id: str, case_id: str) -> CaseRecord | None:
        """The stored record of one case, or None when there is none or it is unreadable."""
        row = self.db.execute("SELECT CAST(record AS BLOB) FROM results WHERE run_id = ? AND case_id = ?",
                              (run_id, case_id)).fetchone()
        return None if row is None else _record_or_problem(row[0], case_id)[0]

    def records(self, run_id: str, unreadable: Callable[[str], None] | None = None) -> dict[str, CaseRecord]:
        """Every readable record of the run by case id; ``unreadable`` is told, in one line each, of the others."""
        rows = self.db.execute(
            "SELECT CAST(case_id AS BLOB), CAST(record AS BLOB) FROM results WHERE run_id = ? ORDER BY rowid",
            (run_id,))
        found: dict[str, CaseRecord] = {}
        for raw_id, raw in rows:
            case_id = bytes(raw_id).decode("utf-8", "backslashreplace")
            record, problem = _record_or_problem(raw, case_id)
            if record is not None:
                found[case_id] = record
            elif unreadable is not None:
                unreadable(f"store {self.path}: run {run_id}, case {case_id!r}: its stored record is unreadable "
                           f"({problem}); judging it again")
        return found


# Each field of a stored record with the JSON types it may hold (int is also a number).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "inputsHash": (str,), "expectedValid": (bool,), "valid": (bool,), "reason": (str,),
    "decidedBy": (str,), "expectedRule": (str, type(None)), "rule": (str, type(None)), "error": (str, type(None)),
    "llmCalls": (int,), "promptTokens": (int,), "completionTokens": (int,), "samples": (int,),
    "latencyMs": (int, float), "costUsd": (int, float, type(None)), "agreement": (int, float, type(None)),
    "cached": (bool,), "tags": (list,),
}
# Fields a record written before gates existed lacks; when there, of these types.
_LATER_FIELD_TYPES: dict[str, tuple[type, ...]] = {"gates": (list,), "outcome": (dict, type(None))}


def _record_or_problem(raw: Any, case_id: str) -> tuple[CaseRecord | None, str]:
    """The record a row holds, or None and why not: the store is judge's, but a disk, a crash or a hand
    can still leave bytes in it that are not a record."""
    try:
        data = json.loads(bytes(raw).decode("utf-8"))
    except (TypeError, ValueError, RecursionError) as exc:
        return None, f"not JSON: {str(exc)[:80]}"
    if not isinstance(data, dict):
        return None, "not a JSON object"
    for key, types in _FIELD_TYPES.items():
        value = data.get(key)
        if value is None and type(None) in types:
            continue
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            return None, f"{key} is {'missing' if key not in data else 'of the wrong type'}"
    for key, types in _LATER_FIELD_TYPES.items():
        if key in data and not isinstance(data[key], types):
            return None, f"{key} is of the wrong type"
    if not all(isinstance(gate, dict) for gate in data.get("gates") or ()):
        return None, "gates holds something other than gate results"
    if data["id"] != case_id or not all(isinstance(tag, str) for tag in data["tags"]):
        return None, "not the record of this case"
    return CaseRecord.from_json(data), ""
