"""judge.llm.pool: the connection pool lent to litellm keeps ``size`` connections alive over small httpcore pools,
each request in the least busy, and a request leaves its pool when its response closes, failed or not.

The server is the SYNTHETIC OpenAI-compatible one on 127.0.0.1 (tests/helpers/loopback.py); it counts the TCP connections
it accepted and the requests in flight. Nothing here measures a speed.
"""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from judge.llm import pool
from helpers.loopback import Reply, Request

pytestmark = pytest.mark.loopback


def _held_until(count: int) -> tuple[threading.Event, object]:
    """An answer that holds each of the first ``count`` requests until all of them are in."""
    all_in = threading.Event()

    def answer(index: int, request: Request) -> Reply:
        if index < count:
            if index == count - 1:
                all_in.set()
            all_in.wait(30)
        return Reply(200, {"ok": True})

    return all_in, answer


async def _post_all(client: httpx.AsyncClient, url: str, count: int) -> list[int]:
    responses = await asyncio.gather(*(client.post(url, json={"n": n}) for n in range(count)))
    return [response.status_code for response in responses]


def test_requests_spread_over_the_shards_and_connections_stay_alive(scripted_server) -> None:
    all_in, answer = _held_until(16)
    server = scripted_server(answer)
    shards = pool._Shards(16, verify=True, http2=False)
    seen: list[list[int]] = []

    async def run() -> None:
        async with httpx.AsyncClient(transport=shards) as client:
            watcher = asyncio.ensure_future(_watch(shards, seen))
            assert await _post_all(client, server.api_base + "/chat/completions", 16) == [200] * 16
            watcher.cancel()
            for _ in range(3):  # later rounds reuse the same 16 connections
                assert await _post_all(client, server.api_base + "/chat/completions", 16) == [200] * 16

    asyncio.run(run())
    assert len(shards._pools) == 2  # 16 connections in pools of at most 8
    assert [8, 8] in seen  # all 16 in flight at once: 8 in each pool, never 9 in one
    assert shards._busy == [0, 0]
    assert server.max_in_flight == 16
    assert server.connections == 16


async def _watch(shards: pool._Shards, seen: list[list[int]]) -> None:
    while True:
        seen.append(list(shards._busy))
        await asyncio.sleep(0.005)


def test_a_failed_request_leaves_its_shard() -> None:
    shards = pool._Shards(8, verify=True, http2=False)

    async def run() -> None:
        async with httpx.AsyncClient(transport=shards) as client:
            with pytest.raises(httpx.ConnectError):
                await client.post("http://127.0.0.1:9/v1/chat/completions", json={})

    asyncio.run(run())
    assert shards._busy == [0]


def test_an_unread_response_leaves_its_shard_when_closed(scripted_server) -> None:
    server = scripted_server([Reply(200, {"ok": True})] * 2)
    shards = pool._Shards(4, verify=True, http2=False)

    async def run() -> None:
        async with httpx.AsyncClient(transport=shards) as client:
            async with client.stream("POST", server.api_base + "/chat/completions", json={}) as response:
                assert shards._busy == [1]
                assert response.status_code == 200
            assert shards._busy == [0]

    asyncio.run(run())


def test_behind_a_proxy_the_lent_client_is_httpx_own(monkeypatch) -> None:
    """httpx reads HTTP(S)_PROXY and NO_PROXY only when it builds its own transport: behind a proxy the lent
    client is a plain one (one pool), so the proxy is still used."""

    class FakeLitellm:
        aclient_session = None

    for proxied in (False, True):
        if proxied:
            monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
        lent = pool._Lent(32)
        lent.install(FakeLitellm)
        transport = lent.session._transport
        assert isinstance(transport, pool._Shards) is not proxied
        assert FakeLitellm.aclient_session is lent.session
        asyncio.run(lent.session.aclose())
        FakeLitellm.aclient_session = None
