"""Running the application under uvicorn: bind the socket, say where it listens in one line, stop on Ctrl-C."""

from __future__ import annotations

import socket
import sys
from typing import Any

from judge.errors import InputError
from judge.serve.app import create_app
from judge.serve.settings import ServerSettings

__all__ = ["bind", "serve", "url_of"]

_GRACE_SECONDS = 5.0  # on Ctrl-C, requests in flight get this long to finish


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


def serve(settings: ServerSettings) -> None:
    """Serve until Ctrl-C or SIGTERM, saying on stderr where, in one line, once the socket accepts requests."""
    import uvicorn

    app = create_app(settings)  # before binding: a bad setting or a failed import never leaves a socket open
    sock = bind(settings.host, settings.port)
    url = url_of(sock)

    class _Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started:
                sys.stderr.write(f"judge: serving on {url} (POST {url}/v1/validate; Ctrl-C stops)\n")
                sys.stderr.flush()

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", ws="none",
                            server_header=False, timeout_graceful_shutdown=_GRACE_SECONDS)
    server = _Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
