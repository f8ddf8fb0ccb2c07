"""build_graph end to end on the in-memory stores, replay from the log, undo, tenants."""

from __future__ import annotations

from typing import Any
from uuid import UUID, uuid4

import pytest

from redstring import SourceDocument, TenantId, build_graph, entity_id_for
from redstring.building import AUTO
from redstring.domain.blocking import name_keys_for
from redstring.domain.chunking import SlidingWindowChunker
from redstring.errors import (
    ChunkExtractionError,
    DimensionMismatchError,
    DuplicateDocumentError,
    IncompleteVectorSetupError,
    InvalidArgumentError,
    MergeAlreadyUndoneError,
    MergeNotFoundError,
)
from redstring.extraction.prompts import CLASSIFY_MARKER
from redstring.providers import FakeEmbeddingProvider, FakeLlmProvider
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    rebuild_stores,
    undo_merge,
)
from tests.factories import DEFAULT_TENANT

OTHER_TENANT = TenantId(UUID("22222222-2222-4222-8222-222222222222"))
DIMENSION = 32
CHUNKER = SlidingWindowChunker(size=66, overlap=0)

DOCS = [
    SourceDocument(
        id="news-1",
        title="Anvils",
        text=(
            "Acme Corporation makes anvils in Leeds.\n\nJane Roe founded Acme Corporation in 1950."
        ),
    ),
    SourceDocument(
        id="news-2",
        text=(
            "Acme Corp sells anvils to Bolt Shop.\n\n"
            "Smith Holdings Ltd and Smith Holdings Inc are unrelated firms.\n\n"
            "This passage makes the model answer garbage."
        ),
    ),
]


def ent(name: str, kind: str, description: str = "") -> dict[str, Any]:
    return {"name": name, "type": kind, "description": description}


def rel(source: str, target: str, kind: str) -> dict[str, Any]:
    return {"source": source, "target": target, "type": kind}


ANSWERS: dict[str, Any] = {
    CLASSIFY_MARKER: {"domain": "people_and_organisations", "confidence": 0.9},
    "makes anvils": {
        "entities": [
            ent("Acme Corporation", "organization", "an anvil maker"),
            ent("Leeds", "location"),
        ],
        "relationships": [rel("Acme Corporation", "Leeds", "located_in")],
    },
    "Jane Roe founded": {
        "entities": [ent("Jane Roe", "person"), ent("Acme Corporation", "organization")],
        "relationships": [
            rel("Jane Roe", "Acme Corporation", "founded"),
            rel("Jane Roe", "Wile E. Coyote", "knows"),  # not extracted: dropped
        ],
    },
    "sells anvils": {
        "entities": [ent("Acme Corp", "organization"), ent("Bolt Shop", "organization")],
        "relationships": [rel("Acme Corp", "Bolt Shop", "subsidiary_of")],
    },
    "unrelated firms": {
        "entities": [
            ent("Smith Holdings Ltd", "organization"),
            ent("Smith Holdings Inc", "organization"),
        ],
    },
    "garbage": "{'this is': not json",
}


def provider() -> FakeLlmProvider:
    return FakeLlmProvider(by_substring=ANSWERS)


class World:
    def __init__(self) -> None:
        self.graph = InMemoryGraphStore()
        self.vectors = InMemoryVectorStore(dimension=DIMENSION)
        self.chunks = InMemoryChunkStore(dimension=DIMENSION)
        self.log = InMemoryEventLog()
        self.embeddings = FakeEmbeddingProvider(dimension=DIMENSION)

    async def build(self, tenant: TenantId = DEFAULT_TENANT, **options: Any) -> Any:
        return await build_graph(
            DOCS,
            provider=options.pop("provider", provider()),
            graph=self.graph,
            tenant_id=tenant,
            embeddings=self.embeddings,
            vectors=self.vectors,
            chunks=self.chunks,
            log=self.log,
            chunker=CHUNKER,
            **options,
        )

    async def state(self, tenant: TenantId = DEFAULT_TENANT) -> tuple[Any, ...]:
        entities = await self.graph.list_entities(tenant)
        ids = [e.id for e in entities] + [entity_id_for(tenant, "organization", "Acme Corp")]
        records = sorted(await self.vectors.get(ids, tenant), key=lambda r: str(r.entity_id))
        return (
            entities,
            await self.graph.list_relationships(tenant),
            records,
            await self.vectors.count(tenant),
            await self.chunks.list_chunks(tenant),
        )


