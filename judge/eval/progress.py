"""Progress of an eval run on stderr: a live bar with ETA on a terminal, a plain line now and then otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress"]


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None, *, every_seconds: float = 10.0) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.live = bool(getattr(self.stream, "isatty", lambda: False)())
        self._started = time.monotonic()
        self._last_line = self._started
        self._every = every_seconds

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = time.monotonic()
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
            self.stream.write("\r" + self._bar(time.monotonic()) + "\n")
            self.stream.flush()

    def _rate_eta(self, now: float) -> tuple[float, str]:
        elapsed = max(now - self._started, 1e-9)
        rate = self.done / elapsed
        left = max(self.total - self.done, 0)
        eta = "--" if rate == 0 else _duration(left / rate)
        return rate, eta

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
