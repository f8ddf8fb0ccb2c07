"""Real components with a record of how they were called (not mocks)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence

from redstring import ChunkId, ChunkMatch, StoredChunk, TenantId
from redstring.ports import LexicalCandidates
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore


class RecordingEmbeddings(FakeEmbeddingProvider):
    """The fake provider, remembering the size of every `embed` and `embed_query` call."""

    def __init__(self, *, dimension: int) -> None:
        super().__init__(dimension=dimension)
        self.document_batches: list[int] = []
        self.query_batches: list[int] = []

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.document_batches.append(len(texts))
        return await super().embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        self.query_batches.append(len(texts))
        return await super().embed(texts)


class RecordingChunkStore(InMemoryChunkStore):
    """The in-memory store, remembering which sources were replaced and what was read in full."""

    def __init__(self, *, dimension: int) -> None:
        super().__init__(dimension=dimension)
        self.replaced: list[str] = []
        self.read_in_full: list[ChunkId] = []  # by get_chunks and chunks_of_source
        self.vectors_sent: list[ChunkId] = []  # chunks given to replace_source with a vector
        self.vectors_kept: list[ChunkId] = []  # ids given to it in keep_embeddings

    async def get_chunks(
        self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId
    ) -> list[StoredChunk]:
        found = await super().get_chunks(chunk_ids, tenant_id)
        self.read_in_full.extend(c.id for c in found)
        return found

    async def chunks_of_source(self, source_id: str, tenant_id: TenantId) -> list[StoredChunk]:
        found = await super().chunks_of_source(source_id, tenant_id)
        self.read_in_full.extend(c.id for c in found)
        return found

    async def replace_source(
        self,
        source_id: str,
        tenant_id: TenantId,
        chunks: Sequence[StoredChunk],
        *,
        keep_embeddings: Collection[ChunkId] = (),
    ) -> None:
        await super().replace_source(source_id, tenant_id, chunks, keep_embeddings=keep_embeddings)
        self.replaced.append(source_id)
        self.vectors_sent.extend(c.id for c in chunks if c.embedding is not None)
        self.vectors_kept.extend(keep_embeddings)


class RendezvousChunkStore(InMemoryChunkStore):
    """A store whose two searches each wait for the other to start: sequential calls time out."""

    def __init__(self, *, dimension: int) -> None:
        super().__init__(dimension=dimension)
        self.barrier = asyncio.Barrier(2)

    async def search_chunks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        async with asyncio.timeout(2):
            await self.barrier.wait()
        return await super().search_chunks(vector, tenant_id, k=k, source_ids=source_ids)

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        async with asyncio.timeout(2):
            await self.barrier.wait()
        return await super().semantic_ranking(vector, tenant_id, k=k, source_ids=source_ids)

    async def lexical_candidates(
        self,
        terms: Sequence[str],
        tenant_id: TenantId,
        *,
        source_ids: Sequence[str] | None = None,
    ) -> LexicalCandidates:
        async with asyncio.timeout(2):
            await self.barrier.wait()
        return await super().lexical_candidates(terms, tenant_id, source_ids=source_ids)


class VanishingChunkStore(InMemoryChunkStore):
    """A store that deletes source `gone` just before fetching chunks by id."""

    async def get_chunks(
        self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId
    ) -> list[StoredChunk]:
        await self.delete_source("gone", tenant_id)
        return await super().get_chunks(chunk_ids, tenant_id)
