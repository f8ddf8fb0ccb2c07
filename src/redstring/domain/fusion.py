"""Fusing several best-first rankings into one, by rank rather than by score.

The channels' scores share a range (0..1) but no unit, so a weighted sum would
invent an exchange rate between them; reciprocal rank fusion uses only
position, which every channel produces. Its cost is that magnitude is
discarded, which is why results keep the component scores.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

#: The k of 1/(k + rank), from Cormack, Clarke and Buettcher, "Reciprocal Rank
#: Fusion Outperforms Condorcet and Individual Rank Learning Methods" (SIGIR 2009).
RRF_K = 60


def reciprocal_rank_fusion[IdT: Hashable](
    rankings: Sequence[Sequence[IdT]],
) -> list[tuple[IdT, float]]:
    """Fuse best-first `rankings` into `(id, score)` pairs, best first.

    score(id) = sum over rankings containing id of 1 / (RRF_K + rank), with
    one-based ranks. An id repeated within one ranking counts once, at its best
    rank. An empty ranking contributes nothing and shifts no other ranking.
    Ties break by ascending `str(id)` (for a UUID, its canonical lowercase
    hyphenated form), so the order is total.
    """
    scores: dict[IdT, float] = {}
    for ranking in rankings:
        seen: set[IdT] = set()
        for position, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + position)
    return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))
