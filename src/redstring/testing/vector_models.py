"""Each entity vector keeps the embedding model that made it, tenant by tenant.

Mixed into `VectorStoreCompliance`. Two tenants hold the same entity ids
under different models, so a store keying a vector's model on the entity id
alone, or counting a rewritten row under its old model, fails here.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest

from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.vector_store import VectorStore
from redstring.testing._support import fixed_id, fresh_tenant

_DIMENSION = 4


def _record(tenant: TenantId, n: int, model: str | None) -> VectorRecord:
    vector = [1.0, float(n), 0.0, 0.5]
    entity_id: EntityId = fixed_id(n)
    return VectorRecord(
        tenant_id=tenant, entity_id=entity_id, entity_type="person", vector=vector, model=model
    )


class VectorModelsCompliance(ABC):
    """`embedding_models` counts a tenant's vectors by model; `embeds_with` asks for one."""

    @abstractmethod
    async def make_store(self, dimension: int) -> VectorStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_a_vector_keeps_the_model_it_was_written_with(self) -> None:
        store = await self.make_store(_DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert([_record(other, 1, "other-model"), _record(tenant, 1, "m-1")])
        await store.upsert([_record(tenant, 2, None)])
        got = {r.entity_id: r.model for r in await store.get([fixed_id(1), fixed_id(2)], tenant)}
        assert got == {fixed_id(1): "m-1", fixed_id(2): None}
        [theirs] = await store.get([fixed_id(1)], other)
        assert theirs.model == "other-model"
        await store.upsert([_record(tenant, 1, "m-2")])  # written again by another model
        [mine] = await store.get([fixed_id(1)], tenant)
        assert mine.model == "m-2"

    @pytest.mark.asyncio
    async def test_embedding_models_count_each_tenants_vectors_by_the_model_they_name(
        self,
    ) -> None:
        store = await self.make_store(_DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert([_record(other, n, "other-model") for n in (1, 2)])
        assert await store.embedding_models(other) == {"other-model": 2}
        await store.upsert([_record(tenant, n, "m-1") for n in (1, 2, 3)])
        assert await store.embedding_models(tenant) == {"m-1": 3}
        await store.upsert([_record(tenant, 3, "m-2")])  # the row rewritten, not added
        assert await store.embedding_models(tenant) == {"m-1": 2, "m-2": 1}
        await store.upsert([_record(tenant, 1, None)])  # a vector naming no model
        assert await store.embedding_models(tenant) == {"m-1": 1, "m-2": 1, None: 1}
        await store.delete([fixed_id(2), fixed_id(9)], tenant)
        assert await store.embedding_models(tenant) == {"m-2": 1, None: 1}
        assert await store.embedding_models(other) == {"other-model": 2}
        assert await store.embedding_models(fresh_tenant()) == {}
        await store.purge_tenant(other)
        assert await store.embedding_models(other) == {}
        assert await store.embedding_models(tenant) == {"m-2": 1, None: 1}

    @pytest.mark.asyncio
    async def test_embeds_with_asks_whether_a_vector_of_the_tenant_names_a_model(self) -> None:
        store = await self.make_store(_DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert([_record(other, n, "other-model") for n in (1, 2)])
        await store.upsert([_record(tenant, 1, "m-1")])
        assert await store.embeds_with(tenant, {"m-1"})
        assert await store.embeds_with(tenant, {"m-9", "m-1"})
        # other-model names only the other tenant's vectors, under the same ids.
        assert not await store.embeds_with(tenant, {"other-model", None})
        assert not await store.embeds_with(tenant, set())
        assert not await store.embeds_with(fresh_tenant(), {"m-1", None})
        await store.upsert([_record(tenant, 1, "m-2")])  # the only m-1 row, rewritten
        assert not await store.embeds_with(tenant, {"m-1"})
        assert await store.embeds_with(tenant, ["m-2"])
        await store.upsert([_record(tenant, 2, None)])
        assert await store.embeds_with(tenant, {None})
        await store.delete([fixed_id(1), fixed_id(2)], tenant)
        assert not await store.embeds_with(tenant, {"m-2", None})
        assert await store.embeds_with(other, {"other-model"})
        await store.purge_tenant(other)
        assert not await store.embeds_with(other, {"other-model"})
