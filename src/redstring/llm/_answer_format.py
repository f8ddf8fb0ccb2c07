"""How a chat request asks for JSON, and finding the way a server accepts (ADR 0150).

Servers differ: OpenAI and vLLM take a `json_schema` response format,
llama-cpp-python's server answers 500 to it but takes `json_object` with a
schema, some take neither. `FormatNegotiation` tries the formats in order on
the first request of a provider, one request at a time, and remembers the
first one the server answered; a refusal of a format (any status in
`FORMAT_REFUSALS`) is not retried as if it were transient.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Collection
from typing import Any, Literal

from redstring.domain.errors import InvalidSettingError, ModelServerStatusError

AnswerFormat = Literal["json_schema", "json_object", "text"]
StructuredOutput = Literal["auto", "json_schema", "json_object", "text"]
STRUCTURED_OUTPUTS: tuple[StructuredOutput, ...] = ("auto", "json_schema", "json_object", "text")
ANSWER_FORMATS: tuple[AnswerFormat, ...] = ("json_schema", "json_object", "text")

#: Statuses with which servers refuse a request shape they do not support
#: (llama-cpp-python answers 500 to a `json_schema` response format).
FORMAT_REFUSALS = frozenset({400, 415, 422, 500, 501})

_log = logging.getLogger("redstring.llm")


def request_shape(
    answer_format: AnswerFormat, system: str, schema: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    """The system prompt and the extra request fields that ask for `schema` in `answer_format`.

    Except under `json_schema`, the schema also goes in the prompt: `json_object`
    servers may ignore the schema field, and text has nothing else.
    """
    if answer_format == "json_schema":
        response_format = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema},
        }
        return system, {"response_format": response_format}
    prompt = (
        f"{system}\n\nAnswer with one JSON object and nothing else. "
        f"It must satisfy this JSON schema:\n{json.dumps(schema)}"
    )
    if answer_format == "json_object":
        return prompt, {"response_format": {"type": "json_object", "schema": schema}}
    return prompt, {}


def check_structured_output(value: object) -> StructuredOutput:
    """`value` if it is one of `STRUCTURED_OUTPUTS`, else `InvalidSettingError`."""
    for known in STRUCTURED_OUTPUTS:
        if value == known:
            return known
    raise InvalidSettingError(
        name="structured_output", value=value, requirement="one of " + ", ".join(STRUCTURED_OUTPUTS)
    )


class FormatNegotiation:
    """The answer format of one provider: negotiated once, then remembered.

    `requested` "auto" tries `ANSWER_FORMATS` in order; a named format is the
    only one tried. `settled` is the format the server answered (`None`
    until then) and `refused` the formats it refused, in order.
    """

    def __init__(self, requested: StructuredOutput) -> None:
        self.candidates: tuple[AnswerFormat, ...] = (
            ANSWER_FORMATS if requested == "auto" else (requested,)
        )
        self.settled: AnswerFormat | None = None
        self.refused: list[AnswerFormat] = []
        self._lock = asyncio.Lock()
        self._refusal: ModelServerStatusError | None = None

    def try_first(self, answer_format: str) -> None:
        """Try `answer_format` first, when it is a candidate and nothing is settled yet.

        A format the server took before (ADR 0150's negotiation, remembered
        across runs): asked first, it spares the server the refused ones.
        """
        if self.settled is not None:
            return
        for candidate in self.candidates:
            if candidate == answer_format:
                rest = tuple(other for other in self.candidates if other != candidate)
                self.candidates = (candidate, *rest)

    async def run[T](self, attempt: Callable[[AnswerFormat, Collection[int]], Awaitable[T]]) -> T:
        """`attempt(format, final_statuses)` in the settled format, negotiating it first if need be.

        Until a format is settled requests go one at a time, each format is
        asked for at most once, and its refusal is final (`final_statuses`).
        Raises `ModelServerStatusError` when every candidate was refused (again on
        later calls, without asking the server).
        """
        if self.settled is None:
            async with self._lock:
                if self.settled is None:
                    return await self._negotiate(attempt)
        return await attempt(self.settled, ())

    async def _negotiate[T](
        self, attempt: Callable[[AnswerFormat, Collection[int]], Awaitable[T]]
    ) -> T:
        for candidate in self.candidates:
            if candidate in self.refused:
                continue
            try:
                answer = await attempt(candidate, FORMAT_REFUSALS)
            except ModelServerStatusError as error:
                if error.status not in FORMAT_REFUSALS:
                    raise
                self._refused(candidate, error)
                continue
            self.settled = candidate
            _log.info("model server answers in the %s format", candidate)
            return answer
        if self._refusal is None:  # pragma: no cover (a candidate was refused to get here)
            raise RuntimeError("no candidate format was tried")
        raise self._refusal

    def _refused(self, candidate: AnswerFormat, error: ModelServerStatusError) -> None:
        self.refused.append(candidate)
        _log.warning(
            "%s (model %r) refused the %s answer format with HTTP %d",
            error.base_url,
            error.model,
            candidate,
            error.status,
        )
        tried = ", ".join(self.refused)
        if len(self.candidates) == 1:
            hint = (
                f"The server refused the {tried} answer format. Pass `structured_output='auto'` "
                "to let redstring find one it accepts."
            )
        else:
            hint = f"The server refused every answer format tried ({tried}); check its log."
        self._refusal = ModelServerStatusError(
            base_url=error.base_url,
            model=error.model,
            status=error.status,
            server_message=error.server_message,
            attempts=error.attempts,
            hint=hint,
        )
