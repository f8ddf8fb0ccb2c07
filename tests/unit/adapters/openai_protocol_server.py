"""A tiny OpenAI-protocol server on 127.0.0.1 whose answers each test scripts.

`serve(script)` starts it in a daemon thread and stops it on exit (and by
itself after `lifetime` seconds, so a hung test cannot keep it alive). The
script maps (path, request JSON, 1-based call number) to a `Reply`. Every
request is recorded in `server.requests`. With `serial=True` it answers one
request at a time, as llama.cpp's servers with one slot do: the others wait
in its queue (and an answer the client gave up on still runs to its end).
`server_profiles` builds scripts that behave like particular real servers.

A reply with `drop=True` closes the connection unanswered, as a server killed
mid-run does. A reply with `hold=event` is sent only once the test sets the event (or the
server stops): a timeout test holds the replies that must time out instead of
betting on a delay, so it measures the client's logic, not the machine's speed.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: Any = None  # a JSON-able object, or raw bytes sent as is
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    hold: threading.Event | None = None
    drop: bool = False  # close the connection without answering, as a killed server does


Script = Callable[[str, dict[str, Any], int], Reply]


def vector_for(text: str, dimension: int) -> list[float]:
    """A deterministic unit vector for `text` (same text, same vector)."""
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")
    raw = np.random.default_rng(seed).standard_normal(dimension)
    return [float(x) for x in raw / np.linalg.norm(raw)]


def embeddings(request: dict[str, Any], dimension: int, *, reverse: bool = False) -> Reply:
    """A normal embeddings answer; `reverse` lists the items last index first."""
    texts = request["input"]
    data = [
        {"object": "embedding", "index": i, "embedding": vector_for(text, dimension)}
        for i, text in enumerate(texts)
    ]
    if reverse:
        data.reverse()
    return Reply(
        body={
            "object": "list",
            "data": data,
            "model": request["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
    )


def chat(content: str | None, *, refusal: str | None = None, finish_reason: str = "stop") -> Reply:
    return Reply(
        body={
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 0,
            "model": "scripted",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish_reason,
                    "message": {"role": "assistant", "content": content, "refusal": refusal},
                }
            ],
        }
    )


def error(status: int, message: str, **headers: str) -> Reply:
    return Reply(
        status=status,
        body={"error": {"message": message, "type": "invalid_request_error"}},
        headers=headers,
    )


class ScriptedServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def __init__(
        self, script: Script, *, serial: bool = False, lifetime: float = 60.0, port: int = 0
    ) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.lifetime = lifetime
        self.script = script
        self.serial = serial
        self.one_at_a_time = threading.Lock()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.authorizations: list[str | None] = []
        self.lock = threading.Lock()
        self.in_flight = 0
        self.max_in_flight = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def calls(self, path_suffix: str) -> list[dict[str, Any]]:
        with self.lock:
            return [body for path, body in self.requests if path.endswith(path_suffix)]


class _Handler(BaseHTTPRequestHandler):
    server: ScriptedServer

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        request = json.loads(self.rfile.read(length) or b"{}")
        with self.server.lock:
            self.server.requests.append((self.path, request))
            self.server.authorizations.append(self.headers.get("authorization"))
            number = len(self.server.requests)
        if self.server.serial:
            with self.server.one_at_a_time:
                self._answer(request, number)
        else:
            self._answer(request, number)

    def _answer(self, request: dict[str, Any], number: int) -> None:
        with self.server.lock:
            self.server.in_flight += 1
            self.server.max_in_flight = max(self.server.max_in_flight, self.server.in_flight)
        try:
            reply = self.server.script(self.path, request, number)
            if reply.drop:
                self.close_connection = True
                return
            time.sleep(reply.delay)
            if reply.hold is not None:
                reply.hold.wait(self.server.lifetime)
            payload = (
                reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
            )
            headers = {"content-type": "application/json", **reply.headers}
        finally:
            # Counted out before the reply leaves, so a request is counted only while
            # its client is certainly still waiting: the client may send its next
            # request the moment the reply arrives, before this thread runs again.
            with self.server.lock:
                self.server.in_flight -= 1
        try:
            self.send_response(reply.status)
            self.send_header("content-length", str(len(payload)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def serve(
    script: Script, *, lifetime: float = 60.0, serial: bool = False, port: int = 0
) -> Iterator[ScriptedServer]:
    """`script` served on `port` (0: any free one) until the block ends."""
    server = ScriptedServer(script, serial=serial, lifetime=lifetime, port=port)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    watchdog = threading.Timer(lifetime, server.shutdown)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield server
    finally:
        watchdog.cancel()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
