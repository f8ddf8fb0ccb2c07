"""Call redstring's MCP tools the way an agent would: start the server, list its tools, search.

    uv run python examples/mcp_client.py --db demo.db "the first computer program"

Starts `redstring mcp --db DB` as a subprocess (the same Python, so the same
install), speaks MCP to it over stdio with the SDK's client, lists the tools
and calls `search_entities` (or the tool named by `--tool`; `describe_tenant`
takes no query), printing the structured result. A tenant holding no entities
(indexed, never built) offers no `search_entities`: the client says so and
searches the passages instead. A refusal prints the tool
error, which names the argument to change. Extra arguments after `--` go to `redstring mcp`
(for example `-- --tenant acme --embeddings none`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


async def run(db: str, query: str, tool: str, k: int, server_args: list[str]) -> int:
    # The SDK starts servers with a minimal environment; pass redstring's settings on.
    settings = {k: v for k, v in os.environ.items() if k.startswith(("REDSTRING_", "OPENAI_"))}
    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "redstring.cli", "mcp", "--db", db, *server_args],
        env=settings,
    )
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
        print("tools:", ", ".join(t.name for t in tools))
        if tool == "search_entities" and tool not in {t.name for t in tools}:
            # The server offers entity tools only where a build extracted entities.
            print(
                "no search_entities: this tenant holds no entities yet (run `redstring build` "
                "to extract them); searching its passages instead (--tool search_passages)",
                file=sys.stderr,
            )
            tool = "search_passages"
        arguments = {} if tool == "describe_tenant" else {"query": query, "k": k}
        result = await session.call_tool(tool, arguments)
    if result.is_error:
        print("tool error:", result.content[0].text, file=sys.stderr)
        return 1
    print(json.dumps(result.structured_content, indent=2))
    sys.stdout.flush()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("query", nargs="?", default="")
    parser.add_argument("--db", required=True)
    parser.add_argument(
        "--tool",
        default="search_entities",
        choices=["search_entities", "search_passages", "describe_tenant"],
    )
    parser.add_argument("-k", type=int, default=3)
    parser.add_argument("server_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    extra = args.server_args[1:] if args.server_args[:1] == ["--"] else args.server_args
    return asyncio.run(run(args.db, args.query, args.tool, args.k, extra))


if __name__ == "__main__":
    raise SystemExit(main())
