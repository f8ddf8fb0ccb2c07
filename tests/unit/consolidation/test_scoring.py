"""The consolidation scorer: suffix-aware, number-aware, same type required."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.consolidation.scoring import entity_similarity, name_parts
from tests.factories import make_entity


def org(name: str, **fields: object) -> object:
    return make_entity(name, entity_type="organization", **fields)


def test_name_parts_split_trailing_legal_words_from_the_core() -> None:
    parts = name_parts("Smith Holdings Pty. Ltd.")
    assert parts.core == "smith holdings"
    assert parts.suffixes == {"pty", "ltd"}
    assert name_parts("Limited").core == "limited"
    assert name_parts("Apollo 11").numbers == {"11"}


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Acme Corporation", "Acme Corp"),
        ("Smith Holdings Limited", "Smith Holdings Ltd"),
        ("Smith Holdings", "Smith Holdings Ltd"),
    ],
)
def test_the_same_company_written_two_ways_scores_one(left: str, right: str) -> None:
    assert entity_similarity(org(left), org(right)) == 1.0  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Smith Holdings Ltd", "Smith Holdings Inc"),
        ("Acme Labs Inc", "Acme Labs Ltd"),
        ("Apollo 11", "Apollo 13"),
    ],
)
def test_boilerplate_twins_are_vetoed(left: str, right: str) -> None:
    assert entity_similarity(org(left), org(right)) == 0.0  # type: ignore[arg-type]


def test_an_alias_cannot_override_a_suffix_veto() -> None:
    ltd = org("Smith Holdings Ltd", aliases=["Smith Holdings"])
    inc = org("Smith Holdings Inc", aliases=["Smith Holdings"])
    assert entity_similarity(ltd, inc) == 0.0  # type: ignore[arg-type]


def test_different_types_never_match() -> None:
    person = make_entity("Ada Lovelace", entity_type="person")
    ship = make_entity("Ada Lovelace", entity_type="ship")
    assert entity_similarity(person, ship) is None
    assert entity_similarity(person, make_entity("Ada Lovelace", entity_type=" PERSON")) == 1.0


def test_aliases_are_scored() -> None:
    left = make_entity("Ada King", aliases=["Ada Lovelace"])
    right = make_entity("Lovelace, Ada", aliases=["Ada  LOVELACE"])
    assert entity_similarity(left, right) == 1.0


names = st.text(alphabet="abc Ltd Inc 12", min_size=1, max_size=12).filter(str.strip)


@given(names, names)
def test_the_score_is_symmetric_and_on_zero_to_one(left: str, right: str) -> None:
    a, b = make_entity(left), make_entity(right)
    forward, backward = entity_similarity(a, b), entity_similarity(b, a)
    assert forward == backward
    assert forward is not None
    assert 0.0 <= forward <= 1.0
