"""Scoring an entity against a free-text query by string similarity.

This is a field-weighted string similarity, not a term-weighted corpus ranker:
over entity names, corpus statistics such as document frequency mean little
(ADR 0011). The score is the maximum over fields, never a sum, so many
mediocre fields cannot outrank an exact name and the result stays on 0..1.

A name field scores the best of three readings (ADR 0070):

- whole string: Jaro-Winkler of the two `matching_form`s;
- token-aware (`token_similarity`): each query token aligned to its best name
  token, discounted for the name's characters the query leaves uncovered, so
  "Lovelace, Ada" and "A. Lovelace" find "Ada Lovelace";
- acronym (`acronym_similarity`): an all-capitals short query against the
  name's initials, so "UCI Corp" finds "United Capital Intl Corp".
"""

from __future__ import annotations

import re
from functools import lru_cache

from rapidfuzz.distance import JaroWinkler

from redstring.domain.blocking import KEYLESS_TOKENS, MAX_ACRONYM_LENGTH, initials_of
from redstring.domain.entity import Entity
from redstring.domain.normalization import matching_form, matching_tokens
from redstring.domain.similarity import string_similarity

#: What a match on a string property value is worth relative to one on a name.
#: Measured on the quality corpus: no value below 1.0 changes the ranking (ADR 0061).
PROPERTY_WEIGHT = 0.6
#: How much of the token score is lost when the query covers none of the name's
#: characters (fitted on the quality corpus's fit half, ADR 0070).
UNCOVERED_PENALTY = 0.1
#: A name token counts as covered when its best match to a query token reaches this.
COVER_THRESHOLD = 0.85
#: What a one-letter query token ("A." in "A. Lovelace") scores against a name
#: token it is the initial of; below 1.0 so a spelled-out match ranks first.
INITIAL_SIMILARITY = 0.9

_RAW_WORD = re.compile(r"[^\W_]+")


def lexical_score(query: str, entity: Entity) -> float:
    """How well `entity` matches `query` lexically, on 0..1.

    The best of: `name_similarity` against the name, the `normalized_name`
    and each alias; and `PROPERTY_WEIGHT` times `string_similarity` against
    each string property value. Non-string property values are skipped,
    never coerced to text.
    """
    best = max(name_similarity(query, name) for name in _names(entity))
    for value in entity.properties.values():
        if isinstance(value, str):
            best = max(best, PROPERTY_WEIGHT * string_similarity(query, value))
    return best


def name_similarity(query: str, name: str) -> float:
    """The best of the whole-string, token-aware and acronym readings, on 0..1.

    1.0 when the matching forms are equal; 0.0 when either is blank.
    """
    a, b = matching_form(query), matching_form(name)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    whole = JaroWinkler.similarity(a, b)
    return max(
        whole,
        token_similarity(matching_tokens(query), matching_tokens(name)),
        acronym_similarity(query, name),
    )


def token_similarity(query_tokens: tuple[str, ...], name_tokens: tuple[str, ...]) -> float:
    """Query tokens aligned to name tokens, discounted for uncovered name characters; 0..1.

    Each query token takes its best Jaro-Winkler match among the name tokens
    (a one-letter query token that is a name token's initial scores
    `INITIAL_SIMILARITY`); the mean, weighted by query token length, is the
    alignment. The share of the name's characters in tokens no query token
    covers (best match below `COVER_THRESHOLD`; legal forms and function
    words never count) costs up to `UNCOVERED_PENALTY` of it. Either side
    empty gives 0.0.
    """
    if not query_tokens or not name_tokens:
        return 0.0
    best_for_name = [0.0] * len(name_tokens)
    aligned = 0.0
    query_chars = 0
    jaro_winkler = JaroWinkler.similarity
    for q in query_tokens:
        best = 0.0
        initial = len(q) == 1
        for at, n in enumerate(name_tokens):
            if q == n:
                score = 1.0
            elif initial:
                score = INITIAL_SIMILARITY if n.startswith(q) else 0.0
            else:
                score = jaro_winkler(q, n)
            best = max(best, score)
            best_for_name[at] = max(best_for_name[at], score)
        aligned += best * len(q)
        query_chars += len(q)
    total = uncovered = 0
    for n, covered in zip(name_tokens, best_for_name, strict=True):
        if n in KEYLESS_TOKENS:
            continue
        total += len(n)
        if covered < COVER_THRESHOLD:
            uncovered += len(n)
    share = uncovered / total if total else 0.0
    return aligned / query_chars * (1.0 - UNCOVERED_PENALTY * share)


def acronym_similarity(query: str, name: str) -> float:
    """An all-capitals short query against the initials of `name`, on 0..1; else 0.0.

    Applies when the query, legal forms and function words aside, is one
    token of 2..`MAX_ACRONYM_LENGTH` letters written in capitals ("UCI
    Corp"); the score is the Jaro-Winkler of that token against
    `initials_of(name)`.
    """
    acronym = _acronym_in(query)
    if acronym is None:
        return 0.0
    initials = initials_of(name)
    if len(initials) < 2:
        return 0.0
    return JaroWinkler.similarity(acronym, initials)


@lru_cache(maxsize=1 << 12)
def _acronym_in(query: str) -> str | None:
    """The query's acronym in matching form, or `None` when it is not an acronym query."""
    words = [w for w in _RAW_WORD.findall(query) if w.casefold() not in KEYLESS_TOKENS]
    if len(words) != 1:
        return None
    [word] = words
    if not (2 <= len(word) <= MAX_ACRONYM_LENGTH and word.isalpha() and word.isupper()):
        return None
    return matching_form(word)


def _names(entity: Entity) -> list[str]:
    """The entity's name fields, one per distinct matching form (same score, scored once)."""
    fields = [entity.name, entity.normalized_name, *entity.aliases]
    return list({matching_form(field): field for field in reversed(fields)}.values())
