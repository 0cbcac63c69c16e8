"""The service's replies: JSON that any client can parse, and every refusal as `{"error": {"code", "message"}}`.

A refusal never carries `valid`: only a verdict does, so no error can be read as an accepted step.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse

__all__ = ["ERROR_CODES", "JSONReply", "Refusal", "error_reply", "refusal_handlers"]

# code -> the HTTP status it comes with; the OpenAPI document lists them (schemas/error.schema.json).
ERROR_CODES = {
    "invalid_json": 400,
    "invalid_request": 400,
    "unauthorized": 401,
    "forbidden_host": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "body_timeout": 408,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "internal_error": 500,
    "overloaded": 503,
    "timeout": 504,
}


class JSONReply(JSONResponse):
    """UTF-8 JSON; a lone surrogate quoted from the input (a JSON string may hold one) becomes its JSON escape
    instead of failing the reply."""

    def render(self, content: Any) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8", "backslashreplace")


class Refusal(Exception):
    """A request the service does not judge: its status, error code and one-line message (what, where, what to do)."""

    def __init__(self, code: str, message: str, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = ERROR_CODES[code]
        self.message = message
        self.headers = dict(headers or {})


def error_reply(code: str, message: str, headers: Mapping[str, str] | None = None) -> JSONReply:
    return JSONReply({"error": {"code": code, "message": message}}, status_code=ERROR_CODES[code],
                     headers=dict(headers or {}))


async def _refused(request: Request, exc: Exception) -> JSONReply:
    assert isinstance(exc, Refusal)
    return error_reply(exc.code, exc.message, exc.headers)


async def _http_error(request: Request, exc: Exception) -> JSONReply:
    """Starlette's own refusals (no route, wrong method) in the same shape."""
    assert isinstance(exc, HTTPException)
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return error_reply("method_not_allowed", f"{request.method} {request.url.path}: method not allowed; "
                           f"use {allowed or 'another method'}", exc.headers)
    if exc.status_code == 404:
        return error_reply("not_found", f"{request.url.path}: no such endpoint; see GET /openapi.json for the API")
    return error_reply("invalid_request", f"{request.method} {request.url.path}: {exc.detail}")


async def _internal_error(request: Request, exc: Exception) -> JSONReply:
    """A bug in judge: the client learns only that it happened (the traceback goes to the server's log)."""
    return error_reply("internal_error", f"judge failed while handling {request.method} {request.url.path} "
                       f"({type(exc).__name__}); nothing was judged. Retry, and report it if it persists")


def refusal_handlers() -> dict[Any, Any]:
    """Starlette's exception_handlers: every refusal, 404, 405 and 500 as a JSON error body."""
    return {Refusal: _refused, HTTPException: _http_error, Exception: _internal_error}
