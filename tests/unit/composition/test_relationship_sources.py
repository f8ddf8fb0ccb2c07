"""Relationships carry the documents that state them, and go when none does (B155)."""

from __future__ import annotations

from typing import Any

import pytest

from redstring import SourceDocument, build_graph
from redstring.domain.events import EntitiesRetired
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import replay
from redstring.providers import FakeLlmProvider
from redstring.stores import InMemoryChunkStore, InMemoryEventLog, InMemoryGraphStore
from tests.factories import DEFAULT_TENANT

DOMAIN = "people_and_organisations"


def person(name: str) -> dict[str, str]:
    return {"name": name, "type": "person"}


def knows(source: str, target: str) -> dict[str, str]:
    return {"source": source, "target": target, "type": "knows"}


def answer(names: list[str], links: list[tuple[str, str]]) -> dict[str, Any]:
    return {
        "entities": [person(name) for name in names],
        "relationships": [knows(source, target) for source, target in links],
    }


LETTERS = SourceDocument(id="a", text="Ada Lovelace wrote letters to Bob Stone and Cy Young.")
NOTES = SourceDocument(id="c", text="Cy Young kept notes on Ada Lovelace.")
EVERYONE = ["Ada Lovelace", "Bob Stone", "Cy Young"]


def _rebuildable() -> tuple[InMemoryGraphStore, InMemoryEventLog, dict[str, Any]]:
    """A graph, a log and build_graph's arguments with a chunk store, to rebuild documents."""
    graph, log = InMemoryGraphStore(), InMemoryEventLog()
    common: dict[str, Any] = {
        "graph": graph,
        "tenant_id": DEFAULT_TENANT,
        "chunks": InMemoryChunkStore(dimension=8),
        "log": log,
        "domain": DOMAIN,
    }
    return graph, log, common


async def _pairs(graph: InMemoryGraphStore) -> dict[tuple[str, str], list[str]]:
    """Each relationship as (source name, target name) -> its source documents."""
    names = {entity.id: entity.name for entity in await graph.list_entities(DEFAULT_TENANT)}
    return {
        (names[r.source_id], names[r.target_id]): r.source_document_ids
        for r in await graph.list_relationships(DEFAULT_TENANT)
    }


@pytest.mark.asyncio
async def test_a_relationship_names_every_document_that_states_it() -> None:
    graph = InMemoryGraphStore()
    provider = FakeLlmProvider(
        by_substring={
            "letters": answer(
                ["Ada Lovelace", "Bob Stone", "Cy Young"],
                [("Ada Lovelace", "Bob Stone"), ("Ada Lovelace", "Cy Young")],
            ),
            "notes": answer(["Cy Young", "Ada Lovelace"], [("Ada Lovelace", "Cy Young")]),
        }
    )
    await build_graph(
        [LETTERS], provider=provider, graph=graph, tenant_id=DEFAULT_TENANT, domain=DOMAIN
    )
    await build_graph(
        [NOTES], provider=provider, graph=graph, tenant_id=DEFAULT_TENANT, domain=DOMAIN
    )
    assert await _pairs(graph) == {
        ("Ada Lovelace", "Bob Stone"): ["a"],
        ("Ada Lovelace", "Cy Young"): ["a", "c"],
    }


@pytest.mark.asyncio
async def test_a_relationship_a_re_extracted_document_no_longer_states_is_retired() -> None:
    graph, log, common = _rebuildable()
    before = FakeLlmProvider(
        by_substring={
            "letters": answer(
                EVERYONE, [("Ada Lovelace", "Bob Stone"), ("Ada Lovelace", "Cy Young")]
            ),
            "notes": answer(["Cy Young", "Ada Lovelace"], [("Ada Lovelace", "Cy Young")]),
        }
    )
    await build_graph([LETTERS, NOTES], provider=before, **common)
    # The same document read again (a better model, say): the same people, no links.
    after = FakeLlmProvider(by_substring={"letters": answer(EVERYONE, [])})
    report = await build_graph([LETTERS], provider=after, **common)

    # Ada-Bob was stated by "a" alone and goes; Ada-Cy is still stated by "c".
    assert await _pairs(graph) == {("Ada Lovelace", "Cy Young"): ["c"]}
    assert report.entities_retired == 0
    assert report.relationships_retired == 1
    [retired] = [e for e in await log.read(DEFAULT_TENANT) if isinstance(e, EntitiesRetired)]
    assert [r.source_document_ids for r in retired.relationships_removed] == [["a"]]
    assert [r.source_document_ids for r in retired.relationships_updated] == [["c"]]
    rebuilt = InMemoryGraphStore()
    await replay(log, DEFAULT_TENANT, [GraphProjection(rebuilt)])
    assert await rebuilt.list_relationships(DEFAULT_TENANT) == await graph.list_relationships(
        DEFAULT_TENANT
    )


@pytest.mark.asyncio
async def test_a_relationship_with_no_recorded_source_is_never_retired() -> None:
    # Relationships written before B155 name no document: nothing says which
    # document stated them, so a re-extraction leaves them be.
    graph, _, common = _rebuildable()
    before = FakeLlmProvider(
        by_substring={"letters": answer(EVERYONE, [("Ada Lovelace", "Bob Stone")])}
    )
    await build_graph([LETTERS], provider=before, **common)
    [link] = await graph.list_relationships(DEFAULT_TENANT)
    legacy = link.model_copy(update={"source_document_ids": []})
    await graph.upsert([], [legacy])
    after = FakeLlmProvider(by_substring={"letters": answer(EVERYONE, [])})
    report = await build_graph([LETTERS], provider=after, **common)
    assert await graph.list_relationships(DEFAULT_TENANT) == [legacy]
    assert report.relationships_retired == 0


@pytest.mark.asyncio
async def test_a_relationship_moved_by_a_merge_keeps_its_source_documents() -> None:
    graph = InMemoryGraphStore()
    provider = FakeLlmProvider(
        by_substring={
            "anvils": {
                "entities": [{"name": "Acme Corporation", "type": "organization"}],
                "relationships": [],
            },
            "rockets": {
                "entities": [
                    {"name": "Acme Corp", "type": "organization"},
                    person("Wile Coyote"),
                ],
                "relationships": [
                    {"source": "Wile Coyote", "target": "Acme Corp", "type": "works_for"}
                ],
            },
        }
    )
    docs = [
        SourceDocument(id="a", text="Acme Corporation makes anvils."),
        SourceDocument(id="b", text="Wile Coyote buys rockets from Acme Corp."),
    ]
    report = await build_graph(
        docs, provider=provider, graph=graph, tenant_id=DEFAULT_TENANT, domain=DOMAIN
    )
    [merge] = report.merges
    [link] = await graph.list_relationships(DEFAULT_TENANT)
    assert (link.target_id, link.source_document_ids) == (merge.survivor_id, ["b"])


@pytest.mark.asyncio
async def test_a_relationship_the_document_still_states_stays() -> None:
    graph, _, common = _rebuildable()
    before = FakeLlmProvider(
        by_substring={
            "letters": answer(
                EVERYONE, [("Ada Lovelace", "Bob Stone"), ("Ada Lovelace", "Cy Young")]
            )
        }
    )
    await build_graph([LETTERS], provider=before, **common)
    after = FakeLlmProvider(
        by_substring={"letters": answer(EVERYONE, [("Ada Lovelace", "Bob Stone")])}
    )
    report = await build_graph([LETTERS], provider=after, **common)
    assert await _pairs(graph) == {("Ada Lovelace", "Bob Stone"): ["a"]}
    assert report.relationships_retired == 1
