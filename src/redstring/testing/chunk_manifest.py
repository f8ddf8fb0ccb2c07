"""A source's manifest agrees with its chunks, and the models of its vectors are counted,
tenant by tenant.

Mixed into `ChunkStoreCompliance`. The same source and texts (so the same
chunk ids) are written into two tenants, one embedded and one not, and each
tenant's manifest must describe only its own rows.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest

from redstring.domain.chunk import ChunkManifest, StoredChunk
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkStore
from redstring.testing._support import fresh_tenant

_DIMENSION = 4


def _chunks(tenant: TenantId, *, embedded: bool, model: str | None) -> list[StoredChunk]:
    texts = ["engine notes", "the mill ran", "Zoë kept é"]
    return [
        StoredChunk(
            tenant_id=tenant,
            source_id="notes",
            text=text,
            index=2 - n,  # stored out of index order
            start=10 * n,
            end=10 * n + len(text),
            metadata={"page": n, "tags": ["a", None]},
            embedding=[1.0, float(n), 0.0, 0.0] if embedded and n != 1 else None,
            embedding_model=model,
        )
        for n, text in enumerate(texts)
    ]


class ChunkManifestCompliance(ABC):
    """`source_manifest` lists what `chunks_of_source` holds, without texts or vectors."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_a_source_manifest_describes_its_own_tenants_chunks_in_order(self) -> None:
        store = await self.make_store(_DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(_chunks(other, embedded=False, model=None))
        await store.upsert_chunks(_chunks(tenant, embedded=True, model="m-1"))
        for t in (tenant, other):
            manifest = await store.source_manifest("notes", t)
            chunks = await store.chunks_of_source("notes", t)
            assert manifest == [
                ChunkManifest.of(c, embedded=c.embedding is not None) for c in chunks
            ]
        mine = await store.source_manifest("notes", tenant)
        assert [m.embedded for m in mine] == [True, False, True]
        assert [m.index for m in mine] == [0, 1, 2]
        assert {m.embedding_model for m in mine} == {"m-1"}
        assert not any(m.embedded for m in await store.source_manifest("notes", other))
        assert await store.source_manifest("absent", tenant) == []
        assert await store.source_manifest("notes", fresh_tenant()) == []

    @pytest.mark.asyncio
    async def test_embedding_models_count_each_tenants_vectors_by_the_model_they_name(
        self,
    ) -> None:
        store = await self.make_store(_DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(_chunks(other, embedded=True, model="other-model"))
        assert await store.embedding_models(other) == {"other-model": 2}
        first, unembedded, last = _chunks(tenant, embedded=True, model="m-1")
        await store.upsert_chunks([first, unembedded, last])
        # The chunk without a vector names m-1 too, and is not counted.
        assert await store.embedding_models(tenant) == {"m-1": 2}
        # The same vector again under another model's name.
        await store.upsert_chunks([last.model_copy(update={"embedding_model": "m-2"})])
        assert await store.embedding_models(tenant) == {"m-1": 1, "m-2": 1}
        # Kept by id (its stored vector and model stay), one re-embedded, one without a model.
        await store.replace_source(
            "notes",
            tenant,
            [
                first.model_copy(update={"embedding": None, "embedding_model": "ignored"}),
                unembedded.model_copy(update={"embedding": [0.0, 1.0, 0.0, 0.0]}),
                last.model_copy(update={"embedding_model": "m-3"}),
            ],
            keep_embeddings=[first.id],
        )
        assert await store.embedding_models(tenant) == {"m-1": 2, "m-3": 1}
        await store.upsert_chunks([first.model_copy(update={"embedding_model": None})])
        assert await store.embedding_models(tenant) == {"m-1": 1, "m-3": 1, None: 1}
        assert await store.embedding_models(other) == {"other-model": 2}
        await store.delete_source("notes", tenant)
        assert await store.embedding_models(tenant) == {}
        assert await store.embedding_models(fresh_tenant()) == {}
        await store.purge_tenant(other)
        assert await store.embedding_models(other) == {}

    @pytest.mark.asyncio
    async def test_embeds_with_asks_whether_a_vector_of_the_tenant_names_a_model(self) -> None:
        store = await self.make_store(_DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(_chunks(other, embedded=True, model="other-model"))
        first, unembedded, last = _chunks(tenant, embedded=True, model="m-1")
        await store.upsert_chunks([first, unembedded.model_copy(update={"embedding_model": "m-2"})])
        assert await store.embeds_with(tenant, {"m-1"})
        assert await store.embeds_with(tenant, {"m-9", "m-1"})
        # m-2 names a chunk without a vector; other-model only the other tenant's vectors.
        assert not await store.embeds_with(tenant, {"m-2", "other-model", None})
        assert not await store.embeds_with(tenant, set())
        assert not await store.embeds_with(fresh_tenant(), {"m-1", None})
        await store.upsert_chunks([last.model_copy(update={"embedding_model": None})])
        assert await store.embeds_with(tenant, {None})
        await store.delete_source("notes", tenant)
        assert not await store.embeds_with(tenant, {"m-1", None})
        assert await store.embeds_with(other, {"other-model"})
