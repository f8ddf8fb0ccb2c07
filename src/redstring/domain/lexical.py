"""Scoring an entity against a free-text query by string similarity.

This is a field-weighted string similarity, not a term-weighted corpus ranker:
over entity names, corpus statistics such as document frequency mean little
(ADR 0011). The score is the maximum over fields, never a sum, so many
mediocre fields cannot outrank an exact name and the result stays on 0..1.

A name field scores the best of three readings (ADR 0070), blended with a
character trigram reading (ADR 0115):

- whole string: Jaro-Winkler of the two `matching_form`s;
- token-aware (`token_similarity`): each query token aligned to its best name
  token, discounted for the name's characters the query leaves uncovered, so
  "Lovelace, Ada" and "A. Lovelace" find "Ada Lovelace";
- acronym (`acronym_similarity`): an all-capitals short query against the
  name's initials, so "UCI Corp" finds "United Capital Intl Corp";
- trigrams (`ngram_similarity`): the share of rare trigrams the two forms
  hold in common, weighted by the tenant's trigram counts, so a name sharing
  most characters but no whole token still scores. It counts for
  `NGRAM_MIX` of the name score, the best of the other three for the rest.

A short query (a code: `NormalizedQuery.short`, "GBP") has its whole-string
and token Jaro-Winkler readings length-balanced, multiplied by shorter /
longer length, so a two- or three-letter prefix of a long name ("GBP" ->
"Gbarpolu", 0.70 unbalanced) no longer reads as a near match (ADR 0205).

Only an identical matching form scores 1.0; any other reading is held at
`BELOW_EXACT` at most, so a query equal to a name or alias ranks that entity
first (ADR 0115). The query arrives normalised once (`NormalizedQuery`).
"""

from __future__ import annotations

from collections.abc import Mapping

from rapidfuzz.distance import JaroWinkler

from redstring.domain.blocking import initials_of_tokens
from redstring.domain.entity import Entity
from redstring.domain.legal_forms import KEYLESS_TOKENS
from redstring.domain.ngrams import ngram_keys_of_form, ngram_similarity
from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery
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
#: The share of a name score the trigram reading makes (fitted on the fit half, ADR 0115).
NGRAM_MIX = 0.2
#: The most a name whose matching form differs from the query's can score.
BELOW_EXACT = 0.999


def lexical_score(
    query: NormalizedQuery, entity: Entity, weights: Mapping[str, float] | None = None
) -> float:
    """How well `entity` matches `query` lexically, on 0..1.

    The best of: `name_similarity` against the name, the `normalized_name`
    and each alias; and `PROPERTY_WEIGHT` times `string_similarity` against
    each string property value. Non-string property values are skipped,
    never coerced to text. `weights` are the tenant's trigram weights by key
    (`ngram_weights`); `None` weighs every trigram alike.
    """
    best = max(name_similarity(query, form, weights) for form in _forms(entity))
    for value in entity.properties.values():
        if isinstance(value, str):
            best = max(best, PROPERTY_WEIGHT * string_similarity(query.text, value))
    return best


def name_similarity(
    query: NormalizedQuery, name_form: str, weights: Mapping[str, float] | None = None
) -> float:
    """The name score of one name already in matching form, on 0..1.

    `NGRAM_MIX` times the trigram reading plus the rest times the best of the
    whole-string, token-aware and acronym readings; 1.0 exactly when the
    matching forms are equal, at most `BELOW_EXACT` otherwise; 0.0 when
    either is blank.
    """
    a, b = query.form, name_form
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    tokens = tuple(b.split())
    whole = JaroWinkler.similarity(a, b)
    if query.short:
        whole *= length_balance(len(a), len(b))
    readings = max(
        whole,
        token_similarity(query.tokens, tokens, balanced=query.short),
        acronym_similarity(query, tokens),
    )
    trigrams = ngram_similarity(query.ngrams, ngram_keys_of_form(b), weights)
    return min(BELOW_EXACT, (1.0 - NGRAM_MIX) * readings + NGRAM_MIX * trigrams)


def token_similarity(
    query_tokens: tuple[str, ...], name_tokens: tuple[str, ...], *, balanced: bool = False
) -> float:
    """Query tokens aligned to name tokens, discounted for uncovered name characters; 0..1.

    Each query token takes its best Jaro-Winkler match among the name tokens
    (times `length_balance` when `balanced`; a one-letter query token that is
    a name token's initial scores `INITIAL_SIMILARITY`); the mean, weighted
    by query token length, is the alignment. The share of the name's
    characters in tokens no query token covers (best match below
    `COVER_THRESHOLD`; legal forms and function words never count) costs up
    to `UNCOVERED_PENALTY` of it. Either side empty gives 0.0.
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
                if balanced:
                    score *= length_balance(len(q), len(n))
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


def length_balance(left: int, right: int) -> float:
    """The shorter of two lengths over the longer, on 0..1 (0.0 when both are 0)."""
    longer = max(left, right)
    return min(left, right) / longer if longer else 0.0


def acronym_similarity(query: NormalizedQuery, name_tokens: tuple[str, ...]) -> float:
    """An all-capitals short query against the initials of a name, on 0..1; else 0.0.

    Applies when the query has an `acronym` (one token of 2..6 letters written
    in capitals, legal forms and function words aside: "UCI Corp"); the score
    is the Jaro-Winkler of it against the initials of `name_tokens`.
    """
    if query.acronym is None:
        return 0.0
    initials = initials_of_tokens(name_tokens)
    if len(initials) < 2:
        return 0.0
    return JaroWinkler.similarity(query.acronym, initials)


def _forms(entity: Entity) -> set[str]:
    """The matching forms of the entity's name fields, each once (same form, same score)."""
    fields = (entity.name, entity.normalized_name, *entity.aliases)
    return {matching_form(field) for field in fields}
