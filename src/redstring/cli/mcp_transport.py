"""What the MCP server reads from stdin: JSON-RPC lines every one of which gets an answer.

The SDK parses each line strictly, and a JSON string escape naming a lone
surrogate (`"Ada\\ud800"`) fails that parse: the request is dropped and the
client waits forever (issue 14 item 4). A lone surrogate cannot be encoded in
UTF-8, so it is replaced by U+FFFD, the same replacement the transport already
makes for bytes that are not UTF-8, and the request then answers like any other.

A frame with an id that is no JSON-RPC message the SDK reads (no `method`,
`params` that is not an object) would be dropped the same way; it is answered
with error -32600 (Invalid Request) and its id instead (`invalid_frame_reply`).
So is every other frame the SDK would drop, as JSON-RPC 2.0 asks, with a
`null` id since none can be read (ADR 0680): a line that is not JSON (-32700,
Parse error), a batch (MCP has none since 2025-06-18), a value that is no
object, an id that is neither a string nor an integer (an array, a float,
`null`). A blank line is no frame and is passed over; a malformed response
(`result` or `error`, no `method`, no id to answer) is never answered, so two
peers cannot answer each other's refusals forever.

`named_params` turns the SDK's bare -32602 ("Invalid request parameters",
empty data) for a request whose params do not fit the method (`arguments`
that are no object) into one naming each parameter and what it must be.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable
from typing import Any, cast

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    jsonrpc_message_adapter,
)
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


def _refusal(code: int, message: str, frame_id: str | int | None = None) -> JSONRPCError:
    return JSONRPCError(jsonrpc="2.0", id=frame_id, error=ErrorData(code=code, message=message))


_UNREAD_ID = (
    "Invalid Request: the id must be a string or an integer (MCP ids are never null), so "
    "this frame cannot be answered by its id; send it again with one."
)


def invalid_frame_reply(line: str) -> JSONRPCError | None:
    """The answer to `line` when it is no JSON-RPC message the SDK reads; `None` otherwise.

    -32700 (id `null`) for a line that is not JSON; -32600 for the rest: with
    the frame's id when it has a usable one (a string or an integer), with
    `null` when it has none (a batch, a value that is no object, an array,
    float or `null` id). `None` for a valid message, and for a malformed
    response without a usable id (one is never answered).
    """
    try:
        message = json.loads(line)
    except ValueError:
        return _refusal(PARSE_ERROR, "Parse error: a frame must be one JSON object per line.")
    if isinstance(message, list):
        return _refusal(
            INVALID_REQUEST,
            "Invalid Request: a batch (a JSON array) is not supported; send each message as "
            "its own line.",
        )
    if not isinstance(message, dict):
        return _refusal(INVALID_REQUEST, "Invalid Request: a frame must be a JSON object.")
    frame_id = message.get("id")
    usable = isinstance(frame_id, str | int) and not isinstance(frame_id, bool)
    if "id" in message and not usable and "method" in message:
        return _refusal(INVALID_REQUEST, _UNREAD_ID)  # the SDK would read a notification
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError:
        if usable:
            return _refusal(
                INVALID_REQUEST,
                "Invalid Request: a frame with an id must be a request (a string `method`, "
                "`params` an object if given) or a response (`result` or `error`).",
                cast("str | int", frame_id),
            )
        if "method" not in message and ("result" in message or "error" in message):
            return None  # a malformed response: never answered
        if "id" in message:
            return _refusal(INVALID_REQUEST, _UNREAD_ID)
        return _refusal(
            INVALID_REQUEST,
            "Invalid Request: a frame must be a request or notification (a string `method`, "
            "`params` an object if given) or a response (`result` or `error`).",
        )
    return None


async def named_params(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """`call_next(ctx)`, with params that do not fit the request refused naming each one.

    A server middleware: the SDK's check of a request's params raises a pydantic
    `ValidationError`, which it would answer -32602 with no word of which.
    """
    try:
        return await call_next(ctx)
    except ValidationError as error:
        refused = [_param_problem(item) for item in error.errors()]
        said = " ".join(f"`{param}` {problem}{got}." for param, problem, got in refused)
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Invalid params: {said} Change it and send again.",
            data=[{"param": param, "problem": problem} for param, problem, _ in refused],
        ) from None


def _param_problem(item: Any) -> tuple[str, str, str]:
    """One refused parameter: its path below `params`, what it must be, and what came."""
    location = [str(part) for part in item["loc"]]
    if location[:1] == ["params"]:
        location = location[1:]
    param = ".".join(location) or "params"
    kind = item["type"]
    if kind == "missing":
        return param, "is required", ""
    problem = {
        "dict_type": "must be an object",
        "model_type": "must be an object",
        "string_type": "must be a string",
        "list_type": "must be an array",
        "int_type": "must be an integer",
        "bool_type": "must be true or false",
    }.get(kind, str(item["msg"]).rstrip(".").lower())
    shown = repr(item.get("input"))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return param, problem, f" (got {shown})"


async def unicode_safe_lines(lines: AsyncIterable[str], reply: Reply) -> AsyncIterator[str]:
    """Each line of `lines`, passed through `without_lone_surrogates`.

    A line `invalid_frame_reply` refuses is answered through `reply` and not passed on.
    """
    async for line in lines:
        if not line.strip():
            continue  # no frame
        cleaned = without_lone_surrogates(line)
        refusal = invalid_frame_reply(cleaned)
        if refusal is None:
            yield cleaned
        else:
            await reply(refusal)
