"""The one answer parser (as real adapters use it) and the transport's backoff, tested purely."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.completion import parse_completion
from redstring.errors import MalformedCompletionError
from redstring.llm._openai_transport import backoff_delay

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "count": {"type": "integer"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "kind": {"enum": ["a", "b"]},
        "nested": {
            "type": "object",
            "properties": {"x": {"type": ["number", "null"]}},
            "required": ["x"],
            "additionalProperties": False,
        },
    },
    "required": ["name"],
}


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Ada"}',
        '  \n{"name": "Ada"}\n',
        '```json\n{"name": "Ada"}\n```',
        '```\n{"name": "Ada"}\n```',
        'Sure! Here it is: {"name": "Ada"} Hope that helps.',
    ],
)
def test_an_object_is_found_bare_fenced_or_amid_prose(text: str) -> None:
    assert parse_completion(text, SCHEMA, model="m") == {"name": "Ada"}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Ada", "not JSON"),
        ("{name: Ada}", "not JSON"),
        ("```", "not JSON"),
        ('["Ada"]', "not an object"),
        ('{"count": 3}', "'name' is a required property"),
    ],
)
def test_what_is_not_an_object_of_the_schema_is_malformed(text: str, reason: str) -> None:
    with pytest.raises(MalformedCompletionError, match=reason) as raised:
        parse_completion(text, SCHEMA, model="tiny-model")
    assert raised.value.model == "tiny-model"
    assert "tiny-model" in str(raised.value)


@pytest.mark.parametrize(
    ("value", "where"),
    [
        ({"name": 7}, "at name"),
        ({"name": "A", "count": 1.5}, "at count"),
        ({"name": "A", "tags": ["x", 2]}, "at tags/1"),
        ({"name": "A", "kind": "c"}, "at kind"),
        ({"name": "A", "nested": {}}, "at nested"),
        ({"name": "A", "nested": {"x": 1, "y": 2}}, "at nested"),
        ({"name": "A", "nested": {"x": "1"}}, "at nested/x"),
    ],
)
def test_each_violation_is_reported_with_its_path(value: dict[str, Any], where: str) -> None:
    with pytest.raises(MalformedCompletionError, match=where):
        parse_completion(json.dumps(value), SCHEMA, model="m")


def test_a_valid_value_passes_and_extra_keys_pass_when_allowed() -> None:
    value = {"name": "A", "count": 2, "tags": [], "kind": "b", "nested": {"x": None}, "z": 1}
    assert parse_completion(json.dumps(value), SCHEMA) == value


@given(
    attempt=st.integers(min_value=1, max_value=30),
    initial=st.floats(min_value=0.001, max_value=5),
    maximum=st.floats(min_value=0.001, max_value=60),
    seed=st.integers(),
)
def test_backoff_lies_between_half_the_cap_and_the_cap(
    attempt: int, initial: float, maximum: float, seed: int
) -> None:
    cap = min(maximum, initial * 2.0 ** (attempt - 1))
    delay = backoff_delay(attempt, initial=initial, maximum=maximum, rng=random.Random(seed))
    assert cap / 2 <= delay <= cap


def test_backoff_doubles_and_is_jittered() -> None:
    rng = random.Random(1)
    delays = [backoff_delay(n, initial=1.0, maximum=100.0, rng=rng) for n in (1, 2, 3, 4)]
    assert 0.5 <= delays[0] <= 1
    assert 1 <= delays[1] <= 2
    assert 4 <= delays[3] <= 8
    again = [backoff_delay(1, initial=1.0, maximum=100.0, rng=rng) for _ in range(20)]
    assert len(set(again)) > 1
