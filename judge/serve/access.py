"""Who may call the service: the bearer token when one is set, and on a loopback server only requests addressed to
loopback, so that a web page cannot reach it through a DNS name that resolves to 127.0.0.1 (DNS rebinding)."""

from __future__ import annotations

import hmac
from typing import Any

from judge.serve.replies import error_reply
from judge.serve.settings import is_loopback

__all__ = ["AccessGuard", "OPEN_PATHS"]

OPEN_PATHS = frozenset({"/healthz"})  # a load balancer's probe carries no token


class AccessGuard:
    """ASGI middleware: 403 for a Host that is not loopback on a loopback server, 401 without the right token."""

    def __init__(self, app: Any, *, token: str | None, loopback_only: bool) -> None:
        self.app = app
        self.token = token.encode("utf-8") if token else None
        self.loopback_only = loopback_only

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])  # header names arrive lower-cased
        refusal = self._refusal(scope["path"], headers)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, path: str, headers: dict[bytes, bytes]) -> Any:
        host = headers.get(b"host")
        if self.loopback_only and host is not None and not is_loopback(_host_name(host)):
            return error_reply("forbidden_host", f"Host {host.decode('latin-1')[:100]!r} is not this loopback server; "
                               "call it as http://127.0.0.1:PORT (or localhost)")
        if self.token is None or path in OPEN_PATHS:
            return None
        scheme, _, given = headers.get(b"authorization", b"").partition(b" ")
        if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self.token):
            return error_reply("unauthorized", "this server needs `Authorization: Bearer <token>` with the token "
                               "it was started with (JUDGE_SERVER_TOKEN)", {"WWW-Authenticate": "Bearer"})
        return None


def _host_name(host: bytes) -> str:
    """The name in a Host header, without the port: 127.0.0.1:8765 -> 127.0.0.1, [::1]:8765 -> ::1."""
    text = host.decode("latin-1")
    if text.startswith("["):
        return text[1:].partition("]")[0]
    return text.rpartition(":")[0] if text.count(":") == 1 else text
