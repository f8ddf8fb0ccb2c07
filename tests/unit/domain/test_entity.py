"""`Entity.copy_deep` shares no mutable container with the original and changes no value."""

from __future__ import annotations

import copy

from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from redstring import Entity
from tests.factories import DEFAULT_TENANT


def _entity() -> Entity:
    return Entity(
        tenant_id=DEFAULT_TENANT,
        entity_type="person",
        name="Ada Lovelace",
        aliases=["Countess of Lovelace"],
        properties={"born": 1815, "works": [{"title": "Notes"}]},
        source_document_ids=["doc-1"],
        description="mathematician",
        confidence=0.9,
    )


def test_a_copy_equals_the_original() -> None:
    original = _entity()
    assert original.copy_deep() == original


def test_mutating_every_container_of_a_copy_leaves_the_original_alone() -> None:
    original = _entity()
    copied = original.copy_deep()
    copied.aliases.append("Ada King")
    copied.properties["born"] = 1900
    works = copied.properties["works"]
    assert isinstance(works, list)
    work = works[0]
    assert isinstance(work, dict)
    work["title"] = "changed"
    copied.source_document_ids.append("doc-2")
    assert original == _entity()


def test_a_copy_without_properties_gets_its_own_empty_dict() -> None:
    original = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Ada")
    copied = original.copy_deep()
    copied.properties["x"] = 1
    assert original.properties == {}


def _as_model_copy_made_it(entity: Entity) -> Entity:
    """`copy_deep` as it was before ADR 0300: pydantic's `model_copy` with the containers copied."""
    return entity.model_copy(
        update={
            "aliases": list(entity.aliases),
            "properties": copy.deepcopy(entity.properties),
            "source_document_ids": list(entity.source_document_ids),
        }
    )


@given(
    st.text(min_size=1).filter(str.strip),
    st.lists(st.text(max_size=5), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers() | st.lists(st.integers()), max_size=3),
    st.lists(st.text(max_size=5), max_size=2),
    st.sampled_from([None, "desc"]),
)
def test_a_copy_is_what_model_copy_made_field_for_field(
    name: str,
    aliases: list[str],
    properties: dict[str, JsonValue],
    documents: list[str],
    description: str | None,
) -> None:
    given_fields: dict[str, object] = {"aliases": aliases} if aliases else {}
    if properties:
        given_fields["properties"] = properties
    if documents:
        given_fields["source_document_ids"] = documents
    if description is not None:
        given_fields["description"] = description
    original = Entity.model_validate(
        {"tenant_id": DEFAULT_TENANT, "entity_type": "person", "name": name, **given_fields}
    )
    copied, reference = original.copy_deep(), _as_model_copy_made_it(original)
    assert type(copied) is Entity
    assert copied.__dict__ == reference.__dict__
    assert list(copied.__dict__) == list(reference.__dict__)
    assert copied.model_fields_set == reference.model_fields_set
    assert copied.__pydantic_extra__ == reference.__pydantic_extra__
    assert copied.__pydantic_private__ == reference.__pydantic_private__
    assert copied.model_dump(exclude_unset=True) == reference.model_dump(exclude_unset=True)
    assert copied.model_dump_json() == original.model_dump_json()
    for field in ("aliases", "properties", "source_document_ids"):
        assert getattr(copied, field) is not getattr(original, field)
