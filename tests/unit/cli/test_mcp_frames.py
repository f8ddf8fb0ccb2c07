"""Which frames the MCP server answers -32600 itself, and which it leaves to the SDK."""

from __future__ import annotations

import json

import pytest

from redstring.cli.mcp_transport import invalid_frame_reply


@pytest.mark.parametrize(
    "line",
    [
        "not json at all",
        "{",
        json.dumps([{"jsonrpc": "2.0", "id": 1}]),
        json.dumps({"jsonrpc": "2.0", "method": 7}),
        json.dumps({"jsonrpc": "2.0", "id": None, "method": 7}),
        json.dumps({"jsonrpc": "2.0", "id": True, "method": 7}),
        json.dumps({"jsonrpc": "2.0", "id": 1.5, "method": 7}),
        json.dumps({"jsonrpc": "2.0", "id": [1], "method": 7}),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    ],
)
def test_a_line_without_a_usable_id_or_a_valid_message_is_left_to_the_sdk(line: str) -> None:
    assert invalid_frame_reply(line) is None


@pytest.mark.parametrize("frame_id", [3, "abc"])
def test_a_frame_with_a_usable_id_and_no_valid_message_is_answered_with_that_id(
    frame_id: int | str,
) -> None:
    reply = invalid_frame_reply(json.dumps({"jsonrpc": "2.0", "id": frame_id, "method": 7}))
    assert reply is not None
    assert reply.id == frame_id
    assert reply.error.code == -32600
