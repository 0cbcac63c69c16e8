"""The kept-alive connection pool judge lends litellm for a run: ``size`` connections, spread over small pools.

Why lend one: litellm builds its httpx client with httpx's default pool, which keeps at most 20 idle
connections alive; when more calls than that finish close together, httpcore closes the surplus and the next
calls open new TCP connections (an eval at concurrency 32 opened 600-830 per 1,000 calls). Inside
``connection_pool(size)`` the providers litellm reaches through the OpenAI SDK (``openai/...``, any
OpenAI-compatible ``api_base``) send through one httpx client that keeps ``size`` alive instead.

Why small pools: on every request and every response closed, httpcore's pool walks all its connections,
asks each idle one's socket whether the server hung up (two system calls) and counts its idle connections
with a list over all of them, once per idle connection; the work per call grows with the square of the
pool's size. At 32 connections that was a quarter of a model call's CPU; pools of at most ``_PER_SHARD``,
each request sent through the least busy, keep the same connections alive for a fraction of it.
"""

from __future__ import annotations

import contextlib
import urllib.request
from typing import Any, AsyncIterator, Callable

import httpx

__all__ = ["connection_pool", "lend_to"]

_PER_SHARD = 8


class _Lent:
    """The httpx client lent to litellm, made on the first call (litellm must be loaded to build it alike)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.session: Any = None
        self.previous: Any = None
        self.litellm: Any = None

    def install(self, litellm: Any) -> None:
        try:  # as litellm makes its own client (SSL_VERIFY, SSL_CERT_FILE, LITELLM_HTTP2), less the pool's limits
            from litellm.llms.custom_httpx.http_handler import get_ssl_configuration, http2_enabled

            verify, http2 = get_ssl_configuration(), http2_enabled()
        except ImportError:
            verify, http2 = True, False
        if urllib.request.getproxies():  # httpx honours HTTP(S)_PROXY / NO_PROXY only with its own transport
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=self.size)
            self.session = httpx.AsyncClient(verify=verify, http2=http2, follow_redirects=True, limits=limits)
        else:
            self.session = httpx.AsyncClient(transport=_Shards(self.size, verify=verify, http2=http2),
                                             follow_redirects=True)
        self.litellm = litellm
        self.previous, litellm.aclient_session = litellm.aclient_session, self.session

    async def uninstall(self) -> None:
        litellm = self.litellm
        litellm.aclient_session = self.previous
        # litellm caches an SDK client per event loop around the session; drop ours, or a later loop that
        # gets the same id would be handed a client whose session is closed
        cache = getattr(litellm, "in_memory_llm_clients_cache", None)
        for key, client in list(getattr(cache, "cache_dict", {}).items()):
            if getattr(client, "_client", None) is self.session:
                cache.delete_cache(key)  # type: ignore[union-attr]
        await self.session.aclose()


class _Shards(httpx.AsyncBaseTransport):
    """An httpx transport over ceil(size / _PER_SHARD) httpcore pools of at most _PER_SHARD kept-alive
    connections each; a request goes to the pool with the fewest requests in flight (its response still open),
    so no pool is asked for more connections than it keeps."""

    def __init__(self, size: int, *, verify: Any, http2: bool) -> None:
        count = -(-size // _PER_SHARD)
        keep = -(-size // count)
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=keep)
        self._pools = [httpx.AsyncHTTPTransport(verify=verify, http2=http2, limits=limits) for _ in range(count)]
        self._busy = [0] * count

    async def handle_async_request(self, request: Any) -> Any:
        index = self._busy.index(min(self._busy))
        self._busy[index] += 1

        def done() -> None:
            self._busy[index] -= 1

        try:
            response = await self._pools[index].handle_async_request(request)
        except BaseException:
            done()
            raise
        response.stream = _Counted(response.stream, done)
        return response

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()


class _Counted(httpx.AsyncByteStream):
    """A response's body stream that says once when it is closed (the request leaves its pool then)."""

    def __init__(self, stream: Any, done: Callable[[], None]) -> None:
        self._stream, self._done = stream, done

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            yield chunk

    async def aclose(self) -> None:
        try:
            await self._stream.aclose()
        finally:
            done, self._done = self._done, _nothing
            done()


def _nothing() -> None:
    return None


_LENT: _Lent | None = None


@contextlib.asynccontextmanager
async def connection_pool(size: int) -> AsyncIterator[None]:
    """Inside, calls through litellm's OpenAI-SDK providers share one httpx client that keeps up to ``size``
    connections alive; closed on the way out. litellm reads it from a global: one event loop of the process
    may call the model while it is open."""
    global _LENT
    lent = _LENT = _Lent(max(1, size))
    try:
        yield
    finally:
        _LENT = None
        if lent.session is not None:
            await lent.uninstall()


def lend_to(litellm: Any) -> None:
    """Inside connection_pool(), hand litellm the pool's client before its first call (once)."""
    if _LENT is not None and _LENT.session is None:
        _LENT.install(litellm)
