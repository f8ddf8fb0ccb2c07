"""A plain BM25 ranker over one object per candidate: the path `rank_chunks` replaced.

Kept in the tests as the reference the columnar ranker must agree with exactly
(ADR 0186): each candidate's score is the `math.fsum` of its distinct terms'
`term_score`, and the top `k` are ordered by `(-score, chunk id string)`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from redstring.domain.bm25 import CorpusStats, LexicalCandidate, idf, term_score
from redstring.domain.chunk import ChunkId


def reference_rank(
    query_terms: Sequence[str],
    candidates: Sequence[LexicalCandidate],
    stats: CorpusStats,
    *,
    k: int,
) -> list[tuple[ChunkId, float]]:
    terms = list(dict.fromkeys(query_terms))
    scored = []
    for candidate in candidates:
        parts = [
            term_score(
                candidate.term_frequencies.get(term, 0),
                candidate.length,
                stats.average_length,
                idf(stats.document_frequencies[term], stats.document_count),
            )
            for term in terms
            if candidate.term_frequencies.get(term, 0) > 0
        ]
        score = math.fsum(parts)
        if score > 0.0:
            scored.append((candidate.chunk_id, score))
    scored.sort(key=lambda pair: (-pair[1], str(pair[0])))
    return scored[:k]
