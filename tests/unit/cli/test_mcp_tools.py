"""The MCP tools through a real client over stdio, against a two-tenant world."""

from __future__ import annotations

import asyncio
import json
import sys
from asyncio.subprocess import DEVNULL, PIPE
from importlib.metadata import version
from typing import Any

import pytest

from redstring.cli.mcp_transport import without_lone_surrogates
from tests.unit.cli.mcp_client import ROOT, session
from tests.unit.cli.world import ADA, BABBAGE, HOME, OTHER, OTHER_ONLY

FIXTURE = ["-m", "tests.unit.cli.mcp_fixture_server"]


async def call(name: str, arguments: dict[str, Any]) -> Any:
    async with session(sys.executable, FIXTURE) as client:
        return await client.call_tool(name, arguments)


@pytest.mark.asyncio
async def test_the_three_tools_are_listed_and_none_takes_a_tenant() -> None:
    async with session(sys.executable, FIXTURE) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"search_entities", "search_passages", "get_entity"}
    for tool in tools.values():
        properties = tool.input_schema["properties"]
        assert not any("tenant" in name for name in properties), tool.name
        assert tool.output_schema is not None
    entities = tools["search_entities"].input_schema
    assert entities["required"] == ["query"]
    assert entities["properties"]["k"]["maximum"] == 50
    assert entities["properties"]["k"]["minimum"] == 0


@pytest.mark.asyncio
async def test_search_entities_returns_structured_per_channel_scores() -> None:
    result = await call("search_entities", {"query": "Ada Lovelace", "k": 3})
    assert not result.is_error
    answer = result.structured_content
    assert answer["tenant_id"] == str(HOME)
    assert answer["mode"] == "hybrid"
    first = answer["matches"][0]
    assert (first["id"], first["name"], first["rank"]) == (str(ADA), "Ada Lovelace", 1)
    assert 0.0 < first["semantic"] <= 1.0
    assert 0.0 < first["lexical"] <= 1.0
    assert first["score"] > 0.0
    assert json.loads(result.content[0].text) == answer


@pytest.mark.asyncio
async def test_a_tenant_argument_cannot_reach_another_tenants_data() -> None:
    async with session(sys.executable, FIXTURE) as client:
        found = await client.call_tool(
            "search_entities",
            {"query": "Ada", "k": 50, "tenant_id": str(OTHER), "tenant": str(OTHER)},
        )
        detail = await client.call_tool(
            "get_entity", {"entity_id": str(ADA), "tenant_id": str(OTHER)}
        )
        elsewhere = await client.call_tool(
            "get_entity", {"entity_id": str(OTHER_ONLY), "tenant_id": str(OTHER)}
        )
        passages = await client.call_tool(
            "search_passages", {"query": "Ada Lovelace notes", "tenant_id": str(OTHER)}
        )
    assert not found.is_error
    assert found.structured_content["tenant_id"] == str(HOME)
    assert "SECRET" not in json.dumps(found.structured_content)
    assert str(OTHER_ONLY) not in {hit["id"] for hit in found.structured_content["matches"]}
    # The same id exists in both tenants: the server's tenant's entity and neighbours come back.
    assert detail.structured_content["entity"]["description"] == "wrote the first program"
    assert [n["entity_id"] for n in detail.structured_content["neighbours"]] == [str(BABBAGE)]
    # An id only the other tenant holds is unknown here.
    assert elsewhere.is_error
    assert "does not exist in tenant " + str(HOME) in elsewhere.content[0].text
    assert passages.structured_content["matches"]
    assert "SECRET" not in json.dumps(passages.structured_content)


@pytest.mark.asyncio
async def test_get_entity_returns_the_entity_and_its_neighbours() -> None:
    result = await call("get_entity", {"entity_id": str(ADA)})
    answer = result.structured_content
    assert answer["entity"]["name"] == "Ada Lovelace"
    [neighbour] = answer["neighbours"]
    assert neighbour["name"] == "Charles Babbage"
    assert neighbour["direction"] == "outgoing"
    assert neighbour["relationship_type"] == "worked_with"


