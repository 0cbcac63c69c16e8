"""Bounded concurrency: at most N validations at once, a slot taken or refused at once (never a queue), and a slot
kept until the thread work of its request has really ended, also when the request itself timed out.

Python cannot stop a thread: a validation that timed out keeps running its deterministic stage in a worker
thread. The executor below charges each job to the slot of the request that submitted it (through a context
variable, which `asyncio.to_thread` carries into the job), so that abandoned work still counts against the limit.
"""

from __future__ import annotations

import asyncio
import contextvars
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
    """The event loop's default executor: every job submitted while a request holds a slot holds it too."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        slot = current_slot.get()
        if slot is None:
            return super().submit(fn, *args, **kwargs)
        loop = asyncio.get_running_loop()
        slot.hold()
        try:
            future = super().submit(fn, *args, **kwargs)
        except BaseException:
            slot.let_go()
            raise
        future.add_done_callback(lambda _: _on_loop(loop, slot.let_go))
        return future


def _on_loop(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Run ``callback`` on the loop's thread (a job ends in its worker thread); nothing once the loop is closed."""
    try:
        loop.call_soon_threadsafe(callback)
    except RuntimeError:
        pass  # the server has stopped: no slot is counted any more
