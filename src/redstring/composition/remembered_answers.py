"""Answers kept across runs: composes a served language model with an `AnswerMemory`.

`RememberedAnswers` stands in for the provider: a question asked before
(same model, prompts and schema: `answer_key`) is answered from memory, any
other is asked and its answer kept at once, so a build that stops midway
(a server killed, a timeout) keeps every answer it got. An answer that
parsed but broke the schema is kept too, and replayed as the same
`MalformedCompletionError`, so a rerun reads it exactly as the first run did.
`recall_format` / `keep_format` keep the answer format a server took, by
its address and model (ADR 0150's negotiation, remembered).
"""

from __future__ import annotations

import asyncio
from typing import Any

from redstring.domain.completion import answer_key, format_key
from redstring.domain.errors import MalformedCompletionError
from redstring.domain.ids import TenantId
from redstring.ports.answer_memory import AnswerMemory
from redstring.ports.llm_provider import LlmProvider, ServedLlmProvider

JsonObject = dict[str, Any]


class RememberedAnswers:
    """An `LlmProvider`: `provider`'s answers, kept in `memory` under `tenant_id`.

    `reused` counts the questions answered from memory. Memory is read and
    written one call at a time, so waiting on a database never holds more
    than one worker thread.
    """

    def __init__(
        self, provider: ServedLlmProvider, memory: AnswerMemory, tenant_id: TenantId
    ) -> None:
        self._provider = provider
        self._memory = memory
        self._tenant = tenant_id
        self._lock = asyncio.Lock()
        self.reused = 0

    async def complete_json(self, *, system: str, user: str, schema: JsonObject) -> JsonObject:
        """The kept answer to this question, else the model's (then kept)."""
        key = answer_key(self._provider.model, system, user, schema)
        async with self._lock:
            held = (await self._memory.recall(self._tenant, [key])).get(key)
        if held is not None:
            self.reused += 1
            return _replayed(held, self._provider.model)
        try:
            answer = await self._provider.complete_json(system=system, user=user, schema=schema)
        except MalformedCompletionError as error:
            if error.answer is not None:
                await self._keep(key, {"answer": error.answer, "message": str(error)})
            raise
        await self._keep(key, {"answer": answer})
        return answer

    async def _keep(self, key: str, value: JsonObject) -> None:
        async with self._lock:
            await self._memory.remember(self._tenant, key, value)


def _replayed(held: JsonObject, model: str) -> JsonObject:
    answer: JsonObject = held["answer"]
    if "message" in held:
        raise MalformedCompletionError(str(held["message"]), model=model, answer=answer)
    return answer


def remembering(
    provider: LlmProvider, memory: object, tenant_id: TenantId
) -> tuple[ServedLlmProvider, AnswerMemory] | None:
    """`provider` and `memory` when answers can be kept: a named model and a memory."""
    if isinstance(provider, ServedLlmProvider) and isinstance(memory, AnswerMemory):
        return provider, memory
    return None


async def recall_format(
    provider: ServedLlmProvider, memory: AnswerMemory, tenant: TenantId
) -> None:
    """Tell `provider` the answer format its server took in an earlier run, if one did."""
    key = format_key(provider.base_url, provider.model)
    held = (await memory.recall(tenant, [key])).get(key)
    if held is not None:
        provider.try_format_first(str(held.get("answer_format")))


async def keep_format(provider: ServedLlmProvider, memory: AnswerMemory, tenant: TenantId) -> None:
    """Keep the answer format `provider`'s server took, once one is settled."""
    if provider.answer_format is not None:
        key = format_key(provider.base_url, provider.model)
        await memory.remember(tenant, key, {"answer_format": provider.answer_format})
