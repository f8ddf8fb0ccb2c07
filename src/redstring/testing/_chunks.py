"""Chunks and vectors the chunk-store suites build their cases from."""

from __future__ import annotations

from collections.abc import Sequence

from redstring.domain.bm25 import LexicalCandidates
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.ids import EntityId, TenantId

DIMENSION = 8


def axis(index: int, sign: float = 1.0, dimension: int = DIMENSION) -> list[float]:
    """A unit vector along one axis."""
    vector = [0.0] * dimension
    vector[index] = sign
    return vector


def blend(a: int, b: int, weight: float, dimension: int = DIMENSION) -> list[float]:
    """`weight` of axis `a` plus `1 - weight` of axis `b` (not normalised)."""
    vector = [0.0] * dimension
    vector[a] += weight
    vector[b] += 1.0 - weight
    return vector


def passage(
    tenant: TenantId,
    source_id: str,
    text: str,
    *,
    index: int = 0,
    embedding: list[float] | None = None,
    entity_ids: Sequence[EntityId] = (),
) -> StoredChunk:
    """A chunk whose offsets pretend it sits at `index * 1000` in its source."""
    start = index * 1000
    return StoredChunk(
        tenant_id=tenant,
        source_id=source_id,
        text=text,
        index=index,
        start=start,
        end=start + len(text),
        entity_ids=list(entity_ids),
        embedding=embedding,
    )


def frequencies(found: LexicalCandidates) -> dict[ChunkId, dict[str, int]]:
    """Candidates as `{chunk id: {term: count}}`, zero counts dropped."""
    return {
        c.chunk_id: {t: n for t, n in c.term_frequencies.items() if n > 0} for c in found.candidates
    }
