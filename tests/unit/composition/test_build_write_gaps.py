"""The write path's open gaps, each shown red before its fix: B33, B110 (and B30-B32 below)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from redstring import SourceDocument, build_graph
from redstring.domain.events import EntitiesRetired
from redstring.errors import DimensionMismatchError
from redstring.ports import DocumentChunked, DocumentExtracted
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import replay
from redstring.providers import FakeEmbeddingProvider, FakeLlmProvider
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    undo_merge,
)
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
        # The store keeps a float32 unit row (ADR 0185): equal up to float32 rounding.
        expected = (await embeddings.embed([chunk.text]))[0]
        assert chunk.embedding == pytest.approx(expected, abs=1e-6)
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


ACME_ANSWERS: dict[str, Any] = {
    "anvils": {
        "entities": [{"name": "Acme Corporation", "type": "organization"}],
        "relationships": [],
    },
    "rockets": {
        "entities": [{"name": "Acme Corp", "type": "organization"}],
        "relationships": [],
    },
}
ACME_DOCS = [
    SourceDocument(id="a", text="Acme Corporation makes anvils."),
    SourceDocument(id="b", text="Acme Corp sells rockets."),
]


@pytest.mark.asyncio
async def test_chunk_rows_follow_a_merge_to_the_survivor_and_a_replay_agrees() -> None:
    chunks = InMemoryChunkStore(dimension=DIMENSION)
    graph = InMemoryGraphStore()
    log = InMemoryEventLog()
    report = await build_graph(
        ACME_DOCS,
        provider=FakeLlmProvider(by_substring=ACME_ANSWERS),
        graph=graph,
        tenant_id=DEFAULT_TENANT,
        chunks=chunks,
        log=log,
        domain=DOMAIN,
    )
    [merge] = report.merges
    [merged_id] = merge.merged_ids
    named = await chunks.chunks_of_entity(merge.survivor_id, DEFAULT_TENANT)
    assert sorted(chunk.source_id for chunk in named) == ["a", "b"]  # B30
    assert await chunks.chunks_of_entity(merged_id, DEFAULT_TENANT) == []
    rebuilt = InMemoryChunkStore(dimension=DIMENSION)
    await replay(log, DEFAULT_TENANT, [ChunkProjection(rebuilt)])
    assert await rebuilt.list_chunks(DEFAULT_TENANT) == await chunks.list_chunks(DEFAULT_TENANT)


@pytest.mark.asyncio
async def test_undoing_a_merge_gives_the_merged_entity_its_chunk_rows_back() -> None:
    chunks = InMemoryChunkStore(dimension=DIMENSION)
    graph, log = InMemoryGraphStore(), InMemoryEventLog()
    report = await build_graph(
        ACME_DOCS,
        provider=FakeLlmProvider(by_substring=ACME_ANSWERS),
        graph=graph,
        tenant_id=DEFAULT_TENANT,
        chunks=chunks,
        log=log,
        domain=DOMAIN,
    )
    [merge] = report.merges
    [merged_id] = merge.merged_ids
    await undo_merge(merge.event_id, tenant_id=DEFAULT_TENANT, log=log, graph=graph, chunks=chunks)
    [row_a] = await chunks.chunks_of_entity(merge.survivor_id, DEFAULT_TENANT)
    [row_b] = await chunks.chunks_of_entity(merged_id, DEFAULT_TENANT)  # B154
    assert (row_a.source_id, row_a.entity_ids) == ("a", [merge.survivor_id])
    assert (row_b.source_id, row_b.entity_ids) == ("b", [merged_id])
    rebuilt = InMemoryChunkStore(dimension=DIMENSION)
    await replay(log, DEFAULT_TENANT, [ChunkProjection(rebuilt)])
    assert await rebuilt.list_chunks(DEFAULT_TENANT) == await chunks.list_chunks(DEFAULT_TENANT)


@pytest.mark.asyncio
async def test_a_re_extracted_merged_away_name_resolves_to_its_survivor() -> None:
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=DIMENSION)
    log = InMemoryEventLog()
    common = {"graph": graph, "tenant_id": DEFAULT_TENANT, "chunks": chunks, "log": log}
    provider = FakeLlmProvider(by_substring=ACME_ANSWERS)
    first = await build_graph(ACME_DOCS, provider=provider, domain=DOMAIN, **common)
    [merge] = first.merges
    again = await build_graph([ACME_DOCS[1]], provider=provider, domain=DOMAIN, **common)
    assert again.merges == []  # B31: not written under its own id and merged again
    [acme] = await graph.list_entities(DEFAULT_TENANT)
    assert (acme.id, acme.name) == (merge.survivor_id, "Acme Corporation")
    assert acme.source_document_ids == ["a", "b"]
    events = await log.read(DEFAULT_TENANT, after=first.last_sequence or 0)
    [extracted] = [e for e in events if isinstance(e, DocumentExtracted)]
    assert [entity.id for entity in extracted.entities] == [merge.survivor_id]
    [chunk] = await chunks.chunks_of_source("b", DEFAULT_TENANT)
    assert chunk.entity_ids == [merge.survivor_id]


def person(name: str) -> dict[str, str]:
    return {"name": name, "type": "person"}


@pytest.mark.asyncio
async def test_entities_a_re_extracted_document_no_longer_supports_are_retired() -> None:
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=DIMENSION)
    log = InMemoryEventLog()
    vectors = InMemoryVectorStore(dimension=DIMENSION)
    common = {
        "graph": graph,
        "tenant_id": DEFAULT_TENANT,
        "chunks": chunks,
        "log": log,
        "vectors": vectors,
        "embeddings": FakeEmbeddingProvider(dimension=DIMENSION),
        "domain": DOMAIN,
    }
    before = FakeLlmProvider(
        by_substring={
            "letters": {
                "entities": [person("Ada Lovelace"), person("Bob Stone"), person("Cy Young")],
                "relationships": [
                    {"source": "Ada Lovelace", "target": "Bob Stone", "type": "knows"}
                ],
            },
            "Cy Young played": {"entities": [person("Cy Young")], "relationships": []},
        }
    )
    docs = [
        SourceDocument(id="a", text="Ada Lovelace wrote letters to Bob Stone and Cy Young."),
        SourceDocument(id="c", text="Cy Young played baseball."),
    ]
    await build_graph(docs, provider=before, **common)
    after = FakeLlmProvider(
        by_substring={"letters": {"entities": [person("Ada Lovelace")], "relationships": []}}
    )
    edited = SourceDocument(id="a", text="Ada Lovelace wrote letters.")
    report = await build_graph([edited], provider=after, **common)
    held = {entity.name: entity for entity in await graph.list_entities(DEFAULT_TENANT)}
    assert sorted(held) == ["Ada Lovelace", "Cy Young"]  # B32: Bob Stone retired
    assert held["Cy Young"].source_document_ids == ["c"]  # still supported by c
    assert await graph.list_relationships(DEFAULT_TENANT) == []
    assert await vectors.count(DEFAULT_TENANT) == 2
    assert report.entities_retired == 1
    retired = [e for e in await log.read(DEFAULT_TENANT) if isinstance(e, EntitiesRetired)]
    assert [[entity.name for entity in event.retired] for event in retired] == [["Bob Stone"]]
    rebuilt = InMemoryGraphStore()
    await replay(log, DEFAULT_TENANT, [GraphProjection(rebuilt)])
    assert await rebuilt.list_entities(DEFAULT_TENANT) == await graph.list_entities(DEFAULT_TENANT)
