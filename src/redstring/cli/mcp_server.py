"""The client's reads as Model Context Protocol tools, served over stdio (needs the `mcp` extra).

A thin layer over `AsyncRedstring` (ADR 0175): each tool calls one client
method and returns the compact form of its answer (`mcp_results`). The
server reads the tenant's catalogue once at start-up and builds the tools
from it: the tools it can serve (no entity tools for a tenant without
entities), enums of its entity types and sources, the modes its provider
can serve. Arguments are checked by that schema and then by the library;
a refusal reaches the model as a tool error naming the argument
(`mcp_errors`), never as a crash of the server.

**The tenant is the server's, never the model's.** It is the client's and no
tool has a tenant parameter. Every schema says `additionalProperties: false`
and an argument it does not declare (a `tenant_id` a model invents, a
misspelt `source_ids`) is refused, naming the closest declared argument,
rather than silently ignored.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Awaitable, Sequence
from importlib.metadata import version
from io import TextIOWrapper
from typing import Annotated, Any, cast

import anyio
from anyio.streams.memory import MemoryObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp_types import (
    CallToolResult,
    InputRequiredResult,
    JSONRPCError,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel, ValidationError

from redstring.cli.mcp_errors import (
    EmptyTenantError,
    argument_error,
    library_error,
    undeclared_arguments,
    unknown_names,
)
from redstring.cli.mcp_results import (
    CUT_MARK,
    DESCRIPTION_TEXT,
    ENTITY_COLUMNS,
    MAX_NEIGHBOURS,
    PASSAGE_TEXT,
    READ_TEXT,
    EntityFacts,
    EntitySearchResult,
    PassageSearchResult,
    PassageText,
    TenantDescription,
    compact_json,
    entity_facts,
    entity_result,
    passage_result,
    passage_text,
    tenant_description,
)
from redstring.cli.mcp_schema import (
    MAX_ENUM,
    EntityIdArgument,
    Explain,
    K,
    MinConfidence,
    Offset,
    PassageIdArgument,
    Query,
    mode_argument,
    names_argument,
    retyped,
)
from redstring.cli.mcp_transport import named_params, unicode_safe_lines
from redstring.client.catalogue import TenantCatalogue
from redstring.client.client import AsyncRedstring
from redstring.client.errors import (
    EMBEDDING_MODEL_FLAGS,
    ENTITY_MODEL_FLAGS,
    MODEL_DIMENSION_FLAGS,
)
from redstring.client.stored_models import model_mismatch
from redstring.domain.errors import ModelDimensionMismatchError, RedstringError
from redstring.domain.retrieval import RetrievalMode

#: The results a search returns when `k` is omitted: enough to choose from, little to read.
DEFAULT_K = 5

#: Each search tool's `min_confidence` unless given (ADR 0212; rechosen by ADR 0390, 0430,
#: 0435, 0440, 0460 and 0495): the largest of 0.01, ..., 0.5 whose HYBRID answers empty at
#: most 5% of the fit half's graded queries (`python -m scripts.mcp_min_confidence`).
ENTITY_MIN_CONFIDENCE = 0.13
PASSAGE_MIN_CONFIDENCE = 0.19


def _scores(default: float) -> str:
    """What the scores mean, for a search tool whose `min_confidence` defaults to `default`."""
    return (
        "Each result's `confidence` (0..1, comparable across queries) is how likely it is "
        "a right answer: 0.7 is right about 7 times in 10. With `min_confidence` (default "
        f"{default}) the answer is empty unless some candidate (any of the ranked results, "
        "returned or not) reaches it, so an empty answer means nothing here is likely to "
        "match; it does not filter rows, so a row returned can be below it. "
        "`explain=true` adds the scores behind it: "
        "`semantic`, similarity of meaning on 0..1 where 0.5 means unrelated and 1.0 the same "
        "meaning, and `lexical`, overlap of spelling on 0..1 (1.0: the same words); a score is "
        "absent (`null` in a row) when that ranking did not find the item."
    )


INSTRUCTIONS = (
    "Search one knowledge graph: entities (with their relationships) extracted from "
    "documents, and the passages of those documents. Each tool's description says when to "
    "use it; describe_tenant says what the graph holds."
)
_READ_ONLY = {"read_only_hint": True, "idempotent_hint": True, "open_world_hint": False}


#: The tools a tenant holding no entities is not offered.
ENTITY_TOOLS = frozenset({"search_entities", "get_entity"})
NO_ENTITY_TOOLS = (
    "{tool} is not offered: this tenant holds no entities, only passages (they come from "
    "`redstring build`, which extracts them with a language model; restart the server "
    "after it). search_passages searches the passages now."
)


class _Refusal(ToolError):
    """A refusal whose text is already written for the model."""


class _Server(MCPServer):
    """`MCPServer` whose argument and library refusals read as one sentence per argument."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        tool = self._tool_manager.get_tool(name)
        if tool is None and name in ENTITY_TOOLS:  # offered only where there are entities
            text = NO_ENTITY_TOOLS.format(tool=name)
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        if tool is not None:
            declared = list(tool.parameters.get("properties", {}))
            undeclared = [argument for argument in arguments if argument not in declared]
            if undeclared:
                text = undeclared_arguments(name, undeclared, declared)
                return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(cause, ValidationError):
                properties = {} if tool is None else tool.parameters.get("properties", {})
                text = argument_error(name, cause, properties)
            elif isinstance(cause, _Refusal):
                text = str(cause)
            else:
                raise
            return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _answer(result: BaseModel) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=compact_json(result))],
        structured_content=result.model_dump(mode="json", exclude_none=True),
    )


