"""Undoing a merge: composes the event log, the consolidation planner and the projections."""

from __future__ import annotations

from uuid import UUID

from redstring.composition.chunk_merges import chunks_after_undo
from redstring.composition.transactions import one_transaction
from redstring.consolidation.merge import plan_undo
from redstring.domain.errors import (
    IncompleteVectorSetupError,
    MergeAlreadyUndoneError,
    MergeNotFoundError,
    MergeNotUndoableError,
    MergeRetiredError,
)
from redstring.domain.events import EntitiesMerged, EntitiesRetired, Event, MergeUndone
from redstring.domain.ids import EntityId, TenantId
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphWriter
from redstring.ports.vector_store import VectorWriter
from redstring.projections.base import Projection
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink, catch_up
from redstring.projections.vectors import VectorProjection, embedded_event


async def undo_merge(
    merge_event_id: UUID,
    *,
    tenant_id: TenantId,
    log: EventLog,
    graph: GraphWriter,
    embeddings: EmbeddingProvider | None = None,
    vectors: VectorWriter | None = None,
    chunks: ChunkStore | None = None,
) -> MergeUndone:
    """Reverse the merge `merge_event_id`: append a `MergeUndone` and fold it.

    The survivor returns to its state before the merge and the merged
    entities and their relationships come back (re-embedded when `vectors` is
    given). With `chunks`, the passages the merge moved to the survivor name
    the merged entities again. Raises `MergeNotFoundError`, `MergeAlreadyUndoneError`, or
    `MergeNotUndoableError` when a later, still-standing merge involves the
    same entities (or `MergeRetiredError`, one of its kind, when a later build
    retired one of them or a relationship the merge wrote: the undo would bring
    back what that build removed); nothing changes in those cases.
    """
    if (embeddings is None) != (vectors is None):
        raise IncompleteVectorSetupError(missing="vectors" if vectors is None else "embeddings")
    events = await log.read(tenant_id)
    merge = _find_merge(events, merge_event_id, tenant_id)
    _check_undoable(events, merge)
    undo = plan_undo(merge)
    batch: list[Event] = [undo]
    projections: list[Projection] = [GraphProjection(graph)]
    if embeddings is not None and vectors is not None:
        restored = [undo.survivor_restored, *undo.restored]
        batch.append(await embedded_event(embeddings, restored, tenant_id))
        projections.append(VectorProjection(vectors))
    if chunks is not None:
        projections.append(ChunkProjection(chunks))
    await catch_up(log, tenant_id, projections)
    if chunks is not None:
        batch += await chunks_after_undo(chunks, merge, events)
    async with one_transaction(log, graph, vectors, chunks):  # ADR 0256
        await EventSink(log, projections).emit(batch)
    return undo


def _find_merge(events: list[Event], merge_event_id: UUID, tenant_id: TenantId) -> EntitiesMerged:
    for event in events:
        if isinstance(event, EntitiesMerged) and event.event_id == merge_event_id:
            return event
    raise MergeNotFoundError(event_id=merge_event_id, tenant_id=tenant_id)


def _scope(merge: EntitiesMerged) -> set[EntityId]:
    ids = {merge.survivor_before.id, *merge.merged_ids}
    for relationship in merge.relationships_removed:
        ids.update((relationship.source_id, relationship.target_id))
    return ids


def _check_undoable(events: list[Event], merge: EntitiesMerged) -> None:
    undone = {event.merge_event_id for event in events if isinstance(event, MergeUndone)}
    if merge.event_id in undone:
        raise MergeAlreadyUndoneError(event_id=merge.event_id)
    scope = _scope(merge)
    later = False
    for event in events:
        if event.event_id == merge.event_id:
            later = True
            continue
        if not later:
            continue
        if (
            isinstance(event, EntitiesMerged)
            and event.event_id not in undone
            and _scope(event) & scope
        ):
            raise MergeNotUndoableError(event_id=merge.event_id, later_event_id=event.event_id)
        if isinstance(event, EntitiesRetired):
            _check_retirement(event, merge, scope)


def _check_retirement(
    retirement: EntitiesRetired, merge: EntitiesMerged, scope: set[EntityId]
) -> None:
    """Refuse when `retirement` removed an entity or relationship the undo would write back."""
    for entity in retirement.retired:
        if entity.id in scope:
            raise MergeRetiredError(
                event_id=merge.event_id,
                later_event_id=retirement.event_id,
                retired=entity.name,
                retired_id=entity.id,
            )
    written = {r.id for r in (*merge.relationships_added, *merge.relationships_removed)}
    for relationship in retirement.relationships_removed:
        if relationship.id in written:
            raise MergeRetiredError(
                event_id=merge.event_id,
                later_event_id=retirement.event_id,
                retired=f"the {relationship.relationship_type} relationship",
                retired_id=relationship.id,
            )
