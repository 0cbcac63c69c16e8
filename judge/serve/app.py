"""The ASGI application: `POST /v1/validate` over judge.intake and judge.pipeline, `GET /healthz`, `/version`,
`/openapi.json`, with the access guard, the limits (body, slots, time) and JSON for every refusal. The judging runs in worker
threads (judge.pipeline, judge.serve.slots): the event loop's thread only reads, waits and answers, so a stuck
validation is answered 504 and `/healthz` stays alive."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import Route

from judge.pipeline import ajudge
from judge.serve.access import AccessGuard
from judge.serve.body import Bodies
from judge.serve.openapi import openapi_document
from judge.serve.replies import JSONReply, Refusal, refusal_handlers
from judge.serve.request import read_request
from judge.serve.settings import ServerSettings, is_loopback
from judge.serve.slots import SlotExecutor, Slots, current_slot
from judge.verdict import Verdict
from judge.version import __version__

__all__ = ["create_app"]

_EXPLAIN = {"0": False, "false": False, "1": True, "true": True}
_RETRY_AFTER = "1"  # seconds: a deterministic validation takes milliseconds, so a slot frees soon


def create_app(settings: ServerSettings) -> Starlette:
    """The application for ``settings``; with a model configured, the LLM stack is imported now, not per request."""
    if settings.config.semantic_enabled:
        _load_llm_stack()
    validation = _Validation(settings)
    routes = [
        Route("/v1/validate", validation.handle, methods=["POST"]),
        Route("/healthz", _health, methods=["GET"]),
        Route("/version", _version, methods=["GET"]),
        Route("/openapi.json", _openapi, methods=["GET"]),
    ]
    guard = Middleware(AccessGuard, token=settings.token, loopback_only=is_loopback(settings.host))
    return Starlette(routes=routes, middleware=[guard], exception_handlers=refusal_handlers(),
                     lifespan=_lifespan())


class _Validation:
    """POST /v1/validate: the body within the timeout, then a slot or 503 at once, then the request and the verdict
    within the timeout again. The body comes first: a client that trickles it holds no slot meant for judging."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.slots = Slots(settings.max_concurrency)
        # bodies being read hold at most what the slots' bodies would: a slot's worth of --max-body each
        self.bodies = Bodies(settings.max_body, settings.request_timeout,
                             budget=settings.max_body * settings.max_concurrency)

    async def handle(self, request: Request) -> JSONReply:
        explain = _explain(request)
        _require_json(request)
        body = await self.bodies.read(request)
        slot = self.slots.take()
        if slot is None:
            raise Refusal("overloaded", f"all {self.slots.limit} validation slots of this server are in use; retry "
                          f"after {_RETRY_AFTER} s (nothing was judged)", {"Retry-After": _RETRY_AFTER})
        context = current_slot.set(slot)  # the worker threads of this request hold the slot too
        try:
            verdict = await asyncio.wait_for(self._judge(body), self.settings.request_timeout)
        except asyncio.TimeoutError:
            raise Refusal("timeout", f"not judged within this server's {self.settings.request_timeout:g} s "
                          "(--request-timeout); nothing was decided: retry, or send a smaller step") from None
        finally:
            current_slot.reset(context)
            slot.let_go()
        # `valid` is only whether the report holds up: a valid report of a step not done is not accepted
        outcome = verdict.outcome
        headers = {"Judge-Accepted": "true" if outcome.accepted else "false",  # type: ignore[union-attr]
                   "Judge-Next-Action": outcome.next_action}  # type: ignore[union-attr]
        return JSONReply(verdict.full_json() if explain else verdict.contract(), headers=headers)

    async def _judge(self, body: bytes) -> Verdict:
        request = await asyncio.to_thread(read_request, body, self.settings.roots, self.settings.config)
        return await ajudge(request, self.settings.config)


def _explain(request: Request) -> bool:
    unknown = sorted(set(request.query_params) - {"explain"})
    if unknown:
        raise Refusal("invalid_request", f"unknown query parameter(s) {', '.join(map(repr, unknown))}; "
                      "the only one is explain=1")
    value = request.query_params.get("explain", "0")
    if value not in _EXPLAIN:
        raise Refusal("invalid_request", f"explain={value[:40]!r}: give explain=1 for the full verdict, or leave it out")
    return _EXPLAIN[value]


def _require_json(request: Request) -> None:
    """The body must be declared JSON: a browser cannot send that cross-site without a CORS preflight this server
    never grants, so a web page cannot submit validations to it."""
    media_type = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if media_type != "application/json" and not media_type.endswith("+json"):
        raise Refusal("unsupported_media_type", f"the body is declared {media_type or 'as nothing'}; send JSON with "
                      "`Content-Type: application/json`")


async def _health(request: Request) -> JSONReply:
    return JSONReply({"status": "ok"})


async def _version(request: Request) -> JSONReply:
    return JSONReply({"name": "judge", "version": __version__})


async def _openapi(request: Request) -> JSONReply:
    return JSONReply(openapi_document())


def _lifespan() -> Any:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        # the loop's default executor runs the deterministic stage (asyncio.to_thread): a daemon thread per job, and
        # a job keeps its request's slot until it ends
        executor = SlotExecutor(thread_name_prefix="judge-serve")
        asyncio.get_running_loop().set_default_executor(executor)
        yield

    return lifespan


def _load_llm_stack() -> None:
    """Import litellm and the semantic stage once, at start: its import costs seconds a first request would wait."""
    from importlib import import_module

    from judge.llm.client import preload

    preload()
    import_module("judge.llm.stage")
