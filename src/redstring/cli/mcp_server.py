"""The retrievers as Model Context Protocol tools, served over stdio (needs the `mcp` extra).

Three tools: `search_entities`, `search_passages` and `get_entity` (with its
neighbours). Arguments are checked twice: by the JSON schema the SDK derives
from the signatures below (types, ranges, enums) and by the library's own
guards (a blank query, an id that is not a UUID). A failure reaches the model
as a tool error naming the cause, never as a crash of the server.

**The tenant is the server's, never the model's.** It is bound when the server
is built, no tool has a tenant parameter, and an argument the schema does not
declare (a `tenant_id` a model invents) is ignored rather than read (ADR 0082).
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable
from importlib.metadata import version
from io import TextIOWrapper
from typing import Annotated, Literal, cast

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from pydantic import Field

from redstring.cli import queries
from redstring.cli.answers import EntityAnswer, EntitySearchAnswer, PassageSearchAnswer
from redstring.cli.mcp_transport import unicode_safe_lines
from redstring.cli.store_set import StoreSet
from redstring.domain.errors import RedstringError
from redstring.domain.ids import TenantId
from redstring.ports.embedding_provider import EmbeddingProvider

#: The most results one tool call may ask for.
MAX_K = 50

Query = Annotated[
    str, Field(min_length=1, max_length=2000, description="What to look for, in words.")
]
K = Annotated[int, Field(ge=0, le=MAX_K, description="How many results, best first.")]
Mode = Annotated[
    Literal["hybrid", "semantic", "lexical"] | None,
    Field(
        description="Which channels rank: semantic (meaning), lexical (spelling), or hybrid "
        "(both, fused). Omitted: hybrid when the server embeds queries, else lexical."
    ),
]

INSTRUCTIONS = (
    "Search one knowledge graph of entities (people, organisations, places, ...) and the "
    "passages of the documents it was built from. Use search_entities to find which entities "
    "a name or description means, get_entity to read one entity and its relationships, and "
    "search_passages to find the text that says something. Scores: `score` is fused and "
    "only orders one answer; `semantic` and `lexical` are on 0..1, null when that channel "
    "did not rank the item."
)


async def _guarded[T](call: Awaitable[T]) -> T:
    try:
        return await call
    except (RedstringError, ValueError) as error:
        raise ToolError(" ".join(str(error).split())) from error


def build_server(
    stores: StoreSet, embeddings: EmbeddingProvider | None, tenant_id: TenantId
) -> MCPServer:
    """An MCP server whose tools read `stores` for `tenant_id` only."""
    server: MCPServer = MCPServer(
        name="redstring",
        version=version("redstring"),
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )

    @server.tool(description="Rank the entities best matching a query.")
    async def search_entities(
        query: Query,
        k: K = 10,
        mode: Mode = None,
        entity_types: Annotated[
            list[str] | None,
            Field(description="Keep only entities of these types; omitted: every type."),
        ] = None,
    ) -> EntitySearchAnswer:
        return await _guarded(
            queries.search_entities(
                stores, embeddings, tenant_id, query, k=k, mode=mode, entity_types=entity_types
            )
        )

    @server.tool(description="Rank the document passages best matching a query.")
    async def search_passages(
        query: Query,
        k: K = 10,
        mode: Mode = None,
        source_ids: Annotated[
            list[str] | None,
            Field(description="Keep only passages of these source documents; omitted: all."),
        ] = None,
    ) -> PassageSearchAnswer:
        return await _guarded(
            queries.search_passages(
                stores, embeddings, tenant_id, query, k=k, mode=mode, source_ids=source_ids
            )
        )

    @server.tool(description="One entity by id (from a search), with its relationships.")
    async def get_entity(
        entity_id: Annotated[
            str, Field(min_length=1, max_length=64, description="The `id` a search returned.")
        ],
    ) -> EntityAnswer:
        async def read() -> EntityAnswer:
            return await queries.get_entity(stores, tenant_id, queries.parse_entity_id(entity_id))

        return await _guarded(read())

    return server


async def serve_stdio(
    stores: StoreSet, embeddings: EmbeddingProvider | None, tenant_id: TenantId
) -> None:
    """Serve the tools on stdin/stdout until the client closes the connection.

    Requests are read through `unicode_safe_lines`, so every call answers (issue 14).
    """
    server = build_server(stores, embeddings, tenant_id)
    lowlevel = server._lowlevel_server
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    lines = cast("anyio.AsyncFile[str]", unicode_safe_lines(stdin))
    async with stdio_server(stdin=lines) as (read_stream, write_stream):
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
