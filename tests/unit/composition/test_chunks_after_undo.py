"""`chunks_after_undo` (B154): each row gets back what the merge renamed, and nothing else."""

from __future__ import annotations

import pytest

from redstring.composition.chunk_merges import chunks_after_undo
from redstring.domain.chunk import StoredChunk
from redstring.domain.events import DocumentChunked, EntitiesMerged, Event
from redstring.domain.ids import EntityId
from redstring.stores import InMemoryChunkStore
from tests.factories import DEFAULT_TENANT, make_entity

ADA, ADDIE, ALAN = make_entity("Ada Lovelace"), make_entity("Ada L."), make_entity("Alan Turing")
MERGE = EntitiesMerged(
    tenant_id=DEFAULT_TENANT,
    survivor_before=ADA,
    survivor_after=ADA,
    merged=[ADDIE],
    relationships_removed=[],
    relationships_added=[],
    score=0.9,
)
TEXTS = ["Ada L. wrote", "Ada Lovelace, or Ada L.", "Alan Turing", "Ada again, later"]


def _rows(*named: list[EntityId]) -> list[StoredChunk]:
    return [
        StoredChunk(
            tenant_id=DEFAULT_TENANT,
            source_id="d",
            text=text,
            index=i,
            start=0,
            end=len(text),
            entity_ids=ids,
        )
        for i, (text, ids) in enumerate(zip(TEXTS, named, strict=False))
    ]


def _named(event: DocumentChunked) -> list[set[EntityId]]:
    return [set(row.entity_ids) for row in event.chunks]


@pytest.mark.asyncio
async def test_undo_restores_the_merged_ids_each_row_named_before_the_merge() -> None:
    before = DocumentChunked(
        tenant_id=DEFAULT_TENANT,
        document_id="d",
        chunks=_rows([ADDIE.id], [ADA.id, ADDIE.id], [ALAN.id]),
    )
    after = DocumentChunked(  # logged after the merge: not what the rows named before it
        tenant_id=DEFAULT_TENANT, document_id="d", chunks=_rows([ALAN.id], [ALAN.id], [ALAN.id])
    )
    # The rows as they read now: the third named Ada since the merge, the fourth is new.
    store = InMemoryChunkStore(dimension=4)
    await store.upsert_chunks(_rows([ADA.id], [ADA.id], [ALAN.id, ADA.id], [ADA.id]))
    expected = [{ADDIE.id}, {ADA.id, ADDIE.id}, {ALAN.id, ADA.id}, {ADA.id}]
    logs: list[list[Event]] = [[before, MERGE, after], [before]]  # the merge not yet logged
    for events in logs:
        [undone] = await chunks_after_undo(store, MERGE, events)
        assert undone.document_id == "d"
        assert _named(undone) == expected
