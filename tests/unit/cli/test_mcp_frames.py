"""Which frames the MCP server answers itself (-32700, -32600, a named -32602), and which it
leaves to the SDK; over the wire, every frame a client sends gets its answer."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from redstring.cli.mcp_transport import invalid_frame_reply
from tests.unit.cli.mcp_raw import RawServer, raw_server


@pytest.mark.parametrize(
    "line",
    [
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps({"jsonrpc": "2.0", "id": 1, "result": {}}),
        # A malformed response with no id to answer: answering could never end.
        json.dumps({"jsonrpc": "2.0", "id": None, "result": 7}),
        json.dumps({"jsonrpc": "2.0", "error": "broken"}),
    ],
)
def test_a_valid_message_or_a_malformed_response_without_an_id_is_left_to_the_sdk(
    line: str,
) -> None:
    assert invalid_frame_reply(line) is None


@pytest.mark.parametrize(
    ("line", "code"),
    [
        ("not json at all", -32700),
        ("{", -32700),
        (json.dumps([{"jsonrpc": "2.0", "id": 1}]), -32600),
        (json.dumps({"jsonrpc": "2.0", "method": 7}), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": None, "method": 7}), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": True, "method": 7}), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": 1.5, "method": 7}), -32600),
        (json.dumps({"jsonrpc": "2.0", "id": [1], "method": 7}), -32600),
    ],
)
def test_a_line_without_a_usable_id_is_answered_with_a_null_id(line: str, code: int) -> None:
    reply = invalid_frame_reply(line)
    assert reply is not None
    assert (reply.id, reply.error.code) == (None, code)
    assert reply.model_dump(by_alias=True, exclude_unset=True)["id"] is None  # sent as null


@pytest.mark.parametrize("frame_id", [3, "abc"])
def test_a_frame_with_a_usable_id_and_no_valid_message_is_answered_with_that_id(
    frame_id: int | str,
) -> None:
    reply = invalid_frame_reply(json.dumps({"jsonrpc": "2.0", "id": frame_id, "method": 7}))
    assert reply is not None
    assert reply.id == frame_id
    assert reply.error.code == -32600


@pytest.fixture(scope="module")
def wire() -> Iterator[RawServer]:
    with raw_server(["-m", "tests.unit.cli.mcp_fixture_server"]) as server:
        yield server


def _still_answers(wire: RawServer) -> None:
    """A request after the frame is answered as its own: the server read on."""
    assert wire.request("ping", {})["result"] == {}


@pytest.mark.parametrize("line", ["{not json", '{"jsonrpc": "2.0", "id": 3', "nul", "'a'"])
def test_a_line_that_is_not_json_is_answered_parse_error_with_a_null_id(
    wire: RawServer, line: str
) -> None:
    reply = wire.line(line)
    assert (reply["id"], reply["error"]["code"]) == (None, -32700), reply
    assert reply["error"]["message"].startswith("Parse error")
    _still_answers(wire)


@pytest.mark.parametrize(
    "frame",
    [
        {"jsonrpc": "2.0", "id": [1], "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 5.5, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": {"n": 1}, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": None, "method": "tools/list"},  # MCP ids are never null
        {"jsonrpc": "2.0", "method": 7},
        {"jsonrpc": "2.0", "id": 5.5},
        [{"jsonrpc": "2.0", "id": 10, "method": "tools/list"}],
        [],
        5,
        "tools/list",
    ],
)
def test_a_frame_whose_id_cannot_be_read_is_answered_invalid_request_with_a_null_id(
    wire: RawServer, frame: object
) -> None:
    reply = wire.line(json.dumps(frame))
    assert (reply["id"], reply["error"]["code"]) == (None, -32600), reply
    assert reply["error"]["message"].startswith("Invalid Request")
    if isinstance(frame, list):
        assert "batch" in reply["error"]["message"]
    _still_answers(wire)


def test_a_blank_line_between_frames_is_no_frame_and_gets_no_answer(wire: RawServer) -> None:
    wire.write("")
    wire.write(" \t ")
    _still_answers(wire)  # the next line written is the ping's answer


def test_a_tools_call_whose_arguments_are_no_object_is_refused_naming_arguments(
    wire: RawServer,
) -> None:
    reply = wire.request("tools/call", {"name": "search_passages", "arguments": "ada"})
    error = reply["error"]
    assert error["code"] == -32602
    assert error["message"] == (
        "Invalid params: `arguments` must be an object (got 'ada'). Change it and send again."
    )
    assert error["data"] == [{"param": "arguments", "problem": "must be an object"}]
    missing = wire.request("tools/call", {"arguments": {}})["error"]
    assert (missing["code"], missing["data"]) == (
        -32602,
        [{"param": "name", "problem": "is required"}],
    )
