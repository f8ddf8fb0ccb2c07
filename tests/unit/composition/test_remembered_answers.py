"""Remembered answers: a malformed answer with nothing readable is never kept."""

from __future__ import annotations

import pytest

from redstring.composition.remembered_answers import RememberedAnswers
from redstring.errors import MalformedCompletionError
from redstring.events.in_memory import InMemoryEventLog
from redstring.providers import FakeLlmProvider
from tests.factories import DEFAULT_TENANT

SCHEMA = {"type": "object"}


@pytest.mark.asyncio
async def test_an_unreadable_answer_is_asked_again_and_a_good_one_then_replayed() -> None:
    model = FakeLlmProvider(
        [MalformedCompletionError("not JSON", model="fake-llm"), {"found": True}]
    )
    asked = RememberedAnswers(model, InMemoryEventLog(), DEFAULT_TENANT)
    with pytest.raises(MalformedCompletionError):
        await asked.complete_json(system="s", user="u", schema=SCHEMA)
    for _ in range(2):  # the model once, then memory
        assert await asked.complete_json(system="s", user="u", schema=SCHEMA) == {"found": True}
    assert (len(model.calls), asked.reused) == (2, 1)
