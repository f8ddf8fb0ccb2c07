"""`embed_passages`: nothing to embed for no passages, and a store it cannot read keeps none."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import pytest

from redstring.composition.build_passages import embed_passages
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.ids import TenantId
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore
from tests.factories import DEFAULT_TENANT

TEXTS = ["Ada wrote notes", "Grace wrote a compiler"]
PASSAGES = [
    StoredChunk(tenant_id=DEFAULT_TENANT, source_id="doc", text=t, index=i, start=0, end=len(t))
    for i, t in enumerate(TEXTS)
]


class CountingEmbeddings(FakeEmbeddingProvider):
    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.embedded: list[str] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.embedded += texts
        return await super().embed(texts)


class WriteOnlyChunks:
    """A `ChunkWriter` that cannot be read back."""

    def __init__(self, store: InMemoryChunkStore) -> None:
        self._store = store

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        await self._store.upsert_chunks(chunks)

    async def replace_source(
        self,
        source_id: str,
        tenant_id: TenantId,
        chunks: Sequence[StoredChunk],
        *,
        keep_embeddings: Collection[ChunkId] = (),
    ) -> None:
        await self._store.replace_source(
            source_id, tenant_id, chunks, keep_embeddings=keep_embeddings
        )


@pytest.mark.asyncio
async def test_no_passages_embed_nothing() -> None:
    embeddings = CountingEmbeddings()
    assert await embed_passages(embeddings, InMemoryChunkStore(dimension=8), [], "doc") == []
    assert embeddings.embedded == []


@pytest.mark.asyncio
async def test_a_store_that_cannot_be_read_has_every_passage_embedded() -> None:
    embeddings, readable = CountingEmbeddings(), InMemoryChunkStore(dimension=8)
    stored = await embed_passages(embeddings, readable, PASSAGES, "doc")
    await readable.upsert_chunks(stored)
    kept = await embed_passages(embeddings, readable, PASSAGES, "doc")
    assert embeddings.embedded == TEXTS  # the second call kept the stored vectors
    again = await embed_passages(embeddings, WriteOnlyChunks(readable), PASSAGES, "doc")
    assert embeddings.embedded == TEXTS + TEXTS
    for passages in (kept, again):
        assert [p.embedding_model for p in passages] == ["fake-hashed-words"] * 2
        for passage, first in zip(passages, stored, strict=True):
            assert passage.embedding == pytest.approx(first.embedding, abs=1e-6)
