"""`retirement`: a document no longer naming an entity retires only what it is a source of."""

from __future__ import annotations

import pytest

from redstring.composition.reextraction import retirement
from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity
from redstring.domain.events import EntitiesRetired
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
