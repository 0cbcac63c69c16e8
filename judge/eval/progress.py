"""Progress of an eval run on stderr: a live bar with ETA on a terminal, a plain line now and then otherwise.

The ETA counts only what still takes time: the cases that will need the model. A case the contract, rules or
gates decide, the cache answers or the store already holds settles in milliseconds, so the time left is
(cases left, less those the store holds) x (the share of recent judged cases that needed the model) / (the
rate at which model cases settle). Until a model case has settled, while a model is configured, it is unknown
("--"); with no model, every case is quick and the plain rate of judged cases gives it.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from typing import Callable, TextIO

__all__ = ["Progress"]

# How many of the latest judged cases estimate the share that needs the model: recent enough to follow a set
# sorted by kind (its deterministic cases first), long enough not to jump with every case.
_RECENT = 50


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, *, every_seconds: float = 10.0,
                 model_configured: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self.model_configured = model_configured
        self.stored_ahead = 0  # cases the store holds that have not settled yet: no time left for them
        self.model_done = 0  # settled after calling the model
        self.judged = 0  # settled here (not taken from the store)
        self._recent: deque[bool] = deque(maxlen=_RECENT)  # of the latest judged cases: did each need the model?
        self._clock = clock
        self._started = clock()
        self._last_line = self._started
        self._every = every_seconds

    def advance(self, count: int = 1, *, model: bool = False, stored: bool = False) -> None:
        """``count`` cases settled: ``model`` when the model was called for them, ``stored`` when the store held
        them (neither: decided by the contract, rules or gates, or answered by the cache)."""
        self.done += count
        if stored:
            self.stored_ahead = max(self.stored_ahead - count, 0)
        else:
            self.judged += count
            self.model_done += count if model else 0
            self._recent.extend([model] * count)
        now = self._clock()
        if self.live:
            self.stream.write("\r" + self._bar(now))
            self.stream.flush()
        elif now - self._last_line >= self._every:  # a short run stays quiet; a long one reports now and then
            self.stream.write(self._line(now) + "\n")
            self.stream.flush()
            self._last_line = now

    def note(self, text: str) -> None:
        """One line for the reader (``judge: ...``), on its own line even while a bar is drawn."""
        self.stream.write(("\r\x1b[K" if self.live else "") + f"judge: {text}\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.live:
            self.stream.write("\r" + self._bar(self._clock()) + "\n")
            self.stream.flush()

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

    def _rate_eta(self, now: float) -> tuple[float, str]:
        rate = self.done / max(now - self._started, 1e-9)
        left = self._seconds_left(now)
        return rate, "--" if left is None else _duration(left)

    def _bar(self, now: float) -> str:
        rate, eta = self._rate_eta(now)
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        return f"[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {rate:.1f}/s ETA {eta}"

    def _line(self, now: float) -> str:
        rate, eta = self._rate_eta(now)
        percent = 100 * self.done / self.total if self.total else 100
        return f"judged {self.done}/{self.total} ({percent:.0f}%), {rate:.1f} cases/s, ETA {eta}"


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
