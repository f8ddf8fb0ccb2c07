"""Chunk rows that follow a merge to its survivor (B30).

A merge deletes the merged-away entities from the graph and vector stores;
the chunks that named them must name the survivor instead, or a passage
search by entity loses them. The rewrite is carried as state, one
`DocumentChunked` per affected document with its chunks as they now read, so
no projection has to read a store and a replay rebuilds the same rows.
"""

from __future__ import annotations

from redstring.domain.chunk import ChunkId
from redstring.domain.events import DocumentChunked, EntitiesMerged, Event
from redstring.domain.ids import EntityId
from redstring.ports.chunk_store import ChunkReader


async def chunks_after_merge(store: ChunkReader, merge: EntitiesMerged) -> list[DocumentChunked]:
    """The documents whose chunks named a merged-away entity, with the survivor named instead."""
    tenant_id = merge.tenant_id
    merged = set(merge.merged_ids)
    survivor = merge.survivor_after.id
    sources: dict[str, None] = {}
    for merged_id in merge.merged_ids:
        for chunk in await store.chunks_of_entity(merged_id, tenant_id):
            sources[chunk.source_id] = None
    events: list[DocumentChunked] = []
    for source_id in sources:
        rows = await store.chunks_of_source(source_id, tenant_id)
        rewritten = [
            row.model_copy(update={"entity_ids": _renamed(row.entity_ids, merged, survivor)})
            for row in rows
        ]
        events.append(DocumentChunked(tenant_id=tenant_id, document_id=source_id, chunks=rewritten))
    return events


def _renamed(ids: list[EntityId], merged: set[EntityId], survivor: EntityId) -> list[EntityId]:
    """`ids` with every merged id replaced by `survivor`, once, ordered by id string."""
    renamed = {survivor if entity_id in merged else entity_id for entity_id in ids}
    return sorted(renamed, key=str)


async def chunks_after_undo(
    store: ChunkReader, merge: EntitiesMerged, events: list[Event]
) -> list[DocumentChunked]:
    """The documents whose chunks the merge renamed, naming the merged-away entities again.

    A row's ids before the merge come from the last `DocumentChunked` of its
    document that precedes the merge in `events` (the tenant's log). Each
    current row of such a document gets back the merged ids it named then,
    and loses the survivor unless it named the survivor then too; whatever
    else changed since the merge is kept (B154).
    """
    merged = set(merge.merged_ids)
    survivor = merge.survivor_after.id
    before: dict[str, dict[ChunkId, set[EntityId]]] = {}
    for event in events:
        if event.event_id == merge.event_id:
            break
        if isinstance(event, DocumentChunked):
            before[event.document_id] = {row.id: set(row.entity_ids) for row in event.chunks}
    undone: list[DocumentChunked] = []
    for source_id, rows_before in before.items():
        if not any(ids & merged for ids in rows_before.values()):
            continue
        rows = await store.chunks_of_source(source_id, merge.tenant_id)
        restored = [
            row.model_copy(
                update={
                    "entity_ids": _restored(
                        row.entity_ids, rows_before.get(row.id), merged, survivor
                    )
                }
            )
            for row in rows
        ]
        undone.append(
            DocumentChunked(tenant_id=merge.tenant_id, document_id=source_id, chunks=restored)
        )
    return undone


def _restored(
    ids: list[EntityId], then: set[EntityId] | None, merged: set[EntityId], survivor: EntityId
) -> list[EntityId]:
    """`ids` with the merged ids `then` named put back, and the survivor kept only if named then."""
    if then is None or not then & merged:
        return ids
    now = set(ids)
    if survivor not in then:
        now.discard(survivor)
    return sorted(now | (then & merged), key=str)
