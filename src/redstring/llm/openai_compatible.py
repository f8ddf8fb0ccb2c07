"""Embedding and language-model providers for any OpenAI-protocol server.

OpenAI itself, vLLM, llama.cpp's server, Ollama, LM Studio and
text-embeddings-inference all speak the protocol. Needs the `openai` extra;
the SDK is imported on the first call, so importing this module is cheap.
Configuration is by constructor argument only: nothing reads the environment.
Errors: `ModelServerError` (4xx at once, 429/5xx once attempts are spent),
`ModelServerTimeoutError`, `ModelServerUnreachableError`,
`ModelServerResponseError`, `MissingExtraError`, and the port's own errors.
Both providers are async context managers that close their HTTP client.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, Self, cast

from redstring.domain.completion import answer_token_bound, parse_completion
from redstring.domain.errors import (
    DimensionMismatchError,
    EmptyCompletionError,
    InvalidArgumentError,
    InvalidSettingError,
    ModelServerResponseError,
    TruncatedCompletionError,
)
from redstring.domain.validation import require_vector_dimension
from redstring.llm._answer_format import (
    STRUCTURED_OUTPUTS,
    AnswerFormat,
    FormatNegotiation,
    StructuredOutput,
    check_structured_output,
    request_shape,
)
from redstring.llm._openai_transport import OpenAITransport, require_positive

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types import CreateEmbeddingResponse
    from openai.types.chat import ChatCompletion
    from openai.types.chat.chat_completion import Choice

__all__ = [
    "STRUCTURED_OUTPUTS",
    "AnswerFormat",
    "OpenAICompatibleEmbeddingProvider",
    "OpenAICompatibleLlmProvider",
    "StructuredOutput",
]

_log = logging.getLogger("redstring.llm")

JsonObject = dict[str, Any]


class _ClosesItsClient:
    """An async context manager closing the provider's HTTP client on exit."""

    _transport: OpenAITransport

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the HTTP client; a later call opens a new one."""
        await self._transport.close()


class OpenAICompatibleEmbeddingProvider(_ClosesItsClient):
    """`EmbeddingProvider` over `POST {base_url}/embeddings`.

    Texts go in batches of `batch_size`, at most `max_concurrency` requests in
    flight; vectors come back in input order. `dimension` is what the model
    returns (a different length raises `DimensionMismatchError` naming the
    model). `query_prefix` / `document_prefix` are prepended to query /
    document texts (e5: "query: " / "passage: "). An empty input makes no call.
    An async context manager: leaving it (or `aclose()`) closes the HTTP client.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimension: int,
        api_key: str | None = None,
        timeout: float = 30.0,
        batch_size: int = 64,
        max_concurrency: int = 4,
        max_attempts: int = 5,
        query_prefix: str = "",
        document_prefix: str = "",
        initial_backoff: float = 0.5,
        max_backoff: float = 20.0,
    ) -> None:
        dimension = _setting_dimension(dimension)
        require_positive("batch_size", batch_size)
        self._transport = OpenAITransport(
            base_url=base_url,
            model=model,
            api_key=api_key,
            timeout=timeout,
            max_concurrency=max_concurrency,
            max_attempts=max_attempts,
            initial_backoff=initial_backoff,
            max_backoff=max_backoff,
        )
        self._model = model
        self._dimension = dimension
        self._batch_size = batch_size
        self._query_prefix = query_prefix
        self._document_prefix = document_prefix

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def model(self) -> str:
        """The server's name of the embedding model."""
        return self._model

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document vectors, one per text, in input order."""
        return await self._embed(texts, self._document_prefix)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query vectors, one per text, in input order."""
        return await self._embed(texts, self._query_prefix)

    async def _embed(self, texts: Sequence[str], prefix: str) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidSettingError(
                name="texts", value=texts, requirement="a sequence of strings, not one string"
            )
        prepared = [prefix + text for text in texts]
        batches = [
            prepared[start : start + self._batch_size]
            for start in range(0, len(prepared), self._batch_size)
        ]
        tasks = [asyncio.ensure_future(self._embed_batch(batch)) for batch in batches]
        try:
            results = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            raise
        return [vector for batch in results for vector in batch]

    async def _embed_batch(self, batch: list[str]) -> list[list[float]]:
        async def create(client: AsyncOpenAI) -> CreateEmbeddingResponse:
            return await client.embeddings.create(
                model=self._model, input=batch, encoding_format="float"
            )

        response = await self._transport.call(create)
        data = sorted(response.data, key=lambda item: item.index)
        if [item.index for item in data] != list(range(len(batch))):
            raise ModelServerResponseError(
                base_url=self._transport.base_url,
                model=self._model,
                detail=f"{len(batch)} texts sent, vectors for indexes "
                f"{[item.index for item in data]} received",
            )
        for item in data:
            if len(item.embedding) != self._dimension:
                raise DimensionMismatchError(
                    expected=self._dimension,
                    actual=len(item.embedding),
                    context=f"embedding model {self._model!r} at {self._transport.base_url}",
                )
        return [[float(x) for x in item.embedding] for item in data]


#: Seconds one attempt of a chat request may take (`timeout`); the command line's default.
DEFAULT_TIMEOUT = 120.0


