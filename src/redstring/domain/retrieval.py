"""What a retrieval answers with, and what its scores mean.

`ScoredEntity.score` is the fusion strategy's score: ordinal, comparable only
within one result, meaningless across queries, never a similarity. Its range
belongs to the strategy (0..1 for the default `EvidenceFusion`, unbounded for
plain reciprocal rank fusion; ADR 0060), so it is deliberately not read as
`VectorMatch`'s 0..1 scale.

`semantic` and `lexical` are the channels' own scores on 0..1, or `None` when
that channel did not rank the entity. `None` ("not ranked here") and `0.0`
("ranked, and scored zero") are different facts.

`confidence` is comparable across queries, unlike `score`: on 0..1, the
surer channel's calibrated reading of its own score (`domain/confidence.py`,
ADR 0170); 0.5 means "as likely from a query with a match here as from one
without"; `retrieve(..., min_confidence=...)` answers empty when no
candidate reaches it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from redstring.domain.entity import Entity
from redstring.domain.errors import InvalidArgumentError, ModeNeedsEmbeddingsError
from redstring.domain.validation import require_k, require_query

__all__ = [
    "ModeName",
    "RetrievalMode",
    "RetrievalResult",
    "ScoredEntity",
    "parse_mode",
    "require_k",
    "require_query",
    "require_served",
    "resolve_mode",
]


class RetrievalMode(StrEnum):
    """Which channels a retrieval runs."""

    SEMANTIC = "semantic"
    LEXICAL = "lexical"
    HYBRID = "hybrid"


#: What a caller may pass as a mode: the enum, or one of its values spelt out.
ModeName = RetrievalMode | Literal["semantic", "lexical", "hybrid"]


class ScoredEntity(BaseModel):
    """One retrieved entity with its fused score and the channels' own scores."""

    entity: Entity
    #: Fused and ordinal; its range depends on the fusion (see the module docstring).
    score: float
    #: Cosine mapped onto 0..1 (the `VectorMatch` scale), or None if not ranked semantically.
    semantic: float | None = Field(default=None, ge=0.0, le=1.0)
    #: Lexical similarity on 0..1, or None if not ranked lexically.
    lexical: float | None = Field(default=None, ge=0.0, le=1.0)
    #: How likely the entity is related to the query at all, on 0..1 (module docstring);
    #: a retriever always sets it, None only on a result built by hand.
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)


class RetrievalResult(BaseModel):
    """The answer to one query: matches best first."""

    query: str
    matches: list[ScoredEntity] = Field(default_factory=list)
    #: How HYBRID fused the two channels, with the numbers it used (`fusion_label`:
    #: "pooled_evidence lexical_floor=0.45 lexical_weight=0.85 power=2 depth=10" by default,
    #: lexical_weight=0.6 for a query of 3 words or more);
    #: `None` when one channel ran.
    fusion: str | None = None


def resolve_mode(
    requested: RetrievalMode | None,
    *,
    default: RetrievalMode,
    semantic_available: bool,
    primary_constructor: str,
) -> RetrievalMode:
    """The mode a retrieval runs in.

    `None` resolves to the retriever's `default`. A retriever built without an
    embedding provider refuses SEMANTIC and HYBRID with `ModeNeedsEmbeddingsError` naming
    `primary_constructor`, the constructor that serves them; HYBRID is refused
    rather than silently degraded to its lexical half.
    """
    mode = default if requested is None else parse_mode(requested)
    return require_served(
        mode, semantic_available=semantic_available, primary_constructor=primary_constructor
    )


def require_served(
    mode: RetrievalMode, *, semantic_available: bool, primary_constructor: str
) -> RetrievalMode:
    """`mode` if a retriever with (or without) a semantic channel can run it.

    Raises `ModeNeedsEmbeddingsError` naming `primary_constructor` otherwise.
    """
    if mode is not RetrievalMode.LEXICAL and not semantic_available:
        raise ModeNeedsEmbeddingsError(
            mode=mode.value,
            fix=f"This retriever was built lexical-only: construct it with "
            f"{primary_constructor} to use {mode.value}.",
        )
    return mode


def parse_mode(mode: object) -> RetrievalMode:
    """`mode` as a `RetrievalMode`, or `InvalidArgumentError` naming the three modes."""
    if isinstance(mode, str) and mode in {member.value for member in RetrievalMode}:
        return RetrievalMode(mode)
    raise InvalidArgumentError(
        name="mode", value=mode, requirement="one of semantic, lexical, hybrid"
    )
