"""Undo refusals, partial rebuilds, and the small edges of the write path."""

from __future__ import annotations

import pytest

from redstring import Entity, Relationship, SourceDocument
from redstring.building import AUTO, DomainSchema
from redstring.consolidation.consolidator import consolidate
from redstring.consolidation.merge import plan_merge
from redstring.domain.events import DocumentExtracted, EntitiesMerged
from redstring.errors import IncompleteVectorSetupError, MergeNotUndoableError
from redstring.extraction.choose import decide_domain
from redstring.extraction.domains import resolve_domain
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink
from redstring.projections.vectors import embed_entities
from redstring.providers import FakeEmbeddingProvider, FakeLlmProvider
from redstring.stores import (
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    rebuild_stores,
    undo_merge,
)
from tests.factories import DEFAULT_TENANT, make_entity


def org(name: str, docs: int = 1) -> Entity:
    return make_entity(
        name, entity_type="organization", source_document_ids=[f"d{i}" for i in range(docs)]
    )


@pytest.mark.asyncio
async def test_an_earlier_merge_cannot_be_undone_while_a_later_one_involves_it() -> None:
    log, graph = InMemoryEventLog(), InMemoryGraphStore()
    sink = EventSink(log, [GraphProjection(graph)])
    acme, corp, co = org("Acme Corporation", 3), org("Acme Corp", 2), org("ACME Corp.")
    await sink.emit(
        [
            DocumentExtracted(
                tenant_id=DEFAULT_TENANT,
                document_id="d",
                entities=[acme, corp, co],
                relationships=[],
            )
        ]
    )

    async def emit(event: EntitiesMerged) -> None:
        await sink.emit([event])

    first = await consolidate([corp.id], DEFAULT_TENANT, graph=graph, threshold=0.95, emit=emit)
    second = await consolidate([co.id], DEFAULT_TENANT, graph=graph, threshold=0.95, emit=emit)
    assert len(first) == len(second) == 1
    before = await graph.list_entities(DEFAULT_TENANT)
    with pytest.raises(MergeNotUndoableError, match="Undo the later merge first"):
        await undo_merge(first[0].event_id, tenant_id=DEFAULT_TENANT, log=log, graph=graph)
    assert await graph.list_entities(DEFAULT_TENANT) == before
    await undo_merge(second[0].event_id, tenant_id=DEFAULT_TENANT, log=log, graph=graph)
    await undo_merge(first[0].event_id, tenant_id=DEFAULT_TENANT, log=log, graph=graph)
    assert sorted(e.name for e in await graph.list_entities(DEFAULT_TENANT)) == [
        "ACME Corp.",
        "Acme Corp",
        "Acme Corporation",
    ]


@pytest.mark.asyncio
async def test_undo_refuses_half_a_vector_setup() -> None:
    with pytest.raises(IncompleteVectorSetupError):
        await undo_merge(
            DEFAULT_TENANT,
            tenant_id=DEFAULT_TENANT,
            log=InMemoryEventLog(),
            graph=InMemoryGraphStore(),
            embeddings=FakeEmbeddingProvider(dimension=4),
        )


@pytest.mark.asyncio
async def test_rebuild_needs_a_store_and_may_rebuild_only_some() -> None:
    log = InMemoryEventLog()
    with pytest.raises(ValueError, match="at least one"):
        await rebuild_stores(log, DEFAULT_TENANT)
    ada = make_entity("Ada")
    await log.append(
        [
            DocumentExtracted(
                tenant_id=DEFAULT_TENANT, document_id="d", entities=[ada], relationships=[]
            )
        ]
    )
    vectors = InMemoryVectorStore(dimension=4)
    assert await rebuild_stores(log, DEFAULT_TENANT, vectors=vectors) == 1
    assert await vectors.count(DEFAULT_TENANT) == 0
    graph = InMemoryGraphStore()
    assert await rebuild_stores(log, DEFAULT_TENANT, graph=graph) == 1
    assert await graph.list_entities(DEFAULT_TENANT) == [ada]


def test_a_merge_of_an_entity_with_itself_or_across_tenants_is_refused() -> None:
    ada = make_entity("Ada")
    with pytest.raises(ValueError, match="two different entities"):
        plan_merge(ada, ada, merged_relationships=[], survivor_relationships=[], score=1.0)


@pytest.mark.asyncio
async def test_small_edges_of_domains_and_embedding() -> None:
    custom = DomainSchema(
        name="law",
        description="statutes",
        entity_types=("statute",),
        relationship_types=("amends",),
    )
    assert resolve_domain(custom) is custom
    assert repr(AUTO) == "AUTO"
    decision = await decide_domain(AUTO, FakeLlmProvider(), [SourceDocument(id="x", text=" ")])
    assert (decision.name, decision.chosen_by) == ("general", "fallback")
    assert await embed_entities(FakeEmbeddingProvider(dimension=4), []) == []
    assert Relationship  # re-exported for callers building edges by hand
