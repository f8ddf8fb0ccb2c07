"""Pair questions: a chunk whose answer names entities but no relationship is asked per pair."""

from __future__ import annotations

from typing import Any

import pytest

from redstring.domain.document import SourceDocument
from redstring.errors import EmptyCompletionError, MalformedCompletionError
from redstring.extraction.domains import DomainSchema
from redstring.extraction.extractor import Extractor
from redstring.providers import FakeLlmProvider
from tests.factories import DEFAULT_TENANT

DOC = SourceDocument(
    id="doc", text="Ada Lovelace worked with Charles Babbage in London on the Engine."
)
DOMAIN = DomainSchema(
    name="engines",
    description="People, places and engines.",
    entity_types=("person", "location", "product"),
    relationship_types=("knows", "located_in"),
)
QUESTION = "Does the passage state a relationship between"


def _entities(*names: str) -> dict[str, Any]:
    return {"entities": [{"name": name, "type": "person"} for name in names], "relationships": []}


def _pair(source: str, target: str) -> str:
    return f'between "{source}" and "{target}"'


async def _extract(
    provider: FakeLlmProvider, pair_questions: int, domain: DomainSchema = DOMAIN
) -> list[tuple[str, str, str]]:
    extraction = await Extractor(provider, pair_questions=pair_questions).extract(
        DOC, DEFAULT_TENANT, domain=domain
    )
    names = {entity.id: entity.name for entity in extraction.entities}
    return sorted(
        (names[rel.source_id], names[rel.target_id], rel.relationship_type)
        for rel in extraction.relationships
    )


@pytest.mark.asyncio
async def test_each_pair_is_asked_once_and_a_related_pair_becomes_a_relationship() -> None:
    provider = FakeLlmProvider(
        by_substring={
            _pair("Ada Lovelace", "Charles Babbage"): {"related": True, "type": "knows"},
            _pair("Ada Lovelace", "London"): {"related": False, "type": "knows"},
            _pair("Charles Babbage", "London"): {"related": True, "type": "Located-In"},
            "Passage 1 of 1": _entities("Ada Lovelace", "Charles Babbage", "London"),
        }
    )
    found = await _extract(provider, pair_questions=3)
    assert found == [
        ("Ada Lovelace", "Charles Babbage", "knows"),
        ("Charles Babbage", "London", "located_in"),
    ]
    asked = [call.user for call in provider.calls if QUESTION in call.user]
    assert len(asked) == 3
    assert all(DOC.text in question for question in asked)


@pytest.mark.asyncio
async def test_no_pair_is_asked_when_the_answer_states_a_relationship_or_when_off() -> None:
    stated = _entities("Ada Lovelace", "Charles Babbage")
    stated["relationships"] = [
        {"source": "Ada Lovelace", "target": "Charles Babbage", "type": "knows"}
    ]
    provider = FakeLlmProvider(by_substring={"Passage 1 of 1": stated})
    assert len(await _extract(provider, pair_questions=5)) == 1
    off = FakeLlmProvider(by_substring={"Passage 1 of 1": _entities("Ada Lovelace", "London")})
    assert await _extract(off, pair_questions=0) == []
    assert [QUESTION in call.user for call in provider.calls + off.calls] == [False, False]


@pytest.mark.asyncio
async def test_at_most_the_limit_is_asked_and_a_failed_question_leaves_the_entities() -> None:
    provider = FakeLlmProvider(
        by_substring={
            _pair("A", "B"): EmptyCompletionError("nothing", model="m"),
            QUESTION: {"related": True, "type": "knows"},
            "Passage 1 of 1": _entities("A", "B", "C", "D"),
        }
    )
    found = await _extract(provider, pair_questions=2)
    assert found == [("A", "C", "knows")]  # (A, B) failed; (A, C) is the second and last asked
    assert sum(QUESTION in call.user for call in provider.calls) == 2


@pytest.mark.asyncio
async def test_unreadable_answers_are_skipped_and_an_unlisted_type_is_other_if_allowed() -> None:
    def provider() -> FakeLlmProvider:
        return FakeLlmProvider(
            by_substring={
                _pair("A", "B"): MalformedCompletionError("not JSON", model="m"),
                _pair("A", "C"): MalformedCompletionError(
                    "off schema", model="m", answer={"related": "perhaps"}
                ),
                _pair("A", "D"): MalformedCompletionError(
                    "off schema", model="m", answer={"related": True, "type": "knows"}
                ),
                _pair("B", "C"): {"related": True, "type": "invented"},
                QUESTION: {"related": False},
                "Passage 1 of 1": _entities("A", "B", "C", "D"),
            }
        )

    # (A, B) has no answer to read and (A, C) one that is no pair answer: both skipped, and
    # the questions after them are still asked; (A, D) is read loosely from its broken answer.
    closed = provider()
    assert await _extract(closed, pair_questions=6) == [("A", "D", "knows")]
    assert sum(QUESTION in call.user for call in closed.calls) == 6
    open_domain = DOMAIN.model_copy(update={"allows_other": True})
    assert await _extract(provider(), pair_questions=6, domain=open_domain) == [
        ("A", "D", "knows"),
        ("B", "C", "other"),
    ]


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="pair_questions"):
        Extractor(FakeLlmProvider(), pair_questions=-1)
