"""The in-memory adapters pass the same compliance suites every adapter must."""

from __future__ import annotations

from redstring.ports import ChunkStore, EmbeddingProvider, GraphStore, VectorStore
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore
from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance


class TestInMemoryGraphStore(GraphStoreCompliance):
    async def make_store(self) -> GraphStore:
        return InMemoryGraphStore()


class TestInMemoryVectorStore(VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return InMemoryVectorStore(dimension=dimension)


class TestFakeEmbeddingProvider(EmbeddingProviderCompliance):
    async def make_provider(self) -> EmbeddingProvider:
        return FakeEmbeddingProvider(dimension=384)


class TestInMemoryChunkStore(ChunkStoreCompliance):
    async def make_store(self, dimension: int, *, language: str | None = None) -> ChunkStore:
        if language is None:
            return InMemoryChunkStore(dimension=dimension)
        return InMemoryChunkStore(dimension=dimension, language=language)
