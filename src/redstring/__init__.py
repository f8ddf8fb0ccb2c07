"""redstring: a multi-tenant knowledge graph of entities, with hybrid retrieval.

The public surface is `__all__`; everything else is internal and may change.
Domain types (`Entity`, `Relationship`, ids, vectors), the ports
(`EmbeddingProvider`, `VectorStore`, `GraphStore`, `LlmProvider`), complete
in-memory adapters, a deterministic fake embedding provider, and the errors.
`Retriever` turns a query into ranked entities of one tenant (semantic and
lexical channels fused by reciprocal rank, or either alone).
"""

from __future__ import annotations

from redstring.chunks.in_memory import (
    InMemoryChunkStore,
)
from redstring.composition import (
    AUTO,
    AutoDomain,
    GraphBuildReport,
    MergeSummary,
    build_graph,
    rebuild_stores,
    undo_merge,
)
from redstring.composition.chunk_retrieval import (
    ChunkRetriever,
)
from redstring.composition.index_documents import (
    IndexProgressCallback,
    IndexReport,
    index_documents,
)
from redstring.composition.retrieval import (
    Retriever,
)
from redstring.domain.bm25 import (
    CorpusStats,
    LexicalCandidate,
    LexicalCandidates,
    rank_chunks,
)
from redstring.domain.chunk import (
    ChunkId,
    StoredChunk,
    TextSpan,
    chunk_id_for,
)
from redstring.domain.chunk_retrieval import (
    ChunkMatch,
    ChunkRetrievalResult,
    ScoredChunk,
)
from redstring.domain.chunking import (
    SlidingWindowChunker,
)
from redstring.domain.document import (
    SourceDocument,
)
from redstring.domain.entity import (
    Entity,
    Relationship,
)
from redstring.domain.errors import (
    ChunkExtractionError,
    ChunkSourceMismatchError,
    CompletionError,
    DimensionMismatchError,
    DomainClassificationError,
    DuplicateDocumentError,
    DuplicateSourceError,
    EmptyCompletionError,
    IncompleteVectorSetupError,
    InconsistentCorpusError,
    InvalidProviderSettingError,
    InvalidVectorError,
    MalformedCompletionError,
    MergeAlreadyUndoneError,
    MergeNotFoundError,
    MergeNotUndoableError,
    MissingCapabilityError,
    MissingExtraError,
    ModelIntegrityError,
    ModelServerError,
    ModelServerResponseError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
    RedstringError,
    RefusedCompletionError,
    UnknownDomainError,
    UnknownEntityError,
)
from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesEmbedded,
    EntitiesMerged,
    Event,
    MergeUndone,
)
from redstring.domain.fusion import (
    EvidenceFusion,
    FusionStrategy,
    ReciprocalRankFusion,
)
from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    entity_id_for,
    new_tenant_id,
    relationship_id_for,
)
from redstring.domain.retrieval import (
    RetrievalMode,
    RetrievalResult,
    ScoredEntity,
)
from redstring.domain.tokenize import (
    tokenize,
)
from redstring.domain.vector import (
    VectorMatch,
    VectorRecord,
)
from redstring.events.in_memory import (
    InMemoryEventLog,
)
from redstring.extraction.domains import (
    DomainSchema,
)
from redstring.extraction.extractor import (
    ChunkFailure,
)
from redstring.graph.in_memory import (
    InMemoryGraphStore,
)
from redstring.llm.fake_embedding import (
    FakeEmbeddingProvider,
)
from redstring.llm.fake_llm import (
    FakeLlmProvider,
    Refusal,
)
from redstring.ports.chunk_store import (
    ChunkPurge,
    ChunkReader,
    ChunkStore,
    ChunkWriter,
    LexicalChunkSource,
    SemanticChunkSource,
)
from redstring.ports.embedding_provider import (
    EmbeddingProvider,
)
from redstring.ports.event_log import (
    EventLog,
)
from redstring.ports.graph_store import (
    BlockingIndex,
    GraphPurge,
    GraphReader,
    GraphStore,
    GraphWriter,
)
from redstring.ports.llm_provider import (
    LlmProvider,
)
from redstring.ports.vector_store import (
    VectorPurge,
    VectorSearcher,
    VectorStore,
    VectorWriter,
)
from redstring.vector.in_memory import (
    InMemoryVectorStore,
)

__all__ = [
    "AUTO",
    "AutoDomain",
    "BlockingIndex",
    "ChunkExtractionError",
    "ChunkFailure",
    "ChunkId",
    "ChunkMatch",
    "ChunkPurge",
    "ChunkReader",
    "ChunkRetrievalResult",
    "ChunkRetriever",
    "ChunkSourceMismatchError",
    "ChunkStore",
    "ChunkWriter",
    "CompletionError",
    "CorpusStats",
    "DimensionMismatchError",
    "DocumentChunked",
    "DocumentExtracted",
    "DomainClassificationError",
    "DomainSchema",
    "DuplicateDocumentError",
    "DuplicateSourceError",
    "EmbeddingProvider",
    "EmptyCompletionError",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "Entity",
    "EntityId",
    "Event",
    "EventLog",
    "EvidenceFusion",
    "FakeEmbeddingProvider",
    "FakeLlmProvider",
    "FusionStrategy",
    "GraphBuildReport",
    "GraphPurge",
    "GraphReader",
    "GraphStore",
    "GraphWriter",
    "InMemoryChunkStore",
    "InMemoryEventLog",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "IncompleteVectorSetupError",
    "InconsistentCorpusError",
    "IndexProgressCallback",
    "IndexReport",
    "InvalidProviderSettingError",
    "InvalidVectorError",
    "LexicalCandidate",
    "LexicalCandidates",
    "LexicalChunkSource",
    "LlmProvider",
    "MalformedCompletionError",
    "MergeAlreadyUndoneError",
    "MergeNotFoundError",
    "MergeNotUndoableError",
    "MergeSummary",
    "MergeUndone",
    "MissingCapabilityError",
    "MissingExtraError",
    "ModelIntegrityError",
    "ModelServerError",
    "ModelServerResponseError",
    "ModelServerTimeoutError",
    "ModelServerUnreachableError",
    "ReciprocalRankFusion",
    "RedstringError",
    "Refusal",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "RetrievalMode",
    "RetrievalResult",
    "Retriever",
    "ScoredChunk",
    "ScoredEntity",
    "SemanticChunkSource",
    "SlidingWindowChunker",
    "SourceDocument",
    "StoredChunk",
    "TenantId",
    "TextSpan",
    "UnknownDomainError",
    "UnknownEntityError",
    "VectorMatch",
    "VectorPurge",
    "VectorRecord",
    "VectorSearcher",
    "VectorStore",
    "VectorWriter",
    "build_graph",
    "chunk_id_for",
    "entity_id_for",
    "index_documents",
    "new_tenant_id",
    "rank_chunks",
    "rebuild_stores",
    "relationship_id_for",
    "tokenize",
    "undo_merge",
]
