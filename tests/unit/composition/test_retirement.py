"""`retirement`: a document no longer naming an entity retires only what it is a source of."""

from __future__ import annotations

from uuid import UUID

import pytest

from redstring.composition.reextraction import graph_support, retirement
from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.domain.events import EntitiesRetired
from redstring.domain.ids import TenantId
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore
from tests.factories import DEFAULT_TENANT, make_entity


@pytest.mark.asyncio
async def test_an_entity_the_document_is_no_source_of_is_left_alone() -> None:
    theirs = make_entity("Ada Lovelace", source_document_ids=["other"])
    ours = make_entity("Grace Hopper", source_document_ids=["d"])
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=4)
    await graph.upsert([theirs, ours])
    text = "Ada Lovelace met Grace Hopper"
    await chunks.upsert_chunks(
        [
            StoredChunk(
                tenant_id=DEFAULT_TENANT,
                source_id="d",
                text=text,
                index=0,
                start=0,
                end=len(text),
                entity_ids=[theirs.id, ours.id],
            )
        ]
    )

    async def retired_when_naming(*still: Entity) -> EntitiesRetired | None:
        return await retirement(
            graph,
            chunks,
            document_id="d",
            still_named={e.id for e in (theirs, ours) if e in still},
            still_stated=set(),
            tenant_id=DEFAULT_TENANT,
        )

    assert await retired_when_naming(ours) is None  # only "other" is a source of Ada
    event = await retired_when_naming()
    assert event is not None
    assert [e.id for e in event.retired] == [ours.id]
    assert event.updated == []


OTHER_TENANT = TenantId(UUID("22222222-2222-4222-8222-222222222222"))


@pytest.mark.asyncio
async def test_what_the_graph_records_a_document_naming_is_retired_with_no_chunk_rows() -> None:
    # The document's rows are gone (removed, or re-indexed naming nothing), and
    # another tenant holds the very same entity ids, all listing the same document.
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=4)
    people = {
        tenant: [
            make_entity("Grace Hopper", tenant_id=tenant, source_document_ids=["d"]),
            make_entity("Remington Rand", tenant_id=tenant, source_document_ids=["d"]),
        ]
        for tenant in (DEFAULT_TENANT, OTHER_TENANT)
    }
    ids = [entity.id for entity in people[DEFAULT_TENANT]]
    for tenant, entities in people.items():
        forced = [e.model_copy(update={"id": i}) for e, i in zip(entities, ids, strict=True)]
        hopper, rand = forced
        await graph.upsert(
            forced,
            [
                Relationship(
                    tenant_id=tenant,
                    source_id=hopper.id,
                    target_id=rand.id,
                    relationship_type="works_for",
                    source_document_ids=["d"],
                )
            ],
        )
    theirs_only = make_entity("Charles Babbage", tenant_id=OTHER_TENANT, source_document_ids=["d"])
    await graph.upsert([theirs_only])
    supported = await graph_support(graph, chunks, ["d", "unknown"], DEFAULT_TENANT)
    assert supported == {"d": set(ids)}
    event = await retirement(
        graph,
        chunks,
        document_id="d",
        still_named={ids[0]},
        still_stated=set(),
        tenant_id=DEFAULT_TENANT,
        supported=supported,
    )
    assert event is not None
    assert [(e.id, e.tenant_id) for e in event.retired] == [(ids[1], DEFAULT_TENANT)]
    assert [r.tenant_id for r in event.relationships_removed] == [DEFAULT_TENANT]
    # Without a chunk store that reads, nothing is read (retirement needs one).
    assert await graph_support(graph, None, ["d"], DEFAULT_TENANT) == {}
    assert len(await graph.list_entities(OTHER_TENANT)) == 3
