"""Consolidation on hand-made duplicate sets, a must-not-merge set, and merge-then-undo."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import pytest

from redstring import Entity, EntityId, Relationship, TenantId
from redstring.consolidation.consolidator import consolidate
from redstring.consolidation.merge import plan_undo
from redstring.domain.blocking import TYPE_NAMESPACE, name_keys_for
from redstring.domain.events import EntitiesMerged
from redstring.events.in_memory import InMemoryEventLog
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink
from redstring.stores import InMemoryGraphStore
from tests.factories import DEFAULT_TENANT, make_entity

OTHER_TENANT = TenantId(UUID("22222222-2222-4222-8222-222222222222"))


def org(name: str, tenant: TenantId = DEFAULT_TENANT, **fields: object) -> Entity:
    return make_entity(name, tenant_id=tenant, entity_type="organization", **fields)


def edge(source: Entity, target: Entity, kind: str = "supplies") -> Relationship:
    return Relationship(
        tenant_id=source.tenant_id, source_id=source.id, target_id=target.id, relationship_type=kind
    )


async def run(
    graph: InMemoryGraphStore,
    ids: Sequence[EntityId],
    tenant: TenantId = DEFAULT_TENANT,
    threshold: float = 0.95,
) -> tuple[list[EntitiesMerged], EventSink]:
    sink = EventSink(InMemoryEventLog(), [GraphProjection(graph)])

    async def emit(event: EntitiesMerged) -> None:
        await sink.emit([event])

    merges = await consolidate(ids, tenant, graph=graph, threshold=threshold, emit=emit)
    return merges, sink


@pytest.mark.asyncio
async def test_a_duplicate_set_merges_into_one_survivor_with_every_name() -> None:
    graph = InMemoryGraphStore()
    main = org("Acme Corporation", source_document_ids=["d1", "d2"], properties={"hq": "Leeds"})
    dupes = [org("Acme Corp", properties={"hq": "York", "size": 3}), org("ACME Corp.")]
    ada = make_entity("Charles Babbage")
    typo = make_entity("Charles Babage")
    await graph.upsert([main, *dupes, ada, typo])
    merges, _ = await run(graph, [e.id for e in [main, *dupes, ada, typo]])
    assert len(merges) == 3
    remaining = await graph.list_entities(DEFAULT_TENANT)
    assert len(remaining) == 2
    [survivor] = [e for e in remaining if e.id == main.id]
    assert sorted(survivor.aliases) == ["ACME Corp.", "Acme Corp"]
    assert survivor.properties == {"hq": "Leeds", "size": 3}
    assert survivor.source_document_ids == ["d1", "d2"]


@pytest.mark.asyncio
async def test_near_identical_boilerplate_names_of_distinct_entities_do_not_merge() -> None:
    graph = InMemoryGraphStore()
    distinct = [
        org("Smith Holdings Ltd"),
        org("Smith Holdings Inc"),
        org("Acme Labs Inc"),
        org("Acme Labs Ltd"),
        make_entity("Apollo 11", entity_type="mission"),
        make_entity("Apollo 13", entity_type="mission"),
        make_entity("Mary Shelley"),
        make_entity("Percy Shelley"),
        make_entity("Ada Lovelace"),
        make_entity("Ada Lovelace", entity_type="ship"),
    ]
    await graph.upsert(distinct)
    merges, sink = await run(graph, [e.id for e in distinct], threshold=0.9)
    assert merges == []
    assert sink.appended == 0
    assert len(await graph.list_entities(DEFAULT_TENANT)) == len(distinct)


@pytest.mark.asyncio
async def test_every_relationship_is_redirected_and_self_loops_are_dropped() -> None:
    graph = InMemoryGraphStore()
    survivor = org("Acme Corporation", source_document_ids=["d1", "d2"])
    merged = org("Acme Corp", source_document_ids=["d3"])
    shop, bank = org("Bolt Shop"), org("River Bank")
    existing = edge(survivor, shop)
    await graph.upsert(
        [survivor, merged, shop, bank],
        [
            existing,
            edge(merged, shop),  # duplicates the survivor's edge once redirected
            edge(bank, merged, "lends to"),
            edge(merged, survivor, "same as"),  # becomes a self-loop
        ],
    )
    [merge], _ = await run(graph, [merged.id])
    assert merge.merged_ids == [merged.id]
    assert await graph.get_entities([merged.id], DEFAULT_TENANT) == []
    edges = {
        (r.source_id, r.relationship_type, r.target_id)
        for r in await graph.list_relationships(DEFAULT_TENANT)
    }
    assert edges == {
        (survivor.id, "supplies", shop.id),
        (bank.id, "lends to", survivor.id),
    }
    [kept] = [r for r in await graph.list_relationships(DEFAULT_TENANT) if r.id == existing.id]
    assert kept == existing
    # The merged name now finds the survivor through the blocking index.
    found = await graph.find_by_blocking_keys(name_keys_for("Acme Corp"), DEFAULT_TENANT)
    assert {e.id for block in found.values() for e in block} >= {survivor.id}
    assert merged.id not in {e.id for block in found.values() for e in block}


@pytest.mark.asyncio
async def test_merge_then_undo_restores_the_graph_exactly() -> None:
    graph = InMemoryGraphStore()
    survivor = org("Acme Corporation", description="anvils", source_document_ids=["d1", "d2"])
    merged = org("Acme Corp", properties={"size": 3}, source_document_ids=["d3"])
    shop = org("Bolt Shop")
    await graph.upsert(
        [survivor, merged, shop],
        [
            edge(survivor, shop),
            edge(merged, shop),
            edge(shop, merged, "owes"),
            edge(merged, survivor),
        ],
    )
    before = (
        await graph.list_entities(DEFAULT_TENANT),
        await graph.list_relationships(DEFAULT_TENANT),
    )
    [merge], sink = await run(graph, [merged.id])
    assert (await graph.list_entities(DEFAULT_TENANT)) != before[0]
    await sink.emit([plan_undo(merge)])
    after = (
        await graph.list_entities(DEFAULT_TENANT),
        await graph.list_relationships(DEFAULT_TENANT),
    )
    assert after == before


@pytest.mark.asyncio
async def test_candidates_come_from_the_blocking_index_not_a_scan() -> None:
    class NoScanGraph(InMemoryGraphStore):
        async def list_entities(self, tenant_id: TenantId) -> list[Entity]:
            raise AssertionError("consolidation scanned the tenant")

        async def find_by_type(self, entity_type: str, tenant_id: TenantId) -> list[Entity]:
            raise AssertionError("consolidation scanned a type block")

        async def find_by_blocking_keys(
            self, keys: Sequence[str], tenant_id: TenantId
        ) -> dict[str, list[Entity]]:
            if any(key.startswith(TYPE_NAMESPACE) for key in keys):
                raise AssertionError("consolidation looked up a type key, a block of every entity")
            return await super().find_by_blocking_keys(keys, tenant_id)

    graph = NoScanGraph()
    pair = [org("Acme Corporation"), org("Acme Corp")]
    await graph.upsert(pair)
    merges, _ = await run(graph, [pair[1].id])
    assert len(merges) == 1


@pytest.mark.asyncio
async def test_two_tenants_with_colliding_ids_merge_only_their_own() -> None:
    graph = InMemoryGraphStore()
    ids = [EntityId(UUID(f"00000000-0000-4000-8000-00000000000{n}")) for n in (1, 2)]
    for tenant in (DEFAULT_TENANT, OTHER_TENANT):
        await graph.upsert(
            [org("Acme Corporation", tenant, id=ids[0]), org("Acme Corp", tenant, id=ids[1])]
        )
    [merge], _ = await run(graph, ids, tenant=DEFAULT_TENANT)
    assert merge.tenant_id == DEFAULT_TENANT
    assert len(await graph.list_entities(DEFAULT_TENANT)) == 1
    assert [e.aliases for e in await graph.list_entities(OTHER_TENANT)] == [[], []]


@pytest.mark.asyncio
async def test_a_threshold_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ValueError, match=r"on 0\.\.1"):
        await run(InMemoryGraphStore(), [], threshold=1.5)
