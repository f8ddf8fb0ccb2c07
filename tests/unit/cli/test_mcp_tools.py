"""The MCP tools against a two-tenant world: in process for the shapes, over stdio for the wire."""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from importlib.metadata import version
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from redstring import Redstring, SourceDocument
from redstring.cli import mcp_schema, mcp_server
from redstring.cli.main import main
from redstring.cli.mcp_errors import EmptyTenantError
from redstring.cli.mcp_results import (
    CUT_MARK,
    DESCRIPTION_TEXT,
    ENTITY_COLUMNS,
    PASSAGE_TEXT,
    READ_TEXT,
    entity_result,
    passage_result,
    passage_text,
)
from redstring.cli.mcp_schema import NOT_BLANK, PASSAGE_ID_PATTERN, UUID_PATTERN
from redstring.cli.mcp_server import _types_line, build_server, open_server
from redstring.cli.mcp_transport import without_lone_surrogates
from redstring.client.answers import EntityHit, EntitySearchAnswer, PassageHit, PassageSearchAnswer
from redstring.client.catalogue import TenantCatalogue
from redstring.client.tenants import parse_tenant
from redstring.domain.chunk import StoredChunk, chunk_id_for
from redstring.domain.retrieval import RetrievalMode
from tests.unit.cli.mcp_fixture_server import opener_of, world_client
from tests.unit.cli.mcp_raw import RawServer, raw_server
from tests.unit.cli.world import ADA, BABBAGE, HOME, OTHER, OTHER_ONLY, populated_stores

FIXTURE = ["-m", "tests.unit.cli.mcp_fixture_server"]
TOOLS = {"describe_tenant", "search_entities", "get_entity", "search_passages", "read_passage"}


@pytest.fixture(scope="module")
def wire() -> Iterator[RawServer]:
    """One server over stdio for the module's wire tests."""
    with raw_server(FIXTURE) as server:
        yield server


@asynccontextmanager
async def served(*, lexical: bool = False) -> AsyncIterator[MCPServer]:
    async with world_client(lexical=lexical) as client:
        yield await open_server(client)


