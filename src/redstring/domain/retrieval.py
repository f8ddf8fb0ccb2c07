"""What a retrieval answers with, and what its scores mean.

`ScoredEntity.score` is a fused rank score: ordinal, comparable only within
one result, meaningless across queries, never a similarity, and unbounded (it
grows with the number of channels). It is deliberately not on
`VectorMatch`'s 0..1 scale.

`semantic` and `lexical` are the channels' own scores on 0..1, or `None` when
that channel did not rank the entity. `None` ("not ranked here") and `0.0`
("ranked, and scored zero") are different facts.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field

from redstring.domain.entity import Entity


class RetrievalMode(StrEnum):
    """Which channels a retrieval runs."""

    SEMANTIC = "semantic"
    LEXICAL = "lexical"
    HYBRID = "hybrid"


class ScoredEntity(BaseModel):
    """One retrieved entity with its fused score and the channels' own scores."""

    entity: Entity
    #: Fused, ordinal, unbounded; see the module docstring.
    score: float
    #: Cosine mapped onto 0..1 (the `VectorMatch` scale), or None if not ranked semantically.
    semantic: float | None = Field(default=None, ge=0.0, le=1.0)
    #: Lexical similarity on 0..1, or None if not ranked lexically.
    lexical: float | None = Field(default=None, ge=0.0, le=1.0)


class RetrievalResult(BaseModel):
    """The answer to one query: matches best first."""

    query: str
    matches: list[ScoredEntity] = Field(default_factory=list)
