"""A cheap pre-score that cuts a pool of lexical candidates before the full score.

The lexical channel gathers a pool of candidates from its lookups (the
telling name-key blocks, the trigram postings) larger than it can afford to
score with `lexical_score`. `prescore_cut` orders the pool by a reading
computed for all of it at once in rapidfuzz's C loops: the Jaro-Winkler
similarity of the query's matching form to each name's, and of the two forms
with their tokens sorted (so "Smith, John" reads like "John Smith"); an
entity takes the best over its name and aliases. An entity with a name
holding every query word whole (`NormalizedQuery.held_by`) comes before
every other whatever its reading (ADR 0350). Ties go to the ascending id
string, so the cut is deterministic. It only chooses which candidates the
full score sees; it never ranks an answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery

#: The most ids the name-key shortlist hands to the pre-score (the trigram source adds its own).
PRESCORE_POOL_LIMIT = 300
#: Added to the reading of a name holding every query word: more than any reading (at most 1).
HELD_FIRST = 2.0


@lru_cache(maxsize=1 << 16)
def sorted_tokens(form: str) -> str:
    """`form`'s tokens in sorted order, joined by one space (cached: names recur)."""
    return " ".join(sorted(form.split()))


def prescore_cut(
    query: NormalizedQuery, names: Mapping[int, Sequence[str]], limit: int
) -> list[int]:
    """The at most `limit` id numbers of `names` whose names read closest to `query`, best first.

    `names` maps each id number (`EntityId.int`) to its name and aliases as stored. Those holding
    every query word come first; within each part, by the larger of the two
    Jaro-Winkler similarities (whole forms, sorted tokens), the best over an
    entity's names; ties by ascending id string.
    `limit` below 1 gives `[]`.
    """
    if limit < 1 or not names:
        return []
    ids = sorted(names)  # an id's number orders as its string
    owners: list[int] = []
    forms: list[str] = []
    held: list[float] = []
    for at, number in enumerate(ids):
        for name in names[number]:  # a name repeated as an alias scores alike: no harm
            form = matching_form(name)
            owners.append(at)
            forms.append(form)
            held.append(HELD_FIRST if query.held_by(form.split()) else 0.0)
    scorer = JaroWinkler.normalized_similarity
    whole = process.cdist([query.form], forms, scorer=scorer)[0]
    reordered = process.cdist(
        [sorted_tokens(query.form)], [sorted_tokens(form) for form in forms], scorer=scorer
    )[0]
    best = np.zeros(len(ids))
    reading = np.maximum(whole, reordered) + np.asarray(held)
    np.maximum.at(best, np.asarray(owners, dtype=np.intp), reading)
    order = np.argsort(-best, kind="stable")[:limit]  # stable: ties keep the id order
    return [ids[at] for at in order.tolist()]
