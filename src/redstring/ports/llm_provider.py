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


@runtime_checkable
class ServedLlmProvider(CheckedLlmProvider, Protocol):
    """A named model on a server, which can be told the answer format to try first.

    `model` and `base_url` name what answers, so its answers can be kept and
    reused (`AnswerMemory`); `try_format_first` puts a format the server took
    before at the head of the negotiation, so a refused one is not asked again.
    """

    @property
    def model(self) -> str:
        """The server's name of the model."""
        ...

    @property
    def base_url(self) -> str:
        """The server's address."""
        ...

    def try_format_first(self, answer_format: str) -> None:
        """Ask in `answer_format` first (a name it does not know is ignored)."""
        ...
