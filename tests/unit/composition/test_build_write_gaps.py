"""The write path's open gaps, each shown red before its fix: B33, B110 (and B30-B32 below)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from redstring import (
    DimensionMismatchError,
    DocumentChunked,
    DocumentExtracted,
    FakeEmbeddingProvider,
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    SourceDocument,
    build_graph,
)
from redstring.projections.chunks import ChunkProjection
from redstring.projections.replay import replay
from tests.factories import DEFAULT_TENANT

DIMENSION = 8
DOMAIN = "people_and_organisations"


class Gathering:
    """A model that answers only once `expected` calls are in flight together (or after 2 s)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.in_flight = 0
        self.most = 0
        self._together = asyncio.Event()

    async def complete_json(self, *, system: str, user: str, schema: Any) -> dict[str, Any]:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        if self.in_flight >= self.expected:
            self._together.set()
        try:
            await asyncio.wait_for(self._together.wait(), 2.0)
        except TimeoutError:
            pass
        finally:
            self.in_flight -= 1
        name = user.split("<<<\n", 1)[1].split(" wrote", 1)[0]
        return {"entities": [{"name": name, "type": "person"}], "relationships": []}


DOCS = [
    SourceDocument(id=f"doc-{i}", text=f"{name} wrote a letter.")
    for i, name in enumerate(["Ada Lovelace", "Charles Babbage", "Grace Hopper"])
]


@pytest.mark.asyncio
async def test_one_concurrency_bound_spans_documents_and_events_keep_document_order() -> None:
    model = Gathering(expected=3)
    log = InMemoryEventLog()
    report = await build_graph(
        DOCS,
        provider=model,
        graph=InMemoryGraphStore(),
        tenant_id=DEFAULT_TENANT,
        log=log,
        domain=DOMAIN,
        concurrency=3,
    )
    assert model.most == 3  # three one-chunk documents asked at once (B33)
    assert report.entities_written == 3
    extracted = [e for e in await log.read(DEFAULT_TENANT) if isinstance(e, DocumentExtracted)]
    assert [event.document_id for event in extracted] == ["doc-0", "doc-1", "doc-2"]


@pytest.mark.asyncio
async def test_the_bound_is_still_a_bound_across_documents() -> None:
    model = Gathering(expected=3)
    await build_graph(
        DOCS,
        provider=model,
        graph=InMemoryGraphStore(),
        tenant_id=DEFAULT_TENANT,
        domain=DOMAIN,
        concurrency=2,
    )
    assert model.most == 2


@pytest.mark.asyncio
async def test_passages_are_embedded_in_the_event_and_a_replay_restores_them() -> None:
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    chunks = InMemoryChunkStore(dimension=DIMENSION)
    log = InMemoryEventLog()
    await build_graph(
        DOCS,
        provider=Gathering(expected=1),
        graph=InMemoryGraphStore(),
        tenant_id=DEFAULT_TENANT,
        embeddings=embeddings,
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=chunks,
        log=log,
        domain=DOMAIN,
    )
    live = await chunks.list_chunks(DEFAULT_TENANT)
    assert len(live) == 3
    for chunk in live:  # B110: the passages are semantically searchable after a build
        assert chunk.embedding == (await embeddings.embed([chunk.text]))[0]
    chunked = [e for e in await log.read(DEFAULT_TENANT) if isinstance(e, DocumentChunked)]
    assert all(chunk.embedding is not None for event in chunked for chunk in event.chunks)
    rebuilt = InMemoryChunkStore(dimension=DIMENSION)
    await replay(log, DEFAULT_TENANT, [ChunkProjection(rebuilt)])
    assert await rebuilt.list_chunks(DEFAULT_TENANT) == live


@pytest.mark.asyncio
async def test_a_chunk_store_of_another_dimension_is_refused_before_any_model_call() -> None:
    model = Gathering(expected=1)
    with pytest.raises(DimensionMismatchError, match="chunk store"):
        await build_graph(
            DOCS,
            provider=model,
            graph=InMemoryGraphStore(),
            tenant_id=DEFAULT_TENANT,
            embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
            vectors=InMemoryVectorStore(dimension=DIMENSION),
            chunks=InMemoryChunkStore(dimension=DIMENSION + 1),
            domain=DOMAIN,
        )
    assert model.most == 0
