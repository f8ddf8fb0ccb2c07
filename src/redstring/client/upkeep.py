"""The upkeep jobs over one tenant of a `StoreSet`: re-key, undo a merge, rebuild (B83, ADR 0164).

Composes the library's `rekey_graph`, `undo_merge` and `rebuild_stores` with
the stores the client opened; the command line's `rekey`, `undo` and
`rebuild` call these through the client.
"""

from __future__ import annotations

from uuid import UUID

from pydantic import BaseModel

from redstring.client.hints import nothing_held
from redstring.client.store_set import StoreSet
from redstring.client.stored_models import TenantModels
from redstring.composition.rebuild import rebuild_stores
from redstring.composition.rekey import RekeyReport, rekey_graph
from redstring.composition.undo import undo_merge
from redstring.domain.errors import EventLogUnavailableError, InvalidArgumentError
from redstring.domain.events import MergeUndone
from redstring.domain.ids import TenantId
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog


class RebuildReport(BaseModel):
    """What `rebuild` replayed into the tenant's graph and vectors, and what they hold after.

    `hint` is `None` unless the tenant holds nothing at all (no entity, no
    passage): then it says so and names the tenants that hold data, since
    the tenant's name is most likely mistyped.
    """

    tenant_id: str
    last_sequence: int
    entities: int
    relationships: int
    vectors: int
    hint: str | None = None


def _log(stores: StoreSet, command: str) -> EventLog:
    if stores.events is None:
        raise EventLogUnavailableError(backend=stores.backend, command=command)
    return stores.events


def parse_merge_id(value: str | UUID) -> UUID:
    """`value` as a merge event id, or `InvalidArgumentError` saying where ids come from."""
    try:
        return value if isinstance(value, UUID) else UUID(str(value).strip())
    except ValueError:
        raise InvalidArgumentError(
            name="merge_event_id",
            value=value,
            requirement="a UUID, the `undo:` id a build report prints beside each merge",
        ) from None


async def rekey(stores: StoreSet, tenant_id: TenantId, *, force: bool) -> RekeyReport:
    """Re-file the tenant's blocking index under the current key version (`rekey_graph`)."""
    return await rekey_graph(stores.graph, tenant_id, force=force)


async def undo(
    stores: StoreSet,
    tenant_id: TenantId,
    merge_event_id: UUID,
    embeddings: EmbeddingProvider | None,
    models: TenantModels,
) -> MergeUndone:
    """Reverse one merge (`undo_merge`); restored entities are re-embedded with a provider,
    so what `models` read is forgotten."""
    async with models.writing():
        return await undo_merge(
            merge_event_id,
            tenant_id=tenant_id,
            log=_log(stores, "undo"),
            graph=stores.graph,
            embeddings=embeddings,
            vectors=None if embeddings is None else stores.vectors,
            chunks=stores.chunks,
        )


async def rebuild(stores: StoreSet, tenant_id: TenantId, models: TenantModels) -> RebuildReport:
    """Empty the tenant's graph and vectors, then replay its event log into them.

    Passages are not touched (indexing writes them directly, not through the
    log). Each vector names the model its logged event names, so what
    `models` read is forgotten. Not atomic, but safe to re-run: a rebuild
    interrupted half-way is finished by the next one.
    """
    log = _log(stores, "rebuild")
    async with models.writing():
        await stores.graph.purge_tenant(tenant_id)
        await stores.vectors.purge_tenant(tenant_id)
        last = await rebuild_stores(log, tenant_id, graph=stores.graph, vectors=stores.vectors)
    summary = await stores.graph.graph_summary(tenant_id)
    return RebuildReport(
        tenant_id=str(tenant_id),
        last_sequence=last,
        entities=summary.entities,
        relationships=summary.relationships,
        vectors=await stores.vectors.count(tenant_id),
        hint=await nothing_held(stores, tenant_id),
    )
