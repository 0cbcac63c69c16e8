"""Verdict cache: an unchanged case under an unchanged judge is answered without calling the model.

The key covers everything that could change the answer: the case's normalised
inputs (its execution records included), the model and every parameter sent to
it, the policies and the step template the case names (its file's bytes), the
prompt's content hash and judge's version. Only answers the model actually gave
are stored: errors (llm_unavailable, judge_error), verdicts the rules or gates
decided, and verdicts a human approval let through (the approvals file grows
outside any key) are never cached.
An entry that cannot be read back is a miss (counted in ``unreadable``); judging
the case again overwrites it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.contract.gates import TEMPLATE_NAME
from judge.gates.templates import MAX_TEMPLATE_BYTES, TEMPLATE_SUFFIXES
from judge.errors import field_ref
from judge.eval.provenance import ANSWER_SETTINGS
from judge.eval.sqlite import connect
from judge.lazy_pattern import lazy_compile
from judge.verdict import Verdict
from judge.version import __version__

__all__ = ["CACHE_VERSION", "VerdictCache", "cache_key"]

CACHE_VERSION = 1  # PRAGMA user_version (0: the same table, before versions)
_SCHEMA = ("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, verdict TEXT NOT NULL)",)

_TEMPLATE_NAME = lazy_compile(TEMPLATE_NAME)
_MAX_TEMPLATE_BYTES = MAX_TEMPLATE_BYTES + 1  # past the loader's limit the verdict is schema_invalid, never cached


def cache_key(inputs_hash: str, config: JudgeConfig, step: Any = None) -> str:
    """The key of a case's verdict; ``step`` (the case's raw step) names the template whose bytes are keyed."""
    from judge.llm.prompt import load_prompt

    material = {
        "inputs": inputs_hash,
        "settings": config.model_dump(mode="json", include=set(ANSWER_SETTINGS)),
        "template": _template_digest(step, config.templates_dir),
        "prompt": load_prompt().sha256,
        "judge": __version__,
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()


def _template_digest(step: Any, directory: str) -> str | None:
    """sha256 over the files the step's template name may resolve to (name and bytes); None without a template.

    An edited template changes the step's gates, so it must change the key even though the case did not."""
    name = step.get("template") if isinstance(step, dict) else None
    if not isinstance(name, str) or not _TEMPLATE_NAME.fullmatch(name):
        return None  # not a name the loader would look up: the verdict is schema_invalid
    digest = hashlib.sha256()
    for suffix in TEMPLATE_SUFFIXES:
        path = Path(directory) / f"{name}{suffix}"
        if not path.is_file():  # as the loader looks: a FIFO there must not hold the run
            continue
        try:
            with open(path, "rb") as handle:
                data = handle.read(_MAX_TEMPLATE_BYTES)
        except OSError:
            continue
        digest.update(f"{suffix}:{len(data)}:".encode() + data)
    return digest.hexdigest()


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
        # ASCII JSON: a lone surrogate echoed from the input cannot break SQLite's UTF-8. By alias: the execution
        # records on the verdict read back only by their camelCase names.
        self._db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?)",
                         (key, json.dumps(verdict.model_dump(mode="json", by_alias=True))))
        return True


def cacheable(verdict: Verdict) -> bool:
    report = verdict.semantic_review
    return (
        report is not None
        and verdict.rule not in (ids.LLM_UNAVAILABLE, ids.JUDGE_ERROR)
        and all(sample.valid is not None for sample in report.samples)
        and not any(gate.type == "human_approval" for gate in verdict.gates)
    )