@pytest.mark.asyncio
async def test_build_graph_extracts_merges_and_reports() -> None:
    world = World()
    report = await world.build()
    assert (report.domain, report.domain_chosen_by, report.domain_confidence) == (
        "people_and_organisations",
        "model",
        0.9,
    )
    assert report.documents == 2
    assert report.relationships_dropped == 1
    assert [(f.document_id, f.chunk_index, f.error_type) for f in report.failures] == [
        ("news-2", 2, "MalformedCompletionError")
    ]
    [merge] = report.merges
    assert (merge.survivor_name, merge.merged_names) == ("Acme Corporation", ["Acme Corp"])
    names = sorted(e.name for e in await world.graph.list_entities(DEFAULT_TENANT))
    assert names == [
        "Acme Corporation",
        "Bolt Shop",
        "Jane Roe",
        "Leeds",
        "Smith Holdings Inc",
        "Smith Holdings Ltd",
    ]
    assert report.entities_written == 7
    assert report.chunks_written == 5
    assert report.events_appended == await world.log.last_sequence(DEFAULT_TENANT)
    assert (report.first_sequence, report.last_sequence) == (1, report.events_appended)
    survivor_edges = await world.graph.relationships_of(merge.survivor_id, DEFAULT_TENANT)
    assert sorted(r.relationship_type for r in survivor_edges) == [
        "founded",
        "located_in",
        "subsidiary_of",
    ]
    assert report.types_outside_domain == {}


@pytest.mark.asyncio
async def test_a_merged_away_entity_is_gone_from_both_stores_and_its_name_finds_the_survivor() -> (
    None
):
    world = World()
    report = await world.build()
    [merge] = report.merges
    [merged_id] = merge.merged_ids
    assert await world.graph.get_entities([merged_id], DEFAULT_TENANT) == []
    assert await world.vectors.get([merged_id], DEFAULT_TENANT) == []
    graph_ids = {e.id for e in await world.graph.list_entities(DEFAULT_TENANT)}
    assert await world.vectors.count(DEFAULT_TENANT) == len(graph_ids)
    blocks = await world.graph.find_by_blocking_keys(name_keys_for("Acme Corp"), DEFAULT_TENANT)
    found = {e.id for block in blocks.values() for e in block}
    assert merge.survivor_id in found
    assert merged_id not in found
    [survivor] = await world.graph.get_entities([merge.survivor_id], DEFAULT_TENANT)
    assert "Acme Corp" in survivor.aliases
    assert sorted(survivor.source_document_ids) == ["news-1", "news-2"]


@pytest.mark.asyncio
async def test_replaying_the_log_alone_rebuilds_all_three_stores() -> None:
    world = World()
    await world.build()
    rebuilt = World()
    last = await rebuild_stores(
        world.log,
        DEFAULT_TENANT,
        graph=rebuilt.graph,
        vectors=rebuilt.vectors,
        chunks=rebuilt.chunks,
    )
    assert last == await world.log.last_sequence(DEFAULT_TENANT)
    assert await rebuilt.state() == await world.state()
    assert len(await rebuilt.chunks.list_chunks(DEFAULT_TENANT)) == 5


@pytest.mark.asyncio
async def test_building_the_same_documents_again_changes_no_store() -> None:
    world = World()
    first = await world.build()
    before = await world.state()
    again = await world.build()
    # The re-extracted duplicate resolves to its survivor: no second merge (B31).
    assert first.merges
    assert again.merges == []
    assert again.entities_retired == 0
    assert await world.state() == before


