"""The conformance test bed: scripts that behave like the model servers users run.

A `Profile` states how a server treats the parts of a chat request that real
servers disagree on; `profiled(profile, answer)` turns it into a script for
`openai_protocol_server.serve` (pass `serial=profile.serial` there too).
`answer(prompt)` is what the model "means" to say for a prompt: a JSON object.

Tokens are counted as four characters each, the rule of thumb for English.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.unit.adapters.openai_protocol_server import Reply, Script, chat, error

Answer = Callable[[str], dict[str, Any]]

#: What a small instruct model says when nothing constrains its output.
PROSE = "Sure! Here are the people and organisations mentioned in the passage."

#: The unit a runaway answer repeats, as a model stuck in a loop does.
LOOP = '{"name": "Ada Lovelace", "type": "person", "description": "a mathematician"}, '


def tokens(text: str) -> int:
    """The test bed's token count of `text`."""
    return math.ceil(len(text) / 4)


def cut(text: str, limit: int) -> str:
    """`text` stopped after `limit` tokens."""
    return text[: limit * 4]


@dataclass(frozen=True)
class Profile:
    """How one kind of server answers.

    - `json_schema_status`: the HTTP status a `json_schema` response format
      gets (`None`: accepted); llama-cpp-python's server answers 500.
    - `json_object`: whether `{"type": "json_object", "schema": ...}` is accepted.
    - `prose_without_format`: without a response format the model answers prose.
    - `runaway`: a prompt holding this text makes the model repeat itself
      until the length limit cuts it off (`finish_reason: "length"`).
    - `context_tokens`: the limit when the request sends no `max_tokens`.
    - `serial`: one request at a time (give it to `serve`).
    - `seconds_per_token`: generation time, slept before answering.
    """

    json_schema_status: int | None = None
    json_object: bool = True
    prose_without_format: bool = False
    runaway: str | None = None
    context_tokens: int = 4096
    serial: bool = False
    seconds_per_token: float = 0.0


def hardest(runaway: str, *, seconds_per_token: float = 0.0) -> Profile:
    """One request at a time, `json_object` only, and one prompt that runs away."""
    return Profile(
        json_schema_status=500,
        prose_without_format=True,
        runaway=runaway,
        serial=True,
        seconds_per_token=seconds_per_token,
    )


def profiled(profile: Profile, answer: Answer) -> Script:
    """A chat-completions script answering `answer(prompt)` the way `profile` says."""

    def respond(path: str, request: dict[str, Any], number: int) -> Reply:
        kind = (request.get("response_format") or {}).get("type")
        if kind == "json_schema" and profile.json_schema_status is not None:
            return Reply(
                status=profile.json_schema_status,
                body=b"Internal Server Error",
                headers={"content-type": "text/plain"},
            )
        if kind == "json_object" and not profile.json_object:
            return error(400, "response_format: json_object is not supported by this server")
        prompt = "\n".join(str(message.get("content", "")) for message in request["messages"])
        limit = request.get("max_tokens") or profile.context_tokens
        if profile.runaway is not None and profile.runaway in prompt:
            text = '{"entities": [' + LOOP * (limit * 4 // len(LOOP) + 1)
        elif kind is None and profile.prose_without_format:
            text = PROSE
        else:
            text = json.dumps(answer(prompt))
        finish = "length" if tokens(text) > limit else "stop"
        text = cut(text, limit)
        reply = chat(text, finish_reason=finish)
        reply.body["usage"] = {"completion_tokens": tokens(text)}
        return Reply(body=reply.body, delay=tokens(text) * profile.seconds_per_token)

    return respond
