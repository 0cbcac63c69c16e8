"""A `judge eval` run over a pool of worker processes: this process reads the set, takes what the store already
holds, and hands every other case to one of N workers (judge/eval/worker_process.py), which lease, judge and store it
in the shared SQLite store (and cache) and send its record back; the progress, held cases and the report stay here.

Each worker holds its share of --concurrency, its own litellm and its own pool of connections; a 429 met by
one pauses them all (judge.llm.client.share_pauses over shared memory).

A worker that dies (kill -9, the OOM killer) ends the run: the others finish and store the cases they have
started, and the run stops with one line saying to --resume it; the resumed run takes over at once what the
dead worker had leased (its pid is gone) and judges everything not stored. A parent that dies leaves its
workers to finish and store what they have started, and they end; a --resume meanwhile waits for their
leases and takes their records. Either way no stored case is judged again and none is lost.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections import deque
from multiprocessing.connection import wait
from pathlib import Path
from typing import Any, Iterator

from judge.config import JudgeConfig
from judge.errors import InputError, JudgeError, field_ref
from judge.eval import run_state
from judge.eval.cases import EvalSet, LoadedCase
from judge.eval.progress import Progress
from judge.eval.run_state import HeldWait, Judged, RunResult, RunState, lanes_for
from judge.eval.store import RunStore
from judge.eval.worker_process import STOP, WorkerSetup, work

__all__ = ["MIN_CASES_PER_WORKER", "WorkerFailed", "default_workers", "run_in_workers", "split_concurrency"]

# A worker costs a process start and its own import of litellm (~2 s of CPU): a small set is judged in one.
MIN_CASES_PER_WORKER = 50
# Waiting for messages wakes up at least this often (a worker's end shows as its process sentinel anyway).
_WAKE_SECONDS = 1.0
# After its cases, a worker closes its store and cache and ends within this; past it, it is terminated.
_END_SECONDS = 30.0


class WorkerFailed(Exception):
    """A worker process failed inside, outside any error judge raises on purpose (a bug): in one line."""


def default_workers(config: JudgeConfig, cases: int, concurrency: int) -> int:
    """One worker per core when a model is configured, at most one per MIN_CASES_PER_WORKER cases and one per
    unit of concurrency; 1 otherwise (the rules alone need no second process)."""
    if not config.semantic_enabled:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return max(1, min(cores, concurrency, cases // MIN_CASES_PER_WORKER))


def split_concurrency(concurrency: int, workers: int) -> list[int]:
    """Each worker's share of ``concurrency``, as even as can be; every worker gets at least 1."""
    workers = max(1, min(workers, concurrency))
    base, extra = divmod(concurrency, workers)
    return [base + (1 if index < extra else 0) for index in range(workers)]


def run_in_workers(cases: EvalSet, config: JudgeConfig, *, store: RunStore, run_id: str, cache: Path | None,
                   concurrency: int, workers: int, shard: tuple[int, int] | None = None,
                   progress: Progress | None = None, held_wait: float | None = None) -> RunResult:
    """judge.eval.runner.run_eval's result, judged by ``workers`` processes sharing ``store`` and ``cache``.
    This process imports nothing of the pipeline or litellm: the workers start sooner."""
    started = time.monotonic()
    run = RunState(store, run_id, progress)
    source = _Source(run, run.read(cases.items(shard)))
    if source.peek() is None:  # everything is stored already (or the set is empty): no process to start
        return run.result(started, 0)
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no thread or lock copied mid-use
    pauses = context.RawValue("d", 0.0)  # no lock: one would start multiprocessing's resource tracker process
    crew = _Crew(run, [_Worker(context, index, WorkerSetup(config, str(store.path.resolve()), run_id,
                                                            str(cache.resolve()) if cache else None, share, pauses))
                       for index, share in enumerate(split_concurrency(concurrency, workers))])
    try:  # while the workers start and import litellm, this process reads the set on
        _judge_all(crew, source, run_state.HELD_WAIT_SECONDS if held_wait is None else held_wait)
    except _WorkerDied as died:
        crew.end(patience=config.deadline + _END_SECONDS)  # the others store what they have started
        raise InputError(f"run {run_id}: {died}; every case a worker finished is stored: "
                         f"{field_ref('resume')} {run_id} judges the rest") from None
    except Exception:
        crew.end(patience=config.deadline + _END_SECONDS)
        raise
    except BaseException:  # Ctrl-C: at once; the leases of what was in flight die with the workers' pids
        crew.terminate()
        raise
    crew.end(patience=_END_SECONDS)
    return run.result(started, crew.cache_unreadable)


def _judge_all(crew: "_Crew", source: "_Source", held_wait: float) -> None:
    held: HeldWait | None = None
    while True:
        crew.hand_out(source)
        if not (source.exhausted and not source.retry and crew.idle()):
            crew.receive(_WAKE_SECONDS)
            continue
        if not crew.run.held:
            return
        # Only cases another process holds are left: ask again now and then, within the bound.
        held = held or HeldWait(crew.run, held_wait)
        held.check()
        crew.receive(run_state.POLL_SECONDS)
        source.retry.extend(item for item, _ in crew.run.held.values())