async def call(server: MCPServer, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await server.call_tool(name, arguments)
    dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


def entities(result: dict[str, Any]) -> list[dict[str, Any]]:
    """An entity search's rows as one dict each, keyed by its `columns`."""
    answer = result["structuredContent"]
    return [dict(zip(answer["columns"], row, strict=True)) for row in answer["matches"]]


def text(result: dict[str, Any]) -> str:
    [content] = result["content"]
    value: str = content["text"]
    return value


def test_the_server_advertises_its_version_only_tools_and_five_annotated_tools(
    wire: RawServer,
) -> None:
    welcome = wire.welcome["result"]
    assert welcome["serverInfo"]["version"] == version("redstring")
    assert set(welcome["capabilities"]) == {"tools"}
    tools = wire.tools()
    assert set(tools) == TOOLS
    for name, tool in tools.items():
        assert not any("tenant" in argument for argument in tool["inputSchema"]["properties"])
        assert tool["outputSchema"]["type"] == "object", name
        assert tool["title"]
        hints = tool["annotations"]
        assert (hints["readOnlyHint"], hints["idempotentHint"], hints["openWorldHint"]) == (
            True,
            True,
            False,
        )
        # Guidance lives in each tool, where every client passes it on.
        assert len(tool["description"]) > 150, name
    for name in ("search_entities", "search_passages"):
        assert "`confidence`" in tools[name]["description"]
        assert "0.5 means unrelated" in tools[name]["description"]
        assert "empty `matches`" in tools[name]["description"]


def test_the_schemas_state_exactly_what_is_accepted(wire: RawServer) -> None:
    tools = wire.tools()
    entities = tools["search_entities"]["inputSchema"]
    assert entities["required"] == ["query"]
    query = entities["properties"]["query"]
    assert (query["minLength"], query["maxLength"], query["pattern"]) == (1, 2000, NOT_BLANK)
    assert (entities["properties"]["k"]["minimum"], entities["properties"]["k"]["maximum"]) == (
        0,
        50,
    )
    assert entities["properties"]["mode"]["enum"] == ["hybrid", "semantic", "lexical"]
    [types] = [s for s in entities["properties"]["entity_types"]["anyOf"] if s["type"] == "array"]
    assert types["items"]["enum"] == ["organization", "person"]
    entity_id = tools["get_entity"]["inputSchema"]["properties"]["entity_id"]
    assert (entity_id["format"], entity_id["pattern"]) == ("uuid", UUID_PATTERN)
    passages = tools["search_passages"]["inputSchema"]["properties"]
    [sources] = [s for s in passages["sources"]["anyOf"] if s["type"] == "array"]
    assert sources["items"]["const"] == "notes.md"  # a one-name enum
    assert tools["read_passage"]["inputSchema"]["properties"]["passage_id"]["pattern"] == (
        PASSAGE_ID_PATTERN
    )


def test_not_blank_is_exactly_what_str_strip_keeps() -> None:
    pattern = re.compile(NOT_BLANK)
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        assert (pattern.fullmatch(char) is not None) == (not char.isspace()), hex(code)


def test_the_id_patterns_match_the_ids_the_library_makes() -> None:
    assert re.fullmatch(PASSAGE_ID_PATTERN, chunk_id_for("notes.md", "some text"))
    assert re.fullmatch(UUID_PATTERN, str(ADA))
    assert re.fullmatch(UUID_PATTERN, str(ADA).upper())


@pytest.mark.asyncio
async def test_without_embeddings_only_lexical_is_offered() -> None:
    async with served(lexical=True) as server:
        tools = {tool.name: tool for tool in await server.list_tools()}
        found = await call(server, "search_entities", {"query": "Ada Lovelace", "explain": True})
        refused = await call(server, "search_entities", {"query": "Ada", "mode": "hybrid"})
    mode = tools["search_entities"].input_schema["properties"]["mode"]
    assert (mode["const"], mode["default"]) == ("lexical", "lexical")
    assert found["structuredContent"]["mode"] == "lexical"
    assert entities(found)[0]["semantic"] is None
    assert refused["isError"]
    assert "--embeddings" not in text(refused)
    assert "Argument `mode` must be one of 'lexical'" in text(refused)


def test_search_entities_answers_compactly_over_stdio(wire: RawServer) -> None:
    result = wire.call("search_entities", {"query": "Ada Lovelace", "k": 3, "explain": True})
    plain = wire.call("search_entities", {"query": "Ada Lovelace", "k": 3})
    assert not result["isError"]
    assert plain["structuredContent"]["columns"] == list(ENTITY_COLUMNS)
    assert {len(row) for row in plain["structuredContent"]["matches"]} == {len(ENTITY_COLUMNS)}
    answer = result["structuredContent"]
    assert set(answer) == {"mode", "columns", "matches", "fusion"}
    assert (
        answer["fusion"]
        == "pooled_evidence lexical_floor=0.45 lexical_weight=0.85 power=2 depth=10"
    )
    assert "fusion" not in plain["structuredContent"]  # only with explain
    assert answer["columns"] == [*ENTITY_COLUMNS, "semantic", "lexical"]
    first = entities(result)[0]
    assert (first["id"], first["name"], first["type"]) == (str(ADA), "Ada Lovelace", "person")
    assert first["description"] == "wrote the first program"
    assert first["confidence"] > 0.5
    for match in entities(result):
        for channel in ("confidence", "semantic", "lexical"):
            if match[channel] is not None:
                assert match[channel] == round(match[channel], 3)
                assert 0.0 <= match[channel] <= 1.0
    assert first["lexical"] == 1.0
    assert json.loads(text(result)) == answer
    assert "\n" not in text(result)


def test_a_tenant_argument_cannot_reach_another_tenants_data(wire: RawServer) -> None:
    for smuggled in ({"tenant_id": str(OTHER)}, {"tenant": str(OTHER)}):
        found = wire.call("search_entities", {"query": "Ada", "k": 50, **smuggled})
        detail = wire.call("get_entity", {"entity_id": str(OTHER_ONLY), **smuggled})
        passages = wire.call("search_passages", {"query": "Ada Lovelace notes", **smuggled})
        for refused in (found, detail, passages):
            assert refused["isError"]
            assert f"Argument `{next(iter(smuggled))}` is not declared" in text(refused)
            assert "SECRET" not in json.dumps(refused)
            assert "structuredContent" not in refused
    # The same id exists in both tenants: the server's tenant's entity and neighbours come back.
    detail = wire.call("get_entity", {"entity_id": str(ADA)})
    assert detail["structuredContent"]["description"] == "wrote the first program"
    assert [n["id"] for n in detail["structuredContent"]["related"]] == [str(BABBAGE)]
    # An id only the other tenant holds is unknown here.
    elsewhere = wire.call("get_entity", {"entity_id": str(OTHER_ONLY)})
    assert elsewhere["isError"]
    assert "Argument `entity_id` names no entity" in text(elsewhere)


UNDECLARED = [
    ("search_passages", {"source_ids": ["notes.md"]}, "source_ids", "sources"),
    ("search_passages", {"types": ["person"]}, "types", "sources"),
    ("search_passages", {"minConfidence": 0.9}, "minConfidence", "min_confidence"),
    ("search_entities", {"entityTypes": ["person"]}, "entityTypes", "entity_types"),
]


def test_an_undeclared_argument_is_refused_naming_the_closest_declared_one(
    wire: RawServer,
) -> None:
    tools = wire.tools()
    for tool in tools.values():
        assert tool["inputSchema"]["additionalProperties"] is False, tool["name"]
    for name, extra, argument, closest in UNDECLARED:
        result = wire.call(name, {"query": "Ada Lovelace", **extra})
        assert result["isError"], (name, extra)
        message = text(result)
        assert (
            f"Argument `{argument}` is not declared by this tool (closest declared: `{closest}`)"
            in (message)
        ), message
        assert "structuredContent" not in result


def test_a_frame_with_an_id_that_is_no_request_is_answered_invalid_request(
    wire: RawServer,
) -> None:
    frames = [
        {"jsonrpc": "2.0", "id": 3},
        {"jsonrpc": "2.0", "id": "abc", "method": "tools/list", "params": [1, 2]},
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": "search"},
        {"jsonrpc": "2.0", "id": 6, "method": 7},
    ]
    for frame in frames:
        reply = wire.frame(frame)
        assert reply["id"] == frame["id"], (frame, reply)
        assert reply["error"]["code"] == -32600, (frame, reply)
    # The server still answers what follows.
    assert "search_entities" in wire.tools()


@pytest.mark.asyncio
async def test_get_entity_returns_the_entity_and_what_it_is_related_to() -> None:
    async with served() as server:
        result = await call(server, "get_entity", {"entity_id": str(ADA)})
    facts = result["structuredContent"]
    assert (facts["name"], facts["related_total"]) == ("Ada Lovelace", 1)
    [related] = facts["related"]
    assert related == {
        "relationship": "worked_with",
        "direction": "outgoing",
        "id": str(BABBAGE),
        "name": "Charles Babbage",
        "type": "person",
    }


@pytest.mark.asyncio
async def test_search_passages_then_read_passage_continues_the_text() -> None:
    async with served() as server:
        hit = await call(
            server, "search_passages", {"query": "first program", "k": 5, "explain": True}
        )
        none = await call(server, "search_passages", {"query": "zebra", "mode": "lexical"})
        [match] = hit["structuredContent"]["matches"]
        whole = await call(server, "read_passage", {"passage_id": match["passage_id"]})
        tail = await call(server, "read_passage", {"passage_id": match["passage_id"], "offset": 40})
        past = await call(server, "read_passage", {"passage_id": match["passage_id"], "offset": 99})
        missing = await call(server, "read_passage", {"passage_id": "c:" + "0" * 32})
    assert match["source"] == "notes.md"
    assert "more_at" not in match
    assert 0.0 < match["semantic"] <= 1.0
    assert hit["structuredContent"]["fusion"] == "convex semantic_weight=0.25 depth=50"
    assert "fusion" not in none["structuredContent"]  # LEXICAL, no explain
    assert whole["structuredContent"]["text"] == "Ada Lovelace wrote the first program in 1843."
    assert tail["structuredContent"]["text"] == "1843."
    assert past["structuredContent"]["text"] == ""
    assert missing["isError"]
    assert "Argument `passage_id`" in text(missing)
    assert none["structuredContent"]["matches"] == []
    assert none["structuredContent"]["note"].startswith("No passage matched")


@pytest.mark.asyncio
async def test_describe_tenant_counts_types_and_sources_of_the_servers_tenant_only() -> None:
    async with served() as server:
        result = await call(server, "describe_tenant", {})
    assert result["structuredContent"] == {
        "entities": 4,
        "entity_types": {"organization": 1, "person": 3},
        "relationships": 1,
        "passages": 1,
        "sources": {"notes.md": 1},
        "sources_total": 1,
        "modes": ["hybrid", "semantic", "lexical"],
    }
    assert str(OTHER) not in json.dumps(result)


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("search_entities", {"query": ""}, "Argument `query` is too short"),
    ("search_entities", {"query": "   "}, "Argument `query` must hold a non-space character"),
    ("search_entities", {"query": "Ada", "k": -1}, "Argument `k` must be at least 0"),
    ("search_entities", {"query": "Ada", "k": 51}, "Argument `k` must be at most 50"),
    ("search_entities", {"query": "Ada", "mode": "fuzzy"}, "Argument `mode` must be one of"),
    ("search_entities", {"k": 3}, "Argument `query` is required."),
    ("search_entities", {"query": "Ada", "entity_types": ["people"]}, "`entity_types[0]`"),
    ("search_entities", {"query": "Ada", "entity_types": []}, "must not be empty"),
    ("search_passages", {"query": " \t"}, "Argument `query` must hold a non-space"),
    ("search_passages", {"query": "Ada", "sources": ["x.md"]}, "`sources[0]` must be one of"),
    ("get_entity", {"entity_id": "not-a-uuid"}, "Argument `entity_id` must be an entity `id`"),
    ("read_passage", {"passage_id": "c:1", "offset": -1}, "Argument `passage_id`"),
    ("read_passage", {"passage_id": "c:" + "0" * 32, "offset": "5"}, "`offset` must be a whole"),
    ("search_entities", {"query": "x" * 2001}, "Argument `query` is too long (at most 2000)"),
    ("search_entities", {"query": "Ada", "k": "five"}, "Argument `k` must be a whole number"),
    # A number that is no whole number, or past any integer: the argument's range, said once.
    (
        "search_entities",
        {"query": "Ada", "k": 1e30},
        "Argument `k` must be a whole number from 0 to 50 (got 1e+30). Change it",
    ),
    (
        "search_passages",
        {"query": "Ada", "k": 5.5},
        "Argument `k` must be a whole number from 0 to 50 (got 5.5). Change it",
    ),
    (
        "read_passage",
        {"passage_id": "c:" + "0" * 32, "offset": 1e30},
        "Argument `offset` must be a whole number from 0 (got 1e+30)",
    ),
    (
        "describe_tenant",
        {"tenant": "acme"},
        "describe_tenant: Argument `tenant` is not declared "
        "by this tool. Nothing was applied. describe_tenant takes no arguments: call it with {}.",
    ),
    # Well formed but not held: gone since the search (removed, or indexed again), or made up.
    (
        "read_passage",
        {"passage_id": "c:" + "0" * 32},
        "read_passage: Argument `passage_id`: passage_id c:00000000000000000000000000000000 "
        "names no passage held now: it was removed, or its document indexed again, since the "
        "search. Search again for its current id.",
    ),
    ("search_entities", {"query": "Ada", "k": "5"}, "Argument `k` must be a whole number"),
    ("search_entities", {"query": "Ada", "k": True}, "Argument `k` must be a whole number"),
    ("search_passages", {"query": "Ada", "k": False}, "Argument `k` must be a whole number"),
    (
        "search_entities",
        {"query": "Ada", "min_confidence": "0.5"},
        "`min_confidence` must be a number",
    ),
    (
        "search_entities",
        {"query": "Ada", "min_confidence": True},
        "`min_confidence` must be a number",
    ),
    # A list's cap is fixed, whatever the tenant holds (2 types here, 1 source).
    ("search_entities", {"query": "Ada", "entity_types": ["person"] * 201}, "(at most 200)"),
    ("search_passages", {"query": "Ada", "sources": ["notes.md"] * 201}, "(at most 200)"),
    # true or false only, as `k` takes whole numbers only.
    ("search_entities", {"query": "Ada", "explain": "yes"}, "Argument `explain` must be true"),
    ("search_entities", {"query": "Ada", "explain": "true"}, "Argument `explain` must be true"),
    ("search_passages", {"query": "Ada", "explain": 1}, "Argument `explain` must be true"),
    ("search_passages", {"query": "Ada", "explain": "off"}, "Argument `explain` must be true"),
]


