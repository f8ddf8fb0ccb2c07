"""The reads both surfaces share: the command line prints them, the MCP server returns them.

Composes the stores of a `StoreSet` with an optional embedding provider into
`Retriever` and `ChunkRetriever`; with no provider, and for a LEXICAL search
whatever the provider, both are lexical-only: a lexical search reads no
vector, so a model of another dimension than the database's does not stop it,
nor a model other than the one that embedded the passages or the entities.
Every function takes the tenant explicitly and reads nothing else.
"""

from __future__ import annotations

from uuid import UUID

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
from redstring.client.errors import (
    EMBEDDING_MODEL_ARGUMENT,
    EMBEDDINGS_FLAGS,
    ENTITY_MODEL_ARGUMENT,
    MODEL_DIMENSION_ARGUMENT,
)
from redstring.client.store_set import StoreSet
from redstring.client.stored_models import TenantModels
from redstring.composition.chunk_retrieval import ChunkRetriever
from redstring.composition.retrieval import Retriever
from redstring.domain.errors import (
    ChunkStoreUnavailableError,
    InvalidArgumentError,
    ModelDimensionMismatchError,
    ModeNeedsEmbeddingsError,
    UnknownEntityError,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.retrieval import RetrievalMode, parse_mode
from redstring.domain.search_request import SearchRequest
from redstring.ports.embedding_provider import EmbeddingProvider


def resolve_mode(
    mode: str | None, embeddings: EmbeddingProvider | None, *, fix: str = EMBEDDINGS_FLAGS
) -> RetrievalMode:
    """The mode to run: `mode`, or HYBRID with a provider and LEXICAL without.

    `fix` is how the caller's user gives a provider (a flag or an argument).

    Raises `InvalidArgumentError` for an unknown mode and `ModeNeedsEmbeddingsError`
    for SEMANTIC or HYBRID without a provider.
    """
    if mode is None:
        return RetrievalMode.HYBRID if embeddings is not None else RetrievalMode.LEXICAL
    resolved = parse_mode(mode)
    if resolved is not RetrievalMode.LEXICAL and embeddings is None:
        raise ModeNeedsEmbeddingsError(mode=resolved.value, fix=fix)
    return resolved


def _embedding(
    embeddings: EmbeddingProvider | None, request: SearchRequest, stored: int
) -> EmbeddingProvider | None:
    """The provider `request` embeds its query with: none for a LEXICAL search.

    Raises `ModelDimensionMismatchError` when the search embeds and the
    provider's dimension is not the database's (`stored`).
    """
    if embeddings is None or request.mode is RetrievalMode.LEXICAL:
        return None
    if embeddings.dimension != stored:
        raise ModelDimensionMismatchError(
            stored=stored, model=embeddings.dimension, fix=MODEL_DIMENSION_ARGUMENT
        )
    return embeddings


async def search_entities(
    stores: StoreSet,
    embeddings: EmbeddingProvider | None,
    request: SearchRequest,
    models: TenantModels,
) -> EntitySearchAnswer:
    """The entities `request` asks for (`only`: the entity types kept).

    `request` was checked where it was built and its mode resolved by
    `resolve_mode` for these `embeddings`. Raises `ModelDimensionMismatchError`
    for a search that embeds with a model of another dimension than the
    vectors', and `EmbeddingModelMismatchError` for one that embeds with a
    model none of the tenant's entity vectors came from (`models`: the
    client's read of them).
    """
    embedding = _embedding(embeddings, request, stores.vectors.dimension)
    if embedding is not None:
        await models.entities.require(
            stores.vectors, request.tenant_id, embedding, fix=ENTITY_MODEL_ARGUMENT
        )
    retriever = (
        Retriever(embeddings=embedding, vectors=stores.vectors, graph=stores.graph)
        if embedding is not None
        else Retriever.lexical_only(graph=stores.graph)
    )
    result = await retriever.search(request)
    return EntitySearchAnswer(
        tenant_id=str(request.tenant_id),
        query=request.text,
        mode=request.mode,
        fusion=result.fusion,
        matches=[
            EntityHit(
                rank=rank,
                id=str(match.entity.id),
                name=match.entity.name,
                type=match.entity.entity_type,
                description=match.entity.description,
                aliases=list(match.entity.aliases),
                score=match.score,
                semantic=match.semantic,
                lexical=match.lexical,
                confidence=match.confidence,
            )
            for rank, match in enumerate(result.matches, start=1)
        ],
    )


async def search_passages(
    stores: StoreSet,
    embeddings: EmbeddingProvider | None,
    request: SearchRequest,
    models: TenantModels,
) -> PassageSearchAnswer:
    """The passages `request` asks for (`only`: the source ids kept).

    Raises `ChunkStoreUnavailableError` when the backend keeps no chunks,
    `ModelDimensionMismatchError` for a search that embeds with a model of
    another dimension than the passages', and `EmbeddingModelMismatchError`
    for one that embeds with a model none of the tenant's passage vectors
    came from (`models`: the client's read of them). `request` was checked
    where it was built and its mode resolved by `resolve_mode` for these
    `embeddings`.
    """
    if stores.chunks is None:
        raise ChunkStoreUnavailableError(backend=stores.backend, command="passages")
    embedding = _embedding(embeddings, request, stores.chunks.dimension)
    if embedding is not None:
        await models.passages.require(
            stores.chunks, request.tenant_id, embedding, fix=EMBEDDING_MODEL_ARGUMENT
        )
    retriever = (
        ChunkRetriever(embeddings=embedding, chunks=stores.chunks)
        if embedding is not None
        else ChunkRetriever.lexical_only(chunks=stores.chunks)
    )
    result = await retriever.search(request)
    return PassageSearchAnswer(
        tenant_id=str(request.tenant_id),
        query=request.text,
        mode=result.mode,
        fusion=result.fusion,
        language=stores.chunks.analyzer.language,
        matches=[
            PassageHit(
                rank=rank,
                chunk_id=str(match.chunk.id),
                source_id=match.chunk.source_id,
                index=match.chunk.index,
                start=match.chunk.start,
                end=match.chunk.end,
                text=match.chunk.text,
                score=match.score,
                semantic=match.semantic,
                lexical=match.lexical,
                bm25=match.bm25,
                confidence=match.confidence,
            )
            for rank, match in enumerate(result.matches, start=1)
        ],
    )


def parse_entity_id(value: object) -> EntityId:
    """`value` (a `UUID` or its text) as an entity id, or `InvalidArgumentError` saying what
    an id looks like and showing `value` as given, with its type."""
    if isinstance(value, UUID):
        return EntityId(value)
    if isinstance(value, str):
        try:
            return EntityId(UUID(value.strip()))
        except ValueError:
            pass
    raise InvalidArgumentError(
        name="entity_id",
        value=value,
        requirement="a UUID as returned by a search (the `id` field)",
        message="entity_id must be a UUID as returned by a search (the `id` field), "
        f"got {value!r} ({type(value).__name__})",
    )


async def get_entity(stores: StoreSet, tenant_id: TenantId, entity_id: EntityId) -> EntityAnswer:
    """The entity `entity_id` of `tenant_id` and its neighbours.

    Raises `UnknownEntityError` when `tenant_id` holds no such entity.
    """
    found = await stores.graph.get_entities([entity_id], tenant_id)
    if not found:
        raise UnknownEntityError(entity_id=entity_id, tenant_id=tenant_id)
    [entity] = found
    neighbours = await stores.graph.neighbours(entity_id, tenant_id)
    return EntityAnswer(
        tenant_id=str(tenant_id),
        entity=EntityDetail(
            id=str(entity.id),
            name=entity.name,
            type=entity.entity_type,
            description=entity.description,
            aliases=list(entity.aliases),
            properties=dict(entity.properties),
            confidence=entity.confidence,
            source_document_ids=list(entity.source_document_ids),
        ),
        neighbours=[
            Neighbour(
                relationship_id=str(relationship.id),
                relationship_type=relationship.relationship_type,
                direction="outgoing" if relationship.source_id == entity_id else "incoming",
                description=relationship.description,
                confidence=relationship.confidence,
                entity_id=str(other.id),
                name=other.name,
                type=other.entity_type,
            )
            for relationship, other in neighbours
        ],
    )


async def stats(stores: StoreSet, tenant_id: TenantId) -> StatsAnswer:
    """The size of every tenant holding entities or passages, and of `tenant_id` whatever it holds.

    Counted by the stores' summaries (aggregates), never by loading rows.
    """
    tenants = set(await stores.graph.list_tenants())
    if stores.chunks is not None:
        tenants.update(await stores.chunks.list_tenants())
    tenants.add(tenant_id)
    rows: list[TenantStats] = []
    for tenant in sorted(tenants, key=str):
        graph = await stores.graph.graph_summary(tenant)
        chunks = None if stores.chunks is None else await stores.chunks.chunk_summary(tenant)
        rows.append(
            TenantStats(
                tenant_id=str(tenant),
                entities=graph.entities,
                entities_by_type=dict(sorted(graph.entity_types.items())),
                relationships=graph.relationships,
                entity_vectors=await stores.vectors.count(tenant),
                chunks=None if chunks is None else chunks.chunks,
                embedded_chunks=None if chunks is None else chunks.embedded,
            )
        )
    return StatsAnswer(backend=stores.backend, tenants=rows)
