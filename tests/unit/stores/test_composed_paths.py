"""The composed write and read paths run unchanged over SQLite and PostgreSQL.

`build_graph` writes graph, vectors, chunks and events into one store set;
`index_documents` embeds the chunks; `Retriever` and `ChunkRetriever` read
them back. Every answer is compared with the same pipeline over the
in-memory stores, and the SQLite file's event log is replayed into fresh
in-memory stores, which must equal what the file holds.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from redstring import (
    ChunkRetriever,
    RetrievalMode,
    Retriever,
    SourceDocument,
    StoredChunk,
    TenantId,
    build_graph,
    index_documents,
    new_tenant_id,
)
from redstring.ports import ChunkStore, EventLog, GraphStore, VectorStore
from redstring.providers import FakeEmbeddingProvider, FakeLlmProvider
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    open_postgres,
    open_sqlite,
    rebuild_stores,
)

DIMENSION = 32

DOCUMENTS = [
    SourceDocument(id="bio-1", text="Ada Lovelace wrote the first program for Babbage's engine."),
    SourceDocument(id="bio-2", text="Lovelace, Ada worked with Charles Babbage in London."),
    SourceDocument(id="city", text="London is where the Analytical Engine was designed."),
]

MODEL_ANSWERS = {
    "Choose the domain schema": {"domain": "general", "confidence": 0.8},
    "first program": {
        "entities": [
            {"name": "Ada Lovelace", "type": "person", "description": "mathematician"},
            {"name": "Charles Babbage", "type": "person"},
            {"name": "Analytical Engine", "type": "product"},
        ],
        "relationships": [{"source": "Ada Lovelace", "target": "Charles Babbage", "type": "knows"}],
    },
    "worked with": {
        "entities": [
            {"name": "Ada Lovelace", "type": "person", "description": "wrote the first program"},
            {"name": "Charles Babbage", "type": "person", "description": "inventor"},
            {"name": "London", "type": "location"},
        ],
        "relationships": [{"source": "Charles Babbage", "target": "London", "type": "located_in"}],
    },
    "was designed": {
        "entities": [
            {"name": "London", "type": "location", "description": "a city"},
            {"name": "Analytical Engine", "type": "product"},
        ],
        "relationships": [],
    },
}

QUERIES = ["Ada Lovelace", "Babbage engine", "London"]


@dataclass
class Stores:
    graph: GraphStore
    vectors: VectorStore
    chunks: ChunkStore
    events: EventLog


def in_memory() -> Stores:
    return Stores(
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=DIMENSION),
        chunks=InMemoryChunkStore(dimension=DIMENSION),
        events=InMemoryEventLog(),
    )


async def write(stores: Stores, tenant: TenantId) -> None:
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    report = await build_graph(
        DOCUMENTS,
        provider=FakeLlmProvider(by_substring=MODEL_ANSWERS),
        graph=stores.graph,
        tenant_id=tenant,
        embeddings=embeddings,
        vectors=stores.vectors,
        chunks=stores.chunks,
        log=stores.events,
    )
    assert report.failures == []
    assert report.entities_written >= 4
    await index_documents(DOCUMENTS, chunks=stores.chunks, tenant_id=tenant, embeddings=embeddings)


Answer = list[tuple[str, str, tuple[float, ...]]]


async def read(stores: Stores, tenant: TenantId) -> Answer:
    """Every query's entity and chunk answers as (query/mode, id, scores), in rank order.

    The scores are the fused one and each channel's own (a missing one as -1).
    """
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    entities = Retriever(embeddings=embeddings, vectors=stores.vectors, graph=stores.graph)
    passages = ChunkRetriever(embeddings=embeddings, chunks=stores.chunks)
    answer: Answer = []
    for query in QUERIES:
        result = await entities.retrieve(query, tenant, k=5)
        answer += [
            (f"entity {query}", m.entity.name, scores(m.score, m.semantic, m.lexical))
            for m in result.matches
        ]
        for mode in RetrievalMode:
            found = await passages.retrieve_chunks(query, tenant, k=3, mode=mode)
            answer += [
                (f"chunk {query} {mode}", str(m.chunk.id), scores(m.score, m.semantic, m.bm25))
                for m in found.matches
            ]
    return answer


def scores(*values: float | None) -> tuple[float, ...]:
    return tuple(-1.0 if value is None else value for value in values)


def same(actual: Answer, expected: Answer) -> None:
    assert [(label, name) for label, name, _ in actual] == [(lbl, n) for lbl, n, _ in expected]
    flat = [value for *_, values in actual for value in values]
    assert flat == pytest.approx([value for *_, values in expected for value in values], abs=1e-5)


def without_embeddings(chunks: list[StoredChunk]) -> list[StoredChunk]:
    return [chunk.model_copy(update={"embedding": None}) for chunk in chunks]


async def same_chunks(
    replayed: Awaitable[list[StoredChunk]], stored: Awaitable[list[StoredChunk]]
) -> None:
    """The same rows, embeddings equal up to the store's float32."""
    from_log, from_store = await replayed, await stored
    assert without_embeddings(from_log) == without_embeddings(from_store)
    for logged, kept in zip(from_log, from_store, strict=True):
        assert logged.embedding is not None
        assert kept.embedding == pytest.approx(logged.embedding, abs=1e-6)


