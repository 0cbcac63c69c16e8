"""Runs an eval set in this process: cases read once from the file, judged with bounded concurrency, stored as
they finish; and what a worker process judges with (judge/eval/worker_process.py): CaseJudge, all_lanes.

A resumed run takes the cases its store already holds as done and judges only
the others; the verdict cache answers unchanged cases without the model. Processes
running one run at once share its cases through leases, each case judged by one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any, Coroutine, Iterable, Iterator

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.eval import run_state
from judge.eval.cache import VerdictCache, cache_key
from judge.eval.leases import CaseLeases, Owner
from judge.eval.cases import EvalSet, LoadedCase
from judge.eval.progress import Progress
from judge.eval.report.model import CaseRecord
from judge.eval.run_state import HeldWait, Judged, RunResult, RunState, lanes_for
from judge.eval.store import RunStore
from judge.pipeline import avalidate
from judge.verdict import Verdict

__all__ = ["CaseJudge", "all_lanes", "connection_pool_for", "run_eval"]

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
    held_wait: float | None = None,
) -> RunResult:
    """Judge the cases in this process; with a store and a run, lease each before judging it, so that other
    processes on the same run judge the rest, and wait for theirs (judge/eval/leases.py): the result holds
    every case once. judge/eval/worker_pool.py runs the same cases over worker processes."""
    started = time.monotonic()
    run = RunState(store, run_id, progress)
    judge = CaseJudge(config, store, run_id, cache, concurrency)
    loaded = run.read(cases.items(shard))
    lanes = lanes_for(concurrency)
    try:
        async with connection_pool_for(config, concurrency):
            await all_lanes(_lane(run, judge, loaded) for _ in range(lanes))
            await _await_held(run, judge, lanes, run_state.HELD_WAIT_SECONDS if held_wait is None else held_wait)
    finally:
        judge.close()
    return run.result(started, cache.unreadable if cache is not None else 0)


def connection_pool_for(config: JudgeConfig, concurrency: int) -> contextlib.AbstractAsyncContextManager:
    """One kept-alive connection pool for the model calls; none (and no import of the LLM stack) without a model."""
    if not config.semantic_enabled:
        return contextlib.nullcontext()
    from judge.llm.pool import connection_pool

    return connection_pool(concurrency)


async def all_lanes(lanes: Iterable[Coroutine[Any, Any, None]]) -> None:
    """Run the lanes to their end; when one fails, the others are cancelled before the error goes on (none
    goes on calling the model while its connections close)."""
    tasks = [asyncio.ensure_future(lane) for lane in lanes]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _lane(run: "RunState", judge: "CaseJudge", items: Iterator[LoadedCase]) -> None:
    for item in items:  # one shared iterator: each case goes to exactly one lane
        if not run.stored(item):
            run.settle(item, await judge.settle(item))


class CaseJudge:
    """Judges cases of one run for this process: leases each, judges it (the cache first) and stores it with
    its lease given back; a case stored by another process meanwhile is taken as stored, one another live
    process holds is left to it. At most ``concurrency`` semantic reviews run at once."""

    def __init__(self, config: JudgeConfig, store: RunStore | None, run_id: str | None,
                 cache: VerdictCache | None, concurrency: int) -> None:
        self.config, self.store, self.run_id, self.cache = config, store, run_id, cache
        self.leases = CaseLeases(store, run_id) if store and run_id else None
        self.slots = asyncio.Semaphore(max(1, concurrency))

    async def settle(self, item: LoadedCase) -> Judged | Owner:
        taken = self.leases.take(item.case.id, item.inputs_hash) if self.leases else None
        if isinstance(taken, Owner):
            return taken
        if isinstance(taken, CaseRecord):
            return Judged(taken, by_other=True)
        record = await _judge_case(item, self.config, self.cache, self.slots)
        if self.leases:
            self.leases.finish(record)
        return Judged(record)

    def close(self) -> None:
        if self.leases:
            self.leases.close()


async def _await_held(run: RunState, judge: CaseJudge, lanes: int, held_wait: float) -> None:
    """Until every case another process held is settled: stored by it (taken as is), or free again because it
    died (judged here)."""
    wait = HeldWait(run, held_wait)
    while run.held:
        wait.check()
        await asyncio.sleep(run_state.POLL_SECONDS)
        retry = iter([item for item, _ in list(run.held.values())])
        await all_lanes(_lane(run, judge, retry) for _ in range(lanes))


async def _judge_case(item: LoadedCase, config: JudgeConfig, cache: VerdictCache | None,
                      slots: asyncio.Semaphore) -> CaseRecord:
    key = cache_key(item.inputs_hash, config, item.case.step) if cache is not None and config.semantic_enabled \
        else None
    started = time.perf_counter()
    cached = cache.get(key) if key else None
    verdict = cached
    if verdict is None:
        verdict = await avalidate(item.case.step, item.case.result, config=config, records=item.case.executions,
                                  semantic_slots=slots)
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
        gates=tuple(gate.model_dump(mode="json") for gate in verdict.gates),
        outcome=_outcome(verdict),
    )


def _outcome(verdict: Verdict) -> dict | None:
    """Seed 004's outcome in the report's camelCase."""
    outcome = verdict.outcome
    if outcome is None:
        return None
    return {"accepted": outcome.accepted, "missingFields": list(outcome.missing_fields),
            "rejectionReasons": list(outcome.rejection_reasons), "nextAction": outcome.next_action}
