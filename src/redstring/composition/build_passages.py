"""Embedding a build's passages, so `DocumentChunked` carries their vectors (B110).

When `build_graph` has an embedding provider and a chunk store of the same
dimension, each document's chunks are embedded before its `DocumentChunked`
is appended, so the passages are searchable by meaning after a build and a
replay of the log restores their vectors. A chunk already stored with a
vector of the same embedding model (same id: same text at the same place)
keeps it instead of being embedded again; one made by another model, or by
an unrecorded one, is embedded again (B20).
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
    kept: dict[object, list[float]] = {}
    if isinstance(store, ChunkReader):
        tenant_id = passages[0].tenant_id
        for stored in await store.chunks_of_source(source_id, tenant_id):
            if stored.embedding is not None and stored.embedding_model == model:
                kept[stored.id] = stored.embedding
    missing = [passage for passage in passages if passage.id not in kept]
    vectors = await embeddings.embed([passage.text for passage in missing])
    kept.update((passage.id, vector) for passage, vector in zip(missing, vectors, strict=True))
    return [
        passage.model_copy(update={"embedding": kept[passage.id], "embedding_model": model})
        for passage in passages
    ]
