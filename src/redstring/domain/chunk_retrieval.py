"""What chunk search and chunk retrieval answer with, and what their scores mean.

- `ChunkMatch.score`: cosine mapped onto 0..1, the `VectorMatch` scale.
- `ScoredChunk.score`: the fusion strategy's score, as `ScoredEntity.score`:
  ordinal, comparable only within one result; its range belongs to the
  strategy. The default `ConvexFusion` sees `semantic` and `bm25_coverage`;
  another strategy sees `semantic` and `bm25_relative(bm25, top)`, the
  chunk's BM25 over the best BM25 of the same answer.
- `ScoredChunk.semantic`: the chunk's `ChunkMatch.score`, or `None` if the
  semantic channel did not rank it.
- `ScoredChunk.bm25`: the raw BM25 score (>= 0, unbounded, see
  `redstring.domain.bm25`), or `None` if the lexical channel did not rank it.
- `ScoredChunk.lexical`: `bm25 / (bm25 + 1)`, the same fact squeezed onto
  0..1 by a fixed monotone map, so it does not depend on the other results;
  `None` exactly when `bm25` is. It orders chunks like `bm25` and is not a
  probability or a similarity.

- `ScoredChunk.bm25_coverage`: `bm25` over the query's `bm25_ceiling` (the
  sum of its terms' idf, which no chunk reaches), on 0..1 and comparable
  across queries; `None` exactly when `bm25` is.
- `ScoredChunk.confidence`: how likely the chunk is related to the query at
  all, on 0..1 and comparable across queries: the surer channel's calibrated
  reading of `semantic` or `bm25_coverage` (`domain/confidence.py`, ADR
  0170); `retrieve_chunks(..., min_confidence=...)` answers empty when no
  candidate reaches it.

`None` ("not ranked here") and `0.0` ("ranked, scored zero") are different facts.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

from redstring.domain.chunk import StoredChunk
from redstring.domain.retrieval import RetrievalMode


def bm25_to_unit(score: float) -> float:
    """`score / (score + 1)`: a BM25 score (>= 0) onto 0..1, order kept."""
    if score < 0.0:
        raise ValueError(f"a BM25 score is never negative, got {score}")
    return score / (score + 1.0)


def bm25_relative(score: float, top: float) -> float:
    """`score / top`: a BM25 score (>= 0) as a share of its answer's best, on 0..1.

    `top` is the best score of the same lexical answer (`score <= top`); a
    `top` of 0 (every candidate scored nothing) gives 0.
    """
    if score < 0.0 or score > top:
        raise ValueError(f"a BM25 score lies in [0, top], got {score} with top {top}")
    return score / top if top > 0.0 else 0.0


class ChunkMatch(BaseModel):
    """One semantic search hit: a chunk and its cosine on the 0..1 match scale."""

    chunk: StoredChunk
    score: float = Field(ge=0.0, le=1.0)


class ScoredChunk(BaseModel):
    """One retrieved chunk with its fused score and each channel's own score."""

    chunk: StoredChunk
    #: Fused and ordinal; its range depends on the fusion (see the module docstring).
    score: float
    #: Cosine on 0..1 (the `VectorMatch` scale), or None if not ranked semantically.
    semantic: float | None = Field(default=None, ge=0.0, le=1.0)
    #: Raw BM25 (>= 0, unbounded), or None if not ranked lexically.
    bm25: float | None = Field(default=None, ge=0.0)
    #: `bm25` as a share of the query's BM25 ceiling, on 0..1, or None if not ranked lexically.
    bm25_coverage: float | None = Field(default=None, ge=0.0, le=1.0)
    #: How likely the chunk is related to the query at all, on 0..1 (module docstring);
    #: a retriever always sets it, None only on a result built by hand.
    confidence: float | None = Field(default=None, ge=0.0, le=1.0)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def lexical(self) -> float | None:
        """`bm25` mapped onto 0..1 by `bm25 / (bm25 + 1)`, or None if not ranked lexically."""
        return None if self.bm25 is None else bm25_to_unit(self.bm25)


class ChunkRetrievalResult(BaseModel):
    """The answer to one chunk query: matches best first, and the mode that ran."""

    query: str
    mode: RetrievalMode
    matches: list[ScoredChunk] = Field(default_factory=list)
    #: How HYBRID fused the two channels: `fusion_label` of the strategy, its kind and
    #: numbers (`"convex semantic_weight=0.25 depth=50"` by default, `"rrf k=60"` for
    #: reciprocal rank fusion) or its class name; `None` when one channel ran.
    fusion: str | None = None
