"""Ids, normalisation, similarity, entities and the vector score scale."""

from __future__ import annotations

from uuid import uuid4

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring import Entity, Relationship, TenantId, entity_id_for, new_tenant_id
from redstring.domain.normalization import normalize_name
from redstring.domain.similarity import string_similarity
from redstring.domain.vector import VectorMatch, cosine_to_score
from tests.factories import DEFAULT_TENANT, make_entity


def test_normalize_name_casefolds_strips_and_collapses_whitespace() -> None:
    assert normalize_name("  ADA \t\n Lovelace ") == "ada lovelace"
    assert normalize_name("Straße") == "strasse"
    assert normalize_name("   ") == ""


@given(st.text())
def test_normalize_name_is_idempotent(text: str) -> None:
    assert normalize_name(normalize_name(text)) == normalize_name(text)


def test_string_similarity_is_one_for_the_same_normalised_name_and_zero_for_blank() -> None:
    assert string_similarity("ADA lovelace", "ada  Lovelace") == 1.0
    assert string_similarity("", "") == 0.0
    assert 0.0 < string_similarity("Ada", "Adam") < 1.0


def test_the_same_tenant_type_and_normalised_name_give_the_same_id() -> None:
    assert entity_id_for(DEFAULT_TENANT, "Person", "ADA  Lovelace") == entity_id_for(
        DEFAULT_TENANT, "person", "ada lovelace"
    )


def test_different_tenants_types_or_names_give_different_ids() -> None:
    base = entity_id_for(DEFAULT_TENANT, "person", "Ada Lovelace")
    assert base != entity_id_for(TenantId(uuid4()), "person", "Ada Lovelace")
    assert base != entity_id_for(DEFAULT_TENANT, "place", "Ada Lovelace")
    assert base != entity_id_for(DEFAULT_TENANT, "person", "Ada Lovelac")


def test_an_entity_derives_its_id_and_normalised_name() -> None:
    entity = make_entity("  Ada   LOVELACE ")
    assert entity.id == entity_id_for(DEFAULT_TENANT, "person", "ada lovelace")
    assert entity.normalized_name == "ada lovelace"


@pytest.mark.parametrize("blank", ["", "   ", "\t"])
def test_a_blank_name_or_type_is_refused(blank: str) -> None:
    with pytest.raises(ValueError, match="must not be blank"):
        make_entity(blank)
    with pytest.raises(ValueError, match="must not be blank"):
        make_entity("Ada", entity_type=blank)


@pytest.mark.parametrize("confidence", [-0.1, 1.1])
def test_confidence_is_on_zero_to_one(confidence: float) -> None:
    with pytest.raises(ValueError, match="confidence"):
        make_entity(confidence=confidence)


def test_a_relationship_derives_a_deterministic_id() -> None:
    ada, charles = make_entity("Ada Lovelace"), make_entity("Charles Babbage")
    fields = {"tenant_id": DEFAULT_TENANT, "source_id": ada.id, "target_id": charles.id}
    first = Relationship(relationship_type="knows", **fields)
    assert first.id == Relationship(relationship_type="KNOWS", **fields).id
    assert first.id != Relationship(relationship_type="admires", **fields).id


def test_properties_hold_free_form_json() -> None:
    entity = make_entity(properties={"n": 1, "l": [1, "a"], "d": {"x": None}, "f": 1.5, "b": True})
    assert Entity.model_validate_json(entity.model_dump_json()) == entity


def test_the_match_scale_maps_cosine_onto_zero_to_one() -> None:
    assert cosine_to_score(1.0) == 1.0
    assert cosine_to_score(0.0) == 0.5
    assert cosine_to_score(-1.0) == 0.0
    assert cosine_to_score(1.0000001) == 1.0
    with pytest.raises(ValueError, match="score"):
        VectorMatch(entity_id=make_entity().id, entity_type="person", score=1.5)


def test_new_tenant_ids_are_distinct() -> None:
    assert new_tenant_id() != new_tenant_id()


@given(st.lists(st.uuids(), max_size=50))
def test_uuids_order_as_their_canonical_strings_do(ids: list) -> None:
    # The in-memory stores and the retriever sort ids directly for the
    # ascending-id-string tie-break; this is the fact that makes that exact.
    assert sorted(ids) == sorted(ids, key=str)