def test_bad_arguments_are_short_tool_errors_naming_the_argument(wire: RawServer) -> None:
    for name, arguments, says in BAD_CALLS:
        result = wire.call(name, arguments)
        assert result["isError"], (name, arguments)
        message = text(result)
        assert says in message, (name, arguments, message)
        assert "validation error" not in message
        assert "Arguments" not in message
        assert len(message) < 240, message
    # The server survives every bad call and still answers.
    ok = wire.call("search_entities", {"query": "Grace Hopper", "k": 1})
    assert entities(ok)[0]["name"] == "Grace Hopper"


def test_a_name_list_is_capped_at_a_fixed_length_and_repeats_are_not_refused(
    wire: RawServer,
) -> None:
    tools = wire.tools()
    for tool, argument in (("search_entities", "entity_types"), ("search_passages", "sources")):
        [names] = [
            schema
            for schema in tools[tool]["inputSchema"]["properties"][argument]["anyOf"]
            if schema["type"] == "array"
        ]
        assert (names["minItems"], names["maxItems"]) == (1, 200), (tool, names)
        assert "uniqueItems" not in names


@pytest.mark.asyncio
async def test_repeated_names_are_searched_as_if_given_once() -> None:
    query = {"query": "Ada Lovelace", "min_confidence": 0, "explain": True}
    async with served() as server:
        once = await call(server, "search_entities", {**query, "entity_types": ["person"]})
        repeated = [
            await call(server, "search_entities", {**query, "entity_types": names})
            for names in (["person", "person"], ["person"] * 3, ["person"] * 200)
        ]
        both = await call(
            server, "search_entities", {**query, "entity_types": ["person", "organization"]}
        )
        mixed = await call(
            server,
            "search_entities",
            {**query, "entity_types": ["organization", "person", "organization"]},
        )
        source = await call(server, "search_passages", {**query, "sources": ["notes.md"]})
        sources = await call(server, "search_passages", {**query, "sources": ["notes.md"] * 2})
    assert not once["isError"]
    assert entities(once)
    for answer in repeated:
        assert not answer["isError"], text(answer)
        assert answer["structuredContent"] == once["structuredContent"]
    assert not mixed["isError"], text(mixed)
    assert mixed["structuredContent"] == both["structuredContent"]
    assert not sources["isError"], text(sources)
    assert sources["structuredContent"] == source["structuredContent"]
    assert source["structuredContent"]["matches"]


