"""The two combine rules of entities: sightings of one entity, and absorption of another."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.merging import absorb, combine_sightings
from redstring.domain.normalization import normalize_name
from tests.factories import make_entity


def test_absorb_makes_the_merged_name_an_alias_and_keeps_the_survivor_values() -> None:
    survivor = make_entity(
        "Acme Corporation", entity_type="organization", properties={"hq": "Leeds"}, aliases=["ACME"]
    )
    merged = make_entity(
        "Acme Corp",
        entity_type="organization",
        description="maker of anvils",
        properties={"hq": "York", "founded": 1900},
        aliases=["acme", "Acme Co"],
        source_document_ids=["d2"],
    )
    after = absorb(survivor, merged)
    assert after.id == survivor.id
    assert after.name == "Acme Corporation"
    assert after.aliases == ["ACME", "Acme Corp", "Acme Co"]
    assert after.properties == {"hq": "Leeds", "founded": 1900}
    assert after.description == "maker of anvils"  # the survivor's was blank
    assert after.source_document_ids == ["d2"]


def test_combine_sightings_refuses_two_different_entities() -> None:
    with pytest.raises(ValueError, match="use absorb"):
        combine_sightings(make_entity("Ada"), make_entity("Bob"))


@given(st.lists(st.text(max_size=6), max_size=6), st.lists(st.text(max_size=6), max_size=6))
def test_aliases_never_repeat_a_form_nor_the_name(first: list[str], second: list[str]) -> None:
    earlier = make_entity("Ada", aliases=first)
    later = make_entity("ada", aliases=second)
    combined = combine_sightings(earlier, later)
    forms = [normalize_name(alias) for alias in combined.aliases]
    assert len(forms) == len(set(forms))
    assert "ada" not in forms
    assert "" not in forms
