"""`Entity.copy_deep` shares no mutable container with the original and changes no value."""

from __future__ import annotations

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