@pytest.mark.asyncio
async def test_an_empty_answer_carries_a_note_saying_what_to_try() -> None:
    async with served(lexical=True) as server:
        empty = await call(server, "search_entities", {"query": "zzqx"})
        filtered = await call(
            server, "search_entities", {"query": "zzqx", "entity_types": ["person"]}
        )
        nothing_asked = await call(server, "search_entities", {"query": "zzqx", "k": 0})
        unthresholded = await call(
            server, "search_entities", {"query": "zzqx", "min_confidence": 0}
        )
    assert empty["structuredContent"]["note"] == (
        "No entity matched this query here. Try other words, other spellings. Nothing reached "
        "min_confidence 0.13: min_confidence=0 shows the closest results anyway, most likely "
        "unrelated."
    )
    assert "drop the filter" in filtered["structuredContent"]["note"]
    assert unthresholded["structuredContent"]["note"] == (
        "No entity matched this query here. Try other words, other spellings."
    )
    assert "note" not in nothing_asked["structuredContent"]


@pytest.mark.asyncio
async def test_nonsense_is_answered_empty_unless_min_confidence_is_lowered() -> None:
    # "xylophone" is unrelated to every entity, and the fake provider scores it so (0.55 at best).
    nonsense = {"query": "xylophone", "mode": "hybrid"}
    async with served() as server:
        default = await call(server, "search_entities", nonsense)
        forced = await call(server, "search_entities", {**nonsense, "min_confidence": 0})
        passages = await call(server, "search_passages", nonsense)
        sure = await call(server, "search_entities", {"query": "Ada Lovelace", "k": 2})
    assert default["structuredContent"]["matches"] == []
    assert "Nothing reached min_confidence 0.13" in default["structuredContent"]["note"]
    unrelated = entities(forced)
    assert unrelated
    assert all(match["confidence"] < 0.5 for match in unrelated)
    assert passages["structuredContent"]["matches"] == []
    assert entities(sure)[0]["confidence"] >= 0.5


