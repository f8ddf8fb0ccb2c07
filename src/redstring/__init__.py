"""redstring: a multi-tenant knowledge graph of entities, with hybrid retrieval.

The public surface is `__all__`; everything else is internal and may change.
Domain types (`Entity`, `Relationship`, ids, vectors), the ports
(`EmbeddingProvider`, `VectorStore`, `GraphStore`, `LlmProvider`), complete
in-memory adapters, a deterministic fake embedding provider, and the errors.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from redstring.composition.sqlite_stores import SqliteStores, open_sqlite
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import (
    CompletionError,
    DimensionMismatchError,
    EmptyCompletionError,
    InvalidVectorError,
    MalformedCompletionError,
    RedstringError,
    RefusedCompletionError,
    SchemaMigrationRequiredError,
    SchemaTooNewError,
    SchemaVersionError,
    StoreError,
    StoreOperationError,
    StoreUnavailableError,
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
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.graph.sqlite import SqliteGraphStore
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
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from redstring.composition.postgres_stores import PostgresStores, open_postgres
    from redstring.graph.postgres import PostgresGraphStore
    from redstring.vector.postgres import PgVectorStore

# The PostgreSQL adapters need the `postgres` extra, so they load on first use.
_POSTGRES = {
    "PgVectorStore": "redstring.vector.postgres",
    "PostgresGraphStore": "redstring.graph.postgres",
    "PostgresStores": "redstring.composition.postgres_stores",
    "open_postgres": "redstring.composition.postgres_stores",
}


def __getattr__(name: str) -> Any:
    module = _POSTGRES.get(name)
    if module is None:
        raise AttributeError(f"module 'redstring' has no attribute {name!r}")
    try:
        from importlib import import_module  # noqa: PLC0415

        return getattr(import_module(module), name)
    except ImportError as error:
        raise ImportError(
            f"redstring.{name} needs the PostgreSQL driver: pip install 'redstring[postgres]'"
        ) from error


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
    "PgVectorStore",
    "PostgresGraphStore",
    "PostgresStores",
    "RedstringError",
    "RefusedCompletionError",
    "Relationship",
    "RelationshipId",
    "SchemaMigrationRequiredError",
    "SchemaTooNewError",
    "SchemaVersionError",
    "SqliteGraphStore",
    "SqliteStores",
    "SqliteVectorStore",
    "StoreError",
    "StoreOperationError",
    "StoreUnavailableError",
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
    "open_postgres",
    "open_sqlite",
    "relationship_id_for",
]
