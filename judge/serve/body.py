"""Reading a request body before any slot is taken: up to a limit (the stream is counted as it arrives, so no
Content-Length, or its absence with chunked transfer, can make the server hold more), within a deadline and at a
minimum average rate (a client that trickles or stalls its body is answered 408 and holds nothing meant for
judging), and within a budget of bytes for all the bodies being read at once (so many such clients together still
hold a bounded amount of memory, each only for as long as it keeps sending)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Callable

from starlette.requests import ClientDisconnect, Request

from judge.serve.replies import Refusal

__all__ = ["Bodies", "read_body"]


# After a short grace, a body must keep arriving at this average rate: a client that sends part of a body and stalls
# gives its share of the budget back within seconds, not at the request deadline (as a web server's minimum rate).
MIN_RATE = 64 * 1024  # bytes per second
GRACE = 2.0  # seconds


class Bodies:
    """The bodies being read by one server: each at most ``limit`` bytes within ``seconds`` and at ``min_rate``
    bytes a second on average after ``grace`` seconds, all of them together at most ``budget`` bytes. Used from the
    event loop's thread only."""

    def __init__(self, limit: int, seconds: float, budget: int, min_rate: float = MIN_RATE,
                 grace: float = GRACE) -> None:
        self.limit, self.seconds, self.budget = limit, seconds, budget
        self.min_rate, self.grace = min_rate, grace
        self.held = 0  # bytes of the bodies being read now

    async def read(self, request: Request) -> bytes:
        """The body; Refusal 413 (too long), 408 (too slow), 503 (the budget is spent), or 400 (client gone)."""
        mine = 0
        loop = asyncio.get_running_loop()
        started = loop.time()

        def count(size: int) -> None:
            nonlocal mine
            if self.held + size > self.budget:
                raise Refusal("overloaded", f"the request bodies this server is reading already hold {self.held} of "
                              f"its {self.budget} bytes; retry after 1 s (nothing was judged)",
                              {"Retry-After": "1", "Connection": "close"})
            self.held += size
            mine += size

        reading = asyncio.ensure_future(read_body(request, self.limit, count))
        try:
            while True:
                deadline = started + self.seconds
                paced = started + self.grace + mine / self.min_rate  # when the bytes so far stop being enough
                done, _ = await asyncio.wait({reading}, timeout=max(min(deadline, paced) - loop.time(), 0.0))
                if done:
                    return reading.result()
                now = loop.time()
                if now >= deadline:
                    raise Refusal("body_timeout", f"the request body did not arrive within {self.seconds:g} s "
                                  "(--request-timeout); send the whole body at once", {"Connection": "close"})
                if now >= started + self.grace + mine / self.min_rate:
                    raise Refusal("body_timeout", f"the request body arrives slower than {self.min_rate / 1024:g} "
                                  f"KiB/s ({mine} bytes in {now - started:.1f} s); send the whole body at once",
                                  {"Connection": "close"})
        finally:
            if not reading.done():
                reading.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await reading
            self.held -= mine


async def read_body(request: Request, limit: int, count: Callable[[int], None] | None = None) -> bytes:
    """The body, at most ``limit`` bytes; Refusal 413 as soon as it is known to be longer. ``count`` is told the
    size of each chunk before it is kept, and may refuse it."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise _too_large(limit, f"its Content-Length is {int(declared)} bytes")
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _too_large(limit, "it is longer")
            if count is not None:
                count(len(chunk))
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refusal("invalid_request", "the client closed the connection before the body ended") from None
    return b"".join(chunks)


def _too_large(limit: int, why: str) -> Refusal:
    return Refusal("payload_too_large", f"the request body is over this server's limit of {limit} bytes ({why}); "
                   "send a smaller patch, or ask the operator to raise --max-body")
