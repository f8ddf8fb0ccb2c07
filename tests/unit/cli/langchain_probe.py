"""Loads redstring's MCP tools through langchain-mcp-adapters and calls them; prints JSON.

Runs in an environment of its own (langchain-mcp-adapters 0.3 needs the `mcp`
SDK 1.x, redstring serves with 2.x), so it imports neither redstring nor the
tests: `python langchain_probe.py PYTHON ENTITY_ID` starts the fixture server
with the project's `PYTHON` and prints what each call answered.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.tools import load_mcp_tools


async def probe(python: str, entity_id: str) -> dict[str, object]:
    """The tools' names and descriptions, and three calls' answers as LangChain gives them."""
    client = MultiServerMCPClient(
        {
            "redstring": {
                "transport": "stdio",
                "command": python,
                "args": ["-m", "tests.unit.cli.mcp_fixture_server"],
                "env": dict(os.environ),
                "cwd": os.getcwd(),
            }
        }
    )
    async with client.session("redstring") as session:
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        found = await tools["search_entities"].ainvoke({"query": "Ada Lovelace", "k": 1})
        detail = await tools["get_entity"].ainvoke({"entity_id": entity_id})
        refused = await tools["search_entities"].ainvoke({"query": "Ada", "k": 99})
    return {
        "descriptions": {name: tool.description for name, tool in tools.items()},
        "found": str(found),
        "detail": str(detail),
        "refused": str(refused),
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(probe(sys.argv[1], sys.argv[2]))))
