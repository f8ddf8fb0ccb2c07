"""A NUL in what a graph write holds is refused alike in every store, before anything is written.

SQLite and memory stored an entity whose type or name held a NUL (`"\\x00"`);
PostgreSQL (whose text and `jsonb` hold none) refused the batch with an
untyped `StoreOperationError`, and a build whose model answered one stopped
there. A hand-built write is refused where it enters (`upsert`), a model's
answer holding one is an answer that does not fit (the chunk fails, as for a
blank name), and a domain listing such a type is refused before any model call.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from redstring import AsyncRedstring, Relationship, SourceDocument, build_graph
from redstring.building import DomainSchema
from redstring.errors import InvalidArgumentError
from redstring.providers import FakeLlmProvider
from redstring.stores import InMemoryGraphStore, SqliteGraphStore, open_sqlite
from tests.factories import DEFAULT_TENANT, make_entity
from tests.unit.boundary.conftest import Stores

NUL_ENTITIES: list[tuple[dict[str, Any], str]] = [
    ({"entity_type": "per\x00son"}, "entities[1].entity_type"),
    ({"name": "Ada\x00 Lovelace"}, "entities[1].name"),
    ({"normalized_name": "ada\x00"}, "entities[1].normalized_name"),
    ({"description": "wrote\x00"}, "entities[1].description"),
    ({"aliases": ["Ada", "A.\x00L."]}, "entities[1].aliases[1]"),
    ({"source_document_ids": ["a\x00.md"]}, "entities[1].source_document_ids[0]"),
    ({"properties": {"born": "18\x0015"}}, "entities[1].properties['born']"),
    ({"properties": {"tags": ["x", "y\x00"]}}, "entities[1].properties['tags'][1]"),
    ({"properties": {"b\x00rn": 1815}}, "entities[1].properties['b\\x00rn']"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("fields", "name"), NUL_ENTITIES)
async def test_an_entity_holding_a_nul_is_refused_whole_in_every_store(
    stores: Stores, fields: dict[str, Any], name: str
) -> None:
    bad = make_entity(**{"name": "Ada Lovelace", "id": uuid4(), **fields})
    good = make_entity("Grace Hopper")
    with pytest.raises(InvalidArgumentError) as caught:
        await stores.graph.upsert([good, bad])
    assert caught.value.name == name
    assert "NUL" in str(caught.value)
    assert "remove" in str(caught.value)
    assert await stores.graph.list_entities(DEFAULT_TENANT) == []


NUL_RELATIONSHIPS: list[tuple[dict[str, Any], str]] = [
    ({"relationship_type": "kn\x00ows"}, "relationships[0].relationship_type"),
    ({"description": "met\x00"}, "relationships[0].description"),
    ({"source_document_ids": ["a\x00.md"]}, "relationships[0].source_document_ids[0]"),
    ({"properties": {"since": "18\x0033"}}, "relationships[0].properties['since']"),
]


@pytest.mark.asyncio
@pytest.mark.parametrize(("fields", "name"), NUL_RELATIONSHIPS)
async def test_a_relationship_holding_a_nul_is_refused_whole_in_every_store(
    stores: Stores, fields: dict[str, Any], name: str
) -> None:
    ada, grace = make_entity("Ada Lovelace"), make_entity("Grace Hopper")
    edge = Relationship.model_validate(
        {
            "tenant_id": DEFAULT_TENANT,
            "source_id": ada.id,
            "target_id": grace.id,
            "relationship_type": "knows",
            "id": uuid4(),
            **fields,
        }
    )
    with pytest.raises(InvalidArgumentError) as caught:
        await stores.graph.upsert([ada, grace], [edge])
    assert caught.value.name == name
    assert await stores.graph.list_entities(DEFAULT_TENANT) == []
    assert await stores.graph.list_relationships(DEFAULT_TENANT) == []


_GRACE = SourceDocument(id="a.md", text="Grace Hopper wrote a compiler.")
_ADA = SourceDocument(id="b.md", text="Ada Lovelace lived in London.")


def _answers(field: str) -> FakeLlmProvider:
    ada = {"name": "Ada Lovelace", "type": "person"}
    ada[field] = ada[field][:3] + "\x00" + ada[field][3:]
    return FakeLlmProvider(
        by_substring={
            "Grace": {"entities": [{"name": "Grace Hopper", "type": "person"}]},
            "Ada": {"entities": [ada, {"name": "London", "type": "place"}]},
        }
    )


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return ":memory:" if request.param == "memory" else str(tmp_path / "nul.db")


@pytest.mark.parametrize("field", ["name", "type"])
def test_a_model_answer_holding_a_nul_fails_its_chunk_alike_in_every_store(
    db: str, field: str
) -> None:
    async def scenario() -> tuple[Any, list[tuple[str, str]]]:
        tenant = f"nul-{uuid4().hex}"  # the module's PostgreSQL database is shared
        async with AsyncRedstring(db, tenant=tenant, embeddings="none") as rs:
            report = await rs.build(
                [_GRACE, _ADA], model=_answers(field), domain="general", max_failed_share=1.0
            )
            found = await rs.search("Grace Hopper", mode="lexical", k=10)
            return report, sorted((hit.type, hit.name) for hit in found.matches)

    report, found = asyncio.run(scenario())
    [failure] = report.failures
    assert (failure.document_id, failure.error_type) == ("b.md", "MalformedCompletionError")
    assert "NUL" in failure.cause
    assert report.entities_written == 1
    assert found == [("person", "Grace Hopper")]


@pytest.mark.asyncio
@pytest.mark.parametrize("field", ["entity_types", "relationship_types"])
async def test_a_domain_listing_a_type_holding_a_nul_is_refused_before_any_model_call(
    field: str,
) -> None:
    types = {"entity_types": ("person",), "relationship_types": ("knows",)}
    types[field] = (*types[field], "pla\x00ce")
    domain = DomainSchema(name="mine", description="mine", **types)
    model = FakeLlmProvider(by_substring={})
    with pytest.raises(InvalidArgumentError) as caught:
        await build_graph(
            [_GRACE],
            provider=model,
            graph=InMemoryGraphStore(),
            tenant_id=DEFAULT_TENANT,
            domain=domain,
        )
    assert caught.value.name == f"domain.{field}[1]"
    assert "NUL" in str(caught.value)
    assert model.calls == []


@pytest.mark.asyncio
async def test_an_entity_a_sqlite_file_already_holds_with_a_nul_is_still_read(
    tmp_path: Path,
) -> None:
    path = tmp_path / "older.db"
    held = make_entity("Ada\x00 Lovelace", entity_type="per\x00son")
    async with open_sqlite(path, dimension=4) as stores:
        await stores.graph.upsert([make_entity("Ada Lovelace")])
    # Written as a version that took it would have: the row's JSON, filed under the
    # keys of the entity without its NUL (the blocking keys are not what is tested).
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO graph_entities (tenant_id, id, normalized_type, body, key_version, keys)"
            " SELECT tenant_id, ?, 'person', ?, key_version, keys FROM graph_entities",
            (str(held.id), held.model_dump_json()),
        )
    connection.close()
    async with open_sqlite(path, dimension=4) as stores:
        assert isinstance(stores.graph, SqliteGraphStore)
        [read] = await stores.graph.get_entities([held.id], DEFAULT_TENANT)
        assert read == held
        assert held in await stores.graph.list_entities(DEFAULT_TENANT)
        assert await stores.graph.damaged_rows() == []
