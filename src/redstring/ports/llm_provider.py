"""Asking a language model for a structured answer."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

JsonObject = dict[str, Any]


@runtime_checkable
class LlmProvider(Protocol):
    """Completes a prompt into a JSON object that satisfies a JSON schema.

    Raises `EmptyCompletionError` when the model answers nothing,
    `RefusedCompletionError` when it declines, and
    `MalformedCompletionError` when the answer is not JSON or does not satisfy
    `schema`.
    """

    async def complete_json(self, *, system: str, user: str, schema: JsonObject) -> JsonObject:
        """The model's parsed answer to `system` + `user`, validated against `schema`."""
        ...
