"""Loading an eval set: every line checked against its schema, bad lines kept as reports, shards chosen."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Iterator

from judge.contract import ContractViolation, parse_eval_case
from judge.errors import InputError
from judge.inputs import iter_jsonl
from judge.models import EvalCase

__all__ = ["BadLine", "count_cases", "inputs_hash", "iter_eval_set", "parse_shard"]


@dataclass(frozen=True)
class BadLine:
    line: int
    problem: str


def inputs_hash(case: EvalCase) -> str:
    """Canonical JSON of what the judge sees; labels and tags are not inputs."""
    canonical = json.dumps({"step": case.step, "result": case.result}, sort_keys=True, ensure_ascii=False,
                           separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


def iter_eval_set(source: str, shard: tuple[int, int] | None = None) -> Iterator[EvalCase | BadLine]:
    """Cases one at a time (memory stays flat in the set's size), bad lines as BadLine, in file order.

    Duplicate ids are bad lines; with ``shard`` only that shard's cases are yielded (bad lines all).
    """
    seen: set[str] = set()
    for number, item in iter_jsonl(source, "eval set"):
        if isinstance(item, InputError):
            yield BadLine(number, str(item))
            continue
        try:
            case = parse_eval_case(item)
        except ContractViolation as exc:
            yield BadLine(number, f"line {number}: {exc}")
            continue
        if case.id in seen:
            yield BadLine(number, f"line {number}: duplicate case id {case.id!r}")
            continue
        seen.add(case.id)
        if shard is None or _shard_of(case.id, shard[1]) == shard[0] - 1:
            yield case


def count_cases(source: str, shard: tuple[int, int] | None = None) -> int:
    """How many cases a run will judge (for the progress bar's ETA); bad lines are not counted."""
    return sum(1 for item in iter_eval_set(source, shard) if isinstance(item, EvalCase))


def _shard_of(case_id: str, count: int) -> int:
    """Stable across machines and Python runs (no hash() salt): a case always lands in the same shard."""
    return int(hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:8], 16) % count


_SHARD = re.compile(r"^(\d+)/(\d+)$")


def parse_shard(text: str) -> tuple[int, int]:
    match = _SHARD.match(text.strip())
    if not match or not (1 <= int(match.group(1)) <= int(match.group(2))):
        raise InputError(f"--shard {text}: expected I/N with 1 <= I <= N, e.g. 2/4")
    return int(match.group(1)), int(match.group(2))
