"""Verdict cache: an unchanged case under an unchanged judge is answered without calling the model.

The key covers everything that could change the answer: the case's normalised
inputs, the model and every parameter sent to it, the prompt's content hash and
judge's version. Only answers the model actually gave are stored: errors
(llm_unavailable, judge_error) and verdicts the rules decided are never cached.
An entry that cannot be read back is a miss (counted in ``unreadable``); judging
the case again overwrites it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.errors import field_ref
from judge.eval.sqlite import connect
from judge.verdict import Verdict
from judge.version import __version__

__all__ = ["CACHE_VERSION", "VerdictCache", "cache_key"]

CACHE_VERSION = 1  # PRAGMA user_version (0: the same table, before versions)
_SCHEMA = ("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL)",)

# Settings that change what is sent or how answers are combined; transport knobs (timeout, retries) do not.
_KEYED_SETTINGS = ("semantic", "model", "api_base", "temperature", "max_tokens", "samples", "token_budget",
                   "max_patch_tokens", "output_mode")


def cache_key(inputs_hash: str, config: JudgeConfig) -> str:
    from judge.llm.prompt import load_prompt

    material = {
        "inputs": inputs_hash,
        "settings": {name: getattr(config, name) for name in _KEYED_SETTINGS},
        "prompt": load_prompt().sha256,
        "judge": __version__,
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


class VerdictCache:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.unreadable = 0  # entries found but not readable as a cacheable verdict: each a miss
        self._db = connect(path, "cache", "verdict cache", _SCHEMA, CACHE_VERSION,
                           f"pass another {field_ref('cache')}, {field_ref('no_cache')}, or move that file away")

    def close(self) -> None:
        self._db.close()

    def get(self, key: str) -> Verdict | None:
        row = self._db.execute("SELECT CAST(verdict AS BLOB) FROM verdicts WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            verdict = Verdict.model_validate(json.loads(bytes(row[0]).decode("utf-8")))
        except (TypeError, ValueError, RecursionError):  # pydantic's ValidationError is a ValueError
            verdict = None
        if verdict is None or not cacheable(verdict):
            self.unreadable += 1
            return None
        return verdict

    def put(self, key: str, verdict: Verdict) -> bool:
        """Store a verdict the model decided; anything else is refused (False)."""
        if not cacheable(verdict):
            return False
        # ASCII JSON: a lone surrogate echoed from the input cannot break SQLite's UTF-8.
        self._db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)",
                         (key, json.dumps(verdict.model_dump(mode="json"))))
        return True


def cacheable(verdict: Verdict) -> bool:
    report = verdict.semantic_review
    return (
        report is not None
        and verdict.rule not in (ids.LLM_UNAVAILABLE, ids.JUDGE_ERROR)
        and all(sample.valid is not None for sample in report.samples)
    )
