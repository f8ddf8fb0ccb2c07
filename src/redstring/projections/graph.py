"""Folding events into a graph store."""

from __future__ import annotations

from redstring.domain.events import (
    DocumentExtracted,
    EntitiesMerged,
    EntitiesRetired,
    Event,
    MergeUndone,
)
from redstring.ports.graph_store import GraphWriter


class GraphProjection:
    """Writes extracted, merged, retired and restored entities into `graph`."""

    name = "graph"

    def __init__(self, graph: GraphWriter) -> None:
        self._graph = graph

    async def apply(self, event: Event) -> None:
        """Upsert what `event` says exists and delete what it says is gone."""
        if isinstance(event, DocumentExtracted):
            await self._graph.upsert(event.entities, event.relationships)
        elif isinstance(event, EntitiesMerged):
            await self._graph.delete_entities(event.merged_ids, event.tenant_id)
            await self._graph.upsert([event.survivor_after], event.relationships_added)
        elif isinstance(event, EntitiesRetired):
            await self._graph.delete_relationships(
                [relationship.id for relationship in event.relationships_removed], event.tenant_id
            )
            await self._graph.delete_entities(event.retired_ids, event.tenant_id)
            await self._graph.upsert(event.updated, event.relationships_updated)
        elif isinstance(event, MergeUndone):
            await self._graph.delete_relationships(
                [relationship.id for relationship in event.relationships_removed], event.tenant_id
            )
            await self._graph.upsert(
                [event.survivor_restored, *event.restored], event.relationships_restored
            )
