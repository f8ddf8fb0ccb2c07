"""Folding is idempotent, and replaying the log into empty stores rebuilds the live ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

import pytest
from hypothesis import event as hypothesis_event
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring import Entity, EntityId, Relationship, TenantId
from redstring.consolidation.merge import choose_survivor, plan_merge, plan_undo
from redstring.domain.chunk import StoredChunk
from redstring.domain.events import (
    DocumentChunked,
    DocumentExtracted,
    EntitiesEmbedded,
    EntitiesMerged,
    Event,
)
from redstring.events.in_memory import InMemoryEventLog
from redstring.projections.base import Projection
from redstring.projections.chunks import ChunkProjection
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink, replay
from redstring.projections.vectors import VectorProjection, embed_entities, embedding_text
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryChunkStore, InMemoryGraphStore, InMemoryVectorStore
from tests.factories import DEFAULT_TENANT

OTHER_TENANT = TenantId(UUID("22222222-2222-4222-8222-222222222222"))
POOL = [
    ("person", "Ada Lovelace"),
    ("person", "Ada Lovelac"),
    ("person", "Charles Babbage"),
    ("organization", "Acme Corp"),
    ("organization", "Acme Corporation"),
    ("product", "Analytical Engine"),
]
DIMENSION = 8


@dataclass
class Stores:
    graph: InMemoryGraphStore = field(default_factory=InMemoryGraphStore)
    vectors: InMemoryVectorStore = field(
        default_factory=lambda: InMemoryVectorStore(dimension=DIMENSION)
    )
    chunks: InMemoryChunkStore = field(
        default_factory=lambda: InMemoryChunkStore(dimension=DIMENSION)
    )

    def projections(self) -> list[Projection]:
        return [
            GraphProjection(self.graph),
            VectorProjection(self.vectors),
            ChunkProjection(self.chunks),
        ]

    async def snapshot(self, tenant: TenantId, ids: set[EntityId]) -> tuple[object, ...]:
        records = await self.vectors.get(sorted(ids, key=str), tenant)
        return (
            await self.graph.list_entities(tenant),
            await self.graph.list_relationships(tenant),
            sorted(records, key=lambda r: str(r.entity_id)),
            await self.vectors.count(tenant),
            await self.chunks.list_chunks(tenant),
        )


def all_ids(events: list[Event]) -> set[EntityId]:
    ids: set[EntityId] = set()
    for event in events:
        if isinstance(event, DocumentExtracted):
            ids.update(e.id for e in event.entities)
        elif isinstance(event, EntitiesMerged):
            ids.update(event.merged_ids)
    return ids


async def live_history(data: st.DataObject, tenant: TenantId, stores: Stores) -> InMemoryEventLog:
    """Drive the stores through a drawn sequence of extractions, merges and undos."""
    log = InMemoryEventLog()
    sink = EventSink(log, stores.projections())
    embedder = FakeEmbeddingProvider(dimension=DIMENSION)
    last_merge: EntitiesMerged | None = None
    for index in range(data.draw(st.integers(1, 8), label="steps")):
        kinds = ["extract", "merge", "undo"]
        step = "extract" if index == 0 else data.draw(st.sampled_from(kinds), label="step")
        if step == "extract":
            doc = data.draw(st.sampled_from(["d1", "d2"]), label="doc")
            picks = data.draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=4, unique=True))
            described = data.draw(st.text(alphabet="ab ", max_size=4), label="description")
            entities = [
                Entity(
                    tenant_id=tenant,
                    entity_type=t,
                    name=n,
                    description=described,
                    source_document_ids=[doc],
                )
                for t, n in picks
            ]
            pairs = data.draw(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=3))
            relationships = [
                Relationship(
                    tenant_id=tenant,
                    source_id=entities[a % len(entities)].id,
                    target_id=entities[b % len(entities)].id,
                    relationship_type="knows",
                )
                for a, b in pairs
            ]
            text = data.draw(st.text(alphabet="xy ", min_size=1, max_size=6).filter(str.strip))
            chunk = StoredChunk(
                tenant_id=tenant,
                source_id=doc,
                text=text,
                index=0,
                start=0,
                end=len(text),
                entity_ids=[e.id for e in entities],
            )
            await sink.emit(
                [
                    DocumentExtracted(
                        tenant_id=tenant,
                        document_id=doc,
                        entities=entities,
                        relationships=relationships,
                    ),
                    DocumentChunked(tenant_id=tenant, document_id=doc, chunks=[chunk]),
                    EntitiesEmbedded(
                        tenant_id=tenant, records=await embed_entities(embedder, entities)
                    ),
                ]
            )
            last_merge = None
        elif step == "merge":
            held = await stores.graph.list_entities(tenant)
            pairs_of_a_type = [
                (a, b)
                for a in held
                for b in held
                if str(a.id) < str(b.id) and a.entity_type == b.entity_type
            ]
            if not pairs_of_a_type:
                continue
            first, second = data.draw(st.sampled_from(pairs_of_a_type), label="pair")
            survivor, merged = choose_survivor(first, second)
            merge = plan_merge(
                survivor,
                merged,
                merged_relationships=await stores.graph.relationships_of(merged.id, tenant),
                survivor_relationships=await stores.graph.relationships_of(survivor.id, tenant),
                score=1.0,
            )
            await sink.emit(
                [
                    merge,
                    EntitiesEmbedded(
                        tenant_id=tenant,
                        records=await embed_entities(embedder, [merge.survivor_after]),
                    ),
                ]
            )
            last_merge = merge
        elif last_merge is not None:
            undo = plan_undo(last_merge)
            restored = [undo.survivor_restored, *undo.restored]
            await sink.emit(
                [
                    undo,
                    EntitiesEmbedded(
                        tenant_id=tenant, records=await embed_entities(embedder, restored)
                    ),
                ]
            )
            last_merge = None
    return log


@pytest.mark.asyncio
@settings(max_examples=60, deadline=None)
@given(data=st.data())
async def test_replaying_the_log_into_empty_stores_rebuilds_the_live_stores(
    data: st.DataObject,
) -> None:
    live = Stores()
    # The other tenant's history shares entity names (so derived ids differ) and runs first.
    await live_history(data, OTHER_TENANT, live)
    log = await live_history(data, DEFAULT_TENANT, live)
    events = await log.read(DEFAULT_TENANT)
    ids = all_ids(events)
    for kind in sorted({event.kind for event in events}):
        hypothesis_event(f"history holds {kind}")

    rebuilt = Stores()
    last = await replay(log, DEFAULT_TENANT, rebuilt.projections())
    assert last == await log.last_sequence(DEFAULT_TENANT)
    assert await rebuilt.snapshot(DEFAULT_TENANT, ids) == await live.snapshot(DEFAULT_TENANT, ids)

    # Idempotence: every event folded twice in a row, then the whole log again.
    doubled = Stores()
    for event in events:
        for projection in doubled.projections():
            await projection.apply(event)
            await projection.apply(event)
    assert await doubled.snapshot(DEFAULT_TENANT, ids) == await live.snapshot(DEFAULT_TENANT, ids)
    await replay(log, DEFAULT_TENANT, rebuilt.projections())
    assert await rebuilt.snapshot(DEFAULT_TENANT, ids) == await live.snapshot(DEFAULT_TENANT, ids)


@pytest.mark.asyncio
async def test_replay_resumes_after_a_position() -> None:
    stores = Stores()
    log = InMemoryEventLog()
    sink = EventSink(log, [])
    ada = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Ada")
    bob = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Bob")
    for entity in (ada, bob):
        await sink.emit(
            [
                DocumentExtracted(
                    tenant_id=DEFAULT_TENANT, document_id="d", entities=[entity], relationships=[]
                )
            ]
        )
    assert await replay(log, DEFAULT_TENANT, stores.projections(), after=1) == 2
    assert await stores.graph.list_entities(DEFAULT_TENANT) == [bob]
    assert await replay(log, DEFAULT_TENANT, stores.projections(), after=2) == 2


def test_the_embedding_text_carries_name_type_and_description() -> None:
    ada = Entity(
        tenant_id=DEFAULT_TENANT,
        entity_type="person",
        name="Ada",
        description=" wrote the first program ",
    )
    assert embedding_text(ada) == "Ada (person): wrote the first program"
    assert embedding_text(ada.model_copy(update={"description": ""})) == "Ada (person)"


@pytest.mark.asyncio
async def test_replaying_a_log_written_before_adr_0133_derives_the_new_chunk_ids() -> None:
    """Events carry chunks by content, never by id: replay needs no migration (ADR 0133)."""
    log = InMemoryEventLog()
    pair = [
        ("notes\x1fdraft", "Ada wrote the program."),
        ("notes", "draft\x1fAda wrote the program."),
    ]
    for source, text in pair:
        row = {"tenant_id": DEFAULT_TENANT, "source_id": source, "text": text}
        # As such a log held it: today's constructor refuses the separator (ADR 0585).
        chunk = StoredChunk.model_validate({**row, "index": 0, "start": 0, "end": len(text)})
        assert "id" not in chunk.model_dump()
        await log.append(
            [DocumentChunked(tenant_id=DEFAULT_TENANT, document_id=source, chunks=[chunk])]
        )
    chunks = InMemoryChunkStore(dimension=DIMENSION)
    await replay(log, DEFAULT_TENANT, [ChunkProjection(chunks)])
    stored = await chunks.list_chunks(DEFAULT_TENANT)
    assert sorted((c.source_id, c.text) for c in stored) == sorted(pair)
    assert len({c.id for c in stored}) == 2
