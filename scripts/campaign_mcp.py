"""The fault campaign's MCP sweep: raw JSON-RPC lines over the server's stdin.

The MCP client library cannot encode a lone surrogate (its JSON encoder
refuses it), so the sweep writes each request itself: `json.dumps` with its
default `ensure_ascii=True` sends `"Ada\\ud800"` as the escape a hostile
client would. Every request must get a reply with its id within the timeout.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from scripts import ROOT

#: (name, raw line or JSON-RPC method + params) of each hostile request.
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "search_entities lone surrogate": ("search_entities", {"query": "Ada\ud800"}),
    "search_entities surrogate pair halves": ("search_entities", {"query": "\udc00\ud800"}),
    "search_entities k='5'": ("search_entities", {"query": "Ada", "k": "5"}),
    "search_entities k=2.5": ("search_entities", {"query": "Ada", "k": 2.5}),
    "search_entities k=true": ("search_entities", {"query": "Ada", "k": True}),
    "search_entities k=-3": ("search_entities", {"query": "Ada", "k": -3}),
    "search_entities query=null": ("search_entities", {"query": None}),
    "search_entities query=list": ("search_entities", {"query": ["Ada"]}),
    "search_entities no query": ("search_entities", {}),
    "search_entities entity_types=[null]": (
        "search_entities",
        {"query": "Ada", "entity_types": [None]},
    ),
    "get_entity not a uuid": ("get_entity", {"entity_id": "nope"}),
    "get_entity surrogate": ("get_entity", {"entity_id": "\ud800"}),
    "search_passages k=10**9": ("search_passages", {"query": "Ada", "k": 10**9}),
    "search_passages lone surrogate": ("search_passages", {"query": "\ud800"}),
    "read_passage unknown id": ("read_passage", {"chunk_id": "c:nope"}),
    "an unknown tool": ("drop_tables", {}),
    # Issue 27, item 4: undeclared arguments (meant: sources, entity_types, min_confidence).
    "search_passages source_ids (undeclared)": (
        "search_passages",
        {"query": "Ada", "source_ids": ["other.md"]},
    ),
    "search_entities types (undeclared)": ("search_entities", {"query": "Ada", "types": ["x"]}),
    "search_passages minConfidence (undeclared)": (
        "search_passages",
        {"query": "Ada", "minConfidence": 0.9},
    ),
}

#: Calls answered as they should be (the query repaired to U+FFFD, then searched); every
#: other call must be refused: accepting it is a wrong answer.
ACCEPTABLE = frozenset(
    {
        "search_entities lone surrogate",
        "search_entities surrogate pair halves",
        "search_passages lone surrogate",
    }
)

#: Issue 27, item 5: frames with an id that are no valid request (`None`: the id goes here).
FRAMES: dict[str, dict[str, Any]] = {
    "a frame with an id and nothing else": {"jsonrpc": "2.0", "id": None},
    "params that are a list": {"jsonrpc": "2.0", "id": None, "method": "tools/list", "params": [1]},
    "params that are a string": {
        "jsonrpc": "2.0",
        "id": None,
        "method": "tools/call",
        "params": "search",
    },
    "a method that is a number": {"jsonrpc": "2.0", "id": None, "method": 7},
}


class _Server:
    def __init__(self, process: asyncio.subprocess.Process, timeout: float) -> None:
        self._process = process
        self._timeout = timeout

    async def send(self, message: dict[str, Any]) -> None:
        assert self._process.stdin is not None
        self._process.stdin.write((json.dumps(message) + "\n").encode("ascii"))
        await self._process.stdin.drain()

    async def reply(self, request_id: int) -> dict[str, Any] | None:
        """The reply to `request_id`, `None` when none comes within the timeout."""
        assert self._process.stdout is not None
        while True:
            try:
                line = await asyncio.wait_for(self._process.stdout.readline(), self._timeout)
            except TimeoutError:
                return None
            if not line:
                return None
            message = json.loads(line)
            if message.get("id") == request_id:
                return dict(message)


def _verdict(answer: dict[str, Any] | None) -> str:
    if answer is None:
        return "HANG"
    if "error" in answer:
        return f"refused (JSON-RPC error {answer['error'].get('code')})"
    result = answer.get("result", {})
    text = " ".join(str(part.get("text", "")) for part in result.get("content", []))
    if "Traceback" in text:
        return "RAW traceback in the tool result"
    return "refused (tool error)" if result.get("isError") else "accepted"


async def mcp_sweep(db: Path, wait: float) -> list[tuple[str, str]]:
    """Each hostile tool call, sent raw to `redstring mcp --db db`; `wait` seconds per reply."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *["-m", "redstring.cli", "mcp", "--db", str(db), "--embeddings", "none"],
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd=ROOT,
    )
    server = _Server(process, wait)
    results: list[tuple[str, str]] = []
    try:
        await server.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "fault-campaign", "version": "1"},
                },
            }
        )
        if await server.reply(0) is None:
            return [("initialize", "HANG")]
        await server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        for number, (name, (tool, arguments)) in enumerate(CALLS.items(), start=1):
            await server.send(
                {
                    "jsonrpc": "2.0",
                    "id": number,
                    "method": "tools/call",
                    "params": {"name": tool, "arguments": arguments},
                }
            )
            verdict = _verdict(await server.reply(number))
            if verdict == "accepted" and name not in ACCEPTABLE:
                verdict = "WRONG accepted (it should be refused)"
            results.append((name, verdict))
            if verdict == "HANG":
                break  # the server is stuck behind the unanswered call
        for number, (name, frame) in enumerate(FRAMES.items(), start=len(CALLS) + 1):
            await server.send({**frame, "id": number})
            answer = await server.reply(number)
            code = None if answer is None else answer.get("error", {}).get("code")
            verdict = (
                "HANG (no reply: the client waits forever)"
                if answer is None
                else f"refused (JSON-RPC error {code})"
                if code == -32600
                else f"WRONG reply {json.dumps(answer)[:80]}"
            )
            results.append((name, verdict))
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()
    return results