class OpenAICompatibleLlmProvider(_ClosesItsClient):
    """`LlmProvider` over `POST {base_url}/chat/completions`.

    `structured_output` "auto" (the default) negotiates how to ask for JSON on
    the first request: a `json_schema` response format, else `json_object`
    with the schema, else the schema in the prompt; the first the server
    answers is kept (`answer_format`), and a refused format is asked for
    once. "json_schema", "json_object" or "text" fixes the format.
    Whatever the format, the answer is parsed and validated here.

    Every request sends `max_tokens`: the setting, or a bound derived from
    the user prompt (`answer_token_bound`). An answer cut at that bound is
    asked again once with twice the bound and `runaway_penalty` as
    `frequency_penalty` (0 sends none), never unchanged; cut again, it raises
    `TruncatedCompletionError`. Raises `RefusedCompletionError`
    on a refusal (or a content-filter stop), `EmptyCompletionError` on no
    content, `MalformedCompletionError` on text that is not a JSON object of
    the schema. `check()` makes one tiny request to see that the server
    answers and knows the model. An async context manager: leaving it (or
    `aclose()`) closes the HTTP client.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_concurrency: int = 4,
        max_attempts: int = 5,
        structured_output: StructuredOutput = "auto",
        max_tokens: int | None = None,
        runaway_penalty: float = 0.5,
        temperature: float = 0.0,
        initial_backoff: float = 0.5,
        max_backoff: float = 20.0,
    ) -> None:
        if max_tokens is not None:
            require_positive("max_tokens", max_tokens)
        if not 0.0 <= runaway_penalty <= 2.0:
            raise InvalidSettingError(
                name="runaway_penalty", value=runaway_penalty, requirement="on 0..2"
            )
        self._formats = FormatNegotiation(check_structured_output(structured_output))
        self._transport = OpenAITransport(
            base_url=base_url,
            model=model,
            api_key=api_key,
            timeout=timeout,
            max_concurrency=max_concurrency,
            max_attempts=max_attempts,
            initial_backoff=initial_backoff,
            max_backoff=max_backoff,
        )
        self._model = model
        self._checked = False
        self._max_tokens = max_tokens
        self._runaway_penalty = runaway_penalty
        self._temperature = temperature

    @property
    def model(self) -> str:
        """The server's name of the model."""
        return self._model

    @property
    def base_url(self) -> str:
        """The server's address."""
        return self._transport.base_url

    def try_format_first(self, answer_format: str) -> None:
        """Ask in `answer_format` first, e.g. the one this server took in an earlier run.

        Only under `structured_output="auto"` and before a format is settled;
        a name that is not an answer format is ignored.
        """
        self._formats.try_first(answer_format)

    @property
    def max_concurrency(self) -> int:
        """The most requests this provider sends at once."""
        return self._transport.limit.maximum

    @property
    def answer_format(self) -> AnswerFormat | None:
        """The answer format the server accepted; `None` before the first answer."""
        return self._formats.settled

    async def check(self) -> None:
        """Ask for one token: the server answers, and knows the model (once; then no-op).

        Raises `MissingExtraError`, `ModelServerUnreachableError`,
        `ModelServerError` (a 404 for an unknown model), `ModelServerTimeoutError`
        or `ModelServerResponseError` (a body that is not the protocol's).
        """
        if self._checked:
            return

        async def create(client: AsyncOpenAI) -> ChatCompletion:
            return await client.chat.completions.create(
                model=self._model,
                messages=[{"role": "user", "content": "Answer OK."}],
                max_tokens=1,
                temperature=self._temperature,
            )

        self._first_choice(await self._transport.call(create))
        self._checked = True

    async def complete_json(self, *, system: str, user: str, schema: JsonObject) -> JsonObject:
        """The model's answer to `system` + `user`, validated against `schema`."""
        bound = self._max_tokens or answer_token_bound(user)
        choice = await self._ask(system, user, schema, max_tokens=bound, penalty=None)
        if choice.finish_reason == "length":
            larger = 2 * bound
            _log.warning(
                "model %r was cut off at max_tokens %d; asking again with %d",
                self._model,
                bound,
                larger,
            )
            penalty = self._runaway_penalty or None
            choice = await self._ask(system, user, schema, max_tokens=larger, penalty=penalty)
            if choice.finish_reason == "length":
                raise TruncatedCompletionError(model=self._model, max_tokens=[bound, larger])
        refusal = getattr(choice.message, "refusal", None)
        if not refusal and choice.finish_reason == "content_filter":
            refusal = "stopped by the server's content filter"
        return parse_completion(choice.message.content, schema, refusal=refusal, model=self._model)

    async def _ask(
        self,
        system: str,
        user: str,
        schema: JsonObject,
        *,
        max_tokens: int,
        penalty: float | None,
    ) -> Choice:
        async def attempt(answer_format: AnswerFormat, final: Collection[int]) -> ChatCompletion:
            prompt, extra = request_shape(answer_format, system, schema)
            if penalty is not None:
                extra["frequency_penalty"] = penalty

            async def create(client: AsyncOpenAI) -> ChatCompletion:
                answer = await client.chat.completions.create(
                    model=self._model,
                    messages=[
                        {"role": "system", "content": prompt},
                        {"role": "user", "content": user},
                    ],
                    temperature=self._temperature,
                    max_tokens=max_tokens,
                    **extra,
                )
                return cast("ChatCompletion", answer)

            return await self._transport.call(create, final_statuses=final)

        return self._first_choice(await self._formats.run(attempt))

    def _first_choice(self, completion: ChatCompletion) -> Choice:
        if not completion.choices:
            raise EmptyCompletionError(
                f"model {self._model!r} returned no choices. Check the server's logs.",
                model=self._model,
            )
        return completion.choices[0]


def _setting_dimension(given: object) -> int:
    """`given` as an `int` by the stores' one rule (a numpy integer too), refused as the
    provider's other settings are: `InvalidSettingError` naming `dimension`."""
    try:
        return require_vector_dimension(given)
    except InvalidArgumentError as refused:
        raise InvalidSettingError(
            name=refused.name, value=refused.value, requirement=refused.requirement
        ) from None
