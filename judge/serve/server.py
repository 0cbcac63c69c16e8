"""Running the application under uvicorn, in one process or several workers sharing one socket: bind it, say where
it listens in one line once requests are answered, stop on Ctrl-C or SIGTERM. Connections are bounded too: a
request's head within judge.serve.connections' deadline and at most 16 KiB (h11's limit), an idle connection
closed after 5 s."""

from __future__ import annotations

import functools
import http.client
import socket
import sys
import threading
import time
from typing import Any

import uvicorn
from uvicorn.supervisors import Multiprocess

from judge.errors import InputError
from judge.serve.app import create_app
from judge.serve.connections import HeadDeadlineProtocol
from judge.serve.settings import ServerSettings

__all__ = ["bind", "serve", "url_of"]

_GRACE_SECONDS = 5.0  # on Ctrl-C, requests in flight get this long to finish
_WORKER_START_SECONDS = 120.0  # a worker that imports litellm takes seconds
_IDLE_SECONDS = 5.0  # a kept-alive connection with no next request is closed after this long (uvicorn's default)
_MAX_HEAD_BYTES = 16 * 1024  # a request line and headers longer than this are refused 400 (h11's default)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (port 0: any free one); InputError when it cannot be had."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise InputError(f"{host}: cannot listen there ({exc.strerror or exc}); give an address of this machine",
                         field="host") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        raise InputError(f"{port}: cannot listen on {host} ({exc.strerror or exc}); choose another port, or stop "
                         "the server that has it", field="port") from None
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def serve(settings: ServerSettings, workers: int = 1) -> bool:
    """Serve until Ctrl-C or SIGTERM; False when no worker ever started. ``workers`` > 1: that many processes,
    each with its own slots (so up to workers x max_concurrency validations at once)."""
    if workers < 1:
        raise InputError(f"{workers}: give at least 1 worker process", field="workers")
    app = create_app(settings)  # before binding: a bad setting or a failed import never leaves a socket open
    sock = bind(settings.host, settings.port)
    config = uvicorn.Config(functools.partial(create_app, settings) if workers > 1 else app, factory=workers > 1,
                            workers=workers, log_level="warning", access_log=False, lifespan="on", ws="none",
                            http=HeadDeadlineProtocol, h11_max_incomplete_event_size=_MAX_HEAD_BYTES,
                            timeout_keep_alive=_IDLE_SECONDS, server_header=False,
                            timeout_graceful_shutdown=_GRACE_SECONDS)
    try:
        if workers == 1:
            server = _AnnouncingServer(config, url_of(sock))
            server.run(sockets=[sock])
            return server.started
        return _supervise(config, sock)
    finally:
        sock.close()


class _AnnouncingServer(uvicorn.Server):
    """uvicorn's Server, writing the ready line once it accepts requests."""

    def __init__(self, config: uvicorn.Config, url: str) -> None:
        super().__init__(config)
        self.url = url

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if self.started:
            _announce(self.url)


def _supervise(config: uvicorn.Config, sock: socket.socket) -> bool:
    """uvicorn's process supervisor over ``config.workers`` workers; the ready line once one of them answers."""
    url = url_of(sock)
    answered = threading.Event()
    threading.Thread(target=_announce_when_answering, args=(url, sock, answered), daemon=True).start()
    Multiprocess(config, sockets=[sock]).run()
    return answered.is_set()


def _announce_when_answering(url: str, sock: socket.socket, answered: threading.Event) -> None:
    host, port = sock.getsockname()[:2]
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)  # every interface: ask through loopback
    deadline = time.monotonic() + _WORKER_START_SECONDS
    while time.monotonic() < deadline:
        connection = http.client.HTTPConnection(host, port, timeout=5)
        try:
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                answered.set()
                _announce(url)
                return
        except OSError:
            pass
        finally:
            connection.close()
        time.sleep(0.1)


def _announce(url: str) -> None:
    sys.stderr.write(f"judge: serving on {url} (POST {url}/v1/validate; Ctrl-C stops)\n")
    sys.stderr.flush()
