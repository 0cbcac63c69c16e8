"""Runs an eval set in this process: cases read once from the file, judged with bounded concurrency, stored as
they finish; and the parts judge/eval/workers.py shares: the run's state, a case's judge, the wait for others.

A resumed run takes the cases its store already holds as done and judges only
the others; the verdict cache answers unchanged cases without the model. Processes
running one run at once share its cases through claims, each case judged by one.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import sys
import time
from dataclasses import dataclass, replace
from typing import Any, Coroutine, Iterable, Iterator

from judge import rule_ids as ids
from judge.config import JudgeConfig
from judge.errors import InputError, field_ref
from judge.eval.cache import VerdictCache, cache_key
from judge.eval.claims import CaseClaims, Owner
from judge.eval.cases import EvalSet, LoadedCase
from judge.eval.progress import Progress
from judge.eval.report.model import BadLine, CaseInputs, CaseRecord
from judge.eval.store import RunStore
from judge.llm.client import connection_pool, preload, preloaded
from judge.pipeline import avalidate
from judge.verdict import Verdict

__all__ = ["CLAIM_WAIT_SECONDS", "POLL_SECONDS", "CaseJudge", "HeldWait", "Judged", "RunResult", "RunState",
           "all_lanes", "lanes_for", "run_eval"]

# A wrong case's patch is kept in the report up to this size, then cut with a marker.
_MAX_PATCH_IN_REPORT = 200_000

# How long a run waits for cases another process is judging, counted from the last one that settled;
# a live judge settles a case within its model timeout and retries, far below this.
CLAIM_WAIT_SECONDS = 600.0
POLL_SECONDS = 0.25  # how often cases another process holds are asked for again


@dataclass(frozen=True)
class RunResult:
    records: tuple[CaseRecord, ...]  # in file order
    bad_lines: tuple[BadLine, ...]
    wrong_inputs: tuple[CaseInputs, ...]  # step and result of each case judged wrong, in file order
    set_sha256: str  # of the judged cases' ids and inputs, in order
    resumed: int  # cases taken from the store instead of judged again
    seconds: float
    cache_unreadable: int = 0  # cache entries found unreadable, each a miss (judged again, rewritten)


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
    """Judge the cases in this process; with a store and a run, claim each before judging it, so that other
    processes on the same run judge the rest, and wait for theirs (judge/eval/claims.py): the result holds
    every case once. judge/eval/workers.py runs the same cases over worker processes."""
    started = time.monotonic()
    run = RunState(store, run_id, progress)
    judge = CaseJudge(config, store, run_id, cache, concurrency)
    loaded = run.read(cases.items(shard))
    if config.semantic_enabled:
        preload()  # litellm's import runs beside the reading and the cases the rules decide
    lanes = lanes_for(concurrency)
    try:
        async with connection_pool(concurrency) if config.semantic_enabled else contextlib.nullcontext():
            await all_lanes(_lane(run, judge, loaded) for _ in range(lanes))
            await _await_held(run, judge, lanes, CLAIM_WAIT_SECONDS if claim_wait is None else claim_wait)
        await preloaded()  # a run the rules decided alone does not end in the middle of the import
    finally:
        judge.close()
    return run.result(started, cache.unreadable if cache is not None else 0)


# Cases in the pipeline per model slot (--concurrency): while some wait for the model, or for litellm's
# import, the rules check the next ones.
_LANES_PER_SLOT = 2


def lanes_for(concurrency: int) -> int:
    """How many cases a process judging ``concurrency`` cases with the model at once keeps in hand."""
    return _LANES_PER_SLOT * max(1, concurrency)


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


@dataclass(frozen=True)
class Judged:
    """A case settled by a judge: its record, judged there, or stored by another process (``by_other``)."""

    record: CaseRecord
    by_other: bool = False


class CaseJudge:
    """Judges cases of one run for this process: claims each, judges it (the cache first) and stores it with
    its claim given back; a case stored by another process meanwhile is taken as stored, one another live
    process holds is left to it. At most ``concurrency`` semantic reviews run at once."""

    def __init__(self, config: JudgeConfig, store: RunStore | None, run_id: str | None,
                 cache: VerdictCache | None, concurrency: int) -> None:
        self.config, self.store, self.run_id, self.cache = config, store, run_id, cache
        self.claims = CaseClaims(store, run_id) if store and run_id else None
        self.slots = asyncio.Semaphore(max(1, concurrency))

    async def settle(self, item: LoadedCase) -> Judged | Owner:
        taken = self.claims.take(item.case.id, item.inputs_hash) if self.claims else None
        if isinstance(taken, Owner):
            return taken
        if isinstance(taken, CaseRecord):
            return Judged(taken, by_other=True)
        record = await _judge_case(item, self.config, self.cache, self.slots)
        if self.claims:
            self.claims.finish(record)
        return Judged(record)

    def close(self) -> None:
        if self.claims:
            self.claims.close()


class RunState:
    """One run's cases as they settle: judged, taken from the store, or held by another process; read once."""

    def __init__(self, store: RunStore | None, run_id: str | None, progress: Progress | None) -> None:
        self.run_id, self.progress = run_id, progress
        self.note = progress.note if progress else _note
        self.done = store.records(run_id, self.note) if store and run_id else {}
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

    def read(self, items: Iterator[LoadedCase | BadLine]) -> Iterator[LoadedCase]:
        """The set's cases in file order, its bad lines kept aside; the progress total is the count once read."""
        for item in items:
            if isinstance(item, BadLine):
                self.bad.append(item)
                continue
            self.order.append(item.case.id)
            self.digest.update(f"{item.case.id}:{item.inputs_hash}\n".encode("utf-8", "surrogatepass"))
            yield item
        if self.progress:  # the whole set is read: the estimate becomes the count
            self.progress.total = len(self.order)

    def stored(self, item: LoadedCase) -> bool:
        """Settled from what the store held when the run began, if it holds the case with these inputs."""
        stored = self.done.get(item.case.id)
        if stored is None or stored.inputs_hash != item.inputs_hash:
            return False
        self.keep(item, self.reuse(item, stored))
        return True

    def settle(self, item: LoadedCase, outcome: Judged | Owner) -> None:
        if isinstance(outcome, Owner):
            self.held[item.case.id] = (item, outcome)
            return
        self.held.pop(item.case.id, None)
        if outcome.by_other:
            self.by_others.add(item.case.id)
            self.keep(item, self.reuse(item, outcome.record))
        else:
            self.keep(item, outcome.record)

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

    def result(self, started: float, cache_unreadable: int) -> RunResult:
        if self.by_others:
            self.note(f"{len(self.by_others)} case(s) of run {self.run_id} were judged by another process sharing "
                      "its store; the report holds their stored verdicts")
        if self.progress:
            self.progress.finish()
        return RunResult(
            records=tuple(self.records[case_id] for case_id in self.order),
            bad_lines=tuple(self.bad),
            wrong_inputs=tuple(self.wrong[case_id] for case_id in self.order if case_id in self.wrong),
            set_sha256=self.digest.hexdigest(),
            resumed=len(self.reused),
            seconds=time.monotonic() - started,
            cache_unreadable=cache_unreadable,
        )


