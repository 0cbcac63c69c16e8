"""One worker process of a `judge eval` run: takes cases from the run's parent process, leases, judges and
stores each (judge/eval/runner.py's CaseJudge, on the shared SQLite store and cache), and sends back what
became of it; stops when told, or when the parent is gone, once the cases it has started are stored.

Its only imports at load time are the standard library's. With a model configured, litellm's import begins at
once, in a thread (judge.llm.client.import_ahead): the worker judges the cases the rules decide meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["STOP", "SharedPauses", "WorkerSetup", "work"]

STOP = "stop"  # the parent's word for: finish the cases you have started, then end


@dataclass(frozen=True)
class WorkerSetup:
    config: Any  # JudgeConfig
    store: str  # the run store's path
    run_id: str
    cache: str | None  # the verdict cache's path; None: no cache
    concurrency: int  # this worker's share of --concurrency
    pauses: Any  # multiprocessing RawValue('d'): the provider's pause, shared by the run's workers


class SharedPauses:
    """judge.llm.client's provider pauses over one shared double: every worker of a run calls one provider
    (one model, one API base), so one value serves. time.monotonic() is the system's monotonic clock, one for
    every process on the machine. Without a lock: two workers extending at the same instant may keep the
    shorter of their pauses, and the next 429 extends it again."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def until(self, provider: object) -> float:
        return self.value.value

    def extend(self, provider: object, until: float) -> None:
        if until > self.value.value:
            self.value.value = until


def work(inbox: Connection, outbox: Connection, setup: WorkerSetup) -> None:
    """The worker process's body; it ends the process itself (os._exit) once everything it holds is closed."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole process group: the parent decides
    if setup.config.semantic_enabled:  # without a model, nothing of the LLM stack is imported
        from judge.llm.client import import_ahead, share_pauses

        import_ahead()  # seconds of CPU: begun before the judge's own imports, not when a case first needs it
        share_pauses(SharedPauses(setup.pauses))
    send = _Sender(outbox)
    try:
        asyncio.run(_serve(inbox, send, setup))
    except Exception as exc:  # a JudgeError the parent re-raises as it is; anything else is a bug, in one line
        from judge.errors import JudgeError

        send(("error", exc) if isinstance(exc, JudgeError) else ("crash", f"{type(exc).__name__}: {exc}"[:300]))
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        # Everything the worker holds is stored and closed; the interpreter's teardown (litellm's exit hooks
        # start an event loop to close clients already closed) would only delay the run's end.
        os._exit(0)


class _Sender:
    """Sends to the parent; once it is gone (a closed pipe), ``gone`` is set and nothing more is sent."""

    def __init__(self, outbox: Connection) -> None:
        self.outbox = outbox
        self.gone = False

    def __call__(self, message: tuple) -> None:
        if self.gone:
            return
        try:
            self.outbox.send(message)
        except (OSError, EOFError):  # BrokenPipeError: the parent was killed; what is judged is stored
            self.gone = True


async def _serve(inbox: Connection, send: _Sender, setup: WorkerSetup) -> None:
    from pathlib import Path

    from judge.eval.cache import VerdictCache
    from judge.eval.run_state import Judged, lanes_for
    from judge.eval.runner import CaseJudge, all_lanes, connection_pool_for
    from judge.eval.store import RunStore

    store = RunStore(Path(setup.store))
    cache = None
    judge = None
    try:
        cache = VerdictCache(Path(setup.cache)) if setup.cache else None
        judge = CaseJudge(setup.config, store, setup.run_id, cache, setup.concurrency)
        cases = _Inbox(inbox, asyncio.get_running_loop())

        async def lane() -> None:
            while (item := await cases.next()) is not None:
                outcome = await judge.settle(item)  # type: ignore[union-attr]
                if isinstance(outcome, Judged):
                    send(("done", item.case.id, outcome.record, outcome.by_other))
                else:
                    send(("held", item.case.id, outcome))
                if send.gone:
                    cases.stop()

        async with connection_pool_for(setup.config, setup.concurrency):
            await all_lanes(lane() for _ in range(lanes_for(setup.concurrency)))
    finally:
        if judge is not None:
            judge.close()
        store.close()
        if cache is not None:
            cache.close()
    send(("bye", cache.unreadable if cache is not None else 0))


class _Inbox:
    """The cases the parent sends, read by a thread (a blocking pipe) and handed to the lanes on the loop.

    STOP, or the parent's end (end of file), stops the worker: a case already started is finished and
    stored, one not started yet is dropped unleased, free for the run's --resume."""

    def __init__(self, inbox: Connection, loop: asyncio.AbstractEventLoop) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self.stopping = False
        threading.Thread(target=self._read, args=(inbox, loop.call_soon_threadsafe), daemon=True,
                         name="judge-eval-inbox").start()

    async def next(self) -> Any:
        """The next case to judge, or None once stopping."""
        item = await self.queue.get()
        if self.stopping or item is None:
            self.queue.put_nowait(None)  # wakes the next lane, which stops too
            return None
        return item

    def stop(self) -> None:
        self.stopping = True
        self.queue.put_nowait(None)

    def _read(self, inbox: Connection, call: Callable[..., Any]) -> None:
        while True:
            try:
                message = inbox.recv()
            except (EOFError, OSError):  # the parent is gone
                message = STOP
            if isinstance(message, str):  # STOP
                call(self.stop)
                return
            call(self.queue.put_nowait, message)
