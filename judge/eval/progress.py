"""Progress of an eval run on stderr: a live bar with ETA on a terminal, a plain line now and then otherwise.

The ETA counts only what still takes time: the cases that will need the model. A case the contract, rules or
gates decide, the cache answers or the store already holds settles in milliseconds, so the time left is
(cases left, less those the store holds) x (the share of recent judged cases that needed the model) / (the
rate at which model cases settle). Until a model case has settled, while a model is configured, it is unknown
("--"); with no model, every case is quick and the plain rate of judged cases gives it.

The counts are gathered here; what is drawn is a ``Snapshot`` of them: a rich bar on a terminal
(judge.eval.terminal_bar, imported only then), or a plain line every ``every_seconds`` otherwise.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, TextIO

__all__ = ["Progress", "Snapshot", "eta_text"]

# How many of the latest judged cases estimate the share that needs the model: recent enough to follow a set
# sorted by kind (its deterministic cases first), long enough not to jump with every case.
_RECENT = 50


@dataclass(frozen=True)
class Snapshot:
    """The counts of a run at one moment, as drawn."""

    done: int
    total: int
    model: int  # settled here after calling the model
    calls: int  # LLM calls made by this run (retries included; the cache and the store make none)
    cached: int  # answered by the verdict cache
    errors: int  # settled as llm_unavailable or judge_error
    rate: float  # cases settled per second so far
    seconds_left: float | None  # the ETA (see the module's docstring); None while it cannot be made


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, *, every_seconds: float = 10.0,
                 model_configured: bool = False, clock: Callable[[], float] = time.monotonic,
                 console: Any = None) -> None:
        """``console``: a rich Console to draw the bar on (tests pass one with ``force_terminal``); by default
        one on ``stream`` when that is a terminal."""
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = console is not None or bool(getattr(self.stream, "isatty", lambda: False)())
        self.model_configured = model_configured
        self.stored_ahead = 0  # cases the store holds that have not settled yet: no time left for them
        self.model_done = 0  # settled after calling the model
        self.judged = 0  # settled here (not taken from the store)
        self.calls = 0
        self.cache_hits = 0
        self.errors = 0
        self._recent: deque[bool] = deque(maxlen=_RECENT)  # of the latest judged cases: did each need the model?
        self._clock = clock
        self._started = clock()
        self._last_line = self._started
        self._every = every_seconds
        self._console = console
        self._bar: Any = None  # the TerminalBar, made at the first draw on a terminal

    def advance(self, count: int = 1, *, model: bool = False, stored: bool = False, calls: int = 0,
                cached: bool = False, error: bool = False) -> None:
        """``count`` cases settled: ``model`` when the model was called for them, ``stored`` when the store held
        them (neither: decided by the contract, rules or gates, or answered by the cache, then ``cached``).
        ``calls``: the LLM calls they took (not counted for stored cases: an earlier run made them);
        ``error``: they settled as llm_unavailable or judge_error."""
        self.done += count
        self.errors += count if error else 0
        if stored:
            self.stored_ahead = max(self.stored_ahead - count, 0)
        else:
            self.judged += count
            self.model_done += count if model else 0
            self.calls += calls
            self.cache_hits += count if cached else 0
            self._recent.extend([model] * count)
        now = self._clock()
        if self._terminal() is not None:
            self._bar.draw(self.snapshot(now))
        elif now - self._last_line >= self._every:  # a short run stays quiet; a long one reports now and then
            self.stream.write(_line(self.snapshot(now)) + "\n")
            self.stream.flush()
            self._last_line = now

    def note(self, text: str) -> None:
        """One line for the reader (``judge: ...``), on its own line even while a bar is drawn."""
        if self._terminal() is not None:
            self._bar.note(f"judge: {text}")
            return
        self.stream.write(f"judge: {text}\n")
        self.stream.flush()

    def finish(self) -> None:
        if self._terminal() is not None:
            self._bar.close(self.snapshot())

    def snapshot(self, now: float | None = None) -> Snapshot:
        now = self._clock() if now is None else now
        return Snapshot(done=self.done, total=self.total, model=self.model_done, calls=self.calls,
                        cached=self.cache_hits, errors=self.errors,
                        rate=self.done / max(now - self._started, 1e-9), seconds_left=self._seconds_left(now))

    def seconds_left(self) -> float | None:
        """The estimate the ETA shows (see the module's docstring); None while it cannot be made."""
        return self._seconds_left(self._clock())

    def _seconds_left(self, now: float) -> float | None:
        elapsed = max(now - self._started, 1e-9)
        left = max(self.total - self.done - self.stored_ahead, 0)
        if left == 0:
            return 0.0
        if self.model_done:
            model_share = sum(self._recent) / len(self._recent)
            return left * model_share / (self.model_done / elapsed)
        if self.model_configured or not self.judged:
            return None
        return left / (self.judged / elapsed)

    def _terminal(self) -> Any:
        """The bar on a terminal (rich is imported only here), or None: not a terminal, or one rich cannot
        redraw in place (TERM=dumb), where the plain lines are drawn instead."""
        if self.live and self._bar is None:
            from judge.eval.terminal_bar import TerminalBar

            bar = TerminalBar(self.stream, self._console, self._clock)
            self._bar = bar if bar.interactive else None
            self.live = self._bar is not None
        return self._bar


def _line(snapshot: Snapshot) -> str:
    """The plain line drawn off a terminal."""
    percent = 100 * snapshot.done / snapshot.total if snapshot.total else 100
    return (f"judged {snapshot.done}/{snapshot.total} ({percent:.0f}%), {snapshot.rate:.1f} cases/s, "
            f"ETA {eta_text(snapshot.seconds_left)}")


def eta_text(seconds: float | None) -> str:
    """``40s``, ``3m05s``, ``1h02m``; ``--`` while unknown."""
    if seconds is None:
        return "--"
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
