"""Chunk rows that follow a merge to its survivor (B30).

A merge deletes the merged-away entities from the graph and vector stores;
the chunks that named them must name the survivor instead, or a passage
search by entity loses them. The rewrite is carried as state, one
`DocumentChunked` per affected document with its chunks as they now read, so
no projection has to read a store and a replay rebuilds the same rows.
"""

from __future__ import annotations

from redstring.domain.events import DocumentChunked, EntitiesMerged
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
