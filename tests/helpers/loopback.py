"""SYNTHETIC OpenAI-compatible chat-completions server on 127.0.0.1, for the tests and the benchmarks.

Nothing here is a recording of a real model: every reply is scripted by whoever starts the server.
What is real is the transport — litellm talks to an actual socket on an ephemeral loopback port, so
timeouts, resets, status codes, Retry-After headers and concurrent requests travel the same path
they would in production.

``LoopbackServer(script, latency=...)`` answers POST .../chat/completions (any other path: 404):

- ``script`` is either a sequence of steps, served in order with the last one repeating once the
  script runs out, or a function ``script(index, request) -> step`` (``index`` counts requests from 0
  in order of arrival) for answers that depend on the request, such as its case tag;
- a step is a ``Reply`` (status, body, headers), a ``Reset`` or a ``Hang``;
- ``latency`` seconds pass before every 200 reply, as a model's time to answer (errors come back at once).

It records every request (``Request``: path, parsed body, size, arrival time, case tag), counts the
requests in flight and the most there were at once, and counts the TCP connections it accepted
(``connections``: a client that keeps its connections alive opens few, one that does not opens one
per request).

Standard library only, no pytest: ``bench/bench_eval.py`` imports it too. ``scripted_server`` starts
servers and closes them all at the end; tests/conftest.py makes it the pytest fixture of that name, and
a test that uses it must be marked ``@pytest.mark.loopback``.
"""

from __future__ import annotations

import json
import re
import socket
import struct
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator, Sequence, Union

__all__ = [
    "CASE_TAG", "Hang", "LoopbackServer", "Reply", "Request", "Reset", "Script", "Step", "chat", "content",
    "scripted_server",
]

CASE_TAG = re.compile(r"\[case ([\w.-]+)\]")
"""A request's case tag: ``[case c007]`` anywhere in its body (an eval test writes it into the step's
description), so that a server answering many cases at once can tell them apart."""


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


def chat(text: str | None, *, prompt_tokens: int = 10, completion_tokens: int = 5,
         model: str = "judge-test") -> Reply:
    """SYNTHETIC: a well-formed OpenAI chat completion whose assistant message content is ``text``."""
    return Reply(200, {
        "id": "x", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    })


def content(valid: bool, reason: str) -> Reply:
    """SYNTHETIC: a chat completion carrying a verdict object."""
    return chat(json.dumps({"valid": valid, "reason": reason}))


@dataclass(frozen=True)
class Request:
    """One request as the server read it."""

    path: str
    body: Any  # parsed JSON, or the raw bytes when it is not JSON
    size: int
    at: float  # time.monotonic() when the request body had been read
    tag: str | None  # CASE_TAG's group in the body, if any

    @classmethod
    def read(cls, path: str, raw: bytes) -> "Request":
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw
        found = CASE_TAG.search(raw.decode("utf-8", "replace"))
        return cls(path, body, len(raw), time.monotonic(), found.group(1) if found else None)


Script = Union[Sequence[Step], Callable[[int, Request], Step]]


class _HTTPServer(ThreadingHTTPServer):
    # A thread per connection, never waited for at close: a Hang may still be holding one.
    daemon_threads = True
    # The listen backlog (default 5): a burst of concurrent connections beyond it has SYNs dropped,
    # and each such client waits about a second for its retransmit. 32 workers open 32 at once.
    request_queue_size = 256

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a killed process resets its sockets) is no error of the server's."""
        import sys

        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


class LoopbackServer:
    """SYNTHETIC chat-completions server on 127.0.0.1 with an ephemeral port; see the module docstring."""

    def __init__(self, script: Script, *, latency: float = 0.0) -> None:
        if not callable(script) and not script:
            raise ValueError("a script needs at least one entry")
        self.script = script
        self.latency = latency  # read at every reply: may be changed while the server runs
        self.requests: list[Request] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.last_done_at: float | None = None  # time.monotonic() when the last answer had been sent
        self.connections = 0  # TCP connections accepted (since the last reset): one per client socket
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._closed = False
        self._httpd = _HTTPServer(("127.0.0.1", 0), _handler(self))
        # poll_interval bounds how long close() waits for the serving loop to notice.
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
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

    @property
    def first_at(self) -> float | None:
        """time.monotonic() when the first request (since the last reset) had been read."""
        with self._lock:
            return self.requests[0].at if self.requests else None

    def per_tag(self) -> Counter:
        """How many requests each case tag had (None: untagged)."""
        with self._lock:
            return Counter(request.tag for request in self.requests)

    def reset(self) -> None:
        """Forget the requests seen (a sequence script starts over); what is in flight stays counted."""
        with self._lock:
            self.requests.clear()
            self.max_in_flight = self.in_flight
            self.connections = 0
            self.last_done_at = None

    def close(self) -> None:
        """Stop serving and cut every Hang and latency short; closing twice is harmless."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "LoopbackServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _arrive(self, request: Request) -> int:
        with self._lock:
            self.requests.append(request)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            return len(self.requests) - 1

    def _accept(self) -> None:
        with self._lock:
            self.connections += 1

    def _step(self, index: int, request: Request) -> Step:
        if callable(self.script):
            return self.script(index, request)
        return self.script[min(index, len(self.script) - 1)]

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1
            self.last_done_at = time.monotonic()


def _handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY: with Nagle's algorithm a reply's last small segment waits for the client's
        # delayed ACK, about 40 ms per reply. _send also writes head and body in one call.
        disable_nagle_algorithm = True

        def setup(self) -> None:  # once per accepted connection, however many requests it then carries
            server._accept()
            super().setup()

        def log_message(self, format: str, *args: object) -> None:  # quiet
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            request = Request.read(self.path, self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            index = server._arrive(request)
            try:
                step = server._step(index, request)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    step = Reply(404, {"error": {"message": f"no route {self.path}"}})
                self._perform(step)
            finally:
                server._leave()

        def _perform(self, step: Step) -> None:
            if isinstance(step, Hang):
                server._stop.wait(step.seconds)
                self.close_connection = True
            elif isinstance(step, Reset):
                if step.rst:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.close_connection = True
                self.connection.close()
            else:
                if step.status == 200 and server.latency > 0:
                    server._stop.wait(server.latency)
                self._send(step)

        def _send(self, reply: Reply) -> None:
            payload = reply.body if isinstance(reply.body, (bytes, str)) else json.dumps(reply.body)
            data = payload.encode("utf-8") if isinstance(payload, str) else payload
            extra = [(k, v) for k, v in reply.headers if k.lower() != "content-type"]
            content_type = next((v for k, v in reply.headers if k.lower() == "content-type"), "application/json")
            fields = [("Content-Type", content_type), ("Content-Length", str(len(data))), *extra]
            phrase = self.responses.get(reply.status, ("",))[0]
            head = f"HTTP/1.1 {reply.status} {phrase}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields) + "\r\n"
            self.wfile.write(head.encode("latin-1") + data)  # one write: no stall between head and body

    return Handler


def scripted_server() -> Iterator[Callable[..., LoopbackServer]]:
    """SYNTHETIC: yields a factory, ``start([Reply(...), Reset(), ...])`` or ``start(answer, latency=0.2)``,
    and closes every server it started when resumed. The body of the pytest fixture of this name (tests/conftest.py)."""
    servers: list[LoopbackServer] = []

    def start(script: Script, **options: Any) -> LoopbackServer:
        servers.append(LoopbackServer(script if callable(script) else list(script), **options))
        return servers[-1]

    try:
        yield start
    finally:
        for server in servers:
            server.close()