@pytest.mark.asyncio
async def test_undo_restores_the_merged_entity_in_graph_and_vectors() -> None:
    world = World()
    report = await world.build()
    [merge] = report.merges
    await undo_merge(
        merge.event_id,
        tenant_id=DEFAULT_TENANT,
        log=world.log,
        graph=world.graph,
        embeddings=world.embeddings,
        vectors=world.vectors,
    )
    [merged_id] = merge.merged_ids
    [restored] = await world.graph.get_entities([merged_id], DEFAULT_TENANT)
    assert restored.name == "Acme Corp"
    [survivor] = await world.graph.get_entities([merge.survivor_id], DEFAULT_TENANT)
    assert "Acme Corp" not in survivor.aliases
    assert len(await world.vectors.get([merged_id], DEFAULT_TENANT)) == 1
    edges = await world.graph.relationships_of(merged_id, DEFAULT_TENANT)
    assert [r.relationship_type for r in edges] == ["subsidiary_of"]
    with pytest.raises(MergeAlreadyUndoneError):
        await undo_merge(merge.event_id, tenant_id=DEFAULT_TENANT, log=world.log, graph=world.graph)
    with pytest.raises(MergeNotFoundError):
        await undo_merge(uuid4(), tenant_id=DEFAULT_TENANT, log=world.log, graph=world.graph)
    # The undo is in the log too: a replay reproduces the restored state.
    rebuilt = World()
    await rebuild_stores(
        world.log,
        DEFAULT_TENANT,
        graph=rebuilt.graph,
        vectors=rebuilt.vectors,
        chunks=rebuilt.chunks,
    )
    assert await rebuilt.state() == await world.state()


@pytest.mark.asyncio
async def test_two_tenants_sharing_stores_and_chunk_ids_never_cross() -> None:
    world = World()
    await world.build(DEFAULT_TENANT)
    alone = await world.state(DEFAULT_TENANT)
    other = await world.build(OTHER_TENANT)
    assert len(other.merges) == 1
    # Chunk ids derive from source id and text only, so both tenants hold the same ids.
    mine = {c.id for c in await world.chunks.list_chunks(DEFAULT_TENANT)}
    assert mine == {c.id for c in await world.chunks.list_chunks(OTHER_TENANT)}
    assert await world.state(DEFAULT_TENANT) == alone
    await undo_merge(
        other.merges[0].event_id,
        tenant_id=OTHER_TENANT,
        log=world.log,
        graph=world.graph,
        embeddings=world.embeddings,
        vectors=world.vectors,
    )
    assert await world.state(DEFAULT_TENANT) == alone
    with pytest.raises(MergeNotFoundError):
        await undo_merge(
            other.merges[0].event_id, tenant_id=DEFAULT_TENANT, log=world.log, graph=world.graph
        )


@pytest.mark.asyncio
async def test_bad_setups_are_refused_before_any_model_call() -> None:
    model = provider()
    graph = InMemoryGraphStore()
    with pytest.raises(DimensionMismatchError, match="expected dimension 16, got 32"):
        await build_graph(
            DOCS,
            provider=model,
            graph=graph,
            tenant_id=DEFAULT_TENANT,
            embeddings=FakeEmbeddingProvider(dimension=32),
            vectors=InMemoryVectorStore(dimension=16),
        )
    with pytest.raises(IncompleteVectorSetupError, match="vectors"):
        await build_graph(
            DOCS,
            provider=model,
            graph=graph,
            tenant_id=DEFAULT_TENANT,
            embeddings=FakeEmbeddingProvider(dimension=32),
        )
    with pytest.raises(IncompleteVectorSetupError) as missing:
        await build_graph(
            DOCS,
            provider=model,
            graph=graph,
            tenant_id=DEFAULT_TENANT,
            vectors=InMemoryVectorStore(dimension=16),
        )
    assert missing.value.missing == "embeddings"
    for share in (-0.01, 1.01):
        with pytest.raises(InvalidArgumentError, match="max_failed_share"):
            await build_graph(
                DOCS, provider=model, graph=graph, tenant_id=DEFAULT_TENANT, max_failed_share=share
            )
    with pytest.raises(DuplicateDocumentError, match="news-1"):
        await build_graph([DOCS[0], DOCS[0]], provider=model, graph=graph, tenant_id=DEFAULT_TENANT)
    with pytest.raises(ValueError, match="merge_threshold"):
        await build_graph(
            DOCS, provider=model, graph=graph, tenant_id=DEFAULT_TENANT, merge_threshold=-0.1
        )
    assert model.calls == []
    assert await graph.list_entities(DEFAULT_TENANT) == []


@pytest.mark.asyncio
async def test_strict_mode_raises_on_the_bad_chunk_and_progress_is_reported() -> None:
    world = World()
    seen: list[Any] = []
    with pytest.raises(ChunkExtractionError, match="news-2"):
        await world.build(strict=True, progress=seen.append)
    assert {p.document_id for p in seen} == {"news-1", "news-2"}
    # The first document was written before the second failed.
    assert await world.graph.list_entities(DEFAULT_TENANT) != []


