"""Asking about relationships one pair at a time, for models too small to list them.

A small model asked for entities and relationships in one answer names the
entities and leaves the relationships empty. `ask_pairs` takes a chunk's
answer that names two or more entities and no relationship, and asks the
model about each pair of them in turn (at most `limit` pairs, in the order
the answer named them): does the passage relate the two, and how. A pair
said to be related becomes a relationship from the first-named to the
second. A question that fails is skipped: the chunk's entities stand.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from pydantic import BaseModel, ValidationError

from redstring.domain.chunk import TextSpan
from redstring.domain.errors import MalformedCompletionError, RedstringError
from redstring.domain.normalization import normalize_name
from redstring.extraction.answer import ExtractedRelationship, ExtractionAnswer
from redstring.extraction.domains import OTHER, DomainSchema
from redstring.extraction.vocabulary import listed_type, relationship_types
from redstring.ports.llm_provider import LlmProvider


class PairAnswer(BaseModel):
    """Whether a passage relates two things it names, and the relationship's type."""

    related: bool
    type: str = ""


def pair_schema(domain: DomainSchema) -> dict[str, Any]:
    """The JSON schema of a `PairAnswer` under `domain`."""
    return {
        "type": "object",
        "properties": {
            "related": {"type": "boolean"},
            "type": {"enum": relationship_types(domain)},
        },
        "required": ["related", "type"],
        "additionalProperties": False,
    }


def pair_system_prompt(domain: DomainSchema) -> str:
    """The system prompt of a pair question under `domain`."""
    return (
        "You read a passage and say whether it states a relationship between two "
        "things it names.\n"
        f"Relationship types: {', '.join(relationship_types(domain))}.\n"
        "Answer with JSON only."
    )


def pair_user_prompt(span: TextSpan, source: str, target: str) -> str:
    """The question whether the passage relates `source` and `target`."""
    return (
        f"Passage:\n<<<\n{span.text}\n>>>\n"
        f'Does the passage state a relationship between "{source}" and "{target}"? '
        'Answer {"related": true, "type": "..."} with the type from the list, '
        'or {"related": false, "type": "related_to"} when it does not.'
    )


def pairs_to_ask(answer: ExtractionAnswer, limit: int) -> list[tuple[str, str]]:
    """The pairs of entities `answer` names, first `limit` in naming order; none when the
    answer already states a relationship or names fewer than two entities."""
    if answer.relationships or limit <= 0:
        return []
    names: dict[str, str] = {}
    for entity in answer.entities:
        names.setdefault(normalize_name(entity.name), entity.name)
    return list(combinations(names.values(), 2))[:limit]


async def ask_pairs(
    provider: LlmProvider,
    domain: DomainSchema,
    span: TextSpan,
    answer: ExtractionAnswer,
    *,
    limit: int,
) -> ExtractionAnswer:
    """`answer` with a relationship for each asked pair the model said is related."""
    found: list[ExtractedRelationship] = []
    system, schema = pair_system_prompt(domain), pair_schema(domain)
    for source, target in pairs_to_ask(answer, limit):
        user = pair_user_prompt(span, source, target)
        try:
            raw = await provider.complete_json(system=system, user=user, schema=schema)
        except MalformedCompletionError as error:
            if error.answer is None:
                continue
            raw = error.answer
        except RedstringError:
            continue
        try:
            pair = PairAnswer.model_validate(raw)
        except ValidationError:
            continue
        if pair.related:
            kind = listed_type(pair.type, domain.relationship_types)
            if kind is None and domain.allows_other:
                kind = OTHER
            if kind is not None:
                found.append(ExtractedRelationship(source=source, target=target, type=kind))
    return answer.model_copy(update={"relationships": found}) if found else answer
