"""Eval results on disk as they finish: one SQLite row per case per run, so a killed run can resume.

Every record is committed on its own (WAL journal), so `kill -9` loses at most the
cases still being judged; `--resume` judges exactly those and nothing twice.
"""

from __future__ import annotations

import json
import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

from judge.errors import InputError, field_ref
from judge.eval.report.model import CaseRecord
from judge.eval.sqlite import connect

__all__ = ["RunStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    source TEXT NOT NULL,
    meta TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS results (
    run_id TEXT NOT NULL REFERENCES runs(run_id),
    case_id TEXT NOT NULL,
    inputs_hash TEXT NOT NULL,
    record TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (run_id, case_id)
);
"""


class RunStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = connect(path, "store", "results", _SCHEMA)

    def close(self) -> None:
        self._db.close()

    def new_run(self, source: str, meta: dict[str, Any], run_id: str | None = None) -> str:
        run_id = run_id or time.strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]
        try:
            self._db.execute("INSERT INTO runs VALUES (?, ?, ?, ?)", (run_id, time.time(), source, json.dumps(meta)))
        except sqlite3.IntegrityError:
            raise InputError(f"{run_id}: that run already exists in {self.path}; use {field_ref('resume')} {run_id}", field="run_id") from None
        return run_id

    def latest_run(self, source: str) -> str | None:
        row = self._db.execute(
            "SELECT run_id FROM runs WHERE source = ? ORDER BY created DESC, rowid DESC LIMIT 1", (source,)
        ).fetchone()
        return row[0] if row else None

    def run_meta(self, run_id: str) -> dict[str, Any]:
        row = self._db.execute("SELECT meta FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise InputError(f"{run_id}: no such run in {self.path}", field="resume")
        return json.loads(row[0])

    def save(self, run_id: str, record: CaseRecord) -> None:
        """Store a case just judged. A resumed run saves only cases it had to judge again: missing ones,
        and ones whose inputs changed since they were stored (their old row is replaced)."""
        self._db.execute(
            "INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)",
            (run_id, record.case_id, record.inputs_hash, json.dumps(record.to_json()), time.time()),
        )

    def records(self, run_id: str) -> dict[str, CaseRecord]:
        rows = self._db.execute("SELECT case_id, record FROM results WHERE run_id = ? ORDER BY rowid", (run_id,))
        return {case_id: CaseRecord.from_json(json.loads(text)) for case_id, text in rows}
