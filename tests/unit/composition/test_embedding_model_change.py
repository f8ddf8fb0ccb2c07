"""A passage embedded by another model is embedded again, in index and in build (B20)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from redstring import SourceDocument, build_graph, index_documents, new_tenant_id
from redstring.building import SlidingWindowChunker
from redstring.providers import FakeLlmProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore
from tests.unit.composition.support import RecordingEmbeddings

DIMENSION = 16
DOCS = [
    SourceDocument(id="ada", text="Ada Lovelace wrote notes on the engine."),
    SourceDocument(id="bab", text="Charles Babbage designed the engine."),
]


class Successor(RecordingEmbeddings):
    """Another model of the same dimension: other vectors, another name."""

    @property
    def model(self) -> str:
        return "successor-model"

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[-x for x in vector] for vector in await super().embed(texts)]


@pytest.mark.asyncio
async def test_indexing_with_another_model_re_embeds_every_passage_and_records_it() -> None:
    store, tenant = InMemoryChunkStore(dimension=DIMENSION), new_tenant_id()
    first = RecordingEmbeddings(dimension=DIMENSION)
    await index_documents(DOCS, chunks=store, tenant_id=tenant, embeddings=first)
    stored = await store.list_chunks(tenant)
    assert {chunk.embedding_model for chunk in stored} == {"fake-hashed-words"}

    successor = Successor(dimension=DIMENSION)
    report = await index_documents(DOCS, chunks=store, tenant_id=tenant, embeddings=successor)
    assert (report.embedded, report.unchanged) == (len(stored), 0)
    for chunk in await store.list_chunks(tenant):
        assert chunk.embedding_model == "successor-model"
        assert chunk.embedding == pytest.approx((await successor.embed([chunk.text]))[0])

    again = await index_documents(DOCS, chunks=store, tenant_id=tenant, embeddings=successor)
    assert (again.embedded, again.unchanged) == (0, 2)  # the same model keeps its vectors


@pytest.mark.asyncio
async def test_indexing_with_no_provider_keeps_the_stored_vectors_and_their_model() -> None:
    store, tenant = InMemoryChunkStore(dimension=DIMENSION), new_tenant_id()
    small = SlidingWindowChunker(size=60, overlap=10)
    text = "Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage. " * 3
    document = SourceDocument(id="ada", text=text)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    await index_documents(
        [document], chunks=store, tenant_id=tenant, embeddings=embeddings, chunker=small
    )
    before = {chunk.id: chunk for chunk in await store.list_chunks(tenant)}
    edited = document.model_copy(update={"text": text + "Babbage answered her at length."})
    report = await index_documents([edited], chunks=store, tenant_id=tenant, chunker=small)
    assert report.chunks_written > 0  # the document changed, so its source was rewritten
    kept = [chunk for chunk in await store.list_chunks(tenant) if chunk.id in before]
    assert kept
    for chunk in kept:  # a run that embeds nothing takes no vector away
        assert chunk.embedding == pytest.approx(before[chunk.id].embedding)
        assert chunk.embedding_model == "fake-hashed-words"


@pytest.mark.asyncio
async def test_a_passage_stored_without_a_recorded_model_is_embedded_again() -> None:
    store, tenant = InMemoryChunkStore(dimension=DIMENSION), new_tenant_id()
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    await index_documents(DOCS, chunks=store, tenant_id=tenant, embeddings=embeddings)
    legacy = [
        c.model_copy(update={"embedding_model": None}) for c in await store.list_chunks(tenant)
    ]
    await store.upsert_chunks(legacy)  # as rows written before B20 read
    report = await index_documents(DOCS, chunks=store, tenant_id=tenant, embeddings=embeddings)
    assert report.embedded == len(legacy)
    assert {c.embedding_model for c in await store.list_chunks(tenant)} == {"fake-hashed-words"}


@pytest.mark.asyncio
async def test_building_with_another_model_re_embeds_the_passages() -> None:
    tenant = new_tenant_id()
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=DIMENSION)
    provider = FakeLlmProvider(
        by_substring={"Passage": {"entities": [{"name": "Ada Lovelace", "type": "person"}]}}
    )

    async def build(embeddings: RecordingEmbeddings) -> None:
        await build_graph(
            DOCS,
            provider=provider,
            graph=graph,
            tenant_id=tenant,
            embeddings=embeddings,
            vectors=InMemoryVectorStore(dimension=DIMENSION),
            chunks=chunks,
            domain="general",
        )

    await build(RecordingEmbeddings(dimension=DIMENSION))
    successor = Successor(dimension=DIMENSION)
    await build(successor)
    for chunk in await chunks.list_chunks(tenant):
        assert chunk.embedding_model == "successor-model"
        assert chunk.embedding == pytest.approx((await successor.embed([chunk.text]))[0])
    kept = Successor(dimension=DIMENSION)
    await build(kept)
    assert sum(kept.document_batches) == 2  # the entities only: the passages kept their vectors
