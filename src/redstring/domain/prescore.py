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
full score sees; it never ranks an answer. A stored name's forms are read
once (`name_forms`, cached: a tenant's names recur across queries).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery

#: The most ids the name-key shortlist hands to the pre-score (the trigram source adds its own).
PRESCORE_POOL_LIMIT = 300
#: Added to the reading of a name holding every query word: more than any reading (at most 1).
HELD_FIRST = 2.0


class NameForms(NamedTuple):
    """A stored name as the pre-score reads it: its `matching_form`, that form's tokens in
    order, and `sorted_tokens` of the form."""

    form: str
    tokens: tuple[str, ...]
    reordered: str


def sorted_tokens(form: str) -> str:
    """`form`'s tokens in sorted order, joined by one space."""
    return " ".join(sorted(form.split()))


@lru_cache(maxsize=1 << 16)
def name_forms(name: str) -> NameForms:
    """The `NameForms` of one stored name (cached: the names of a tenant recur across queries)."""
    form = matching_form(name)
    tokens = tuple(form.split())
    return NameForms(form, tokens, " ".join(sorted(tokens)))


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
    forms: list[NameForms] = []
    for at, number in enumerate(ids):
        for name in names[number]:  # a name repeated as an alias scores alike: no harm
            owners.append(at)
            forms.append(name_forms(name))
    held = [HELD_FIRST if query.held_by(read.tokens) else 0.0 for read in forms]
    scorer = JaroWinkler.normalized_similarity
    whole = process.cdist([query.form], [read.form for read in forms], scorer=scorer)[0]
    reordered = process.cdist(
        [sorted_tokens(query.form)], [read.reordered for read in forms], scorer=scorer
    )[0]
    best = np.zeros(len(ids))
    reading = np.maximum(whole, reordered) + np.asarray(held)
    np.maximum.at(best, np.asarray(owners, dtype=np.intp), reading)
    order = np.argsort(-best, kind="stable")[:limit]  # stable: ties keep the id order
    return [ids[at] for at in order.tolist()]
