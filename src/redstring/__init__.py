"""redstring: a multi-tenant knowledge graph of entities, with hybrid retrieval.

The root holds what the main job needs:

    from redstring import Redstring, sample_docs
    with Redstring("demo.db") as rs:
        rs.index(sample_docs())
        print(rs.passages("the first computer program"))

- the client, blocking and async: `Redstring`, `AsyncRedstring`; `sample_docs()`,
  the folder of sample documents that ships with the package;
- the pieces it is made of, for composing your own: `index_documents`,
  `build_graph`, `Retriever` (entities), `ChunkRetriever` (passages);
- the main types: `SourceDocument`, `StoredChunk`, `TextSpan`, `Entity`,
  `Relationship`, `RetrievalMode`, `SearchRequest` (one search, checked
  once), `RetrievalResult`, `ScoredEntity`, `ChunkRetrievalResult`,
  `ScoredChunk`, `ChunkMatch`, and the ids
  (`TenantId`, `EntityId`, `RelationshipId`, `ChunkId` with `tenant_id_for`,
  `new_tenant_id`, `entity_id_for`, `relationship_id_for`, `chunk_id_for`);
- `RedstringError`, the root of every deliberate error; `__version__`.

The rest is in namespaces, each one import away: `redstring.answers` (the
client's answers), `redstring.building` (indexing and building options and
reports), `redstring.fusion` (fusion strategies), `redstring.stores`
(adapters, openers, upkeep), `redstring.providers` (embedding and language
models), `redstring.ports` (the protocols to implement), `redstring.errors`
(the exception tree) and `redstring.testing` (the compliance suites). A name
in none of them is internal and may change.
"""

from __future__ import annotations

from importlib.metadata import version as _installed_version

from redstring import answers as answers
from redstring import building as building
from redstring import errors as errors
from redstring import fusion as fusion
from redstring import ports as ports
from redstring import providers as providers
from redstring import stores as stores
from redstring.client import AsyncRedstring, Redstring
from redstring.client.samples import sample_docs
from redstring.composition.build_graph import build_graph
from redstring.composition.chunk_retrieval import ChunkRetriever
from redstring.composition.index_documents import index_documents
from redstring.composition.retrieval import Retriever
from redstring.domain.chunk import ChunkId, StoredChunk, TextSpan, chunk_id_for
from redstring.domain.chunk_retrieval import ChunkMatch, ChunkRetrievalResult, ScoredChunk
from redstring.domain.document import SourceDocument
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import RedstringError
from redstring.domain.ids import (
    EntityId,
    RelationshipId,
    TenantId,
    entity_id_for,
    new_tenant_id,
    relationship_id_for,
    tenant_id_for,
)
from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity
from redstring.domain.search_request import SearchRequest

#: The installed distribution's version (one source: pyproject.toml).
__version__ = _installed_version("redstring")

__all__ = [
    "AsyncRedstring",
    "ChunkId",
    "ChunkMatch",
    "ChunkRetrievalResult",
    "ChunkRetriever",
    "Entity",
    "EntityId",
    "Redstring",
    "RedstringError",
    "Relationship",
    "RelationshipId",
    "RetrievalMode",
    "RetrievalResult",
    "Retriever",
    "ScoredChunk",
    "ScoredEntity",
    "SearchRequest",
    "SourceDocument",
    "StoredChunk",
    "TenantId",
    "TextSpan",
    "build_graph",
    "chunk_id_for",
    "entity_id_for",
    "index_documents",
    "new_tenant_id",
    "relationship_id_for",
    "sample_docs",
    "tenant_id_for",
]