@pytest.mark.asyncio
async def test_each_search_tool_defaults_to_its_own_min_confidence() -> None:
    # ADR 0212's rule, rerun by ADR 0495: entities 0.13, passages 0.19; a change is deliberate.
    assert (mcp_server.ENTITY_MIN_CONFIDENCE, mcp_server.PASSAGE_MIN_CONFIDENCE) == (0.13, 0.19)
    async with served() as server:
        tools = {tool.name: tool for tool in await server.list_tools()}
        unsure = await call(server, "search_entities", {"query": "first program"})
        above = await call(
            server, "search_entities", {"query": "first program", "min_confidence": 0.2}
        )
        unlikely = await call(server, "search_entities", {"query": "difference engines"})
        unsure_passage = await call(server, "search_passages", {"query": "computer program"})
        at_entity_default = await call(
            server, "search_passages", {"query": "computer program", "min_confidence": 0.13}
        )
    for name, default in (("search_entities", 0.13), ("search_passages", 0.19)):
        assert tools[name].input_schema["properties"]["min_confidence"]["default"] == default
        assert f"(default {default})" in (tools[name].description or "")
    # The entity default lies between an unlikely answer (hidden) and an unsure one (shown).
    assert 0.13 <= max(row["confidence"] for row in entities(unsure)) < 0.2
    assert entities(above) == []
    assert entities(unlikely) == []
    # A passage as sure as the entity default asks is hidden by the passage default.
    assert unsure_passage["structuredContent"]["matches"] == []
    passages = at_entity_default["structuredContent"]["matches"]
    assert 0.13 <= max(match["confidence"] for match in passages) < 0.19


