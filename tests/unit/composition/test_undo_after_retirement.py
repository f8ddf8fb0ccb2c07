"""An undo refuses a merge a later build's retirement touched, before writing anything.

The QA's sequence: a build merges "Charles Babage" into "Charles Babbage";
its document is then changed so it no longer names Babage or London, and the
next build retires London and the Babage-London relationship. Undoing the
merge would restore a relationship whose end is gone; it used to fail inside
the graph store with "entity ... does not exist".
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from redstring import SourceDocument, build_graph
from redstring.domain.events import EntitiesMerged, EntitiesRetired
from redstring.errors import MergeNotUndoableError, MergeRetiredError
from redstring.ports import ChunkStore, EventLog, GraphStore
from redstring.providers import FakeLlmProvider
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    open_postgres,
    open_sqlite,
    undo_merge,
)
from tests.factories import DEFAULT_TENANT

DIMENSION = 8

ANSWERS: dict[str, Any] = {
    "Analytical Engine": {
        "entities": [
            {"name": "Charles Babbage", "type": "person"},
            {"name": "Analytical Engine", "type": "product"},
        ],
        "relationships": [],
    },
    "lived in London": {
        "entities": [
            {"name": "Charles Babage", "type": "person"},
            {"name": "London", "type": "location"},
        ],
        "relationships": [
            {"source": "Charles Babage", "target": "London", "type": "located_in"},
        ],
    },
    "nothing else": {"entities": [], "relationships": []},
}
FIRST = [
    SourceDocument(id="a", text="Charles Babbage designed the Analytical Engine."),
    SourceDocument(id="b", text="Charles Babage, misspelt, lived in London."),
]
CHANGED_B = SourceDocument(id="b", text="This letter says nothing else.")


@pytest_asyncio.fixture(params=["memory", "sqlite", "postgres"])
async def stores(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[GraphStore, ChunkStore, EventLog]]:
    if request.param == "memory":
        yield InMemoryGraphStore(), InMemoryChunkStore(dimension=DIMENSION), InMemoryEventLog()
    elif request.param == "sqlite":
        async with open_sqlite(tmp_path / "undo.db", dimension=DIMENSION) as sqlite:
            yield sqlite.graph, sqlite.chunks, sqlite.events
    else:
        url = request.getfixturevalue("postgres_url")
        schema = f"t_{uuid.uuid4().hex[:12]}"
        async with await open_postgres(url, dimension=DIMENSION, schema=schema) as pg:
            yield pg.graph, pg.chunks, pg.events


@pytest.mark.asyncio
async def test_undo_refuses_a_merge_whose_relationship_end_a_later_build_retired(
    stores: tuple[GraphStore, ChunkStore, EventLog],
) -> None:
    graph, chunks, log = stores
    common = {"graph": graph, "tenant_id": DEFAULT_TENANT, "chunks": chunks, "log": log}
    provider = FakeLlmProvider(by_substring=ANSWERS)
    first = await build_graph(FIRST, provider=provider, domain="general", **common)
    [merge] = first.merges
    again = await build_graph([CHANGED_B], provider=provider, domain="general", **common)
    assert again.entities_retired == 1
    events = await log.read(DEFAULT_TENANT)
    [retirement] = [event for event in events if isinstance(event, EntitiesRetired)]
    [london] = retirement.retired
    assert london.name == "London"
    entities = await graph.list_entities(DEFAULT_TENANT)
    relationships = await graph.list_relationships(DEFAULT_TENANT)

    with pytest.raises(MergeNotUndoableError) as refused:
        await undo_merge(merge.event_id, tenant_id=DEFAULT_TENANT, log=log, graph=graph)

    assert isinstance(refused.value, MergeRetiredError)
    assert refused.value.later_event_id == retirement.event_id
    message = str(refused.value)
    assert f"London ({london.id})" in message
    assert str(merge.event_id) in message
    assert "Nothing was changed" in message
    assert await log.read(DEFAULT_TENANT) == events
    assert await graph.list_entities(DEFAULT_TENANT) == entities
    assert await graph.list_relationships(DEFAULT_TENANT) == relationships


STILL_NAMES_LONDON = SourceDocument(id="b", text="Charles Babage, misspelt, was born in London.")
ANSWERS["was born"] = {
    "entities": [
        {"name": "Charles Babage", "type": "person"},
        {"name": "London", "type": "location"},
    ],
    "relationships": [],
}


@pytest.mark.asyncio
async def test_undo_refuses_a_merge_whose_redirected_relationship_a_later_build_retired(
    stores: tuple[GraphStore, ChunkStore, EventLog],
) -> None:
    graph, chunks, log = stores
    common = {"graph": graph, "tenant_id": DEFAULT_TENANT, "chunks": chunks, "log": log}
    provider = FakeLlmProvider(by_substring=ANSWERS)
    [merge] = (await build_graph(FIRST, provider=provider, domain="general", **common)).merges
    [merged] = [e for e in await log.read(DEFAULT_TENANT) if isinstance(e, EntitiesMerged)]
    [redirected] = merged.relationships_added
    await build_graph([STILL_NAMES_LONDON], provider=provider, domain="general", **common)
    events = await log.read(DEFAULT_TENANT)
    [retirement] = [event for event in events if isinstance(event, EntitiesRetired)]
    assert retirement.retired == []
    assert [r.id for r in retirement.relationships_removed] == [redirected.id]

    with pytest.raises(MergeRetiredError, match=f"located_in relationship \\({redirected.id}\\)"):
        await undo_merge(merge.event_id, tenant_id=DEFAULT_TENANT, log=log, graph=graph)

    assert await log.read(DEFAULT_TENANT) == events
