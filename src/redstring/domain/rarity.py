"""How much evidence each query word carries: its rarity among the tenant's names (ADR 0350).

A word held whole by `df` of the tenant's entities (the size of its `k:`
block, counted up to `NGRAM_DF_CAP`) weighs `ngram_weight(df)`, as a trigram
does: about 6.9 for a word one name holds (or none), `ln 2` for one held by
`NGRAM_DF_CAP` names or more. A match on a word half the names carry counts
for almost nothing, a match on a word two names carry for a lot.
"""

from __future__ import annotations

from collections.abc import Mapping

from redstring.domain.blocking import WORD_NAMESPACE
from redstring.domain.ngrams import NGRAM_DF_CAP, ngram_weight
from redstring.domain.query import NormalizedQuery

#: The weight of a query token with no key (a legal form, a function word, one letter):
#: that of a token held by `NGRAM_DF_CAP` names or more.
COMMON_WORD_WEIGHT = ngram_weight(NGRAM_DF_CAP)


def word_weights(
    query: NormalizedQuery, weights: Mapping[str, float] | None
) -> tuple[float, ...] | None:
    """Each query token's rarity weight, in token order; `None` when `weights` is.

    `weights` maps keys to `ngram_weight`s of their counts; a keyed token
    weighs as its `k:` key's (a token no name holds weighs most), a token
    without a key as the commonest, `COMMON_WORD_WEIGHT`.
    """
    if weights is None:
        return None
    return tuple(weights.get(WORD_NAMESPACE + token, COMMON_WORD_WEIGHT) for token in query.tokens)