@pytest.mark.asyncio
async def test_past_the_enum_cap_an_unknown_source_is_refused_naming_the_closest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(mcp_schema, "MAX_ENUM", 0)
    monkeypatch.setattr(mcp_server, "MAX_ENUM", 0)
    async with world_client() as client:
        server = build_server(client, await client.describe())
        tools = {tool.name: tool for tool in await server.list_tools()}
        wrong = await call(server, "search_passages", {"query": "Ada", "sources": ["notes"]})
        right = await call(server, "search_passages", {"query": "Ada", "sources": ["notes.md"]})
        far = await call(server, "search_passages", {"query": "Ada", "sources": ["zzzz"]})
    [sources] = [
        s
        for s in tools["search_passages"].input_schema["properties"]["sources"]["anyOf"]
        if s["type"] == "array"
    ]
    assert "enum" not in sources["items"]
    assert wrong["isError"]
    assert "Closest held: notes.md." in text(wrong)
    assert far["isError"]
    assert "Closest" not in text(far)
    assert "describe_tenant" in text(far)
    assert right["structuredContent"]["matches"]


@pytest.mark.asyncio
async def test_a_tenant_holding_nothing_is_refused_naming_the_tenants_that_hold_data() -> None:
    async with world_client(tenant=parse_tenant("acme")) as client:
        with pytest.raises(EmptyTenantError) as raised:
            await open_server(client)
    assert str(HOME) in str(raised.value)
    assert str(OTHER) in str(raised.value)


