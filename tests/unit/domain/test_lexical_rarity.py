"""The entity lexical score weighs each query word by its rarity among the names (ADR 0350).

A match on a word half the names carry counts for almost nothing, a match on
a word two names carry for a lot; the score stays on 0..1 and reads as the
share of the query's evidence the name matches. A name holding every query
word whole scores at least `HOLDS_EVERY_WORD`, any other below it.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.blocking import WORD_NAMESPACE
from redstring.domain.lexical import (
    BELOW_EXACT,
    HOLDS_EVERY_WORD,
    WordCover,
    lexical_score,
    name_similarity,
    token_similarity,
    word_cover,
)
from redstring.domain.ngrams import NGRAM_DF_CAP, ngram_weights
from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery
from redstring.domain.rarity import COMMON_WORD_WEIGHT, word_weights
from tests.factories import make_entity


def rarity(counts: dict[str, int]) -> dict[str, float]:
    """The weights the channel hands the score: each word's `k:` count, as `ngram_weights`."""
    return ngram_weights({WORD_NAMESPACE + word: df for word, df in counts.items()})


#: An ontology's shape: thousands of names begin "Abnormality of the ...".
ONTOLOGY = rarity({"abnormality": 4_000, "pancreas": 2, "spleen": 3, "cyst": 40})


def score(query: str, name: str, weights: dict[str, float] | None = ONTOLOGY) -> float:
    return lexical_score(NormalizedQuery.of(query), make_entity(name), weights)


def test_shared_boilerplate_is_not_the_score() -> None:
    """The issue's "Abnormality of the <rare structure>" read 0.82 against the spleen."""
    boilerplate = score("Abnormality of the pancreas", "Abnormality of the spleen")
    telling = score("Abnormality of the pancreas", "Cyst of the pancreas")
    assert boilerplate < 0.5
    assert telling > boilerplate + 0.2
    # Rarity ignored, the boilerplate wins: what the weights change.
    alike = score("Abnormality of the pancreas", "Abnormality of the spleen", None)
    assert alike > score("Abnormality of the pancreas", "Cyst of the pancreas", None)


def test_two_names_differing_in_their_rare_word_are_far_apart() -> None:
    """The issue's "Hypoplastic <organ>" read 0.83 for "Hypoplastic <another organ>"."""
    weights = rarity({"hypoplastic": 900, "kidney": 3, "thumb": 2})
    weighted = score("Hypoplastic kidney", "Hypoplastic thumb", weights)
    assert weighted < 0.3
    assert score("Hypoplastic kidney", "Hypoplastic thumb", None) > weighted + 0.2
    assert score("Hypoplastic kidney", "Kidney hypoplasia", weights) > 0.8


def test_a_token_weighs_as_its_count_says_and_a_keyless_one_as_the_commonest() -> None:
    query = NormalizedQuery.of("The Acme Widget Co")
    weights = word_weights(query, rarity({"acme": 1, "widget": NGRAM_DF_CAP * 5}))
    assert weights is not None
    the, acme, widget, co = weights
    assert the == co == widget == COMMON_WORD_WEIGHT
    assert acme > 9 * COMMON_WORD_WEIGHT
    unseen = word_weights(NormalizedQuery.of("zzyzx"), rarity({"zzyzx": 0}))
    assert unseen == (acme,)  # a word no name holds weighs most
    assert word_weights(query, None) is None


def test_the_token_reading_is_the_weighted_share_of_the_query_matched() -> None:
    assert token_similarity(("rare", "common"), ("rare",), (9.0, 1.0)) == pytest.approx(0.9)
    assert token_similarity(("rare", "common"), ("common",), (9.0, 1.0)) < 0.2


WORD = st.text(alphabet="abcdefghij", min_size=2, max_size=7)


@given(
    query=st.lists(WORD, min_size=1, max_size=3),
    name=st.lists(WORD, min_size=1, max_size=4),
    counts=st.lists(st.integers(0, 3 * NGRAM_DF_CAP), min_size=3, max_size=3),
)
def test_a_name_holding_every_word_scores_above_any_other_and_all_on_0_1(
    query: list[str], name: list[str], counts: list[int]
) -> None:
    q = NormalizedQuery.of(" ".join(query))
    weights = rarity(dict(zip(query, counts, strict=False)))
    form = matching_form(" ".join(name))
    found = name_similarity(q, form, weights, word_weights(q, weights))
    assert 0.0 <= found <= 1.0
    if form == q.form:
        assert found == 1.0
    elif q.held_by(form.split()):
        assert HOLDS_EVERY_WORD <= found <= BELOW_EXACT
    else:
        assert found < HOLDS_EVERY_WORD


@given(
    common=st.integers(1, NGRAM_DF_CAP), rarer=st.integers(1, NGRAM_DF_CAP), shared=WORD, own=WORD
)
def test_matching_a_rarer_word_is_more_evidence(
    common: int, rarer: int, shared: str, own: str
) -> None:
    """The name matches `shared` and not `own`: the rarer `shared` is, the higher it scores."""
    if shared == own or rarer >= common:
        return
    q = NormalizedQuery.of(f"{shared} {own}")
    name = f"{shared} qqqq"
    when_common = score(q.text, name, rarity({shared: common, own: 5}))
    when_rare = score(q.text, name, rarity({shared: rarer, own: 5}))
    assert when_rare >= when_common


