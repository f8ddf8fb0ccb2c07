"""What a retriever asks of its `FusionStrategy` beside `fuse`, by the strategy's kind.

`fuse_entities` hands `PooledEvidenceFusion` the lexical first's `WordCover`
(ADR 0540) and calls any other strategy as the protocol says; `fusion_label`
says how a strategy fused (`explain`); `channel_depths` says how deep each
channel is read for it (ADR 0395). Split from `domain/fusion.py`, which holds
the strategies themselves.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.fusion import (
    RRF_K,
    EvidenceFusion,
    FusionStrategy,
    PooledEvidenceFusion,
    ReciprocalRankFusion,
)
from redstring.domain.lexical import WordCover
from redstring.domain.query import NormalizedQuery


def fuse_entities[IdT: Hashable](
    fusion: FusionStrategy,
    semantic: Sequence[tuple[IdT, float]],
    lexical: Sequence[tuple[IdT, float]],
    *,
    query: str | NormalizedQuery,
    cover: WordCover | None,
) -> list[tuple[IdT, float]]:
    """`fusion.fuse` of an entity search's two answers, handing `PooledEvidenceFusion` the
    lexical first's `WordCover` too (ADR 0540); any other strategy is called as the
    `FusionStrategy` protocol says, so a caller's own strategy needs no new argument."""
    if isinstance(fusion, PooledEvidenceFusion):
        return fusion.fuse(semantic, lexical, query=query, cover=cover)
    return fusion.fuse(semantic, lexical, query=query)


def fusion_label[IdT: Hashable](
    fusion: FusionStrategy,
    semantic: Sequence[tuple[IdT, float]],
    lexical: Sequence[tuple[IdT, float]],
    *,
    query: str | NormalizedQuery,
    cover: WordCover | None = None,
) -> str:
    """How `fusion` fuses these answers, for a result to say (`explain`): its kind and
    the numbers it used, the lexical weight included ("pooled_evidence lexical_floor=0.45
    lexical_weight=0.85 power=2 depth=10", "rrf k=60"); another strategy by its class name.
    `semantic`, `lexical` and `query` are what a strategy whose weight depends on the
    answers would read, and `cover` the lexical first's `WordCover` (`fuse_entities`)."""
    if isinstance(fusion, ReciprocalRankFusion):
        return f"rrf k={RRF_K}"
    if isinstance(fusion, ConvexFusion):
        return f"convex semantic_weight={fusion.semantic_weight:g} depth={fusion.depth}"
    if isinstance(fusion, PooledEvidenceFusion):
        floor, weight = fusion.numbers_for(query, semantic, lexical=lexical, cover=cover)
        return (
            f"pooled_evidence lexical_floor={floor:g} "
            f"lexical_weight={weight:g} power={fusion.power:g} "
            f"depth={fusion.depth}"
        )
    if isinstance(fusion, EvidenceFusion):
        return (
            f"evidence lexical_floor={fusion.lexical_floor:g} lexical_weight=0.5 "
            f"power={fusion.power:g}"
        )
    return type(fusion).__name__


def channel_depths(fusion: FusionStrategy, k: int) -> tuple[int, int | None]:
    """How deep the retriever reads the semantic channel and hands over the lexical one
    (`None`: whole) for `fusion` to answer `k`.

    `PooledEvidenceFusion` reads at least its `depth` of both, whatever `k`
    asks, so its first results do not move with `k` (ADR 0395); any other
    strategy reads `k` of both.
    """
    if isinstance(fusion, PooledEvidenceFusion):
        return max(k, fusion.depth), None
    return k, k