class _Source:
    """The cases still to hand out: the set as it is read (less what the store holds), then held ones again."""

    def __init__(self, run: RunState, loaded: Iterator[LoadedCase]) -> None:
        self.run, self.loaded = run, loaded
        self.retry: deque[LoadedCase] = deque()
        self.exhausted = False

    def peek(self) -> LoadedCase | None:
        """The next case without taking it."""
        item = self.next()
        if item is not None:
            self.retry.appendleft(item)
        return item

    def next(self) -> LoadedCase | None:
        if self.retry:
            return self.retry.popleft()
        for item in self.loaded:
            if not self.run.stored(item):
                return item
        self.exhausted = True
        return None


class _WorkerDied(Exception):
    pass


class _Worker:
    """One worker process and its two pipes: cases go in, what became of them comes out."""

    def __init__(self, context: Any, index: int, setup: WorkerSetup) -> None:
        cases_out, self.inbox = context.Pipe(duplex=False)
        self.outbox, results_in = context.Pipe(duplex=False)
        self.process = context.Process(target=work, args=(cases_out, results_in, setup),
                                       name=f"judge-eval-worker-{index + 1}")
        self.process.start()
        cases_out.close()  # the worker's ends: closed here, so either side sees the other's end
        results_in.close()
        # Its lanes, and as many again waiting, so that a lane that frees up never waits for this process.
        self.capacity = lanes_for(setup.concurrency) + setup.concurrency
        self.cases: dict[str, LoadedCase] = {}  # handed out, not settled yet
        self.said_bye = False  # it has closed everything and is ending
        self.dead = False  # it ended without saying goodbye

    @property
    def room(self) -> int:
        return 0 if self.said_bye or self.dead else self.capacity - len(self.cases)

    @property
    def listening(self) -> bool:
        """Something may still come from it: it has not died, and has not both said goodbye and ended."""
        return not self.dead and not (self.said_bye and self.process.exitcode is not None)

    def send(self, message: Any) -> bool:
        try:
            self.inbox.send(message)
        except OSError:  # its end is closed: it is ending or dead, which its sentinel tells
            return False
        return True

    def __str__(self) -> str:
        code = self.process.exitcode
        if code is None:
            how = "stopped answering"
        elif code < 0:
            try:
                how = f"killed by {signal.Signals(-code).name}"
            except ValueError:
                how = f"killed by signal {-code}"
        else:
            how = f"exit status {code}"
        return f"worker process {self.process.pid} ended unexpectedly ({how})"


class _Crew:
    """The run's workers: hands out cases, takes what comes back into the run's state, ends them."""

    def __init__(self, run: RunState, workers: list[_Worker]) -> None:
        self.run, self.workers = run, workers
        self.cache_unreadable = 0

    def idle(self) -> bool:
        return not any(worker.cases for worker in self.workers)

    def hand_out(self, source: _Source) -> None:
        """Cases to the workers with room, the emptiest first, until none has room or none is left."""
        while True:
            worker = max(self.workers, key=lambda w: w.room)
            if worker.room <= 0:
                return
            item = source.next()
            if item is None:
                return
            worker.cases[item.case.id] = item
            worker.send(item)

    def receive(self, timeout: float, *, ending: bool = False) -> None:
        """Take what the workers sent within ``timeout`` seconds; a worker that ended without its goodbye is
        _WorkerDied (while ``ending``, it is only left out)."""
        live = [worker for worker in self.workers if worker.listening]
        if not live:
            return
        ready = set(wait([w.outbox for w in live] + [w.process.sentinel for w in live], timeout))
        for worker in live:
            if worker.outbox in ready or worker.process.sentinel in ready:
                self._drain(worker)
        for worker in live:
            if worker.process.sentinel in ready and not worker.said_bye:
                worker.dead = True
                worker.process.join(5)  # its pipe closes a moment before it can be reaped: its exit code
                if not ending:
                    raise _WorkerDied(str(worker))

    def _drain(self, worker: _Worker) -> None:
        try:
            while not worker.said_bye and worker.outbox.poll():
                self._take(worker, worker.outbox.recv())
        except (EOFError, OSError):  # its end closed mid-message: it died
            pass

    def _take(self, worker: _Worker, message: tuple) -> None:
        kind = message[0]
        if kind == "done":
            _, case_id, record, by_other = message
            self.run.settle(worker.cases.pop(case_id), Judged(record, by_other))
        elif kind == "held":
            _, case_id, owner = message
            self.run.settle(worker.cases.pop(case_id), owner)
        elif kind == "bye":
            worker.said_bye = True
            self.cache_unreadable += message[1]
        elif kind == "error":
            worker.said_bye = True
            error = message[1]
            raise error if isinstance(error, JudgeError) else WorkerFailed(str(error))
        else:  # "crash"
            worker.said_bye = True
            raise WorkerFailed(f"eval worker process {worker.process.pid}: {message[1]}")

    def end(self, patience: float) -> None:
        """Tell every worker to stop, take what they still send (the cases they had started) for at most
        ``patience`` seconds, then terminate any left."""
        for worker in self.workers:
            worker.send(STOP)
        deadline = time.monotonic() + patience
        while any(w.listening for w in self.workers) and time.monotonic() < deadline:
            try:
                self.receive(min(_WAKE_SECONDS, max(deadline - time.monotonic(), 0.0)), ending=True)
            except (JudgeError, WorkerFailed):  # the run is ending already: its first error is the one reported
                pass
        self.terminate()

    def terminate(self) -> None:
        for worker in self.workers:
            if worker.process.exitcode is None:
                worker.process.terminate()
        for worker in self.workers:
            worker.process.join(5)
            if worker.process.exitcode is None:
                worker.process.kill()
                worker.process.join()
            worker.inbox.close()
            worker.outbox.close()
