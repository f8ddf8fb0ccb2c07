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


@runtime_checkable
class CheckedLlmProvider(LlmProvider, Protocol):
    """A provider that can check its model server before real work.

    `check()` raises the provider's errors when the server cannot answer
    (missing extra, unreachable, unknown model, not the protocol); once it
    has passed it returns at once. `answer_format` names how answers are
    asked for ("json_schema", "json_object", "text"), `None` until known.
    """

    @property
    def answer_format(self) -> str | None:
        """How the server is asked for JSON; `None` before the first answer."""
        ...

    async def check(self) -> None:
        """Raise unless the server answers and knows the model."""
        ...