@pytest_asyncio.fixture
async def baseline() -> Answer:
    stores, tenant = in_memory(), new_tenant_id()
    await write(stores, tenant)
    answer = await read(stores, tenant)
    assert len({name for label, name, _ in answer if label.startswith("chunk")}) >= 3
    return answer


@pytest.mark.asyncio
async def test_the_pipeline_over_sqlite_persists_and_replays_into_memory(
    tmp_path: Path, baseline: Answer
) -> None:
    path, tenant, neighbour = tmp_path / "graph.db", new_tenant_id(), new_tenant_id()
    async with open_sqlite(path, dimension=DIMENSION) as sqlite:
        stores = Stores(sqlite.graph, sqlite.vectors, sqlite.chunks, sqlite.events)
        await write(stores, neighbour)  # the same documents in another tenant: ids collide
        await write(stores, tenant)
        same(await read(stores, tenant), baseline)

    async with open_sqlite(path) as reopened:
        stores = Stores(reopened.graph, reopened.vectors, reopened.chunks, reopened.events)
        same(await read(stores, tenant), baseline)

        replayed = in_memory()
        last = await rebuild_stores(
            reopened.events,
            tenant,
            graph=replayed.graph,
            vectors=replayed.vectors,
            chunks=replayed.chunks,
        )
        assert last == await reopened.events.last_sequence(tenant) > 0
        assert await replayed.graph.list_entities(tenant) == await reopened.graph.list_entities(
            tenant
        )
        assert await replayed.graph.list_relationships(
            tenant
        ) == await reopened.graph.list_relationships(tenant)
        # The log carries chunks with their embeddings (B110): a replay restores them.
        await same_chunks(replayed.chunks.list_chunks(tenant), reopened.chunks.list_chunks(tenant))
        entity_ids = [e.id for e in await reopened.graph.list_entities(tenant)]
        from_log = await replayed.vectors.get(entity_ids, tenant)
        from_file = await reopened.vectors.get(entity_ids, tenant)
        assert [r.entity_id for r in from_log] == [r.entity_id for r in from_file]
        for logged, stored in zip(from_log, from_file, strict=True):
            assert stored.vector == pytest.approx(logged.vector, abs=1e-6)


@pytest.mark.asyncio
async def test_the_pipeline_over_postgres_answers_as_in_memory(
    postgres_url: str, baseline: Answer
) -> None:
    tenant, neighbour = new_tenant_id(), new_tenant_id()
    schema = f"t_{uuid.uuid4().hex[:12]}"
    async with await open_postgres(postgres_url, dimension=DIMENSION, schema=schema) as pg:
        stores = Stores(pg.graph, pg.vectors, pg.chunks, pg.events)
        await write(stores, neighbour)
        await write(stores, tenant)
        same(await read(stores, tenant), baseline)
        replayed = in_memory()
        await rebuild_stores(pg.events, tenant, graph=replayed.graph, chunks=replayed.chunks)
        assert await replayed.graph.list_entities(tenant) == await pg.graph.list_entities(tenant)
        await same_chunks(replayed.chunks.list_chunks(tenant), pg.chunks.list_chunks(tenant))
