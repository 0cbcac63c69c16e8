"""What one `judge serve` runs with: where it listens, its limits, its token and its JudgeConfig, checked once."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass

from judge.config import JudgeConfig
from judge.errors import InputError
from judge.gates.policies import pinned_for_clients
from judge.workspace.roots import WorkspaceRoots

__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "DEFAULT_MAX_BODY", "DEFAULT_REQUEST_TIMEOUT", "MIN_TOKEN_LENGTH",
           "ServerSettings", "default_concurrency", "is_loopback"]

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
# A step and a result of the largest size their schemas allow fit with room to spare (patches are text);
# read at most this much, so a request holds a bounded amount of memory.
DEFAULT_MAX_BODY = 8 * 1024 * 1024
# A deterministic verdict takes milliseconds; this leaves a model two 60 s calls (the default --timeout).
DEFAULT_REQUEST_TIMEOUT = 120.0
MIN_TOKEN_LENGTH = 16


def default_concurrency() -> int:
    """Validations at once: 4 per core. The deterministic stage is CPU work in a thread, so more per core only
    queues inside the server; 4 leaves room for those waiting on git or a model, and 8 MiB bodies times 8 stay
    far below the machine's memory. Beyond it a caller gets 503 at once, never a queue."""
    return 4 * (os.cpu_count() or 1)


def is_loopback(host: str) -> bool:
    """Whether ``host`` names only this machine (127.0.0.0/8, ::1, localhost); 0.0.0.0 and :: are every interface."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


@dataclass(frozen=True)
class ServerSettings:
    """A server's settings; build it with ``ServerSettings.checked`` (InputError naming the setting at fault)."""

    config: JudgeConfig
    roots: WorkspaceRoots = WorkspaceRoots()
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    max_body: int = DEFAULT_MAX_BODY
    max_concurrency: int = 8
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT

    @classmethod
    def checked(cls, config: JudgeConfig, *, roots: WorkspaceRoots = WorkspaceRoots(), host: str = DEFAULT_HOST,
                port: int = DEFAULT_PORT, token: str | None = None, max_body: int = DEFAULT_MAX_BODY,
                max_concurrency: int | None = None,
                request_timeout: float = DEFAULT_REQUEST_TIMEOUT) -> "ServerSettings":
        """The settings, with shell gates pinned to ``config``'s own policies (a client's step cannot turn them on)."""
        if not 0 <= port <= 65535:
            raise InputError(f"{port} is not a TCP port; give 0 to 65535 (0: any free port)", field="port")
        if max_body < 1024:
            raise InputError(f"{max_body} bytes is too small for a step and a result; give at least 1024",
                             field="max_body")
        concurrency = default_concurrency() if max_concurrency is None else max_concurrency
        if concurrency < 1:
            raise InputError(f"{concurrency}: give at least 1 validation at once", field="max_concurrency")
        if not request_timeout > 0:
            raise InputError(f"{request_timeout}: give a number of seconds above 0", field="request_timeout")
        token = token or None
        if token is not None and len(token) < MIN_TOKEN_LENGTH:
            raise InputError(f"JUDGE_SERVER_TOKEN is {len(token)} characters long; use at least {MIN_TOKEN_LENGTH} "
                             "random ones, e.g. from `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`")
        if token is None and not is_loopback(host):
            raise InputError(f"{host} is not a loopback address, so other machines could call this server: set "
                             "JUDGE_SERVER_TOKEN to a long random secret (clients send `Authorization: Bearer "
                             "<token>`), or bind to 127.0.0.1", field="host")
        return cls(pinned_for_clients(config), roots, host, port, token, max_body, concurrency, request_timeout)
