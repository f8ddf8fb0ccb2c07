"""Holding an answer to its domain's types: the schema listing them, and what becomes of others.

The answer schema sent for a domain lists its entity and relationship types
as enums (with `other` when the domain allows it), so a server with
structured output cannot answer anything else. A model answering in text
can; `conform` then maps a type that differs from a listed one only in
spelling (case, spaces or hyphens, a plural "s", "-isation") to it, and
any other type to `other` where the domain allows it, else drops the item.
Everything outside the list is counted (ADR 0152).
"""

from __future__ import annotations

import copy
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redstring.extraction.answer import (
    EXTRACTION_SCHEMA,
    ExtractedEntity,
    ExtractedRelationship,
    ExtractionAnswer,
)
from redstring.extraction.domains import OTHER, DomainSchema


def entity_types(domain: DomainSchema) -> list[str]:
    """The entity types an answer under `domain` may use, `other` last when allowed."""
    return [*domain.entity_types, OTHER] if domain.allows_other else list(domain.entity_types)


def relationship_types(domain: DomainSchema) -> list[str]:
    """The relationship types an answer under `domain` may use, `other` last when allowed."""
    listed = list(domain.relationship_types)
    return [*listed, OTHER] if domain.allows_other else listed


def extraction_schema(domain: DomainSchema) -> dict[str, Any]:
    """The JSON schema of an answer under `domain`: types bounded to its lists."""
    schema = copy.deepcopy(EXTRACTION_SCHEMA)
    definitions = schema["$defs"]
    definitions["ExtractedEntity"]["properties"]["type"] = {"enum": entity_types(domain)}
    definitions["ExtractedRelationship"]["properties"]["type"] = {
        "enum": relationship_types(domain)
    }
    return schema


def _form(kind: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", kind.casefold()).strip("_").replace("isation", "ization")


def listed_type(kind: str, allowed: Sequence[str]) -> str | None:
    """The type of `allowed` that `kind` spells (`None` when it names none of them)."""
    forms = {_form(known): known for known in allowed}
    form = _form(kind)
    if form in forms:
        return forms[form]
    return forms.get(form[:-1]) if form.endswith("s") else None


@dataclass
class TypeTally:
    """What `conform` did: types outside the lists by name, and the items it dropped."""

    outside: Counter[str] = field(default_factory=Counter)
    entities_dropped: int = 0
    relationships_dropped: int = 0

    def add(self, other: TypeTally) -> None:
        """Add `other`'s counts to these."""
        self.outside.update(other.outside)
        self.entities_dropped += other.entities_dropped
        self.relationships_dropped += other.relationships_dropped


def conform(answer: ExtractionAnswer, domain: DomainSchema) -> tuple[ExtractionAnswer, TypeTally]:
    """`answer` with every type one of `domain`'s, and the tally of what changed.

    A type not exactly listed is counted in `outside` under its own spelling,
    then mapped by `listed_type`, else to `other` (when allowed), else its
    item is dropped.
    """
    tally = TypeTally()

    def settle(kind: str, allowed: Sequence[str]) -> str | None:
        if kind in allowed:
            return kind
        tally.outside[kind] += 1
        return listed_type(kind, allowed) or (OTHER if domain.allows_other else None)

    entities: list[ExtractedEntity] = []
    for entity in answer.entities:
        kind = settle(entity.type, domain.entity_types)
        if kind is None:
            tally.entities_dropped += 1
        else:
            entities.append(entity.model_copy(update={"type": kind}))
    relationships: list[ExtractedRelationship] = []
    for relationship in answer.relationships:
        kind = settle(relationship.type, domain.relationship_types)
        if kind is None:
            tally.relationships_dropped += 1
        else:
            relationships.append(relationship.model_copy(update={"type": kind}))
    return ExtractionAnswer(entities=entities, relationships=relationships), tally
