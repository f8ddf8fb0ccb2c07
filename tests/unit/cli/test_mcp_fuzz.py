"""Every schema-valid call gets a result, or a refusal no schema could have stated.

Arguments are drawn from each tool's published input schema by
hypothesis-jsonschema (property by property, see `_arguments`), some with
a lone surrogate put into a string (what a hostile client can send as a
JSON escape), kept only if the schema still
accepts them, and sent as raw JSON-RPC over stdio to one server per mode set
(with and without an embedding provider). A call must answer; a refusal is
allowed only for a well-formed id the tenant does not hold, and must name
the argument.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import Draft202012Validator

from tests.unit.cli.mcp_raw import RawServer, raw_server

FIXTURE = ["-m", "tests.unit.cli.mcp_fixture_server"]
#: The refusals a schema cannot state: an id of the right form that names nothing stored.
UNKNOWN_ID = {
    "get_entity": "Argument `entity_id` names no entity",
    "read_passage": "Argument `passage_id`",
}
EXAMPLES = int(os.environ.get("REDSTRING_MCP_FUZZ_EXAMPLES", "60"))
FORMATS = {"uuid": st.uuids().map(str)}
SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)


@pytest.fixture(scope="module", params=["embeds", "lexical"])
def server(request: pytest.FixtureRequest) -> Iterator[RawServer]:
    args = FIXTURE if request.param == "embeds" else [*FIXTURE, "lexical"]
    with raw_server(args) as started:
        yield started


def _arguments(schema: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects `schema` accepts: each property drawn by hypothesis-jsonschema, optional ones
    present or not. (Its own object strategy uses Hypothesis internals that Hypothesis 6.1xx
    no longer has; the properties' strategies do not.) Extra keys are refused, so left out."""
    assert schema["type"] == "object"
    assert set(schema) <= {"type", "properties", "required", "title", "additionalProperties"}
    assert schema["additionalProperties"] is False, schema
    required = set(schema.get("required", []))
    fields = {
        name: from_schema(value, custom_formats=FORMATS)
        for name, value in schema["properties"].items()
    }

    @st.composite
    def draw(data: st.DrawFn) -> dict[str, Any]:
        return {
            name: data(strategy)
            for name, strategy in fields.items()
            if name in required or data(st.booleans())
        }

    return draw()


def _with_surrogate(arguments: dict[str, Any], data: st.DataObject) -> dict[str, Any]:
    """`arguments` with a lone surrogate put into one of its strings, if it has any."""
    strings = [name for name, value in arguments.items() if isinstance(value, str)]
    if not strings:
        return arguments
    name = data.draw(st.sampled_from(strings))
    value = arguments[name]
    at = data.draw(st.integers(0, len(value)))
    return {**arguments, name: value[:at] + data.draw(SURROGATES) + value[at:]}


def _judge(tool: str, schema: dict[str, Any], result: dict[str, Any]) -> None:
    if not result["isError"]:
        assert "structuredContent" in result, result
        return
    [content] = result["content"]
    text = content["text"]
    assert any(f"`{name}" in text for name in schema["properties"]), (tool, text)
    assert tool in UNKNOWN_ID, (tool, text)
    assert UNKNOWN_ID[tool] in text, (tool, text)


@pytest.mark.parametrize(
    "tool", ["describe_tenant", "search_entities", "get_entity", "search_passages", "read_passage"]
)
def test_every_schema_valid_call_is_answered_or_refused_for_an_unknown_id(
    server: RawServer, tool: str
) -> None:
    schema = server.tools()[tool]["inputSchema"]
    validator = Draft202012Validator(schema)
    tally = {"calls": 0, "refused": 0, "surrogates": 0}

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(arguments=_arguments(schema), data=st.data())
    def call(arguments: dict[str, Any], data: st.DataObject) -> None:
        assert validator.is_valid(arguments), arguments
        if data.draw(st.booleans()):
            arguments = _with_surrogate(arguments, data)
            assume(validator.is_valid(arguments))
            tally["surrogates"] += any(
                isinstance(v, str) and any("\ud800" <= c <= "\udfff" for c in v)
                for v in arguments.values()
            )
        result = server.call(tool, arguments)
        tally["calls"] += 1
        tally["refused"] += result["isError"]
        _judge(tool, schema, result)

    call()
    print(f"{tool}: {tally}")  # the fuzz figures (-s)
    # A tool without arguments has one call to make; Hypothesis stops when it is made.
    assert tally["calls"] >= (EXAMPLES // 2 if schema["properties"] else 1)
