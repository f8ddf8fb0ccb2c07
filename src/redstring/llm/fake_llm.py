"""A language model with no model: answers come from a script or a substring table."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from redstring.domain.completion import JsonObject, parse_completion
from redstring.domain.errors import ScriptExhaustedError


@dataclass(frozen=True)
class Refusal:
    """A scripted answer in which the model declines, with its stated reason."""

    reason: str = "I can't help with that."


#: What a script may hold: a JSON object, raw text (to simulate malformed
#: output), a refusal, or an exception instance to raise as-is.
ScriptedAnswer = JsonObject | str | Refusal | BaseException


@dataclass(frozen=True)
class PromptRecord:
    """One call the fake received."""

    system: str
    user: str
    schema: JsonObject


class FakeLlmProvider:
    """An `LlmProvider` answering from `by_substring` first, then from `script` in order.

    `by_substring` maps a substring of the user prompt to an answer, tried in
    the mapping's order; the first that occurs in the user prompt answers, and
    it answers every time it matches. Otherwise the next unused `script`
    answer is given; when none is left, `ScriptExhaustedError` is raised.
    A dict or string answer is parsed by `parse_completion`, the path a real
    adapter uses, so it can raise `EmptyCompletionError` or
    `MalformedCompletionError`; a `Refusal` raises `RefusedCompletionError`; an
    exception instance is raised. `calls` records every prompt, in order.
    """

    def __init__(
        self,
        script: Sequence[ScriptedAnswer] = (),
        *,
        by_substring: Mapping[str, ScriptedAnswer] | None = None,
        model: str = "fake-llm",
    ) -> None:
        self._script = list(script)
        self._by_substring = dict(by_substring or {})
        self._next = 0
        self.model = model
        self.calls: list[PromptRecord] = []

    async def complete_json(self, *, system: str, user: str, schema: JsonObject) -> JsonObject:
        self.calls.append(PromptRecord(system=system, user=user, schema=schema))
        answer = self._answer_for(user)
        if isinstance(answer, BaseException):
            raise answer
        if isinstance(answer, Refusal):
            return parse_completion(None, schema, refusal=answer.reason, model=self.model)
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return parse_completion(text, schema, model=self.model)

    @property
    def unused_answers(self) -> int:
        """How many script answers were never given."""
        return len(self._script) - self._next

    def _answer_for(self, user: str) -> ScriptedAnswer:
        for substring, answer in self._by_substring.items():
            if substring in user:
                return answer
        if self._next >= len(self._script):
            raise ScriptExhaustedError(asked=len(self.calls), prompt_excerpt=user[:60])
        answer = self._script[self._next]
        self._next += 1
        return answer
