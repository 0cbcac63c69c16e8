"""SYNTHETIC failure fixtures served by a real HTTP server on 127.0.0.1.

Nothing here is a recording of a real model: every reply is scripted by the test
that starts the server. What is real is the transport — litellm talks to an
actual socket on an ephemeral loopback port, so timeouts, resets, status codes
and Retry-After headers travel the same path they would in production.

``ScriptedServer(script)`` answers POST /v1/chat/completions with the script's
entries in order (the last entry repeats once the script runs out) and records
every request: its parsed JSON body, raw size and monotonic arrival time.
Tests that use it must be marked ``@pytest.mark.loopback``.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Iterator, Sequence, Union

import pytest

__all__ = [
    "Reply", "Reset", "Hang", "ScriptedServer", "chat", "content", "scripted_server",
]


@dataclass(frozen=True)
class Reply:
    """SYNTHETIC: an HTTP response with this status, body (bytes, str or a JSON-able object) and headers."""

    status: int = 200
    body: Any = b""
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Reset:
    """SYNTHETIC: read the request, then close the socket without a response (with an RST when ``rst``)."""

    rst: bool = True


@dataclass(frozen=True)
class Hang:
    """SYNTHETIC: read the request, then say nothing for ``seconds`` (cut short when the server stops)."""

    seconds: float = 30.0


Step = Union[Reply, Reset, Hang]


def chat(text: str | None, *, prompt_tokens: int = 10, completion_tokens: int = 5) -> Reply:
    """SYNTHETIC: a well-formed OpenAI chat completion whose assistant message content is ``text``."""
    return Reply(200, {
        "id": "x", "object": "chat.completion", "created": 0, "model": "judge-test",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def content(valid: bool, reason: str) -> Reply:
    """SYNTHETIC: a chat completion carrying a verdict object."""
    return chat(json.dumps({"valid": valid, "reason": reason}))


@dataclass
class Request:
    path: str
    body: Any  # parsed JSON, or the raw bytes when it is not JSON
    size: int
    at: float  # time.monotonic() when the request body had been read


@dataclass
class ScriptedServer:
    """SYNTHETIC scripted chat-completions server on 127.0.0.1 with an ephemeral port."""

    script: Sequence[Step]
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.script:
            raise ValueError("a script needs at least one entry")
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def count(self) -> int:
        with self._lock:
            return len(self.requests)

    def close(self) -> None:
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next(self, request: Request) -> Step:
        with self._lock:
            index = len(self.requests)
            self.requests.append(request)
        return self.script[min(index, len(self.script) - 1)]

    def __enter__(self) -> "ScriptedServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _handler(server: ScriptedServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: without this, each reply stalls ~40 ms

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            try:
                body: Any = json.loads(raw)
            except ValueError:
                body = raw
            step = server._next(Request(self.path, body, len(raw), time.monotonic()))
            if not self.path.rstrip("/").endswith("/chat/completions"):
                step = Reply(404, {"error": {"message": f"no route {self.path}"}})
            if isinstance(step, Hang):
                server._stop.wait(step.seconds)
                self.close_connection = True
                return
            if isinstance(step, Reset):
                if step.rst:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
                return
            payload = step.body
            if not isinstance(payload, (bytes, str)):
                payload = json.dumps(payload)
            data = payload.encode("utf-8") if isinstance(payload, str) else payload
            self.send_response(step.status)
            headers = dict((k.lower(), v) for k, v in step.headers)
            self.send_header("Content-Type", headers.pop("content-type", "application/json"))
            self.send_header("Content-Length", str(len(data)))
            for key, value in step.headers:
                if key.lower() != "content-type":
                    self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

    return Handler


@pytest.fixture
def scripted_server() -> Iterator[Any]:
    """SYNTHETIC: a factory, ``scripted_server([Reply(...), Reset(), ...])``; every server is closed at teardown."""
    servers: list[ScriptedServer] = []

    def start(script: Sequence[Step]) -> ScriptedServer:
        server = ScriptedServer(list(script))
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()
