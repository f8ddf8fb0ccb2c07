"""redstring: a multi-tenant knowledge graph of entities, with hybrid retrieval.

The public surface is `__all__`; everything else is internal and may change.
Domain types (`Entity`, `Relationship`, ids, vectors), the ports
(`EmbeddingProvider`, `VectorStore`, `GraphStore`, `LlmProvider`), complete
in-memory adapters, a deterministic fake embedding provider, and the errors.
"""

from __future__ import annotations

from redstring.composition import (
    AUTO,
    AutoDomain,
    GraphBuildReport,
    MergeSummary,
    build_graph,
    rebuild_stores,
    undo_merge,
)
from redstring.domain.document import SourceDocument
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import (
    ChunkExtractionError,
    CompletionError,
    DimensionMismatchError,
    DomainClassificationError,
    DuplicateDocumentError,
    EmptyCompletionError,
    IncompleteVectorSetupError,
    InvalidVectorError,
    MalformedCompletionError,
    MergeAlreadyUndoneError,
    MergeNotFoundError,
    MergeNotUndoableError,
    RedstringError,
    RefusedCompletionError,
    UnknownDomainError,
    UnknownEntityError,
)
from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    entity_id_for,
    new_tenant_id,
    relationship_id_for,
)
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.events.in_memory import InMemoryEventLog
from redstring.extraction.domains import DomainSchema
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.llm.fake_embedding import FakeEmbeddingProvider
from redstring.llm.fake_llm import FakeLlmProvider, Refusal
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import (
    BlockingIndex,
    GraphPurge,
    GraphReader,
    GraphStore,
    GraphWriter,
)
from redstring.ports.llm_provider import LlmProvider
from redstring.ports.vector_store import VectorPurge, VectorSearcher, VectorStore, VectorWriter
from redstring.vector.in_memory import InMemoryVectorStore

__all__ = [
    "BlockingIndex",
    "CompletionError",
    "DimensionMismatchError",
    "EmbeddingProvider",
    "EmptyCompletionError",
    "Entity",
    "EntityId",
    "FakeEmbeddingProvider",
    "GraphPurge",
    "GraphReader",
    "GraphStore",
    "GraphWriter",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "InvalidVectorError",
    "LlmProvider",
    "MalformedCompletionError",
    "RedstringError",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "TenantId",
    "UnknownEntityError",
    "VectorMatch",
    "VectorPurge",
    "VectorRecord",
    "VectorSearcher",
    "VectorStore",
    "VectorWriter",
    "entity_id_for",
    "new_tenant_id",
    "relationship_id_for",
]

# The write path (issue 5).
__all__ += [
    "AUTO",
    "AutoDomain",
    "ChunkExtractionError",
    "DomainClassificationError",
    "DomainSchema",
    "DuplicateDocumentError",
    "EventLog",
    "FakeLlmProvider",
    "GraphBuildReport",
    "InMemoryEventLog",
    "IncompleteVectorSetupError",
    "MergeAlreadyUndoneError",
    "MergeNotFoundError",
    "MergeNotUndoableError",
    "MergeSummary",
    "Refusal",
    "SourceDocument",
    "UnknownDomainError",
    "build_graph",
    "rebuild_stores",
    "undo_merge",
]
