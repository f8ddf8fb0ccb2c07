"""A convex combination of the two channels' scores: semantic stretched over the query's
answer, lexical as the share of the query's BM25 weight matched.

`ChunkRetriever`'s default fusion (ADR 0440, 0495). Bruch, Gai and Ingber ("An
Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023) found a convex
combination of normalised scores ahead of rank fusion and needing few
examples to tune; its two numbers here, the semantic weight and the depth
the semantic score is stretched to, were chosen by the worst passage family
left out of the choice (`python -m scripts.quality.passage_rules`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.query import NormalizedQuery

#: The semantic evidence's share of the fused score (ADR 0495: every fold but one chose it).
CONVEX_SEMANTIC_WEIGHT = 0.25
#: The semantic rank whose score is evidence 0: the first's is 1 (ADR 0440).
CONVEX_DEPTH = 50


@dataclass(frozen=True)
class ConvexFusion:
    """`w * semantic evidence + (1 - w) * lexical evidence`, best first.

    Semantic evidence stretches a score between the query's first semantic
    score (1) and its `depth`-th (0, or the last's when fewer were ranked),
    so a chunk at rank `depth` or deeper has none; lexical evidence is the
    lexical score as given, on 0..1: `ChunkRetriever` hands BM25 over the
    query's ceiling (`bm25_coverage`), so a match on a few common words of
    a long query counts for little however it ranks. An id a channel did
    not rank gets 0 from it.
    Ids with evidence come first, by fused score, ties by `str(id)`; then
    the others in the semantic order. The fused score is that combination
    (0..1). `w` is `semantic_weight`. Reading the semantic channel to at
    least `depth` and the lexical one to `k` (with the lexical scores of the
    semantic first `depth`) gives the first `k` of the order over every
    chunk. Raises `InvalidArgumentError` for a weight outside 0..1 or a
    depth below 2, and `fuse` for a lexical score outside 0..1.
    """

    semantic_weight: float = CONVEX_SEMANTIC_WEIGHT
    depth: int = CONVEX_DEPTH

    def __post_init__(self) -> None:
        if not 0.0 <= self.semantic_weight <= 1.0:
            raise InvalidArgumentError(
                name="semantic_weight",
                value=self.semantic_weight,
                requirement="a number from 0 to 1: the semantic evidence's share of the whole",
            )
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 2:
            raise InvalidArgumentError(
                name="depth",
                value=self.depth,
                requirement="an int of at least 2: the semantic rank whose score is evidence 0",
            )

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        """Ids in the order of the class docstring, each with its fused score; `query`
        is not read."""
        weight = self.semantic_weight
        fused: dict[IdT, float] = {}
        if semantic:
            top, low = semantic[0][1], semantic[min(self.depth, len(semantic)) - 1][1]
            span = top - low
            for item, score in semantic[: self.depth]:
                stretched = (score - low) / span if span > 0.0 else 1.0
                fused[item] = max(fused.get(item, 0.0), weight * stretched)
        outside = next((score for _, score in lexical if not 0.0 <= score <= 1.0), None)
        if outside is not None:
            raise InvalidArgumentError(
                name="lexical",
                value=outside,
                requirement="scores on 0..1: hand BM25 as bm25_coverage (its share of the "
                "query's bm25_ceiling), not raw",
            )
        seen: set[IdT] = set()
        for item, score in lexical:
            if item not in seen:
                seen.add(item)
                fused[item] = fused.get(item, 0.0) + (1.0 - weight) * score
        held = sorted(
            ((item, value) for item, value in fused.items() if value > 0.0),
            key=lambda pair: (-pair[1], str(pair[0])),
        )
        placed = {item for item, _ in held}
        rest: list[tuple[IdT, float]] = []
        for item, _ in (*semantic, *lexical):
            if item not in placed:
                placed.add(item)
                rest.append((item, 0.0))
        return held + rest
