"""A build with no embedding provider takes no passage vector away (ADR 0155).

`index_documents` without a provider keeps what is stored; `build_graph`
without one used to write every passage without its vector, while the entity
vectors stayed. A passage whose text is unchanged keeps its vector and model,
carried in `DocumentChunked` so a replay restores them; a changed passage has
another id and no vector, since the stored one describes other text.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from uuid import UUID

import pytest

from redstring import SourceDocument, TenantId, build_graph
from redstring.composition.sqlite_stores import open_sqlite
from redstring.ports import ChunkStore, EventLog, GraphStore, VectorStore
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    rebuild_stores,
)
from tests.unit.composition.test_build_graph import CHUNKER, DIMENSION, DOCS, provider

TENANT = TenantId(UUID("44444444-4444-4444-8444-444444444444"))


@dataclass
class Stores:
    graph: GraphStore
    vectors: VectorStore
    chunks: ChunkStore
    log: EventLog


@asynccontextmanager
async def opened(kind: str, tmp_path: Path) -> AsyncIterator[Stores]:
    if kind == "memory":
        yield Stores(
            InMemoryGraphStore(),
            InMemoryVectorStore(dimension=DIMENSION),
            InMemoryChunkStore(dimension=DIMENSION),
            InMemoryEventLog(),
        )
        return
    async with open_sqlite(tmp_path / "g.db", dimension=DIMENSION) as stores:
        yield Stores(stores.graph, stores.vectors, stores.chunks, stores.events)


async def build(stores: Stores, documents: list[SourceDocument], *, embeddings: bool) -> None:
    await build_graph(
        documents,
        provider=provider(),
        graph=stores.graph,
        tenant_id=TENANT,
        embeddings=FakeEmbeddingProvider(dimension=DIMENSION) if embeddings else None,
        vectors=stores.vectors if embeddings else None,
        chunks=stores.chunks,
        log=stores.log,
        chunker=CHUNKER,
        max_failed_share=1.0,
    )


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.asyncio
async def test_building_again_with_no_provider_keeps_every_passage_vector(
    kind: str, tmp_path: Path
) -> None:
    async with opened(kind, tmp_path) as stores:
        await build(stores, DOCS, embeddings=True)
        before = {chunk.id: chunk for chunk in await stores.chunks.list_chunks(TENANT)}
        entity_vectors = await stores.vectors.count(TENANT)
        assert before
        assert all(chunk.embedding is not None for chunk in before.values())

        await build(stores, DOCS, embeddings=False)

        after = {chunk.id: chunk for chunk in await stores.chunks.list_chunks(TENANT)}
        assert after.keys() == before.keys()
        for chunk_id, chunk in after.items():
            assert chunk.embedding == pytest.approx(before[chunk_id].embedding)
            assert chunk.embedding_model == before[chunk_id].embedding_model
        assert await stores.vectors.count(TENANT) == entity_vectors

        replayed = InMemoryChunkStore(dimension=DIMENSION)  # the event carries the vectors
        await rebuild_stores(stores.log, TENANT, chunks=replayed)
        for chunk in await replayed.list_chunks(TENANT):
            assert chunk.embedding == pytest.approx(before[chunk.id].embedding)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.asyncio
async def test_a_passage_changed_under_a_build_with_no_provider_loses_its_vector(
    kind: str, tmp_path: Path
) -> None:
    async with opened(kind, tmp_path) as stores:
        await build(stores, DOCS, embeddings=True)
        before = {chunk.id: chunk for chunk in await stores.chunks.list_chunks(TENANT)}
        edited = DOCS[0].model_copy(update={"text": DOCS[0].text.replace("in Leeds.", "in York.")})

        await build(stores, [edited, DOCS[1]], embeddings=False)

        after = await stores.chunks.list_chunks(TENANT)
        kept = [chunk for chunk in after if chunk.id in before]
        changed = [chunk for chunk in after if chunk.id not in before]
        assert kept
        assert [chunk.text for chunk in changed] == ["Acme Corporation makes anvils in York."]
        for chunk in kept:
            assert chunk.embedding == pytest.approx(before[chunk.id].embedding)
            assert chunk.embedding_model == before[chunk.id].embedding_model
        for chunk in changed:  # the old vector described other text
            assert (chunk.embedding, chunk.embedding_model) == (None, None)
