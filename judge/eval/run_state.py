"""One eval run's state as its cases settle, kept by the process that reads the set (judge/eval/runner.py in
one process, judge/eval/worker_pool.py over worker processes): judged, taken from the store, or held by another
process; the wait for those; the result. Imports nothing of the pipeline: a parent of workers stays light.
"""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, replace
from typing import Iterator

from judge.errors import InputError, field_ref
from judge.eval.cases import LoadedCase
from judge.eval.leases import Owner
from judge.eval.progress import Progress
from judge.eval.report.model import BadLine, CaseInputs, CaseRecord
from judge.eval.store import RunStore

__all__ = ["HELD_WAIT_SECONDS", "POLL_SECONDS", "HeldWait", "Judged", "RunResult", "RunState", "lanes_for"]

# A wrong case's patch is kept in the report up to this size, then cut with a marker.
_MAX_PATCH_IN_REPORT = 200_000

# How long a run waits for cases another process is judging, counted from the last one that settled;
# a live judge settles a case within its model timeout and retries, far below this.
HELD_WAIT_SECONDS = 600.0
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


# Cases in the pipeline per model slot (--concurrency): while some wait for the model, or for litellm's
# import, the rules check the next ones.
_LANES_PER_SLOT = 2


def lanes_for(concurrency: int) -> int:
    """How many cases a process judging ``concurrency`` cases with the model at once keeps in hand."""
    return _LANES_PER_SLOT * max(1, concurrency)


@dataclass(frozen=True)
class Judged:
    """A case settled by a judge: its record, judged there, or stored by another process (``by_other``)."""

    record: CaseRecord
    by_other: bool = False


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

    def settle(self, item: LoadedCase, judged: Judged | Owner) -> None:
        if isinstance(judged, Owner):
            self.held[item.case.id] = (item, judged)
            return
        self.held.pop(item.case.id, None)
        if judged.by_other:
            self.by_others.add(item.case.id)
            self.keep(item, self.reuse(item, judged.record))
        else:
            self.keep(item, judged.record)

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
    begins, and an InputError after ``held_wait`` seconds in which none of them settled."""

    def __init__(self, run: RunState, held_wait: float) -> None:
        self.run, self.held_wait = run, held_wait
        self.last_progress, self.count = time.monotonic(), len(run.held)
        self.said = False

    def check(self) -> None:
        run = self.run
        if len(run.held) < self.count:
            self.last_progress, self.count = time.monotonic(), len(run.held)
        owners = ", ".join(sorted({str(owner) for _, owner in run.held.values()}))
        if time.monotonic() - self.last_progress > self.held_wait:
            ids = ", ".join(repr(case_id) for case_id in list(run.held)[:5]) + (", ..." if len(run.held) > 5 else "")
            raise InputError(f"run {run.run_id}: {len(run.held)} case(s) still being judged by {owners} after "
                             f"{self.held_wait:g} s without progress ({ids}); everything else is stored: "
                             f"{field_ref('resume')} {run.run_id} again once that process has ended")
        if not self.said:
            run.note(f"{len(run.held)} case(s) of run {run.run_id} are being judged by {owners}, which shares the "
                     f"store; waiting for them (at most {self.held_wait:g} s without progress)")
            self.said = True


def _note(text: str) -> None:
    sys.stderr.write(f"judge: {text}\n")


def _inputs(item: LoadedCase) -> CaseInputs:
    result = dict(item.case.result)
    patch = result.get("patch")
    if isinstance(patch, str) and len(patch) > _MAX_PATCH_IN_REPORT:
        result["patch"] = patch[:_MAX_PATCH_IN_REPORT] + f"\n[judge: patch cut at {_MAX_PATCH_IN_REPORT} characters]"
    return CaseInputs(item.case.id, item.case.step, result)
