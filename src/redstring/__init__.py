"""redstring: a multi-tenant knowledge graph of entities, with hybrid retrieval.

The public surface is `__all__`; everything else is internal and may change.
Domain types (`Entity`, `Relationship`, ids, vectors), the ports
(`EmbeddingProvider`, `VectorStore`, `GraphStore`, `LlmProvider`), complete
in-memory adapters, a deterministic fake embedding provider, and the errors.
`Retriever` turns a query into ranked entities of one tenant (semantic and
lexical channels fused by reciprocal rank, or either alone).
"""

from __future__ import annotations

from importlib.metadata import version as _installed_version
from typing import TYPE_CHECKING, Any

from redstring.chunks.in_memory import (
    InMemoryChunkStore,
)
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.client import AsyncRedstring, Redstring
from redstring.client.catalogue import TenantCatalogue
from redstring.client.store_set import StoreOpener, StoreSet
from redstring.client.answers import (
    EntityAnswer,
    EntityDetail,
    EntityHit,
    EntitySearchAnswer,
    Neighbour,
    PassageHit,
    PassageSearchAnswer,
    StatsAnswer,
    TenantStats,
)
from redstring.composition import (
    AUTO,
    AutoDomain,
    GraphBuildReport,
    MergeSummary,
    build_graph,
    catch_up_stores,
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
from redstring.composition.rekey import (
    RekeyReport,
    rekey_graph,
)
from redstring.composition.retrieval import (
    Retriever,
)
from redstring.composition.sqlite_stores import (
    SqliteStores,
    open_sqlite,
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
    BuildFailedError,
    ChunkExtractionError,
    ChunkSourceMismatchError,
    CompletionError,
    DimensionMismatchError,
    DimensionRequiredError,
    DomainClassificationError,
    DuplicateDocumentError,
    EmptyCompletionError,
    IncompleteVectorSetupError,
    InconsistentCorpusError,
    InvalidArgumentError,
    InvalidSettingError,
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
    ModelServerStatusError,
    ModelServerTimeoutError,
    ModelServerUnreachableError,
    ModeNeedsEmbeddingsError,
    ReadOnlyDatabaseError,
    RedstringError,
    RefusedCompletionError,
    SchemaMigrationRequiredError,
    SchemaTooNewError,
    SchemaVersionError,
    StoreError,
    StoreOperationError,
    StoreUnavailableError,
    TruncatedCompletionError,
    UnknownDomainError,
    UnknownEntityError,
)
from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesEmbedded,
    EntitiesMerged,
    EntitiesRetired,
    Event,
    MergeUndone,
)
from redstring.domain.fusion import (
    AdaptiveFusion,
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
    tenant_id_for,
)
from redstring.domain.query import NormalizedQuery
from redstring.domain.retrieval import (
    RetrievalMode,
    RetrievalResult,
    ScoredEntity,
)
from redstring.domain.summary import (
    ChunkSummary,
    GraphSummary,
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
from redstring.events.sqlite import SqliteEventLog
from redstring.extraction.domains import (
    DomainSchema,
)
from redstring.extraction.extractor import (
    ChunkFailure,
)
from redstring.graph.in_memory import (
    InMemoryGraphStore,
)
from redstring.graph.sqlite import (
    SqliteGraphStore,
)
from redstring.llm.fake_embedding import (
    FakeEmbeddingProvider,
)
from redstring.llm.fake_llm import (
    FakeLlmProvider,
    Refusal,
)
from redstring.llm.local_embedding import LocalEmbeddingProvider, ModelFiles
from redstring.llm.openai_compatible import (
    OpenAICompatibleEmbeddingProvider,
    OpenAICompatibleLlmProvider,
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
    BlockingIndexMaintenance,
    GraphPurge,
    GraphReader,
    GraphStore,
    GraphWriter,
)
from redstring.ports.llm_provider import (
    CheckedLlmProvider,
    LlmProvider,
)
from redstring.ports.vector_store import (
    VectorPurge,
    VectorSearcher,
    VectorStore,
    VectorWriter,
)
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from redstring.vector.in_memory import (
    InMemoryVectorStore,
)
from redstring.vector.sqlite import (
    SqliteVectorStore,
)

if TYPE_CHECKING:
    from redstring.chunks.postgres import PostgresChunkStore
    from redstring.composition.postgres_stores import PostgresStores, open_postgres
    from redstring.events.postgres import PostgresEventLog
    from redstring.graph.postgres import PostgresGraphStore
    from redstring.storage.postgres import PostgresDatabase
    from redstring.vector.postgres import PgVectorStore

# The PostgreSQL adapters need the `postgres` extra, so they load on first use.
_POSTGRES = {
    "PgVectorStore": "redstring.vector.postgres",
    "PostgresDatabase": "redstring.storage.postgres",
    "PostgresChunkStore": "redstring.chunks.postgres",
    "PostgresEventLog": "redstring.events.postgres",
    "PostgresGraphStore": "redstring.graph.postgres",
    "PostgresStores": "redstring.composition.postgres_stores",
    "open_postgres": "redstring.composition.postgres_stores",
}


def __getattr__(name: str) -> Any:
    module = _POSTGRES.get(name)
    if module is None:
        raise AttributeError(f"module 'redstring' has no attribute {name!r}")
    from importlib import import_module  # noqa: PLC0415

    try:
        return getattr(import_module(module), name)
    except ModuleNotFoundError as error:
        raise MissingExtraError(extra="postgres", missing=str(error.name)) from error


#: The installed distribution's version (one source: pyproject.toml).
__version__ = _installed_version("redstring")

__all__ = [
    "AUTO",
    "AdaptiveFusion",
    "AsyncRedstring",
    "AutoDomain",
    "BlockingIndex",
    "BlockingIndexMaintenance",
    "BuildFailedError",
    "CheckedLlmProvider",
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
    "ChunkSummary",
    "ChunkWriter",
    "CompletionError",
    "CorpusStats",
    "DimensionMismatchError",
    "DimensionRequiredError",
    "DocumentChunked",
    "DocumentExtracted",
    "DomainClassificationError",
    "DomainSchema",
    "DuplicateDocumentError",
    "EmbeddingProvider",
    "EmptyCompletionError",
    "EntitiesEmbedded",
    "EntitiesMerged",
    "EntitiesRetired",
    "Entity",
    "EntityAnswer",
    "EntityDetail",
    "EntityHit",
    "EntityId",
    "EntitySearchAnswer",
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
    "GraphSummary",
    "GraphWriter",
    "InMemoryChunkStore",
    "InMemoryEventLog",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "IncompleteVectorSetupError",
    "InconsistentCorpusError",
    "IndexProgressCallback",
    "IndexReport",
    "InvalidArgumentError",
    "InvalidSettingError",
    "InvalidVectorError",
    "LexicalCandidate",
    "LexicalCandidates",
    "LexicalChunkSource",
    "LlmProvider",
    "LocalEmbeddingProvider",
    "MalformedCompletionError",
    "MergeAlreadyUndoneError",
    "MergeNotFoundError",
    "MergeNotUndoableError",
    "MergeSummary",
    "MergeUndone",
    "MissingCapabilityError",
    "MissingExtraError",
    "ModeNeedsEmbeddingsError",
    "ModelFiles",
    "ModelIntegrityError",
    "ModelServerError",
    "ModelServerResponseError",
    "ModelServerStatusError",
    "ModelServerTimeoutError",
    "ModelServerUnreachableError",
    "Neighbour",
    "NormalizedQuery",
    "OpenAICompatibleEmbeddingProvider",
    "OpenAICompatibleLlmProvider",
    "PassageHit",
    "PassageSearchAnswer",
    "PgVectorStore",
    "PostgresChunkStore",
    "PostgresDatabase",
    "PostgresEventLog",
    "PostgresGraphStore",
    "PostgresStores",
    "ReadOnlyDatabaseError",
    "ReciprocalRankFusion",
    "Redstring",
    "RedstringError",
    "Refusal",
    "RefusedCompletionError",
    "RekeyReport",
    "Relationship",
    "RelationshipId",
    "RetrievalMode",
    "RetrievalResult",
    "Retriever",
    "Schema",
    "SchemaMigrationRequiredError",
    "SchemaTooNewError",
    "SchemaVersionError",
    "ScoredChunk",
    "ScoredEntity",
    "SemanticChunkSource",
    "SlidingWindowChunker",
    "SourceDocument",
    "SqliteChunkStore",
    "SqliteDatabase",
    "SqliteEventLog",
    "SqliteGraphStore",
    "SqliteStores",
    "SqliteVectorStore",
    "StatsAnswer",
    "StoreError",
    "StoreOpener",
    "StoreSet",
    "StoreOperationError",
    "StoreUnavailableError",
    "StoredChunk",
    "TenantCatalogue",
    "TenantId",
    "TenantStats",
    "TextSpan",
    "TruncatedCompletionError",
    "UnknownDomainError",
    "UnknownEntityError",
    "VectorMatch",
    "VectorPurge",
    "VectorRecord",
    "VectorSearcher",
    "VectorStore",
    "VectorWriter",
    "build_graph",
    "catch_up_stores",
    "chunk_id_for",
    "entity_id_for",
    "index_documents",
    "new_tenant_id",
    "open_postgres",
    "open_sqlite",
    "rank_chunks",
    "rebuild_stores",
    "rekey_graph",
    "relationship_id_for",
    "tenant_id_for",
    "tokenize",
    "undo_merge",
]