def test_redstring_mcp_for_an_empty_tenant_exits_with_the_error() -> None:
    stores, _ = asyncio.run(populated_stores())
    err = StringIO()
    status = main(
        ["mcp", "--db", "x", "--tenant", "acme", "--embeddings", "none"],
        opener=opener_of(stores),
        stdout=StringIO(),
        stderr=err,
    )
    assert status == 1
    assert "holds no entities and no passages" in err.getvalue()
    assert str(HOME) in err.getvalue()


def test_redstring_mcp_for_a_mistyped_tenant_names_the_tenants_holding_only_passages(
    tmp_path: Path,
) -> None:
    """What `redstring passages` says of the same mistake: not "holding entities: none"."""
    db = str(tmp_path / "x.db")
    with Redstring(db, tenant="acme", embeddings="none") as rs:
        rs.index([SourceDocument(id="ada.md", text="Ada Lovelace wrote the first program.")])
    err = StringIO()
    status = main(["mcp", "--db", db, "--tenant", "acm", "--embeddings", "none"],
                  stdout=StringIO(), stderr=err)  # fmt: skip
    assert status == 1
    assert err.getvalue() == (
        f"redstring: error: tenant {parse_tenant('acm')} holds no entities and no passages in "
        "this database, so the MCP server would answer every search with nothing. Tenants "
        f"holding data: {parse_tenant('acme')}. Check --tenant (the name as given to "
        "index/build), or index documents into it first.\n"
    )


@pytest.mark.asyncio
async def test_a_tenant_with_passages_only_offers_no_entity_tools() -> None:
    async with world_client() as client:
        catalogue = (await client.describe()).model_copy(update={"entities": 0})
        server = build_server(client, catalogue)
        names = {tool.name for tool in await server.list_tools()}
    assert names == {"describe_tenant", "search_passages", "read_passage"}


@pytest.mark.asyncio
async def test_an_entity_tool_asked_of_a_tenant_without_entities_says_why_and_what_to_use() -> None:
    """Not the SDK's bare "Unknown tool": what a user of the README's demo.db met."""
    async with world_client() as client:
        catalogue = (await client.describe()).model_copy(update={"entities": 0})
        server = build_server(client, catalogue)
        for tool in ("search_entities", "get_entity"):
            result = await call(server, tool, {"query": "Ada"})
            assert result["isError"] is True
            said = text(result)
            assert said.startswith(f"{tool} is not offered: this tenant holds no entities")
            assert "redstring build" in said
            assert "search_passages" in said
        with pytest.raises(Exception, match="Unknown tool: no_such_tool"):  # the SDK's, as before
            await server.call_tool("no_such_tool", {})


def test_a_lone_surrogate_in_a_json_string_is_replaced_and_paired_ones_kept() -> None:
    line = (
        '{"id": 2, "params": {"arguments": {"query": "Ada\\ud800", "other": "\\ud83d\\ude00"}}}\n'
    )
    cleaned = json.loads(without_lone_surrogates(line))
    assert cleaned["params"]["arguments"] == {"query": "Ada\ufffd", "other": "\U0001f600"}
    plain = '{"id": 3, "params": {"query": "Ada"}}\n'
    assert without_lone_surrogates(plain) is plain
    assert without_lone_surrogates("not json \\ud800\n") == "not json \\ud800\n"


