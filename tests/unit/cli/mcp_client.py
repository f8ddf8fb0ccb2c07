"""A real MCP client session over stdio to a server subprocess, for the tests."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[3]


@asynccontextmanager
async def session(
    command: str, args: Sequence[str], env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """An initialised session with the server `command args...` started in the repo root.

    The server inherits this process's environment (so coverage follows it), then `env`.
    """
    inherited = {**os.environ, **(env or {})}
    parameters = StdioServerParameters(command=command, args=list(args), env=inherited, cwd=ROOT)
    async with stdio_client(parameters) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client
