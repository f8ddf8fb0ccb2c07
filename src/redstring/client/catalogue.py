"""What one tenant holds, for a caller deciding what to ask: types, sources and their counts.

`describe_tenant` reads the stores' summaries (aggregates, never rows) and the
models of the passage and entity vectors (read once by the client), and
names the other tenants holding data, so a caller pointed at an empty or
mistyped tenant can be told so. `read_passage` fetches one stored passage
by id, for a caller that was shown the start of its text.
"""

from __future__ import annotations

from pydantic import BaseModel

from redstring.client.hints import other_tenants
from redstring.client.store_set import StoreSet
from redstring.client.stored_models import TenantModels
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId


class TenantCatalogue(BaseModel):
    """The entities (by normalised type) and passages (by source id) of one tenant.

    `entity_types` maps each type, in the form type filters compare
    (casefolded), to its entity count; `sources` maps each source id,
    exactly as stored at index time, to its passage count. `passages` is
    `None` where the backend keeps no passages. `other_tenants` lists the
    other tenants of the database holding entities or passages, by id string.
    `dimension` is the length of the database's vectors (entity vectors and
    passage embeddings alike): an embedding model of another makes searches
    that embed their query fail. `passage_models` maps each embedding model
    that embedded passages of the tenant to how many (`""`: vectors naming no
    model); a passage search embedding with another model is refused.
    `entity_models` maps each embedding model that embedded entities of the
    tenant to how many (`""`: vectors written before the model was kept); an
    entity search embedding with another model is refused.
    """

    tenant_id: str
    entities: int
    entity_types: dict[str, int]
    relationships: int
    passages: int | None
    sources: dict[str, int]
    other_tenants: list[str]
    dimension: int
    passage_models: dict[str, int] = {}
    entity_models: dict[str, int] = {}

    @property
    def is_empty(self) -> bool:
        """Whether the tenant holds neither entities nor passages."""
        return self.entities == 0 and not self.passages


async def describe_tenant(
    stores: StoreSet, tenant_id: TenantId, models: TenantModels
) -> TenantCatalogue:
    """The catalogue of `tenant_id`; an unknown tenant gives zeros (see `is_empty`).

    The passages' and entities' models are `models`' reads (the client's, kept
    until it writes).
    """
    graph = await stores.graph.graph_summary(tenant_id)
    chunks = None if stores.chunks is None else await stores.chunks.chunk_summary(tenant_id)
    others = await other_tenants(stores, tenant_id)
    return TenantCatalogue(
        tenant_id=str(tenant_id),
        entities=graph.entities,
        entity_types=dict(sorted(graph.entity_types.items())),
        relationships=graph.relationships,
        passages=None if chunks is None else chunks.chunks,
        sources={} if chunks is None else dict(sorted(chunks.sources.items())),
        other_tenants=others,
        dimension=stores.vectors.dimension,
        passage_models={}
        if stores.chunks is None
        else {
            name or "": n
            for name, n in (await models.passages.of(stores.chunks, tenant_id)).items()
        },
        entity_models={
            name or "": n
            for name, n in (await models.entities.of(stores.vectors, tenant_id)).items()
        },
    )


async def read_passage(stores: StoreSet, tenant_id: TenantId, passage_id: str) -> StoredChunk:
    """The stored passage `passage_id` of `tenant_id` (a `chunk_id` from a passage search),
    checked already (`require_lookup_text`, before any store opens).

    Raises `InvalidArgumentError` naming `passage_id` when the tenant holds no such passage:
    its id is well formed (checked before), so it most likely came from a search and its
    passage has gone since, removed or replaced by indexing its document again.
    """
    found = (
        []
        if stores.chunks is None
        else await stores.chunks.get_chunks([ChunkId(passage_id)], tenant_id)
    )
    if not found:
        raise InvalidArgumentError(
            name="passage_id",
            value=passage_id,
            requirement="the `passage_id` of a passage a search returned in this tenant",
            message=f"passage_id {passage_id} names no passage held now: it was removed, or "
            "its document indexed again, since the search. Search again for its current id.",
        )
    return found[0]
