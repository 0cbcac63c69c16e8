"""Runs an eval set: cases read once from the file, judged with bounded concurrency, stored as they finish.

A resumed run takes the cases its store already holds as done and judges only
the others; the verdict cache answers unchanged cases without the model. Processes
running one run at once share its cases through claims, each case judged by one.
"""

from __future__ import annotations

import asyncio
import hashlib
import sys
import time
from dataclasses import dataclass, replace
from typing import Iterator

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.errors import InputError, field_ref
from judge.eval.cache import VerdictCache, cache_key
from judge.eval.claims import CaseClaims, Owner
from judge.eval.cases import EvalSet, LoadedCase
from judge.eval.progress import Progress
from judge.eval.report.model import BadLine, CaseInputs, CaseRecord
from judge.eval.store import RunStore
from judge.pipeline import avalidate
from judge.verdict import Verdict

__all__ = ["CLAIM_WAIT_SECONDS", "RunResult", "run_eval"]

# A wrong case's patch is kept in the report up to this size, then cut with a marker.
_MAX_PATCH_IN_REPORT = 200_000

# How long a run waits for cases another process is judging, counted from the last one that settled;
# a live judge settles a case within its model timeout and retries, far below this.
CLAIM_WAIT_SECONDS = 600.0
_POLL_SECONDS = 0.25


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
    claim_wait: float | None = None,
) -> RunResult:
    """Judge the cases; with a store and a run, claim each before judging it, so that other processes on the
    same run judge the rest, and wait for theirs (judge/eval/claims.py): the result holds every case once."""
    started = time.monotonic()
    run = _Judging(config, store, run_id, cache, progress)
    loaded = _cases(cases.items(shard), run.order, run.bad, run.digest, progress)
    workers = max(1, concurrency)
    try:
        await asyncio.gather(*(run.worker(loaded) for _ in range(workers)))
        await _await_held(run, workers, CLAIM_WAIT_SECONDS if claim_wait is None else claim_wait)
    finally:
        if run.claims:
            run.claims.close()
    if run.by_others:
        run.note(f"{len(run.by_others)} case(s) of run {run_id} were judged by another process sharing its "
                 "store; the report holds their stored verdicts")
    if progress:
        progress.finish()
    return RunResult(
        records=tuple(run.records[case_id] for case_id in run.order),
        bad_lines=tuple(run.bad),
        wrong_inputs=tuple(run.wrong[case_id] for case_id in run.order if case_id in run.wrong),
        set_sha256=run.digest.hexdigest(),
        resumed=len(run.reused),
        seconds=time.monotonic() - started,
    )


class _Judging:
    """One run's cases as they settle: judged here, taken from the store, or held by another process."""

    def __init__(self, config: JudgeConfig, store: RunStore | None, run_id: str | None,
                 cache: VerdictCache | None, progress: Progress | None) -> None:
        self.config, self.store, self.run_id, self.cache, self.progress = config, store, run_id, cache, progress
        self.note = progress.note if progress else _note
        self.done = store.records(run_id, self.note) if store and run_id else {}
        self.claims = CaseClaims(store, run_id) if store and run_id else None
        self.order: list[str] = []
        self.bad: list[BadLine] = []
        self.digest = hashlib.sha256()
        self.records: dict[str, CaseRecord] = {}
        self.wrong: dict[str, CaseInputs] = {}
        self.reused: set[str] = set()  # taken from the store instead of judged
        self.by_others: set[str] = set()  # of those, stored by another process during this run
        self.held: dict[str, tuple[LoadedCase, Owner]] = {}  # another live process is judging them
        if progress:
            progress.stored_ahead = len(self.done)

    async def worker(self, items: Iterator[LoadedCase]) -> None:
        for item in items:  # one shared iterator: each case goes to exactly one worker
            await self.settle(item)

    async def settle(self, item: LoadedCase) -> None:
        stored = self.done.get(item.case.id)
        if stored is not None and stored.inputs_hash == item.inputs_hash:
            self.keep(item, self.reuse(item, stored))
            return
        taken = self.claims.take(item.case.id, item.inputs_hash) if self.claims else None
        if isinstance(taken, Owner):
            self.held[item.case.id] = (item, taken)
            return
        self.held.pop(item.case.id, None)
        if isinstance(taken, CaseRecord):
            self.by_others.add(item.case.id)
            self.keep(item, self.reuse(item, taken))
            return
        record = await _judge_case(item, self.config, self.cache)
        if self.claims:
            self.claims.finish(record)
        elif self.store and self.run_id:
            self.store.save(self.run_id, record)
        self.keep(item, record)

    def reuse(self, item: LoadedCase, stored: CaseRecord) -> CaseRecord:
        """A stored verdict stands for the same inputs; the labels are the file's, which may have been fixed."""
        self.reused.add(item.case.id)
        case = item.case
        return replace(stored, expected_valid=case.expected.valid, expected_rule=case.expected.rule, tags=case.tags)

    def keep(self, item: LoadedCase, record: CaseRecord) -> None:
        self.records[item.case.id] = record
        if not record.rule_correct:
            self.wrong[item.case.id] = _inputs(item)
        if self.progress:
            self.progress.advance(model=record.llm_calls > 0, stored=item.case.id in self.reused,
                                  calls=record.llm_calls, cached=record.cached, error=record.error is not None)


async def _await_held(run: _Judging, workers: int, claim_wait: float) -> None:
    """Until every case another process held is settled: stored by it (taken as is), or free again because it
    died (judged here). An InputError after ``claim_wait`` seconds in which none settled."""
    said = False
    last_progress, count = time.monotonic(), len(run.held)
    while run.held:
        if len(run.held) < count:
            last_progress, count = time.monotonic(), len(run.held)
        owners = ", ".join(sorted({str(owner) for _, owner in run.held.values()}))
        if time.monotonic() - last_progress > claim_wait:
            ids = ", ".join(repr(case_id) for case_id in list(run.held)[:5]) + (", ..." if len(run.held) > 5 else "")
            raise InputError(f"run {run.run_id}: {len(run.held)} case(s) still being judged by {owners} after "
                             f"{claim_wait:g} s without progress ({ids}); everything else is stored: "
                             f"{field_ref('resume')} {run.run_id} again once that process has ended")
        if not said:
            run.note(f"{len(run.held)} case(s) of run {run.run_id} are being judged by {owners}, which shares the "
                     f"store; waiting for them (at most {claim_wait:g} s without progress)")
            said = True
        await asyncio.sleep(_POLL_SECONDS)
        retry = iter([item for item, _ in list(run.held.values())])
        await asyncio.gather(*(run.worker(retry) for _ in range(workers)))


def _note(text: str) -> None:
    sys.stderr.write(f"judge: {text}\n")


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
    key = cache_key(item.inputs_hash, config, item.case.step) if cache is not None and config.semantic_enabled \
        else None
    started = time.perf_counter()
    cached = cache.get(key) if key else None
    verdict = cached
    if verdict is None:
        verdict = await avalidate(item.case.step, item.case.result, config=config, evidence=item.case.executions)
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


def _inputs(item: LoadedCase) -> CaseInputs:
    result = dict(item.case.result)
    patch = result.get("patch")
    if isinstance(patch, str) and len(patch) > _MAX_PATCH_IN_REPORT:
        result["patch"] = patch[:_MAX_PATCH_IN_REPORT] + f"\n[judge: patch cut at {_MAX_PATCH_IN_REPORT} characters]"
    return CaseInputs(item.case.id, item.case.step, result)