def _types_line(catalogue: TenantCatalogue) -> str:
    counts = sorted(catalogue.entity_types.items(), key=lambda item: (-item[1], item[0]))
    shown = ", ".join(f"{name} ({count})" for name, count in counts[:20])
    more = "" if len(counts) <= 20 else f", and {len(counts) - 20} more (see describe_tenant)"
    return f"This graph holds {catalogue.entities} entities of types: {shown}{more}."


def _empty_note(what: str, *, filtered: bool, embeds: bool, threshold: float | None) -> str:
    other = (
        "mode='lexical' for exact spellings or mode='semantic' for meanings"
        if embeds
        else ("other spellings")
    )
    narrowed = " or drop the filter," if filtered else ""
    lower = (
        ""
        if threshold is None or threshold == 0.0
        else f" Nothing reached min_confidence {threshold}: min_confidence=0 shows the closest "
        "results anyway, most likely unrelated."
    )
    return f"No {what} matched this query here. Try other words,{narrowed} {other}.{lower}"


async def _refusing[T](tool: str, call: Awaitable[T]) -> T:
    """`call`'s result, or a refusal naming the argument the library refused."""
    try:
        return await call
    except (RedstringError, ValueError) as error:
        raise _Refusal(library_error(tool, error)) from error


def build_server(client: AsyncRedstring, catalogue: TenantCatalogue) -> MCPServer:
    """An MCP server whose tools read `client`'s tenant, shaped by its `catalogue`."""
    embeds = client.embeddings is not None
    modes = ["hybrid", "semantic", "lexical"] if embeds else ["lexical"]
    default_mode = modes[0]
    types = list(catalogue.entity_types)
    sources = list(catalogue.sources)
    server = _Server(
        name="redstring",
        title="redstring knowledge graph",
        version=version("redstring"),
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        middleware=[named_params],
    )

    def note(what: str, found: bool, k: int, filtered: bool, threshold: float | None) -> str | None:
        if found or k == 0:
            return None
        return _empty_note(what, filtered=filtered, embeds=embeds, threshold=threshold)

    async def describe_tenant() -> Annotated[CallToolResult, TenantDescription]:
        return _answer(tenant_description(await client.describe(), modes))

    server.add_tool(
        describe_tenant,
        title="Describe the knowledge graph",
        description="Say what this knowledge graph holds: its entity types and document "
        "sources with their counts, its relationships, and the search modes on offer. Use it "
        "before filtering by type or source, or when a search came back empty.",
        annotations=ToolAnnotations(title="Describe the knowledge graph", **_READ_ONLY),
    )

    if catalogue.entities:

        async def search_entities(
            query: Query,
            *,
            k: K = DEFAULT_K,
            mode: str = default_mode,
            entity_types: list[str] | None = None,
            min_confidence: MinConfidence = ENTITY_MIN_CONFIDENCE,
            explain: Explain = False,
        ) -> Annotated[CallToolResult, EntitySearchResult]:
            answer = await _refusing(
                "search_entities",
                client.search(
                    query,
                    k=k,
                    mode=RetrievalMode(mode),
                    types=entity_types,
                    min_confidence=min_confidence,
                ),
            )
            filtered = entity_types is not None
            said = note("entity", bool(answer.matches), k, filtered, min_confidence)
            return _answer(entity_result(answer, said, explain=explain))

        async def get_entity(entity_id: EntityIdArgument) -> Annotated[CallToolResult, EntityFacts]:
            return _answer(entity_facts(await _refusing("get_entity", client.entity(entity_id))))

        server.add_tool(
            retyped(
                search_entities,
                mode=mode_argument(embeds),
                entity_types=names_argument(types, what="entity types"),
            ),
            title="Search entities",
            description="Find the entities (people, organisations, things, ... as typed in "
            "this graph) that a name or description refers to. Use it first, to turn a name "
            "into an `id` for get_entity. Returns up to k entities, best first, one row each "
            f"in `matches`, its values in `columns` order ({', '.join(ENTITY_COLUMNS)}; "
            "`aliases` null when there are none); a description longer than "
            f"{DESCRIPTION_TEXT} characters is cut and ends in '{CUT_MARK}', get_entity gives "
            f"it whole. {_scores(ENTITY_MIN_CONFIDENCE)} An empty `matches` means nothing here "
            "matched; `note` says "
            "what to try. " + _types_line(catalogue),
            annotations=ToolAnnotations(title="Search entities", **_READ_ONLY),
        )
        server.add_tool(
            get_entity,
            title="Read one entity",
            description="Read one entity by the `id` search_entities returned: its "
            "description, aliases, source documents and relationships (at most "
            f"{MAX_NEIGHBOURS}; `related_total` counts all), each naming the other entity's "
            "`id` to follow with get_entity. An id this graph does not hold is an error.",
            annotations=ToolAnnotations(title="Read one entity", **_READ_ONLY),
        )

    if catalogue.passages:

        async def search_passages(
            query: Query,
            *,
            k: K = DEFAULT_K,
            mode: str = default_mode,
            sources: list[str] | None = None,
            min_confidence: MinConfidence = PASSAGE_MIN_CONFIDENCE,
            explain: Explain = False,
        ) -> Annotated[CallToolResult, PassageSearchResult]:
            _check_names("sources", sources, list(catalogue.sources))
            answer = await _refusing(
                "search_passages",
                client.passages(
                    query,
                    k=k,
                    mode=RetrievalMode(mode),
                    sources=sources,
                    min_confidence=min_confidence,
                ),
            )
            said = note("passage", bool(answer.matches), k, sources is not None, min_confidence)
            return _answer(passage_result(answer, said, explain=explain))

        async def read_passage(
            passage_id: PassageIdArgument, offset: Offset = 0
        ) -> Annotated[CallToolResult, PassageText]:
            chunk = await _refusing("read_passage", client.passage(passage_id))
            return _answer(passage_text(chunk, offset))

        server.add_tool(
            retyped(
                search_passages,
                mode=mode_argument(embeds),
                sources=names_argument(sources, what="source documents (ids as indexed)"),
            ),
            title="Search passages",
            description="Find the passages of the indexed documents that say something about "
            "a query: use it to answer a question from the text or to cite a source. Returns "
            f"up to k passages, best first, each cut at {PASSAGE_TEXT} characters (`more_at` "
            f"is where read_passage continues it). {_scores(PASSAGE_MIN_CONFIDENCE)} An empty "
            "`matches` means no "
            f"passage matched; `note` says what to try. {len(sources)} sources, "
            f"{catalogue.passages} passages.",
            annotations=ToolAnnotations(title="Search passages", **_READ_ONLY),
        )
        server.add_tool(
            read_passage,
            title="Read a passage",
            description="Read the rest of a passage a search cut short: pass its `passage_id` "
            f"and its `more_at` as `offset`; returns up to {READ_TEXT} characters and the next "
            "`more_at` (absent at the end). An offset past the end gives empty text.",
            annotations=ToolAnnotations(title="Read a passage", **_READ_ONLY),
        )

    _only_tools(server)
    for tool in server._tool_manager.list_tools():
        tool.parameters["additionalProperties"] = False  # call_tool refuses the rest
    return server


