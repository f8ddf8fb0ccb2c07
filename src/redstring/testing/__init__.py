"""Compliance suites: one per port, for any adapter to be pointed at.

Written only against `redstring.ports` and `redstring.domain`. An adapter
passes by subclassing the suite and providing a factory fixture; see each
suite's docstring. `GraphStoreCompliance`, `VectorStoreCompliance`,
`ChunkStoreCompliance` and `EventLogCompliance` each include their
concurrency and summary parts; `EmbeddingProviderCompliance` checks a model
provider. Importing this namespace needs pytest and hypothesis.
"""

from __future__ import annotations

from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.embedding_provider import EmbeddingProviderCompliance
from redstring.testing.event_log import EventLogCompliance
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance

__all__ = [
    "ChunkStoreCompliance",
    "EmbeddingProviderCompliance",
    "EventLogCompliance",
    "GraphStoreCompliance",
    "VectorStoreCompliance",
]
