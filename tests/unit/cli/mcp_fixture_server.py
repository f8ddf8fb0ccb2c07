"""Serves the MCP tools over stdio for `HOME`, on the two-tenant in-memory world.

Run as `python -m tests.unit.cli.mcp_fixture_server` from the repository root.
"""

from __future__ import annotations

import asyncio

from redstring.cli.mcp_server import serve_stdio
from tests.unit.cli.world import HOME, populated_stores


async def _main() -> None:
    stores, embeddings = await populated_stores()
    await serve_stdio(stores, embeddings, HOME)


if __name__ == "__main__":
    asyncio.run(_main())