def test_a_tools_call_holding_a_lone_surrogate_is_answered(wire: RawServer) -> None:
    # Raw JSON-RPC: the SDK client cannot even send this request, a hostile one can.
    first = wire.call("search_entities", {"query": "Ada\ud800", "k": 1})
    second = wire.call("search_entities", {"query": "\udfff", "entity_types": ["person"]})
    assert first["isError"] is False
    assert entities(first)[0]["name"] == "Ada Lovelace"
    assert second["isError"] is False


def test_a_long_passage_is_cut_near_a_space_and_read_passage_continues_it_exactly() -> None:
    words = " ".join(f"word{n}" for n in range(400))  # about 3,300 characters
    chunk = StoredChunk(
        tenant_id=HOME, source_id="long.md", text=words, index=0, start=0, end=len(words)
    )
    answer = PassageSearchAnswer(
        tenant_id=str(HOME),
        query="word",
        mode=RetrievalMode.LEXICAL,
        matches=[
            PassageHit(
                rank=1,
                chunk_id=str(chunk.id),
                source_id="long.md",
                index=0,
                start=0,
                end=len(words),
                text=words,
                score=1.0,
                semantic=None,
                lexical=0.5,
                bm25=1.0,
                confidence=0.61234,
            )
        ],
    )
    [match] = passage_result(answer, None, explain=False).matches
    assert PASSAGE_TEXT * 4 // 5 <= len(match.text) <= PASSAGE_TEXT
    assert match.text.endswith(" ")
    assert (match.confidence, match.lexical) == (0.612, None)
    pieces, offset = [match.text], match.more_at
    while offset is not None:
        piece = passage_text(chunk, offset)
        assert len(piece.text) <= READ_TEXT
        pieces.append(piece.text)
        offset = piece.more_at
    assert "".join(pieces) == words


def test_a_long_description_is_cut_near_a_space_and_a_short_one_kept_whole() -> None:
    long = " ".join(f"fact{n}" for n in range(40))  # about 230 characters
    exact = "x" * DESCRIPTION_TEXT

    def hit(rank: int, description: str) -> EntityHit:
        return EntityHit(
            rank=rank,
            id=str(ADA),
            name="Ada Lovelace",
            type="person",
            description=description,
            aliases=[],
            score=0.5,
            semantic=0.81234,
            lexical=None,
            confidence=0.61234,
        )

    answer = EntitySearchAnswer(
        tenant_id=str(HOME),
        query="Ada",
        mode=RetrievalMode.HYBRID,
        matches=[hit(1, long), hit(2, exact), hit(3, "short")],
    )
    rows = entity_result(answer, None, explain=True).matches
    cut, whole, short = (row[ENTITY_COLUMNS.index("description")] for row in rows)
    assert isinstance(cut, str)
    assert cut.endswith(CUT_MARK)
    assert long.startswith(cut.removesuffix(CUT_MARK))
    assert long[len(cut.removesuffix(CUT_MARK))] == " "  # ended at a word, not inside one
    assert DESCRIPTION_TEXT * 4 // 5 <= len(cut) <= DESCRIPTION_TEXT + len(CUT_MARK)
    assert (whole, short) == (exact, "short")
    assert rows[0][len(ENTITY_COLUMNS) :] == [0.812, None]
    assert rows[0][ENTITY_COLUMNS.index("aliases")] is None
    assert [len(row) for row in entity_result(answer, None, explain=False).matches] == [6] * 3


def test_a_tool_description_lists_twenty_types_and_counts_the_rest() -> None:
    catalogue = TenantCatalogue(
        tenant_id=str(HOME),
        entities=325,
        entity_types={f"type{n:02d}": n for n in range(1, 26)},
        relationships=0,
        passages=0,
        sources={},
        other_tenants=[],
        dimension=32,
    )
    line = _types_line(catalogue)
    assert line.startswith("This graph holds 325 entities of types: type25 (25), type24 (24)")
    assert line.endswith(", and 5 more (see describe_tenant).")
    assert "type05" not in line
