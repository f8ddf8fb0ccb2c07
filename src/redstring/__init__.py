"""redstring: a multi-tenant knowledge graph of entities, with hybrid retrieval.

The public surface is `__all__`; everything else is internal and may change.
Domain types (`Entity`, `Relationship`, ids, vectors), the ports
(`EmbeddingProvider`, `VectorStore`, `GraphStore`, `LlmProvider`), complete
in-memory adapters, a deterministic fake embedding provider, and the errors.
`Retriever` turns a query into ranked entities of one tenant (semantic and
lexical channels fused by reciprocal rank, or either alone).
"""

from __future__ import annotations

from redstring.composition.retrieval import Retriever
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import (
    CompletionError,
    DimensionMismatchError,
    EmptyCompletionError,
    InvalidProviderSettingError,
    InvalidVectorError,
    MalformedCompletionError,
    MissingCapabilityError,
    MissingExtraError,
    ModelIntegrityError,
    ModelServerError,
    ModelServerResponseError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
    RedstringError,
    RefusedCompletionError,
    UnknownEntityError,
)
from redstring.domain.fusion import EvidenceFusion, FusionStrategy, ReciprocalRankFusion
from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    entity_id_for,
    new_tenant_id,
    relationship_id_for,
)
from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.llm.fake_embedding import FakeEmbeddingProvider
from redstring.ports.embedding_provider import EmbeddingProvider
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
    "EvidenceFusion",
    "FakeEmbeddingProvider",
    "FusionStrategy",
    "GraphPurge",
    "GraphReader",
    "GraphStore",
    "GraphWriter",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "InvalidProviderSettingError",
    "InvalidVectorError",
    "LlmProvider",
    "MalformedCompletionError",
    "MissingCapabilityError",
    "MissingExtraError",
    "ModelIntegrityError",
    "ModelServerError",
    "ModelServerResponseError",
    "ModelServerTimeoutError",
    "ModelServerUnreachableError",
    "ReciprocalRankFusion",
    "RedstringError",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "RetrievalMode",
    "RetrievalResult",
    "Retriever",
    "ScoredEntity",
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
