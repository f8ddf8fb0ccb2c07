"""`resolve_survivors`: names a merge folded away resolve to the survivor on re-extraction."""

from __future__ import annotations

import pytest

from redstring.composition.reextraction import resolve_survivors
from redstring.domain.entity import Entity, Relationship
from redstring.stores import InMemoryGraphStore
from tests.factories import DEFAULT_TENANT, make_entity


@pytest.mark.asyncio
async def test_a_link_between_two_names_of_one_survivor_is_dropped_and_others_move() -> None:
    survivor = make_entity("Ada Lovelace", aliases=["Ada L.", "Countess Lovelace"])
    graph = InMemoryGraphStore()
    await graph.upsert([survivor])
    short, title, babbage = (
        make_entity("Ada L."),
        make_entity("Countess Lovelace"),
        make_entity("Charles Babbage"),
    )

    def link(source: Entity, target: Entity, kind: str) -> Relationship:
        return Relationship(
            tenant_id=DEFAULT_TENANT,
            source_id=source.id,
            target_id=target.id,
            relationship_type=kind,
        )

    resolved = await resolve_survivors(
        graph,
        [short, title, babbage],
        [link(short, title, "same_as"), link(short, babbage, "knows")],
        [],
        DEFAULT_TENANT,
    )
    assert sorted(e.id for e in resolved.entities) == sorted([survivor.id, babbage.id])
    assert [(r.source_id, r.target_id, r.relationship_type) for r in resolved.relationships] == [
        (survivor.id, babbage.id, "knows")
    ]