@pytest.mark.asyncio
async def test_search_passages_filters_by_source_and_scores_both_channels() -> None:
    async with session(sys.executable, FIXTURE) as client:
        hit = await client.call_tool("search_passages", {"query": "first program", "k": 5})
        none = await client.call_tool(
            "search_passages", {"query": "first program", "source_ids": ["elsewhere.md"]}
        )
    [match] = hit.structured_content["matches"]
    assert match["source_id"] == "notes.md"
    assert match["bm25"] > 0.0
    assert match["lexical"] == pytest.approx(match["bm25"] / (match["bm25"] + 1.0))
    assert 0.0 < match["semantic"] <= 1.0
    assert none.structured_content["matches"] == []


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("search_entities", {"query": ""}, "query"),
    ("search_entities", {"query": "   "}, "query must not be blank"),
    ("search_entities", {"query": "Ada", "k": -1}, "greater than or equal to 0"),
    ("search_entities", {"query": "Ada", "k": 51}, "less than or equal to 50"),
    ("search_entities", {"query": "Ada", "mode": "fuzzy"}, "mode"),
    ("search_entities", {"k": 3}, "query"),
    ("search_passages", {"query": " \t"}, "query must not be blank"),
    ("get_entity", {"entity_id": "not-a-uuid"}, "entity_id must be a UUID"),
]


@pytest.mark.asyncio
async def test_bad_arguments_are_tool_errors_naming_the_cause() -> None:
    async with session(sys.executable, FIXTURE) as client:
        for name, arguments, says in BAD_CALLS:
            result = await client.call_tool(name, arguments)
            assert result.is_error, (name, arguments)
            assert says in result.content[0].text, (name, arguments, result.content[0].text)
        # The server survives every bad call and still answers.
        ok = await client.call_tool("search_entities", {"query": "Grace Hopper", "k": 1})
    assert ok.structured_content["matches"][0]["name"] == "Grace Hopper"


def test_a_lone_surrogate_in_a_json_string_is_replaced_and_paired_ones_kept() -> None:
    line = (
        '{"id": 2, "params": {"arguments": {"query": "Ada\\ud800", "other": "\\ud83d\\ude00"}}}\n'
    )
    cleaned = json.loads(without_lone_surrogates(line))
    assert cleaned["params"]["arguments"] == {"query": "Ada\ufffd", "other": "\U0001f600"}
    plain = '{"id": 3, "params": {"query": "Ada"}}\n'
    assert without_lone_surrogates(plain) is plain
    assert without_lone_surrogates("not json \\ud800\n") == "not json \\ud800\n"


@pytest.mark.asyncio
async def test_a_tools_call_holding_a_lone_surrogate_is_answered() -> None:
    # Raw JSON-RPC: the SDK client cannot even send this request, a hostile one can.
    server = await asyncio.create_subprocess_exec(
        sys.executable, *FIXTURE, stdin=PIPE, stdout=PIPE, stderr=DEVNULL, cwd=ROOT
    )
    assert server.stdin is not None
    assert server.stdout is not None

    async def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.write(json.dumps(message).encode() + b"\n")
        await server.stdin.drain()
        # A guard against a hang only: the answer normally comes in milliseconds.
        return json.loads(await asyncio.wait_for(server.stdout.readline(), timeout=300))

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "raw", "version": "0"}
        welcome = await ask({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
        assert welcome["result"]["serverInfo"]["version"] == version("redstring")
        server.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        for n, arguments in enumerate(
            [{"query": "Ada\ud800", "k": 1}, {"query": "\udfff", "entity_types": ["\ud800"]}]
        ):
            params = {"name": "search_entities", "arguments": arguments}
            reply = await ask(
                {"jsonrpc": "2.0", "id": 2 + n, "method": "tools/call", "params": params}
            )
            assert reply["id"] == 2 + n
            assert "result" in reply, reply
        assert reply["result"]["isError"] is False
    finally:
        server.stdin.close()
        await server.wait()
