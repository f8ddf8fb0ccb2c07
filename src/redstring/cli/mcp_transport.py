"""What the MCP server reads from stdin: JSON-RPC lines every one of which gets an answer.

The SDK parses each line strictly, and a JSON string escape naming a lone
surrogate (`"Ada\\ud800"`) fails that parse: the request is dropped and the
client waits forever (issue 14 item 4). A lone surrogate cannot be encoded in
UTF-8, so it is replaced by U+FFFD, the same replacement the transport already
makes for bytes that are not UTF-8, and the request then answers like any other.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterable, AsyncIterator

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


async def unicode_safe_lines(lines: AsyncIterable[str]) -> AsyncIterator[str]:
    """Each line of `lines`, passed through `without_lone_surrogates`."""
    async for line in lines:
        yield without_lone_surrogates(line)
