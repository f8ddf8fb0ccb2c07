"""Character trigrams of names: a candidate source and a similarity that read characters.

A name (in `matching_form`, padded with one space each side) is filed under
each of its distinct trigrams as a blocking key `g:` + trigram (ADR 0115), so
"Tchaikovsky" and "Chaikovsky" share most keys although they share no whole
token. A trigram's weight says how rare it is in the tenant: a trigram held
by `df` entities weighs `ln(1 + NGRAM_DF_CAP / df)` with `df` counted up to
`NGRAM_DF_CAP` (a trigram held by more weighs like one held by that many), so
a weight never depends on anything but the counts in the index.

Candidates are read rare-first: the query's trigrams by ascending `df`, while
the postings read stay within `NGRAM_POSTINGS_BUDGET`, and ranked by the summed
weight of the trigrams they share with the query (ties by ascending id string),
so a cut keeps the entities sharing the most telling characters, not the
lowest ids. A candidate must hold at least `NGRAM_MIN_SHARE` of the query's
summed weight: one shared trigram ("ce ") is not a match.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache

NGRAM_LENGTH = 3
NGRAM_NAMESPACE = "g:"
#: Document frequencies are counted up to this many entities per trigram.
NGRAM_DF_CAP = 1000
#: The most posting ids the lexical channel reads for one query's trigrams.
NGRAM_POSTINGS_BUDGET = 3000
#: The most trigram candidates the lexical channel keeps for scoring.
NGRAM_CANDIDATE_LIMIT = 50
#: The least share of the query's summed trigram weight a trigram candidate must hold.
NGRAM_MIN_SHARE = 0.3


@lru_cache(maxsize=1 << 17)
def ngram_keys_of_form(form: str) -> frozenset[str]:
    """The `g:` keys of the distinct trigrams of `form` padded with a space each side.

    `form` must already be a `matching_form`; a blank one has none. "ab" gives
    `g: ab` and `g:ab `: every non-blank form has at least one.
    """
    if not form:
        return frozenset()
    padded = f" {form} "
    last = len(padded) - NGRAM_LENGTH
    return frozenset([NGRAM_NAMESPACE + padded[at : at + NGRAM_LENGTH] for at in range(last + 1)])


def ngram_weight(df: int) -> float:
    """`ln(1 + NGRAM_DF_CAP / df)`, with `df` clamped to 1..`NGRAM_DF_CAP`.

    A trigram nothing else holds (`df` 0 or 1) weighs most (about 6.9); one
    held by `NGRAM_DF_CAP` or more entities weighs `ln 2`.
    """
    clamped = min(max(df, 1), NGRAM_DF_CAP)
    return math.log1p(NGRAM_DF_CAP / clamped)


#: The weight of a trigram nothing else holds.
UNSEEN_WEIGHT = ngram_weight(1)


def ngram_weights(counts: Mapping[str, int]) -> dict[str, float]:
    """`ngram_weight` of each key's count."""
    return {key: ngram_weight(df) for key, df in counts.items()}


def rarest_first(counts: Mapping[str, int], budget: int = NGRAM_POSTINGS_BUDGET) -> list[str]:
    """The keys to read postings for: rarest first, while their counts sum within `budget`.

    Keys nothing is filed under are skipped; ties go to the key string. The
    rarest held key is always taken, even alone above `budget`.
    """
    taken: list[str] = []
    spent = 0
    for df, key in sorted((df, key) for key, df in counts.items() if df > 0):
        if taken and spent + df > budget:
            break
        taken.append(key)
        spent += df
    return taken


def rank_by_ngrams(
    postings: Mapping[str, Sequence[int]], weights: Mapping[str, float], limit: int
) -> list[int]:
    """The at most `limit` id numbers with the largest summed weight of their keys, best first.

    `weights` holds every query trigram key (read or not); an id whose summed
    weight is below `NGRAM_MIN_SHARE` of their total is left out. An id
    listed twice under one key counts once; ties go to the ascending id
    string. `limit` below 1 gives `[]`.

    The ids are summed in groups, never one at a time: each group holds the ids
    listed under the same keys so far, and a key's ids split the groups they
    meet (set operations, in C). Each id's total is still its keys' weights
    added in the order `postings` lists them, as one id at a time would add them.
    """
    if limit < 1:
        return []
    floor = NGRAM_MIN_SHARE * sum(weights.values())
    groups: list[tuple[set[int], float]] = []
    for key, ids in postings.items():
        weight = weights[key]
        rest = set(ids)
        split: list[tuple[set[int], float]] = []
        for members, total in groups:
            if not rest:
                break
            inside = members & rest
            if inside:
                members.difference_update(inside)
                rest.difference_update(inside)
                split.append((inside, total + weight))
        if rest:
            split.append((rest, 0.0 + weight))
        groups = [group for group in groups if group[0]]
        groups.extend(split)
    # Groups of other keys may sum alike: ids of one total are ordered together.
    by_total: dict[float, list[set[int]]] = {}
    for members, total in groups:
        if total >= floor:
            by_total.setdefault(total, []).append(members)
    best: list[int] = []
    for total in sorted(by_total, reverse=True):
        if len(best) >= limit:
            break
        best.extend(sorted(set().union(*by_total[total])))
    return best[:limit]


def ngram_similarity(
    query_keys: frozenset[str],
    name_keys: frozenset[str],
    weights: Mapping[str, float] | None,
    query_total: float | None = None,
) -> float:
    """How many of their trigrams two forms share, on 0..1 (1 when the sets are equal).

    The harmonic mean of the weighted share of the query's trigrams the name
    holds (`weights`, by key; `None` weighs each 1; a key missing from it
    weighs as a trigram nothing else holds) and the plain share of the
    name's trigrams the query holds. Either side empty gives 0.0.
    `query_total` is `ngram_total(query_keys, weights)`, when already known.
    """
    shared = query_keys & name_keys
    if not shared:
        return 0.0
    if weights is None:
        recall = len(shared) / len(query_keys)
    else:
        total = _summed(query_keys, weights) if query_total is None else query_total
        recall = _summed(shared, weights) / total
    precision = len(shared) / len(name_keys)
    return 2.0 * recall * precision / (recall + precision)


def ngram_total(keys: frozenset[str], weights: Mapping[str, float] | None) -> float | None:
    """The summed weight of `keys` (`UNSEEN_WEIGHT` for one missing); `None` when `weights` is."""
    return None if weights is None else _summed(keys, weights)


def _summed(keys: frozenset[str], weights: Mapping[str, float]) -> float:
    return sum(weights.get(key, UNSEEN_WEIGHT) for key in keys)
