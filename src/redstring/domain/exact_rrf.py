"""Reciprocal rank fusion from each id's rank in each channel, not from whole lists.

`reciprocal_rank_fusion` needs each channel's ranking as a list; a channel
that ranks every passage of a tenant is too long to read whole for each
query. Its fusion needs only the rank of each id that can reach the top `k`:
`ChunkRetriever` reads the semantic channel's first `k`, the lexical
channel as deep as a candidate could still reach the answer, and asks the
store for the semantic rank of every such candidate beyond those `k`
(`SemanticChunkSource.semantic_ranks`). Any other id ranks below `k`
semantically and, lexically, not at all or too deep to reach the `k`-th
best score the read ranks already give, so it scores below the answer's
last; the first `k` of `rrf_of_ranks` over those ranks are therefore the
first `k` of the fusion of the full rankings, scores included.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from operator import itemgetter

from redstring.domain.fusion import RRF_K


def rrf_of_ranks[IdT: Hashable](
    ranks: Sequence[Mapping[IdT, int]], *, k: int
) -> list[tuple[IdT, float]]:
    """The first `k` ids by RRF over the channels' one-based `ranks`, best first.

    score(id) = sum over the channels that rank it of 1 / (RRF_K + rank),
    added in channel order as `reciprocal_rank_fusion` adds them, so both give
    the same floats; ties break by ascending `str(id)`.
    """
    if k < 0:
        raise ValueError(f"k must be zero or more, got {k}")
    scores: dict[IdT, float] = {}
    for channel in ranks:
        for item, rank in channel.items():
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + rank)
    if k == 0:
        return []
    ordered = sorted(scores.items(), key=itemgetter(1), reverse=True)
    end = min(k, len(ordered))
    while end < len(ordered) and ordered[end][1] == ordered[k - 1][1]:
        end += 1  # every id tied with the k-th takes part in the tie-break
    head = ordered[:end]
    head.sort(key=lambda pair: (-pair[1], str(pair[0])))
    return head[:k]