class HeldWait:
    """The wait for the cases other live processes hold once everything else has settled: a note when it
    begins, and an InputError after ``claim_wait`` seconds in which none of them settled."""

    def __init__(self, run: RunState, claim_wait: float) -> None:
        self.run, self.claim_wait = run, claim_wait
        self.last_progress, self.count = time.monotonic(), len(run.held)
        self.said = False

    def check(self) -> None:
        run = self.run
        if len(run.held) < self.count:
            self.last_progress, self.count = time.monotonic(), len(run.held)
        owners = ", ".join(sorted({str(owner) for _, owner in run.held.values()}))
        if time.monotonic() - self.last_progress > self.claim_wait:
            ids = ", ".join(repr(case_id) for case_id in list(run.held)[:5]) + (", ..." if len(run.held) > 5 else "")
            raise InputError(f"run {run.run_id}: {len(run.held)} case(s) still being judged by {owners} after "
                             f"{self.claim_wait:g} s without progress ({ids}); everything else is stored: "
                             f"{field_ref('resume')} {run.run_id} again once that process has ended")
        if not self.said:
            run.note(f"{len(run.held)} case(s) of run {run.run_id} are being judged by {owners}, which shares the "
                     f"store; waiting for them (at most {self.claim_wait:g} s without progress)")
            self.said = True


async def _await_held(run: RunState, judge: CaseJudge, lanes: int, claim_wait: float) -> None:
    """Until every case another process held is settled: stored by it (taken as is), or free again because it
    died (judged here)."""
    wait = HeldWait(run, claim_wait)
    while run.held:
        wait.check()
        await asyncio.sleep(POLL_SECONDS)
        retry = iter([item for item, _ in list(run.held.values())])
        await all_lanes(_lane(run, judge, retry) for _ in range(lanes))


def _note(text: str) -> None:
    sys.stderr.write(f"judge: {text}\n")


async def _judge_case(item: LoadedCase, config: JudgeConfig, cache: VerdictCache | None,
                      slots: asyncio.Semaphore) -> CaseRecord:
    key = cache_key(item.inputs_hash, config, item.case.step) if cache is not None and config.semantic_enabled \
        else None
    started = time.perf_counter()
    cached = cache.get(key) if key else None
    verdict = cached
    if verdict is None:
        verdict = await avalidate(item.case.step, item.case.result, config=config, evidence=item.case.executions,
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


def _inputs(item: LoadedCase) -> CaseInputs:
    result = dict(item.case.result)
    patch = result.get("patch")
    if isinstance(patch, str) and len(patch) > _MAX_PATCH_IN_REPORT:
        result["patch"] = patch[:_MAX_PATCH_IN_REPORT] + f"\n[judge: patch cut at {_MAX_PATCH_IN_REPORT} characters]"
    return CaseInputs(item.case.id, item.case.step, result)