@pytest.mark.asyncio
async def test_an_explicit_domain_skips_classification_and_no_vectors_is_fine() -> None:
    model = provider()
    graph = InMemoryGraphStore()
    report = await build_graph(
        DOCS,
        provider=model,
        graph=graph,
        tenant_id=DEFAULT_TENANT,
        domain="business",
        chunker=CHUNKER,
    )
    assert (report.domain, report.domain_chosen_by, report.domain_confidence) == (
        "business",
        "caller",
        None,
    )
    assert model.calls
    assert all(CLASSIFY_MARKER not in call.user for call in model.calls)
    assert all("acquired" in call.system for call in model.calls)
    asked = provider()
    chosen = await build_graph(
        DOCS, provider=asked, graph=InMemoryGraphStore(), tenant_id=DEFAULT_TENANT,
        domain=AUTO, chunker=CHUNKER,
    )  # fmt: skip
    assert (chosen.domain, chosen.domain_chosen_by) == ("people_and_organisations", "model")
    assert [CLASSIFY_MARKER in call.user for call in asked.calls].count(True) == 1


@pytest.mark.asyncio
async def test_a_later_build_adds_to_what_earlier_builds_stored() -> None:
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=DIMENSION)
    first = SourceDocument(id="a", text="Jane Roe founded Acme Corporation in 1950.")
    later = SourceDocument(id="b", text="Jane Roe retired.")
    answers = {
        "founded": {"entities": [ent("Jane Roe", "person", "founder of Acme")]},
        "retired": {"entities": [ent("Jane Roe", "person")]},
    }
    for document in (first, later):
        await build_graph(
            [document],
            provider=FakeLlmProvider(by_substring=answers),
            graph=graph,
            tenant_id=DEFAULT_TENANT,
            domain="general",
            chunks=chunks,
        )
    [jane] = await graph.list_entities(DEFAULT_TENANT)
    assert jane.description == "founder of Acme"
    assert jane.source_document_ids == ["a", "b"]


@pytest.mark.asyncio
async def test_rebuilding_a_changed_document_replaces_its_chunks() -> None:
    graph, chunks = InMemoryGraphStore(), InMemoryChunkStore(dimension=DIMENSION)
    answer = {"entities": [ent("Jane Roe", "person")]}
    for text in ("Jane Roe founded Acme.", "Jane Roe founded Acme in 1950."):
        await build_graph(
            [SourceDocument(id="a", text=text)],
            provider=FakeLlmProvider(by_substring={"Jane": answer}),
            graph=graph,
            tenant_id=DEFAULT_TENANT,
            domain="general",
            chunks=chunks,
        )
    assert [c.text for c in await chunks.list_chunks(DEFAULT_TENANT)] == [
        "Jane Roe founded Acme in 1950."
    ]


@pytest.mark.asyncio
async def test_types_outside_the_domain_are_dropped_or_made_other_and_counted() -> None:
    answer = {
        "entities": [
            ent("Jane Roe", "Engineer"),
            ent("Acme Corp", "Company"),
            ent("Leeds", "City"),
        ],
        "relationships": [rel("Jane Roe", "Acme Corp", "employed_by")],
    }
    text = "Jane Roe works for Acme Corp in Leeds."
    for domain, kept in (("people_and_organisations", []), ("general", ["other"] * 3)):
        world = World()
        provider = FakeLlmProvider(by_substring={"Jane Roe": answer})
        report = await build_graph(
            [SourceDocument(id="d", text=text)],
            provider=provider,
            graph=world.graph,
            tenant_id=DEFAULT_TENANT,
            domain=domain,
        )
        # a text answer outside the schema's enums is read loosely, then conformed
        stored = await world.graph.list_entities(DEFAULT_TENANT)
        assert [e.entity_type for e in stored] == kept
        assert report.types_outside_domain == {
            "City": 1,
            "Company": 1,
            "Engineer": 1,
            "employed_by": 1,
        }
        dropped = (report.entities_dropped_by_type, report.relationships_dropped_by_type)
        assert dropped == ((3, 1) if not kept else (0, 0))
