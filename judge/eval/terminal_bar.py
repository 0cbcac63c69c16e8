"""The eval progress bar on a terminal, drawn by rich: imported only when stderr is one (rich costs import time).

One line: the bar, cases settled of the total, the counts of a ``Snapshot``, the time so far and judge's ETA:
``━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 160/200 model 60 · calls 64 · cached 3 · errors 0 0:01:00 ETA 40s``.
rich redraws it in place a few times a second (so the time moves between slow cases), prints notes above it,
and lets what else is written to stderr meanwhile through above it too. stdout is left alone: a report piped
there stays on stdout.
"""

from __future__ import annotations

import atexit
from typing import Any, Callable, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress
from rich.table import Column
from rich.text import Text

from judge.eval.progress import Snapshot, eta_text

__all__ = ["TerminalBar"]


class _CountsColumn(ProgressColumn):
    """What the bar cannot show: the model cases, LLM calls, cache hits and errors (red once there are any)."""

    def render(self, task: Any) -> Text:
        snapshot: Snapshot | None = task.fields.get("snapshot")
        if snapshot is None:
            return Text("")
        return Text.assemble(
            f"model {snapshot.model} · calls {snapshot.calls} · cached {snapshot.cached} · ",
            (f"errors {snapshot.errors}", "bold red" if snapshot.errors else ""),
        )


class _EtaColumn(ProgressColumn):
    """judge's own estimate (judge.eval.progress), not rich's: rich's would count the quick cases as well."""

    def render(self, task: Any) -> Text:
        snapshot: Snapshot | None = task.fields.get("snapshot")
        return Text(f"ETA {eta_text(snapshot.seconds_left if snapshot else None)}")


class TerminalBar:
    def __init__(self, stream: TextIO, console: Console | None, clock: Callable[[], float]) -> None:
        self.console = console if console is not None else Console(file=stream)
        # On a terminal rich cannot redraw in place (TERM=dumb), the caller draws the plain lines instead.
        self.interactive = self.console.is_interactive
        self._bar = BarColumn()
        fixed = Column(no_wrap=True)  # on a narrow terminal the counts wrap; these stay whole
        self._rich = RichProgress(self._bar, MofNCompleteColumn(table_column=fixed), _CountsColumn(),
                                  TimeElapsedColumn(table_column=fixed), _EtaColumn(table_column=fixed),
                                  console=self.console, get_time=clock, refresh_per_second=4,
                                  redirect_stdout=False)
        self._task: Any = None

    def draw(self, snapshot: Snapshot) -> None:
        # The bar takes what the text leaves of the terminal's width (re-read: it may be resized), 10 to 40 columns.
        self._bar.bar_width = max(10, min(40, self.console.width - 75))
        if self._task is None:
            self._task = self._rich.add_task("judging", total=snapshot.total, completed=snapshot.done,
                                             snapshot=snapshot)
            self._rich.start()
            # A run that ends in an error never reaches close(): the cursor is shown again at exit all the same.
            atexit.register(self._rich.stop)
            return
        self._rich.update(self._task, total=snapshot.total, completed=snapshot.done, snapshot=snapshot)

    def note(self, text: str) -> None:
        self.console.print(text, markup=False, highlight=False, soft_wrap=True)

    def close(self, snapshot: Snapshot) -> None:
        self.draw(snapshot)
        self._rich.stop()  # the last frame stays, followed by a newline
        atexit.unregister(self._rich.stop)
