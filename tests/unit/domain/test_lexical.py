"""Scoring an entity against a query by field-weighted string similarity."""

from __future__ import annotations

import pytest

from redstring.domain.lexical import PROPERTY_WEIGHT, lexical_score
from tests.factories import make_entity


def test_an_exact_name_scores_one() -> None:
    assert lexical_score("Ada Lovelace", make_entity("Ada Lovelace")) == 1.0


def test_casing_and_whitespace_are_not_differences() -> None:
    assert lexical_score("ada  LOVELACE ", make_entity("Ada Lovelace")) == 1.0


def test_a_runtime_built_query_scores_the_same_as_a_literal() -> None:
    built = " ".join(["Ada", "Lovelace"])
    literal = "Ada Lovelace"
    assert built is not literal
    assert lexical_score(built, make_entity("Ada Lovelace")) == 1.0


def test_an_abbreviation_beats_an_unrelated_name() -> None:
    acme = lexical_score("Acme Corp", make_entity("ACME Corporation", entity_type="org"))
    zebra = lexical_score("Acme Corp", make_entity("Zebra Holdings", entity_type="org"))
    assert acme > zebra


def test_a_property_can_match_but_scores_below_the_same_match_on_the_name() -> None:
    on_name = lexical_score("Ada Lovelace", make_entity("Ada Lovelace"))
    on_property = lexical_score(
        "Ada Lovelace", make_entity("Zebra Holdings", properties={"aka": "Ada Lovelace"})
    )
    assert on_property == pytest.approx(PROPERTY_WEIGHT)
    assert 0.0 < on_property < on_name


def test_a_non_string_property_is_skipped_rather_than_coerced() -> None:
    plain = lexical_score("7", make_entity("Zebra"))
    with_numbers = lexical_score(
        "7", make_entity("Zebra", properties={"count": 7, "tags": ["7"], "d": {"7": 7}})
    )
    assert with_numbers == pytest.approx(plain)


def test_normalized_name_is_scored_when_it_differs_from_the_name() -> None:
    entity = make_entity("A. Lovelace", normalized_name="ada lovelace")
    assert lexical_score("Ada Lovelace", entity) == 1.0


def test_an_alias_scores_like_a_name() -> None:
    entity = make_entity("Augusta Ada King", aliases=["Ada Lovelace"])
    assert lexical_score("Ada Lovelace", entity) == 1.0


def test_the_best_field_wins_rather_than_the_fields_summing() -> None:
    entity = make_entity(
        "Ada Lovelace", properties={"a": "Ada Lovelace", "b": "Ada Lovelace", "c": "Ada"}
    )
    assert lexical_score("Ada Lovelace", entity) == 1.0


def test_the_score_stays_within_zero_and_one() -> None:
    entity = make_entity("Ada Lovelace", properties={"a": "Ada Lovelace"})
    for query in ["Ada Lovelace", "x", "Lovelace Ada", "Zebra"]:
        assert 0.0 <= lexical_score(query, entity) <= 1.0
