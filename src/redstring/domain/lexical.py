"""Scoring an entity against a free-text query by string similarity.

This is a field-weighted string similarity, not a term-weighted corpus ranker:
over entity names, corpus statistics such as document frequency mean little
(see docs/adr). The score is the maximum over fields, never a sum, so many
mediocre fields cannot outrank an exact name and the result stays on 0..1.
"""

from __future__ import annotations

from redstring.domain.entity import Entity
from redstring.domain.similarity import string_similarity

#: What a match on a string property value is worth relative to one on a name.
#: Measured on the quality corpus: no value below 1.0 changes the ranking (ADR 0061).
PROPERTY_WEIGHT = 0.6


def lexical_score(query: str, entity: Entity) -> float:
    """How well `entity` matches `query` lexically, on 0..1.

    The best of: `string_similarity` against the name, the `normalized_name`
    and each alias; and `PROPERTY_WEIGHT` times the similarity against each
    string property value. Non-string property values are skipped, never
    coerced to text.
    """
    best = max(string_similarity(query, name) for name in _names(entity))
    for value in entity.properties.values():
        if isinstance(value, str):
            best = max(best, PROPERTY_WEIGHT * string_similarity(query, value))
    return best


def _names(entity: Entity) -> list[str]:
    return [entity.name, entity.normalized_name, *entity.aliases]