def _check_names(argument: str, given: Sequence[str] | None, known: list[str]) -> None:
    """Refuse names `known` lacks, where `known` is too long to be the schema's enum."""
    if given is not None and len(known) > MAX_ENUM:
        held = set(known)
        missing = [name for name in given if name not in held]
        if missing:
            raise _Refusal(unknown_names(argument, missing, known))


def _only_tools(server: MCPServer) -> None:
    """Drop the prompt and resource handlers, so the server advertises only tools."""
    handlers = server._lowlevel_server._request_handlers
    for method in [name for name in handlers if name.startswith(("prompts/", "resources/"))]:
        del handlers[method]


async def open_server(client: AsyncRedstring) -> MCPServer:
    """The server for `client`, or why none could answer, before any tool is served.

    Raises `EmptyTenantError` when its tenant holds nothing, and
    `ModelDimensionMismatchError` when its embedding model makes vectors of
    another length than the database holds (every search embedding its query
    would fail, and no tool argument could fix it), and
    `EmbeddingModelMismatchError` when it is none of the models that embedded
    the tenant's passages, or its entities (every passage or entity search
    embedding its query would be refused).
    """
    catalogue = await client.describe()
    if catalogue.is_empty:
        raise EmptyTenantError(tenant=catalogue.tenant_id, others=catalogue.other_tenants)
    model = client.embeddings
    if model is not None and model.dimension != catalogue.dimension:
        raise ModelDimensionMismatchError(
            stored=catalogue.dimension, model=model.dimension, fix=MODEL_DIMENSION_FLAGS
        )
    if model is not None:
        refusal = model_mismatch(
            catalogue.passage_models, model, fix=EMBEDDING_MODEL_FLAGS
        ) or model_mismatch(
            catalogue.entity_models, model, fix=ENTITY_MODEL_FLAGS, items="entities"
        )
        if refusal is not None:
            raise refusal
    return build_server(client, catalogue)


async def serve_stdio(client: AsyncRedstring) -> None:
    """Serve the tools on stdin/stdout until the client closes the connection.

    Requests are read through `unicode_safe_lines`, so every call answers (issue 14).
    """
    server = await open_server(client)
    lowlevel = server._lowlevel_server
    stdin = anyio.wrap_file(TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    outgoing: list[MemoryObjectSendStream[SessionMessage]] = []

    async def reply(refusal: JSONRPCError) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await outgoing[0].send(SessionMessage(refusal))

    lines = cast("anyio.AsyncFile[str]", unicode_safe_lines(stdin, reply))
    async with stdio_server(stdin=lines) as (read_stream, write_stream):
        outgoing.append(write_stream)  # before the first line is read: no await since start
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())
