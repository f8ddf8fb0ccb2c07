"""Embedding and language-model providers for any OpenAI-protocol server.

OpenAI itself, vLLM, llama.cpp's server, Ollama, LM Studio and
text-embeddings-inference all speak the protocol. Needs the `openai` extra;
the SDK is imported on the first call, so importing this module is cheap.
Configuration is by constructor argument only: nothing reads the environment.
Errors: `ModelServerError` (4xx at once, 429/5xx once attempts are spent),
`ModelServerTimeoutError`, `ModelServerUnreachableError`,
`ModelServerResponseError`, `MissingExtraError`, and the port's own errors.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from redstring.domain.completion import parse_completion
from redstring.domain.errors import (
    DimensionMismatchError,
    EmptyCompletionError,
    InvalidProviderSettingError,
    ModelServerResponseError,
)
from redstring.llm._openai_transport import OpenAITransport, require_positive

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types import CreateEmbeddingResponse
    from openai.types.chat import ChatCompletion

JsonObject = dict[str, Any]


class OpenAICompatibleEmbeddingProvider:
    """`EmbeddingProvider` over `POST {base_url}/embeddings`.

    Texts go in batches of `batch_size`, at most `max_concurrency` requests in
    flight; vectors come back in input order. `dimension` is what the model
    returns (a different length raises `DimensionMismatchError` naming the
    model). `query_prefix` / `document_prefix` are prepended to query /
    document texts (e5: "query: " / "passage: "). An empty input makes no call.
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
        require_positive("dimension", dimension)
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

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Document vectors, one per text, in input order."""
        return await self._embed(texts, self._document_prefix)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Query vectors, one per text, in input order."""
        return await self._embed(texts, self._query_prefix)

    async def _embed(self, texts: Sequence[str], prefix: str) -> list[list[float]]:
        if isinstance(texts, str):
            raise InvalidProviderSettingError(
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


class OpenAICompatibleLlmProvider:
    """`LlmProvider` over `POST {base_url}/chat/completions`.

    With `structured_output=True` the schema is sent as a `json_schema`
    response format; servers without it answer 400, which raises
    `ModelServerError` telling the caller to pass `structured_output=False`,
    in which case the schema goes in the system prompt instead. Either way the
    answer is parsed and validated here. Raises `RefusedCompletionError` on a
    refusal (or a content-filter stop), `EmptyCompletionError` on no content,
    `MalformedCompletionError` on text that is not a JSON object of the schema.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_concurrency: int = 4,
        max_attempts: int = 5,
        structured_output: bool = True,
        temperature: float = 0.0,
        initial_backoff: float = 0.5,
        max_backoff: float = 20.0,
    ) -> None:
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
        self._structured_output = structured_output
        self._temperature = temperature

    async def complete_json(self, *, system: str, user: str, schema: JsonObject) -> JsonObject:
        """The model's answer to `system` + `user`, validated against `schema`."""
        extra: dict[str, Any] = {}
        if self._structured_output:
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema},
            }
        else:
            system = (
                f"{system}\n\nAnswer with one JSON object and nothing else. "
                f"It must satisfy this JSON schema:\n{json.dumps(schema)}"
            )

        async def create(client: AsyncOpenAI) -> ChatCompletion:
            answer = await client.chat.completions.create(
                model=self._model,
                messages=[
                    {"role": "system", "content": system},
                    {"role": "user", "content": user},
                ],
                temperature=self._temperature,
                **extra,
            )
            return cast("ChatCompletion", answer)

        completion = await self._transport.call(create)
        if not completion.choices:
            raise EmptyCompletionError(
                f"model {self._model!r} returned no choices. Check the server's logs.",
                model=self._model,
            )
        choice = completion.choices[0]
        refusal = getattr(choice.message, "refusal", None)
        if not refusal and choice.finish_reason == "content_filter":
            refusal = "stopped by the server's content filter"
        return parse_completion(choice.message.content, schema, refusal=refusal, model=self._model)
