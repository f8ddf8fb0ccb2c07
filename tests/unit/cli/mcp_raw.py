"""A raw JSON-RPC client for the MCP server over stdio: one subprocess, one line per message.

Blocking and synchronous, so a module can start one server and share it
across its tests (a fixture), and so it can send what the SDK client
refuses to encode (lone surrogates).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from tests.hang_guard import HANG_GUARD_SECONDS
from tests.unit.cli.mcp_client import ROOT

#: A guard against a hang only: an answer normally comes in milliseconds.


class RawServer:
    """A started, initialised MCP server subprocess."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self._process = process
        self._next_id = 0
        self.welcome = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _send(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps(message).encode() + b"\n")
        self._process.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """The JSON-RPC reply (its `result` or `error`) to one request."""
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}
        reply = self.frame(message)
        assert reply["id"] == self._next_id, reply
        return reply

    def frame(self, message: dict[str, Any]) -> dict[str, Any]:
        """The next line the server writes after `message` is sent as it is."""
        return self.line(json.dumps(message))

    def write(self, text: str) -> None:
        """Send `text` as one line, byte for byte, reading nothing."""
        assert self._process.stdin is not None
        self._process.stdin.write(text.encode() + b"\n")
        self._process.stdin.flush()

    def line(self, text: str) -> dict[str, Any]:
        """The next line the server writes after `text` is sent as one line, byte for byte."""
        self.write(text)
        assert self._process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(self._process.stdout, selectors.EVENT_READ)
            if not selector.select(HANG_GUARD_SECONDS):
                raise AssertionError(f"no answer to {text!r}")
        reply: dict[str, Any] = json.loads(self._process.stdout.readline())
        return reply

    def tools(self) -> dict[str, dict[str, Any]]:
        """The listed tools by name."""
        listed = self.request("tools/list", {})["result"]["tools"]
        return {tool["name"]: tool for tool in listed}

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The `tools/call` result; fails the test on a protocol error instead."""
        reply = self.request("tools/call", {"name": name, "arguments": arguments})
        assert "result" in reply, reply
        result: dict[str, Any] = reply["result"]
        return result


@contextmanager
def raw_server(args: Sequence[str]) -> Iterator[RawServer]:
    """`python args...` started in the repository root, initialised, closed at the end."""
    process = subprocess.Popen(
        [sys.executable, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=dict(os.environ),
    )
    try:
        yield RawServer(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait()
