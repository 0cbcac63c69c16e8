"""Connections that hold the server without asking anything: uvicorn's h11 protocol with a deadline for a request's
head. From the moment a connection opens, and again once each response is sent, the next request's head (its
request line and headers) must arrive whole within HEAD_SECONDS, or the connection is closed: an idle connection
and a half-open one trickling its headers are closed alike. uvicorn alone closes an idle connection only after a
response, and never one whose head has started. The body has its own deadline (judge.serve.body)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["HEAD_SECONDS", "HeadDeadlineProtocol"]

# A client sends its head in one write; this leaves a slow network ample room.
HEAD_SECONDS = 10.0


class HeadDeadlineProtocol(H11Protocol):
    """H11Protocol closing a connection whose next request's head is not whole within HEAD_SECONDS."""

    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def handle_events(self) -> None:
        super().handle_events()
        if self._between_requests():
            return
        self._stop_waiting()  # a head has arrived: the request is the application's now

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may start a pipelined request at once
        if self._between_requests():
            self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def _between_requests(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _await_head(self) -> None:
        self._stop_waiting()
        if not self.transport.is_closing():
            self._head_deadline = self.loop.call_later(HEAD_SECONDS, self._head_overdue)

    def _stop_waiting(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_overdue(self) -> None:
        self._head_deadline = None
        if self._between_requests():
            self.timeout_keep_alive_handler()  # uvicorn's own way to close a connection with no request in it
