"""Embedding a build's passages, so `DocumentChunked` carries their vectors (B110).

When `build_graph` has an embedding provider and a chunk store of the same
dimension, each document's chunks are embedded before its `DocumentChunked`
is appended, so the passages are searchable by meaning after a build and a
replay of the log restores their vectors. A chunk already stored with a
vector of the same embedding model (same id: same text at the same place)
keeps it instead of being embedded again; one made by another model, or by
an unrecorded one, is embedded again (B20).

A build with no provider embeds nothing and takes nothing away: a passage
whose id is stored with a vector (the same text) carries that vector and its
model into the event, as `index_documents` keeps them (ADR 0155); a passage
whose text changed has another id and no vector, since the old one describes
other text.
"""

from __future__ import annotations

from redstring.domain.chunk import StoredChunk
from redstring.domain.errors import DimensionMismatchError
from redstring.ports.chunk_store import ChunkReader, ChunkWriter, SemanticChunkSource
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.projections.vectors import embedding_model


def check_passage_store(embeddings: EmbeddingProvider | None, chunks: ChunkWriter | None) -> None:
    """`DimensionMismatchError` when `chunks` holds vectors of another length than `embeddings`."""
    if (
        embeddings is not None
        and isinstance(chunks, SemanticChunkSource)
        and chunks.dimension != embeddings.dimension
    ):
        raise DimensionMismatchError(
            expected=chunks.dimension,
            actual=embeddings.dimension,
            context="build_graph: the embedding provider against the chunk store",
        )


async def embed_passages(
    embeddings: EmbeddingProvider,
    store: ChunkWriter,
    passages: list[StoredChunk],
    source_id: str,
) -> list[StoredChunk]:
    """`passages` with embeddings and their model: kept from the stored chunk of the same id
    and model, else computed."""
    if not passages:
        return passages
    model = embedding_model(embeddings)
    kept = {
        stored.id: stored.embedding
        for stored in await _stored(store, passages, source_id)
        if stored.embedding is not None and stored.embedding_model == model
    }
    missing = [passage for passage in passages if passage.id not in kept]
    vectors = await embeddings.embed([passage.text for passage in missing])
    kept.update((passage.id, vector) for passage, vector in zip(missing, vectors, strict=True))
    return [
        passage.model_copy(update={"embedding": kept[passage.id], "embedding_model": model})
        for passage in passages
    ]


async def keep_passage_vectors(
    store: ChunkWriter, passages: list[StoredChunk], source_id: str
) -> list[StoredChunk]:
    """`passages` of a build with no provider: each stored with a vector under its id (the
    same text) carries that vector and its model; the others carry none."""
    stored = {
        chunk.id: chunk
        for chunk in await _stored(store, passages, source_id)
        if chunk.embedding is not None
    }
    return [
        passage.model_copy(
            update={
                "embedding": stored[passage.id].embedding,
                "embedding_model": stored[passage.id].embedding_model,
            }
        )
        if passage.id in stored
        else passage
        for passage in passages
    ]


async def _stored(
    store: ChunkWriter, passages: list[StoredChunk], source_id: str
) -> list[StoredChunk]:
    """The stored chunks of `source_id` (none when `store` cannot be read or nothing is asked)."""
    if not passages or not isinstance(store, ChunkReader):
        return []
    return await store.chunks_of_source(source_id, passages[0].tenant_id)
