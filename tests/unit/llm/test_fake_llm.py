"""The fake model parses its scripted answers exactly like a real adapter."""

from __future__ import annotations

import pytest

from redstring.domain.completion import parse_completion
from redstring.domain.errors import ScriptExhaustedError
from redstring.errors import EmptyCompletionError, MalformedCompletionError, RefusedCompletionError
from redstring.llm.fake_llm import FakeLlmProvider, Refusal
from redstring.ports import LlmProvider

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string", "minLength": 1}, "n": {"type": "integer"}},
    "required": ["name"],
    "additionalProperties": False,
}


def test_the_fake_satisfies_the_port() -> None:
    assert isinstance(FakeLlmProvider(), LlmProvider)


@pytest.mark.asyncio
async def test_script_answers_in_order_and_records_prompts() -> None:
    fake = FakeLlmProvider([{"name": "a"}, '{"name": "b", "n": 2}'])
    first = await fake.complete_json(system="s1", user="u1", schema=SCHEMA)
    second = await fake.complete_json(system="s2", user="u2", schema=SCHEMA)
    assert (first, second) == ({"name": "a"}, {"name": "b", "n": 2})
    assert [(c.system, c.user) for c in fake.calls] == [("s1", "u1"), ("s2", "u2")]
    assert fake.unused_answers == 0
    with pytest.raises(ScriptExhaustedError, match="script is used up"):
        await fake.complete_json(system="s", user="u3", schema=SCHEMA)


@pytest.mark.asyncio
async def test_substring_answers_win_over_the_script_and_repeat() -> None:
    fake = FakeLlmProvider([{"name": "script"}], by_substring={"Ada": {"name": "ada"}})
    assert await fake.complete_json(system="", user="about Ada", schema=SCHEMA) == {"name": "ada"}
    assert await fake.complete_json(system="", user="Ada again", schema=SCHEMA) == {"name": "ada"}
    assert await fake.complete_json(system="", user="other", schema=SCHEMA) == {"name": "script"}


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("answer", "error", "message"),
    [
        ("", EmptyCompletionError, "empty"),
        ("   \n", EmptyCompletionError, "empty"),
        ("{not json", MalformedCompletionError, "not JSON"),
        ("[1, 2]", MalformedCompletionError, "not an object"),
        ({"n": 1}, MalformedCompletionError, "'name' is a required property"),
        ({"name": "x", "extra": 1}, MalformedCompletionError, "Additional properties"),
        ({"name": ""}, MalformedCompletionError, "at name"),
        (Refusal("policy"), RefusedCompletionError, "policy"),
    ],
)
async def test_bad_answers_raise_the_error_of_their_cause(
    answer: object, error: type[Exception], message: str
) -> None:
    fake = FakeLlmProvider([answer])  # type: ignore[list-item]
    with pytest.raises(error, match=message):
        await fake.complete_json(system="", user="u", schema=SCHEMA)


@pytest.mark.asyncio
async def test_an_exception_instance_is_raised_as_is() -> None:
    boom = RuntimeError("network down")
    fake = FakeLlmProvider([boom])
    with pytest.raises(RuntimeError) as caught:
        await fake.complete_json(system="", user="u", schema=SCHEMA)
    assert caught.value is boom


def test_a_fenced_json_block_is_accepted() -> None:
    text = '```json\n{"name": "fenced"}\n```'
    assert parse_completion(text, SCHEMA) == {"name": "fenced"}


def test_a_refusal_wins_over_text_and_the_model_is_named() -> None:
    with pytest.raises(RefusedCompletionError) as caught:
        parse_completion('{"name": "x"}', SCHEMA, refusal="no", model="m1")
    assert caught.value.model == "m1"
    assert parse_completion('{"name": "x"}', SCHEMA, refusal="  ") == {"name": "x"}
