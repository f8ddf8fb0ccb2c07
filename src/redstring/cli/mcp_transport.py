"""What the MCP server reads from stdin: JSON-RPC lines every one of which gets an answer.

The SDK parses each line strictly, and a JSON string escape naming a lone
surrogate (`"Ada\\ud800"`) fails that parse: the request is dropped and the
client waits forever (issue 14 item 4). A lone surrogate cannot be encoded in
UTF-8, so it is replaced by U+FFFD, the same replacement the transport already
makes for bytes that are not UTF-8, and the request then answers like any other.

A frame with an id that is no JSON-RPC message the SDK reads (no `method`,
`params` that is not an object) would be dropped the same way; it is answered
with error -32600 (Invalid Request) and its id instead (`invalid_frame_reply`).
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable

from mcp_types import INVALID_REQUEST, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

#: Where a refusal of an invalid frame goes: the server's outgoing messages.
type Reply = Callable[[JSONRPCError], Awaitable[None]]

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_REPLACEMENT = "\ufffd"


def _replace_surrogates(value: object) -> object:
    if isinstance(value, str):
        return _LONE_SURROGATE.sub(_REPLACEMENT, value)
    if isinstance(value, list):
        return [_replace_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_replace_surrogates(k): _replace_surrogates(v) for k, v in value.items()}
    return value


def without_lone_surrogates(line: str) -> str:
    """`line` with every lone surrogate in its JSON strings replaced by U+FFFD.

    A line that is not JSON, or names no surrogate, is returned unchanged (the
    SDK answers it as it would have). Paired surrogate escapes decode to one
    character and are kept.
    """
    if "\\u" not in line and _LONE_SURROGATE.search(line) is None:
        return line
    try:
        message = json.loads(line)
    except ValueError:
        return line
    cleaned = _replace_surrogates(message)
    if cleaned == message:
        return line
    return json.dumps(cleaned) + "\n"


def invalid_frame_reply(line: str) -> JSONRPCError | None:
    """The -32600 answer to `line` when it carries an id but is no valid JSON-RPC message.

    `None` for a valid message, and for a line without a usable id (not JSON,
    no `id`, a `null` one): the SDK handles those as it always has.
    """
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or "id" not in message:
        return None
    frame_id = message["id"]
    if isinstance(frame_id, bool) or not isinstance(frame_id, str | int):
        return None
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError:
        return JSONRPCError(
            jsonrpc="2.0",
            id=frame_id,
            error=ErrorData(
                code=INVALID_REQUEST,
                message="Invalid Request: a frame with an id must be a request (a string "
                "`method`, `params` an object if given) or a response (`result` or `error`).",
            ),
        )
    return None


async def unicode_safe_lines(lines: AsyncIterable[str], reply: Reply) -> AsyncIterator[str]:
    """Each line of `lines`, passed through `without_lone_surrogates`.

    A line `invalid_frame_reply` refuses is answered through `reply` and not passed on.
    """
    async for line in lines:
        cleaned = without_lone_surrogates(line)
        refusal = invalid_frame_reply(cleaned)
        if refusal is None:
            yield cleaned
        else:
            await reply(refusal)
