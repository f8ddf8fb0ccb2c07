"""Rebuilding stores from the event log: composes the log with the projections of each store."""

from __future__ import annotations

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkWriter
from redstring.ports.event_log import EventLog, ProjectionPositions
from redstring.ports.graph_store import GraphWriter
from redstring.ports.vector_store import VectorWriter
from redstring.projections.base import Projection
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import catch_up, replay
from redstring.projections.vectors import VectorProjection


async def rebuild_stores(
    log: EventLog,
    tenant_id: TenantId,
    *,
    graph: GraphWriter | None = None,
    vectors: VectorWriter | None = None,
    chunks: ChunkWriter | None = None,
    after: int = 0,
) -> int:
    """Fold `tenant_id`'s events after `after` into the stores given; no model is called.

    Vectors come from the logged `EntitiesEmbedded` events, so a vector store
    needs the dimension they were embedded at (else `DimensionMismatchError`).
    Returns the sequence of the last event folded. Raises `InvalidArgumentError` when no
    store is given.
    """
    projections = _projections(graph, vectors, chunks)
    if not projections:
        raise InvalidArgumentError(
            name="graph, vectors, chunks",
            value=None,
            requirement="at least one of them given",
            message="rebuild_stores needs at least one of graph, vectors or chunks",
        )
    return await replay(log, tenant_id, projections, after=after)


async def catch_up_stores(
    log: EventLog,
    tenant_id: TenantId,
    *,
    graph: GraphWriter | None = None,
    vectors: VectorWriter | None = None,
    chunks: ChunkWriter | None = None,
) -> dict[str, int]:
    """Fold into each store given the events of `tenant_id` its recorded position lacks.

    A crash between appending events and folding them leaves a store's
    position behind the log; this replays from it. Returns each
    store's position after (`{}` for a log that records no positions).
    `build_graph` and `undo_merge` run it before they write.
    """
    return await catch_up(log, tenant_id, _projections(graph, vectors, chunks))


async def catch_up_every_tenant(
    log: EventLog,
    *,
    graph: GraphWriter | None = None,
    vectors: VectorWriter | None = None,
    chunks: ChunkWriter | None = None,
) -> list[TenantId]:
    """`catch_up_stores` for each tenant some store lags behind; returns those tenants.

    One read of every tenant's position finds them, so a store that is up to
    date costs that read only. `open_sqlite` and `open_postgres` run it on
    every writable open (B130), so a search after a crash between append and
    fold sees what the log committed.
    """
    projections = _projections(graph, vectors, chunks)
    behind = await _lagging(log, projections)
    for tenant_id in behind:
        await catch_up(log, tenant_id, projections)
    return behind


async def lagging_tenants(
    log: EventLog,
    *,
    graph: GraphWriter | None = None,
    vectors: VectorWriter | None = None,
    chunks: ChunkWriter | None = None,
) -> list[TenantId]:
    """The tenants `catch_up_every_tenant` would fold for, read without writing anything."""
    return await _lagging(log, _projections(graph, vectors, chunks))


async def _lagging(log: EventLog, projections: list[Projection]) -> list[TenantId]:
    if not isinstance(log, ProjectionPositions) or not projections:
        return []
    return await log.lagging_tenants([projection.name for projection in projections])


def _projections(
    graph: GraphWriter | None, vectors: VectorWriter | None, chunks: ChunkWriter | None
) -> list[Projection]:
    projections: list[Projection] = []
    if graph is not None:
        projections.append(GraphProjection(graph))
    if vectors is not None:
        projections.append(VectorProjection(vectors))
    if chunks is not None:
        projections.append(ChunkProjection(chunks))
    return projections
