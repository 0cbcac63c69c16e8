"""Reading a request body up to a limit: the stream is counted as it arrives, so no Content-Length (or its absence,
with chunked transfer) can make the server hold more than the limit."""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request

from judge.serve.replies import Refusal

__all__ = ["read_body"]


async def read_body(request: Request, limit: int) -> bytes:
    """The body, at most ``limit`` bytes; Refusal 413 as soon as it is known to be longer."""
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
            chunks.append(chunk)
    except ClientDisconnect:
        raise Refusal("invalid_request", "the client closed the connection before the body ended") from None
    return b"".join(chunks)


def _too_large(limit: int, why: str) -> Refusal:
    return Refusal("payload_too_large", f"the request body is over this server's limit of {limit} bytes ({why}); "
                   "send a smaller patch, or ask the operator to raise --max-body")
