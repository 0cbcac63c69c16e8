"""Bounded concurrency: at most N validations at once, a slot taken or refused at once (never a queue), and a slot
kept until the thread work of its request has really ended, also when the request itself timed out.

Python cannot stop a thread: a validation that timed out keeps running its deterministic stage in a worker
thread. The executor below charges each job to the slot of the request that submitted it (through a context
variable, which `asyncio.to_thread` carries into the job), so that abandoned work still counts against the limit,
and runs each job on a daemon thread of its own, so that a job that never returns neither takes a thread from
the others nor keeps the process from exiting on SIGTERM or Ctrl-C (a pool's threads are joined at exit).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

__all__ = ["Slot", "Slots", "SlotExecutor", "current_slot"]

current_slot: contextvars.ContextVar["Slot | None"] = contextvars.ContextVar("judge_serve_slot", default=None)


class Slots:
    """``limit`` slots; ``take()`` is a Slot or None when all are in use. Used from the event loop's thread only."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.in_use = 0

    def take(self) -> "Slot | None":
        if self.in_use >= self.limit:
            return None
        self.in_use += 1
        return Slot(self)


class Slot:
    """One request's share of the limit: held by the request and by each job it submitted, freed when all let go."""

    def __init__(self, slots: Slots) -> None:
        self._slots = slots
        self._holders = 1  # the request itself

    def hold(self) -> None:
        self._holders += 1

    def let_go(self) -> None:
        self._holders -= 1
        if self._holders == 0:
            self._slots.in_use -= 1


class SlotExecutor(ThreadPoolExecutor):
    """The event loop's default executor (asyncio takes only a ThreadPoolExecutor; none of the pool is used): each
    job on its own daemon thread, and every job submitted while a request holds a slot holds it too. The slots
    bound the threads: a request runs one job at a time, and a job keeps its slot until it ends."""

    def __init__(self, thread_name_prefix: str = "judge-serve") -> None:
        super().__init__(max_workers=1, thread_name_prefix=thread_name_prefix)
        self._count = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        slot = current_slot.get()
        if slot is not None:
            loop = asyncio.get_running_loop()
            slot.hold()
            future.add_done_callback(lambda _: _on_loop(loop, slot.let_go))
        self._count += 1
        thread = threading.Thread(target=_run, args=(future, fn, args, kwargs), daemon=True,
                                  name=f"{self._thread_name_prefix}-{self._count}")
        try:
            thread.start()
        except BaseException as exc:  # no thread to be had: the job fails, and its slot is let go
            future.set_exception(exc)
        return future


def _run(future: Future, fn: Callable[..., Any], args: tuple, kwargs: dict) -> None:
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = fn(*args, **kwargs)
    except BaseException as exc:
        future.set_exception(exc)
    else:
        future.set_result(result)


def _on_loop(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Run ``callback`` on the loop's thread (a job ends in its worker thread); nothing once the loop is closed."""
    try:
        loop.call_soon_threadsafe(callback)
    except RuntimeError:
        pass  # the server has stopped: no slot is counted any more
