"""Runs an eval set: cases read once from the file, judged with bounded concurrency, stored as they finish.

A resumed run takes the cases its store already holds as done and judges only
the others; the verdict cache answers unchanged cases without the model.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass, replace
from typing import Iterator

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.eval.cache import VerdictCache, cache_key
from judge.eval.cases import EvalSet, LoadedCase
from judge.eval.progress import Progress
from judge.eval.report.model import BadLine, CaseInputs, CaseRecord
from judge.eval.store import RunStore
from judge.pipeline import avalidate
from judge.verdict import Verdict

__all__ = ["RunResult", "run_eval"]

# A wrong case's patch is kept in the report up to this size, then cut with a marker.
_MAX_PATCH_IN_REPORT = 200_000


@dataclass(frozen=True)
class RunResult:
    records: tuple[CaseRecord, ...]  # in file order
    bad_lines: tuple[BadLine, ...]
    wrong_inputs: tuple[CaseInputs, ...]  # step and result of each case judged wrong, in file order
    set_sha256: str  # of the judged cases' ids and inputs, in order
    resumed: int  # cases taken from the store instead of judged again
    seconds: float


async def run_eval(
    cases: EvalSet,
    config: JudgeConfig,
    *,
    store: RunStore | None = None,
    run_id: str | None = None,
    cache: VerdictCache | None = None,
    concurrency: int = 8,
    shard: tuple[int, int] | None = None,
    progress: Progress | None = None,
) -> RunResult:
    started = time.monotonic()
    done = store.records(run_id) if store and run_id else {}
    order: list[str] = []
    bad: list[BadLine] = []
    records: dict[str, CaseRecord] = {}
    wrong: dict[str, CaseInputs] = {}
    reused: set[str] = set()
    digest = hashlib.sha256()
    loaded = _cases(cases.items(shard), order, bad, digest, progress)

    async def worker() -> None:
        for item in loaded:  # one shared iterator: each case goes to exactly one worker
            case = item.case
            stored = done.get(case.id)
            if stored is not None and stored.inputs_hash == item.inputs_hash:
                # Same inputs: the stored verdict stands; the labels are the file's, which may have been fixed.
                record = replace(stored, expected_valid=case.expected.valid, expected_rule=case.expected.rule,
                                 tags=case.tags)
                reused.add(case.id)
            else:
                record = await _judge_case(item, config, cache)
                if store and run_id:
                    store.save(run_id, record)
            records[case.id] = record
            if not record.rule_correct:
                wrong[case.id] = _inputs(item)
            if progress:
                progress.advance()

    await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
    if progress:
        progress.finish()
    return RunResult(
        records=tuple(records[case_id] for case_id in order),
        bad_lines=tuple(bad),
        wrong_inputs=tuple(wrong[case_id] for case_id in order if case_id in wrong),
        set_sha256=digest.hexdigest(),
        resumed=len(reused),
        seconds=time.monotonic() - started,
    )


def _cases(items: Iterator[LoadedCase | BadLine], order: list[str], bad: list[BadLine], digest,
           progress: Progress | None) -> Iterator[LoadedCase]:
    for item in items:
        if isinstance(item, BadLine):
            bad.append(item)
            continue
        order.append(item.case.id)
        digest.update(f"{item.case.id}:{item.inputs_hash}\n".encode("utf-8", "surrogatepass"))
        yield item
    if progress:  # the whole set is read: the estimate becomes the count
        progress.total = len(order)


async def _judge_case(item: LoadedCase, config: JudgeConfig, cache: VerdictCache | None) -> CaseRecord:
    key = cache_key(item.inputs_hash, config) if cache is not None and config.semantic_enabled else None
    started = time.perf_counter()
    cached = cache.get(key) if key else None
    verdict = cached if cached is not None else await avalidate(item.case.step, item.case.result, config=config)
    if key and cached is None:
        cache.put(key, verdict)  # type: ignore[union-attr]
    return _record(item, verdict, (time.perf_counter() - started) * 1000, cached=cached is not None)


def _record(item: LoadedCase, verdict: Verdict, latency_ms: float, *, cached: bool) -> CaseRecord:
    case, report = item.case, verdict.semantic_review
    deciding = next((f for f in verdict.findings if f.rule == verdict.rule and f.severity == "reject"), None)
    if deciding is not None:
        decided_by = deciding.stage
    else:
        decided_by = "semantic" if report is not None else "skipped"
    spent = report is not None and not cached
    return CaseRecord(
        case_id=case.id,
        inputs_hash=item.inputs_hash,
        tags=case.tags,
        expected_valid=case.expected.valid,
        expected_rule=case.expected.rule,
        valid=verdict.valid,
        rule=verdict.rule,
        reason=verdict.reason,
        decided_by=decided_by,
        llm_calls=sum(call.attempts for call in report.calls) if spent else 0,
        prompt_tokens=report.prompt_tokens if spent else 0,
        completion_tokens=report.completion_tokens if spent else 0,
        cost_usd=report.cost_usd if spent else None,
        latency_ms=round(latency_ms, 3),
        samples=len(report.samples) if report else 0,
        agreement=report.agreement if report else None,
        error=verdict.rule if verdict.rule in (ids.LLM_UNAVAILABLE, ids.JUDGE_ERROR) else None,
        cached=cached,
    )


def _inputs(item: LoadedCase) -> CaseInputs:
    result = dict(item.case.result)
    patch = result.get("patch")
    if isinstance(patch, str) and len(patch) > _MAX_PATCH_IN_REPORT:
        result["patch"] = patch[:_MAX_PATCH_IN_REPORT] + f"\n[judge: patch cut at {_MAX_PATCH_IN_REPORT} characters]"
    return CaseInputs(item.case.id, item.case.step, result)
