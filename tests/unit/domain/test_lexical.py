"""Scoring an entity against a query by field-weighted string similarity."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.distance import JaroWinkler

from redstring.domain.entity import Entity
from redstring.domain.lexical import (
    BELOW_EXACT,
    HOLDS_EVERY_WORD,
    INITIAL_SIMILARITY,
    NEAR_FLOOR,
    NGRAM_MIX,
    PROPERTY_WEIGHT,
    SAME_NUMBER,
    UNCOVERED_PENALTY,
    acronym_similarity,
    length_balance,
    lexical_score,
    name_similarity,
    token_similarity,
)
from redstring.domain.normalization import matching_form, matching_tokens
from redstring.domain.query import SHORT_QUERY_LENGTH, NormalizedQuery
from redstring.domain.similarity import string_similarity
from tests.factories import make_entity


def q(text: str) -> NormalizedQuery:
    return NormalizedQuery.of(text)


def test_an_exact_name_scores_one() -> None:
    assert lexical_score(q("Ada Lovelace"), make_entity("Ada Lovelace")) == 1.0


def test_casing_and_whitespace_are_not_differences() -> None:
    assert lexical_score(q("ada  LOVELACE "), make_entity("Ada Lovelace")) == 1.0


def test_a_runtime_built_query_scores_the_same_as_a_literal() -> None:
    built = " ".join(["Ada", "Lovelace"])
    literal = "Ada Lovelace"
    assert built is not literal
    assert lexical_score(q(built), make_entity("Ada Lovelace")) == 1.0


def test_an_abbreviation_beats_an_unrelated_name() -> None:
    acme = lexical_score(q("Acme Corp"), make_entity("ACME Corporation", entity_type="org"))
    zebra = lexical_score(q("Acme Corp"), make_entity("Zebra Holdings", entity_type="org"))
    assert acme > zebra


def test_a_property_can_match_but_scores_below_the_same_match_on_the_name() -> None:
    on_name = lexical_score(q("Ada Lovelace"), make_entity("Ada Lovelace"))
    on_property = lexical_score(
        q("Ada Lovelace"), make_entity("Zebra Holdings", properties={"aka": "Ada Lovelace"})
    )
    assert on_property == pytest.approx(PROPERTY_WEIGHT)
    assert 0.0 < on_property < on_name


def test_a_non_string_property_is_skipped_rather_than_coerced() -> None:
    plain = lexical_score(q("7"), make_entity("Zebra"))
    with_numbers = lexical_score(
        q("7"), make_entity("Zebra", properties={"count": 7, "tags": ["7"], "d": {"7": 7}})
    )
    assert with_numbers == pytest.approx(plain)


def test_normalized_name_is_scored_when_it_differs_from_the_name() -> None:
    entity = make_entity("A. Lovelace", normalized_name="ada lovelace")
    assert lexical_score(q("Ada Lovelace"), entity) == 1.0


def test_an_alias_scores_like_a_name() -> None:
    entity = make_entity("Augusta Ada King", aliases=["Ada Lovelace"])
    assert lexical_score(q("Ada Lovelace"), entity) == 1.0


def test_the_best_field_wins_rather_than_the_fields_summing() -> None:
    entity = make_entity(
        "Ada Lovelace", properties={"a": "Ada Lovelace", "b": "Ada Lovelace", "c": "Ada"}
    )
    assert lexical_score(q("Ada Lovelace"), entity) == 1.0


def test_the_score_stays_within_zero_and_one() -> None:
    entity = make_entity("Ada Lovelace", properties={"a": "Ada Lovelace"})
    for query in ["Ada Lovelace", "x", "Lovelace Ada", "Zebra"]:
        assert 0.0 <= lexical_score(q(query), entity) <= 1.0


# ------------------------------------------------------ token-aware reading (ADR 0070)


def org(name: str) -> Entity:
    return make_entity(name, entity_type="organization")


def test_a_surname_ranks_the_person_above_a_company_it_covers_less_of() -> None:
    person = lexical_score(q("Lovelace"), make_entity("Ada Lovelace"))
    company = lexical_score(q("Lovelace"), org("Lovelace Holdings Ltd"))
    assert person > company


def test_a_query_covering_more_of_the_company_ranks_the_company_first() -> None:
    person = lexical_score(q("Lovelace Holdings"), make_entity("Ada Lovelace"))
    company = lexical_score(q("Lovelace Holdings"), org("Lovelace Holdings Ltd"))
    assert company > person


def test_a_reordered_name_aligns_token_by_token() -> None:
    assert token_similarity(("lovelace", "ada"), ("ada", "lovelace")) == 1.0
    reordered = lexical_score(q("Lovelace, Ada"), make_entity("Ada Lovelace"))
    assert 0.95 < reordered <= BELOW_EXACT  # only an identical form scores 1.0
    assert string_similarity("Lovelace, Ada", "Ada Lovelace") < 0.8  # what the token view adds


@pytest.mark.parametrize(
    ("query", "name"),
    [
        (("type", "4"), ("type", "iv")),
        (("digit", "viii"), ("digit", "8")),
        (("type", "1"), ("type", "i")),
        (("stage", "xxxix"), ("stage", "39")),
    ],
)
def test_a_number_matches_itself_in_the_other_numerals(
    query: tuple[str, ...], name: tuple[str, ...]
) -> None:
    assert token_similarity(query, name) == 1.0
    assert token_similarity(name, query) == 1.0


def test_only_the_same_number_matches_across_numerals() -> None:
    assert token_similarity(("type", "4"), ("type", "vi")) < 0.75
    assert token_similarity(("type", "40"), ("type", "xl")) < 0.75  # 1 to 39 only
    assert len(SAME_NUMBER) == 78
    assert all(SAME_NUMBER[SAME_NUMBER[key]] == key for key in SAME_NUMBER)


def test_an_initial_matches_the_token_it_begins() -> None:
    ada = lexical_score(q("A. Lovelace"), make_entity("Ada Lovelace"))
    bob = lexical_score(q("A. Lovelace"), make_entity("Bob Lovelace"))
    assert ada > bob
    assert token_similarity(("a", "lovelace"), ("ada", "lovelace")) == pytest.approx(
        (INITIAL_SIMILARITY + 1) / 2
    )


def test_an_initial_is_not_read_from_a_token_another_query_word_holds() -> None:
    """In "Clarke, C." the "c" is not the initial of "clarke", which the query's "clarke" holds,
    so "Joe Clarke" matches half the query and "Chloe Clarke" all of it."""
    chloe = token_similarity(("clarke", "c"), ("chloe", "clarke"))
    joe = token_similarity(("clarke", "c"), ("joe", "clarke"))
    assert chloe == pytest.approx((1 + INITIAL_SIMILARITY) / 2)
    assert joe == pytest.approx(0.5 * (1.0 - UNCOVERED_PENALTY * 3 / 9))
    assert token_similarity(("c",), ("clarke",)) == INITIAL_SIMILARITY  # no other word claims it
    chloe_score = lexical_score(q("Clarke, C."), make_entity("Chloe Clarke"))
    assert chloe_score - lexical_score(q("Clarke, C."), make_entity("Joe Clarke")) > 0.2


def test_a_query_of_function_words_and_legal_forms_only_holds_no_word() -> None:
    """The query "the" is no evidence for "the Fed", nor "inc" for "Apple Inc.": only an
    identical form or the trigrams read such a query, never the band of a name holding every
    word."""
    assert q("the").words == q("Inc. of the").words == frozenset()
    fed = make_entity("Federal Reserve", entity_type="organization", aliases=["the Fed"])
    assert lexical_score(q("the"), fed) < 0.3
    assert lexical_score(q("inc"), org("Apple Inc.")) < 0.3
    assert lexical_score(q("The"), org("The")) == 1.0
    assert lexical_score(q("the fed"), fed) == 1.0  # a word beside it reads as before


def test_uncovered_name_characters_cost_up_to_the_penalty() -> None:
    assert token_similarity(("ada",), ("ada",)) == 1.0
    half = token_similarity(("ada",), ("ada", "qqqzzz"))
    assert half == pytest.approx(1.0 - UNCOVERED_PENALTY * 6 / 9)
    assert token_similarity(("ada",), ("ada", "ltd")) == 1.0  # a legal form is never uncovered


def test_accents_and_punctuation_are_folded_before_matching() -> None:
    assert lexical_score(q("Lovelacé"), make_entity("Lovelace")) == 1.0
    assert lexical_score(q("O'Brien"), make_entity("OBrien")) == 1.0


def test_an_all_capitals_query_is_read_against_the_initials() -> None:
    entity = org("United Capital Intl Corp")
    tokens = matching_tokens("United Capital Intl Corp")
    assert acronym_similarity(q("UCI Corp"), tokens) == 1.0
    assert lexical_score(q("UCI Corp"), entity) >= HOLDS_EVERY_WORD * (1.0 - NGRAM_MIX)
    assert acronym_similarity(q("uci corp"), tokens) == 0.0
    assert lexical_score(q("uci corp"), entity) < 0.9
    assert acronym_similarity(q("UCIX AB CD"), tokens) == 0.0
    assert acronym_similarity(q("UCI"), ("acme",)) == 0.0  # one initial is no acronym


def test_an_acronym_against_fewer_or_more_initials_is_length_balanced() -> None:
    """The code "NIO" against the initials "ni" of "New Ireland": a letter has no
    word, so the Jaro-Winkler reading counts for 2/3 of itself."""
    two = matching_tokens("New Ireland")
    assert acronym_similarity(q("NIO"), two) == pytest.approx(
        JaroWinkler.similarity("nio", "ni") * 2 / 3
    )
    assert acronym_similarity(q("NI"), matching_tokens("North Ireland Office")) == pytest.approx(
        JaroWinkler.similarity("ni", "nio") * 2 / 3
    )
    assert acronym_similarity(q("NIO"), matching_tokens("National Insurance Office")) == 1.0


def test_a_short_query_is_read_as_a_code_once_at_normalisation() -> None:
    assert SHORT_QUERY_LENGTH == 3
    assert [q(t).short for t in ("GBP", "hr", "L", " a b ")] == [True] * 4
    assert [q(t).short for t in ("Gbar", "", "  ")] == [False] * 3


def test_length_balance_is_the_shorter_length_over_the_longer() -> None:
    assert length_balance(3, 8) == length_balance(8, 3) == pytest.approx(3 / 8)
    assert length_balance(4, 4) == 1.0
    assert length_balance(0, 5) == 0.0
    assert length_balance(0, 0) == 0.0


def test_a_short_code_does_not_read_a_prefix_of_a_long_name_as_a_near_match() -> None:
    # ADR 0205: unbalanced, "GBP" -> "Gbarpolu" scored 0.70 and outranked the
    # currency whose property holds the code verbatim.
    prefix = lexical_score(q("GBP"), make_entity("Gbarpolu"))
    held = lexical_score(q("GBP"), make_entity("Pound Sterling", properties={"iso_4217": "GBP"}))
    assert prefix < 0.45
    assert held == pytest.approx(PROPERTY_WEIGHT)
    assert held > prefix
    unbalanced = JaroWinkler.similarity("gbp", "gbarpolu")
    assert name_similarity(q("GBP"), "gbarpolu") <= (1 - NGRAM_MIX) * unbalanced * 3 / 8 + NGRAM_MIX


def test_a_query_longer_than_a_code_keeps_its_prefix_readings() -> None:
    assert not q("Inds").short

    def near(alike: float) -> float:  # closeness rescaled from NEAR_FLOOR (ADR 0350)
        return max(0.0, (alike - NEAR_FLOOR) / (1 - NEAR_FLOOR))

    assert token_similarity(("inds",), ("industries",)) == pytest.approx(
        near(JaroWinkler.similarity("inds", "industries"))
    )
    balanced = token_similarity(("inds",), ("industries",), balanced=True)
    # Balanced, the token falls below COVER_THRESHOLD, so it is uncovered too.
    unbalanced = JaroWinkler.similarity("inds", "industries")
    assert balanced == pytest.approx(near(unbalanced * 4 / 10) * (1 - UNCOVERED_PENALTY))
    # An exact token, an initial and an exact form are never balanced away.
    assert token_similarity(("ada",), ("ada",), balanced=True) == 1.0
    assert token_similarity(("a",), ("ada",), balanced=True) == INITIAL_SIMILARITY
    assert lexical_score(q("Fe"), make_entity("Fe")) == 1.0


@given(query=st.text(max_size=30), name=st.text(min_size=1, max_size=30))
def test_every_reading_stays_within_zero_and_one(query: str, name: str) -> None:
    for score in (
        name_similarity(q(query), matching_form(name)),
        token_similarity(matching_tokens(query), matching_tokens(name)),
        acronym_similarity(q(query), matching_tokens(name)),
    ):
        assert 0.0 <= score <= 1.0