@pytest.mark.parametrize(
    ("query", "name", "aliases", "holders", "cover"),
    [
        # "renal" is held by another name: the first is a look-alike of the query.
        (
            "renal liposarcoma",
            "Round Cell Liposarcoma",
            [],
            {"renal": 21, "liposarcoma": 2},
            WordCover(holds=True, lacks_held=True, lacks_unheld=False),
        ),
        # "meridional" no name holds: no entity holds more of the query's words.
        (
            "Sotho meridional",
            "Southern Sotho",
            [],
            {"sotho": 1, "meridional": 0},
            WordCover(holds=True, lacks_held=False, lacks_unheld=True),
        ),
        # An alias holds the word too; a key the counts leave out is held by none.
        (
            "dolar kajmanski",
            "Cayman Islands Dollar",
            ["Dolar"],
            {"dolar": 1},
            WordCover(holds=True, lacks_held=False, lacks_unheld=True),
        ),
        # Holding nothing the tenant knows.
        (
            "nuevo dolar taiwanes",
            "New Taiwan Dollar",
            [],
            {"nuevo": 0, "dolar": 0},
            WordCover(holds=False, lacks_held=False, lacks_unheld=True),
        ),
        (
            "Ada Lovelace",
            "Ada Lovelace",
            [],
            {"ada": 1, "lovelace": 1},
            WordCover(holds=True, lacks_held=False, lacks_unheld=False),
        ),
        # A query with no keyed word (one letter) says nothing.
        ("a", "Ada Lovelace", [], {}, WordCover(holds=False, lacks_held=False, lacks_unheld=False)),
    ],
)
def test_the_cover_reads_which_query_words_the_entity_and_the_tenant_hold(
    query: str, name: str, aliases: list[str], holders: dict[str, int], cover: WordCover
) -> None:
    """ADR 0540: a word counts as held when its `k:` block is not empty."""
    entity = make_entity(name, aliases=aliases)
    counts = {WORD_NAMESPACE + word: n for word, n in holders.items()}
    found = word_cover(NormalizedQuery.of(query), entity, counts)
    assert found == cover
    assert found.lacks_only_unheld is (cover.holds and not cover.lacks_held and cover.lacks_unheld)


@pytest.mark.parametrize(
    ("query", "candidates", "holders", "unknown"),
    [
        # No name holds either word, nor a word of the same stem: another language.
        ("dolar nowozelandzki", ["New Zealand Dollar", "Dollar"], {}, True),
        # "syndromes" is no name's word, but "syndrome" is: an inflection, not a foreign word.
        ("lipodsystrophic syndromes", ["Lipodystrophic syndrome", "Dollar"], {}, False),
        # A later candidate holding the stem counts as well as the first.
        ("inches", ["Foot", "Unit"], {}, True),
        ("inches", ["Foot", "Square inch"], {}, False),
        # A word some entity holds whole: the tenant knows the query.
        ("dolar nowozelandzki", ["New Zealand Dollar"], {"dolar": 1}, False),
        # No keyed word (one letter): nothing to read.
        ("a", ["Ada Lovelace"], {}, False),
    ],
)
def test_a_query_none_of_whose_words_the_tenant_knows_even_by_stem_is_unknown(
    query: str, candidates: list[str], holders: dict[str, int], unknown: bool
) -> None:
    """ADR 0540: `unknown` tells a word no name holds in any form from a plural of one held."""
    entities = [make_entity(name) for name in candidates]
    counts = {WORD_NAMESPACE + word: n for word, n in holders.items()}
    found = word_cover(NormalizedQuery.of(query), entities[0], counts, entities)
    assert found.unknown is unknown
    if unknown:  # no entity holds a word, so neither does the first
        assert (found.holds, found.lacks_held, found.lacks_unheld) == (False, False, True)


def test_the_first_s_own_names_are_read_for_a_stem_as_the_candidates_are() -> None:
    query = NormalizedQuery.of("lipodsystrophic syndromes")
    known, other = make_entity("Lipodystrophic syndrome"), make_entity("Dollar")
    assert word_cover(query, other, {}).unknown
    assert not word_cover(query, known, {}).unknown
    assert not word_cover(query, other, {}, [known]).unknown


@pytest.mark.parametrize(
    ("query", "first", "others", "filled"),
    [
        # The model's answer holds "hypercholesterolemia", which the look-alike lacks.
        (
            "hypercholesterolemia, familial, 2",
            "familial hypocalciuric hypercalcemia",
            ["hypercholesterolemia autosomal dominant type b", "familial chylomicronemia"],
            [True, False],
        ),
        # A number is no keyed word, but a name holding the query's "2" fills it.
        (
            "insulin-dependent diabetes mellitus 2",
            "diabetes mellitus noninsulin dependent 5",
            ["type 1 diabetes mellitus 2", "type 1 diabetes mellitus 20"],
            [True, False],
        ),
        # A first holding every word leaves nothing to fill.
        ("renal liposarcoma", "renal liposarcoma", ["renal cyst", "liposarcoma"], [False, False]),
        # The query's number in Roman numerals fills it too, and the other way round.
        (
            "orofaciodigital syndrome type 4",
            "orofaciodigital syndrome type 6",
            ["orofaciodigital syndrome iv", "orofaciodigital syndrome vi"],
            [True, False],
        ),
        ("pedal digit III", "pedal digit", ["pedal digit 3", "pedal digit 4"], [True, False]),
    ],
)
def test_the_cover_names_the_candidates_holding_a_query_word_the_first_lacks(
    query: str, first: str, others: list[str], filled: list[bool]
) -> None:
    """ADR 0580: `filled_by` holds each other candidate holding a keyed word or a number of the
    query that the first lacks."""
    lead = make_entity(first)
    entities = [make_entity(name) for name in others]
    cover = word_cover(NormalizedQuery.of(query), lead, {}, [lead, *entities])
    assert [e.id in cover.filled_by for e in entities] == filled
