"""Reciprocal rank fusion of rankings read only part of the way, certified exact.

`reciprocal_rank_fusion` over two channels' *full* rankings orders every
ranked id; reading a channel to a depth `d` and fusing what was read gives
another order, one that changes with `d` (and so with the `k` a caller asks
for). `certified_rrf` takes each channel's first ids, says whether the
channel ranks anything beyond them, and answers the first `k` of the full
rankings' fusion, with their exact scores, only when what was read proves
it: an id a channel has not yet reached ranks below its depth `d` there, so
that channel adds at most `1 / (RRF_K + d + 1)` to it (0 if it never ranks
it). Otherwise it answers `None`, and the caller reads deeper.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from redstring.domain.fusion import RRF_K, reciprocal_rank_fusion


def certified_rrf[IdT: Hashable](
    prefixes: Sequence[tuple[Sequence[IdT], bool]],
    *,
    k: int,
) -> list[tuple[IdT, float]] | None:
    """The first `k` of the full rankings' `reciprocal_rank_fusion`, or `None`.

    Each prefix is `(ids, complete)`: a channel's first `len(ids)` ids, best
    first, and whether the channel ranks nothing more. The answer is given
    when every id in it has its exact score (each channel that ranks it was
    read to it, or is complete) and nothing unread can reach it: its last
    id's score exceeds every other id's upper bound (equals it only where the
    id string breaks the tie its way, as the full fusion would) and, while
    any channel is incomplete, strictly exceeds what a wholly unread id could
    score. Fewer than `k` are answered only when every channel is complete.
    Ties break by ascending `str(id)`, as in `reciprocal_rank_fusion`.
    """
    if k < 0:
        raise ValueError(f"k must be zero or more, got {k}")
    if k == 0:
        return []
    fused = reciprocal_rank_fusion([ids for ids, _ in prefixes])
    # What an id missing from an incomplete channel can still get from it.
    reach = [0.0 if complete else 1.0 / (RRF_K + len(ids) + 1) for ids, complete in prefixes]
    members = [frozenset(ids) for ids, _ in prefixes]

    def slack(item: IdT) -> float:
        return sum(r for r, seen in zip(reach, members, strict=True) if item not in seen)

    top = fused[:k]
    if any(slack(item) > 0.0 for item, _ in top):
        return None
    unread = sum(reach)
    if len(top) < k:
        return top if unread == 0.0 else None
    last, floor = top[-1]
    if unread >= floor:
        return None
    widest = max(reach, default=0.0) * len(prefixes)
    for item, score in fused[k:]:
        if score + widest < floor:
            break  # best first: no later id can reach the last one either
        bound = score + slack(item)
        if bound > floor or (bound == floor and str(item) < str(last)):
            return None
    return top
