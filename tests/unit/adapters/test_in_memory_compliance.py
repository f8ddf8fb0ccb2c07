"""The in-memory adapters pass the same compliance suites every adapter must."""

from __future__ import annotations

from redstring import (
    EmbeddingProvider,
    FakeEmbeddingProvider,
    GraphStore,
    InMemoryGraphStore,
    InMemoryVectorStore,
    VectorStore,
)
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
