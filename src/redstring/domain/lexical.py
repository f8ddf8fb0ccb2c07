"""Scoring an entity against a free-text query: the share of the query's evidence a name holds.

A field-weighted string similarity whose evidence is weighed by rarity (ADR
0350, amending 0011): each query token weighs `ln(1 + 1000 / df)`, `df` the
number of the tenant's entities holding it whole in a name or alias
(`domain/rarity.py`), so a match on a word half the names carry counts for
almost nothing and one on a word two names carry for a lot, as in SoftTFIDF
(Cohen, Ravikumar and Fienberg 2003). The score is the maximum over fields,
never a sum, so it stays on 0..1. A name field scores in three bands:

- 1.0: the matching forms are identical (ADR 0115);
- `HOLDS_EVERY_WORD` up to `BELOW_EXACT`: the name holds every query word
  whole (`NormalizedQuery.held_by`), higher as the query covers more of the
  name's characters; so an exact word is never outranked by a look-alike;
- below `HOLDS_EVERY_WORD`: any other name, by its share of the query's
  evidence, kept as it is up to `SQUEEZE_FROM` and squeezed above it.

That share blends two readings, `NGRAM_MIX` of trigrams and the rest of the
better of:

- token-aware (`token_similarity`): each query token aligned to its best name
  token (equal 1.0; the initial of a token no other query word holds,
  `INITIAL_SIMILARITY`; else Jaro-Winkler rescaled from `NEAR_FLOOR`),
  averaged with the rarity weights and discounted for the name's characters
  the query leaves uncovered, so "Lovelace, Ada" and "A. Lovelace" find "Ada
  Lovelace";
- acronym (`acronym_similarity`): an all-capitals short query against the
  name's initials, length-balanced, so "UCI Corp" finds "United Capital
  Intl Corp" and "NIO" does not near-match "New Ireland";
- trigrams (`ngram_similarity`): the share of rare trigrams the two forms
  hold in common, weighted by the tenant's trigram counts, so a name sharing
  most characters but no whole token still scores.

A short query (a code: `NormalizedQuery.short`, "GBP") has its token
Jaro-Winkler readings length-balanced, multiplied by shorter / longer
length, so a two- or three-letter prefix of a long name ("GBP" ->
"Gbarpolu") does not read as a near match (ADR 0205). The query arrives
normalised once (`NormalizedQuery`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from rapidfuzz.distance import JaroWinkler

from redstring.domain.blocking import WORD_NAMESPACE, initials_of_tokens, query_token_keys
from redstring.domain.entity import Entity
from redstring.domain.ids import EntityId
from redstring.domain.legal_forms import KEYLESS_TOKENS
from redstring.domain.ngrams import ngram_keys_of_form, ngram_similarity, ngram_total
from redstring.domain.normalization import matching_form, normalize_name
from redstring.domain.query import NormalizedQuery
from redstring.domain.rarity import word_weights
from redstring.domain.similarity import form_similarity
from redstring.domain.tokenize import DEFAULT_LANGUAGE, Analyzer

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
#: The least a name holding every query word whole scores; any other scores below (ADR 0350).
HOLDS_EVERY_WORD = 0.9
#: Any other name's score is kept as it is up to here, and squeezed above it (ADR 0350).
SQUEEZE_FROM = 0.8
#: The Jaro-Winkler two unrelated tokens reach by chance; a token's closeness is rescaled
#: from it to 1.0 onto 0..1, so an unrelated rare word earns nothing (ADR 0350).
NEAR_FLOOR = 0.5


def _roman(value: int) -> str:
    tens, units = divmod(value, 10)
    return "x" * tens + ["", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"][units]


#: A number from 1 to 39 in Roman and in Arabic numerals, each to the other ("iv" <-> "4").
SAME_NUMBER = {
    **{_roman(v): str(v) for v in range(1, 40)},
    **{str(v): _roman(v) for v in range(1, 40)},
}


def lexical_score(
    query: NormalizedQuery, entity: Entity, weights: Mapping[str, float] | None = None
) -> float:
    """How well `entity` matches `query` lexically, on 0..1.

    The best of: `name_similarity` against the name, the `normalized_name`
    and each alias; and `PROPERTY_WEIGHT` times `string_similarity` against
    each string property value. Non-string property values are skipped,
    never coerced to text. `weights` are the tenant's rarity weights by key
    (`ngram_weights` of the query's `g:` and `k:` counts); `None` weighs
    every trigram and word alike.
    """
    return lexical_scores(query, [entity], weights)[0]


def lexical_scores(
    query: NormalizedQuery, entities: Iterable[Entity], weights: Mapping[str, float] | None = None
) -> list[float]:
    """`lexical_score` of each of `entities`, in order, reading what only the query sets once."""
    rarity = word_weights(query, weights)
    gram_total = ngram_total(query.ngrams, weights)
    text = normalize_name(query.text)
    scores = []
    for entity in entities:
        best = max(
            name_similarity(query, form, weights, rarity, gram_total) for form in _forms(entity)
        )
        for value in entity.properties.values():
            if isinstance(value, str):
                best = max(best, PROPERTY_WEIGHT * form_similarity(text, normalize_name(value)))
        scores.append(best)
    return scores


def name_similarity(
    query: NormalizedQuery,
    name_form: str,
    weights: Mapping[str, float] | None = None,
    rarity: tuple[float, ...] | None = None,
    gram_total: float | None = None,
) -> float:
    """The name score of one name already in matching form, on 0..1.

    1.0 exactly when the matching forms are equal. A name holding every
    query word whole (`NormalizedQuery.held_by`) scores from
    `HOLDS_EVERY_WORD` up to `BELOW_EXACT` as the query covers more of the
    name's characters. Any other name scores `HOLDS_EVERY_WORD` times its
    share of the query's evidence: `NGRAM_MIX` times the trigram reading
    plus the rest times the better of the rarity-weighted token reading
    (`token_similarity` with `rarity`, the query tokens' weights) and the
    acronym reading; so it always ranks below a name holding every word.
    A query of function words and legal forms only (no `words`: "the",
    "Inc") is read by its trigrams alone. 0.0 when either form is blank.
    `gram_total` is `ngram_total` of the query's trigrams, when already known.
    """
    a, b = query.form, name_form
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    tokens = tuple(b.split())
    if query.held_by(tokens):
        covered = 1.0 - uncovered_share(query.words, tokens)
        return HOLDS_EVERY_WORD + (BELOW_EXACT - HOLDS_EVERY_WORD) * covered
    # A query of function words and legal forms only ("the", "Inc") has no word to match.
    readings = (
        max(
            token_similarity(query.tokens, tokens, rarity, balanced=query.short),
            acronym_similarity(query, tokens),
        )
        if query.words
        else 0.0
    )
    trigrams = ngram_similarity(query.ngrams, ngram_keys_of_form(b), weights, gram_total)
    raw = min(BELOW_EXACT, (1.0 - NGRAM_MIX) * readings + NGRAM_MIX * trigrams)
    return below_every_word(raw)


def below_every_word(raw: float) -> float:
    """`raw` (0..1) kept below `HOLDS_EVERY_WORD`: unchanged up to `SQUEEZE_FROM`, the rest
    squeezed linearly onto `SQUEEZE_FROM`..`HOLDS_EVERY_WORD`, so the order stays."""
    if raw <= SQUEEZE_FROM:
        return raw
    return SQUEEZE_FROM + (raw - SQUEEZE_FROM) * (HOLDS_EVERY_WORD - SQUEEZE_FROM) / (
        1.0 - SQUEEZE_FROM
    )


def token_similarity(
    query_tokens: tuple[str, ...],
    name_tokens: tuple[str, ...],
    rarity: tuple[float, ...] | None = None,
    *,
    balanced: bool = False,
) -> float:
    """The share of the query's weighted tokens a name matches, less what it leaves out; 0..1.

    Each query token takes its best match among the name tokens: 1.0 when
    equal or the same number in the other numerals (`SAME_NUMBER`);
    `INITIAL_SIMILARITY` when it is one letter and the initial of a name
    token no query token equals ("c" of "joe clarke" for "clarke c" matches
    nothing); else their Jaro-Winkler (times `length_balance` when
    `balanced`) rescaled from `NEAR_FLOOR` (0.0 at or below) to 1.0, so two
    unrelated words earn nothing. The alignment is the mean of these weighted by
    `rarity` (one weight per query token; `None` weighs each alike), so a
    match on a word most names hold counts for little. The share of the
    name's characters in tokens no query token covers (best match below
    `COVER_THRESHOLD`; legal forms and function words never count) costs up
    to `UNCOVERED_PENALTY` of it. Either side empty gives 0.0.
    """
    if not query_tokens or not name_tokens:
        return 0.0
    weights = rarity if rarity is not None else (1.0,) * len(query_tokens)
    best_for_name = [0.0] * len(name_tokens)
    aligned = 0.0
    jaro_winkler = JaroWinkler.similarity
    for q, weight in zip(query_tokens, weights, strict=True):
        best = 0.0
        initial = len(q) == 1
        number = SAME_NUMBER.get(q)
        for at, n in enumerate(name_tokens):
            if n in (q, number):
                close = alike = 1.0
            elif initial:
                # A name token another query token holds whole is that token's, not an initial.
                free = n.startswith(q) and n not in query_tokens
                close = alike = INITIAL_SIMILARITY if free else 0.0
            else:
                alike = jaro_winkler(q, n)
                if balanced:
                    alike *= length_balance(len(q), len(n))
                close = (alike - NEAR_FLOOR) / (1.0 - NEAR_FLOOR)
            # Comparisons, not max(): this loop is the lexical channel's hottest.
            if alike > best_for_name[at]:  # noqa: PLR1730
                best_for_name[at] = alike
            if close > best:  # noqa: PLR1730
                best = close
        aligned += best * weight
    total = sum(weights)
    share = _uncovered(name_tokens, best_for_name)
    return (aligned / total if total else 0.0) * (1.0 - UNCOVERED_PENALTY * share)


def uncovered_share(words: frozenset[str], name_tokens: tuple[str, ...]) -> float:
    """The share of the name's characters in tokens not among `words` (keyless tokens aside)."""
    return _uncovered(name_tokens, [1.0 if n in words else 0.0 for n in name_tokens])


def _uncovered(name_tokens: tuple[str, ...], best_for_name: list[float]) -> float:
    total = uncovered = 0
    for n, covered in zip(name_tokens, best_for_name, strict=True):
        if n in KEYLESS_TOKENS:
            continue
        total += len(n)
        if covered < COVER_THRESHOLD:
            uncovered += len(n)
    return uncovered / total if total else 0.0


def length_balance(left: int, right: int) -> float:
    """The shorter of two lengths over the longer, on 0..1 (0.0 when both are 0)."""
    longer = max(left, right)
    return min(left, right) / longer if longer else 0.0


def acronym_similarity(query: NormalizedQuery, name_tokens: tuple[str, ...]) -> float:
    """An all-capitals short query against the initials of a name, on 0..1; else 0.0.

    Applies when the query has an `acronym` (one token of 2..6 letters written
    in capitals, legal forms and function words aside: "UCI Corp"); the score
    is the Jaro-Winkler of it against the initials of `name_tokens`, times
    their `length_balance`, so a letter without a word, or a word without a
    letter, counts against it ("NIO" reads "New Ireland" at 2/3 of its 0.91).
    """
    if query.acronym is None:
        return 0.0
    initials = initials_of_tokens(name_tokens)
    if len(initials) < 2:
        return 0.0
    return JaroWinkler.similarity(query.acronym, initials) * length_balance(
        len(query.acronym), len(initials)
    )


def _forms(entity: Entity) -> set[str]:
    """The matching forms of the entity's name fields, each once (same form, same score)."""
    fields = (entity.name, entity.normalized_name, *entity.aliases)
    return {matching_form(field) for field in fields}


@dataclass(frozen=True)
class WordCover:
    """Which of the query's keyed words an entity holds whole, read against the tenant.

    A word is *held* when at least one of the tenant's entities holds it whole
    in a name or alias (its `k:` block is not empty). `lacks_held`: the entity
    lacks a word the tenant holds, so another entity answers that word and this
    one is at best a look-alike ("round cell liposarcoma" for "renal
    liposarcoma", "renal" held by 21 names). `lacks_unheld`: it lacks a word no
    entity holds, a word outside the tenant's vocabulary ("meridional" in "sotho
    meridional", a word of another language, a misspelling). `holds`: it holds
    at least one of the query's keyed words. `unknown`: no entity holds any of
    the query's keyed words whole, and none of them shares its English stem
    (Snowball) with a word of the lexical candidates' names, so no word of the
    query is an inflection the tenant knows ("syndromes" of "syndrome") and the
    query reads as written in words the tenant's names lack ("dolar
    nowozelandzki"). A query with no keyed word gives all four false.
    `filled_by`: the other lexical candidates that hold whole a word of the query
    this entity lacks, a keyed word or a number, in either numerals ("hypercholesterolemia
    autosomal dominant type b" for "hypercholesterolemia, familial, 2", whose
    lexical first is "familial hypocalciuric hypercalcemia").
    """

    holds: bool
    lacks_held: bool
    lacks_unheld: bool
    unknown: bool = False
    filled_by: frozenset[EntityId] = frozenset()

    @property
    def lacks_only_unheld(self) -> bool:
        """It holds some of the query's words and lacks only words no entity holds: no entity
        of the tenant holds more of the query's words whole."""
        return self.holds and self.lacks_unheld and not self.lacks_held


def word_cover(
    query: NormalizedQuery,
    entity: Entity,
    holders: Mapping[str, int],
    candidates: Iterable[Entity] = (),
) -> WordCover:
    """`WordCover` of `entity` for `query`, `holders` counting the tenant's entities under each
    `k:` key of the query (`query_token_keys`; a key it leaves out counts as held by none), and
    `candidates` the other entities whose names, beside `entity`'s, a word's stem is looked for
    in when no entity holds any of the query's words whole, and which may fill a word it lacks."""
    keyed = [key[len(WORD_NAMESPACE) :] for key in query_token_keys(query)]
    tokens = _tokens_of(entity)
    lacking = [word for word in keyed if word not in tokens]
    unheld = bool(keyed) and not any(holders.get(WORD_NAMESPACE + word, 0) for word in keyed)
    others = [c for c in candidates if c.id != entity.id]
    # A number is no keyed word ("type 4", "2"), but an answer holding it names that one.
    missed = {*lacking, *(t for t in query.tokens if t.isdigit() and t not in tokens)}
    return WordCover(
        holds=len(lacking) < len(keyed),
        lacks_held=any(holders.get(WORD_NAMESPACE + word, 0) > 0 for word in lacking),
        lacks_unheld=any(holders.get(WORD_NAMESPACE + word, 0) == 0 for word in lacking),
        unknown=unheld and not _stems_of(keyed) & _stems_of(_words_of([entity, *others])),
        filled_by=frozenset(c.id for c in others if missed & _tokens_of(c))
        if missed
        else frozenset(),
    )


def _tokens_of(entity: Entity) -> set[str]:
    """The whole words of the entity's name fields, a number in both numerals ("iv", "4")."""
    tokens = {token for form in _forms(entity) for token in form.split()}
    return tokens | {SAME_NUMBER[t] for t in tokens if t in SAME_NUMBER}


#: The stemmer a query word is matched to the candidates' words by (`WordCover.unknown`).
_ENGLISH = Analyzer(DEFAULT_LANGUAGE)


def _words_of(entities: Iterable[Entity]) -> list[str]:
    return [token for entity in entities for form in _forms(entity) for token in form.split()]


def _stems_of(words: Iterable[str]) -> set[str]:
    """The English stems of `words`, each stemmed alone (a stopword has none)."""
    return {term for word in words for term in _ENGLISH.terms(word)}
