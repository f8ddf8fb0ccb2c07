"""A version-2 SQLite graph file migrates to the narrow key table of ADR 0260 on open.

The version-2 file is written as version-2 code wrote it: one text row per
(tenant, key, entity id) under a foreign key, a by-entity index. Two tenants
hold the same ids (some under the same names), so a migration that joined or
numbered on the id alone would file one tenant's entities under the other's.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path
from uuid import UUID

import pytest

from redstring import Entity, RetrievalMode, Retriever, TenantId, new_tenant_id
from redstring.domain.blocking import KEY_VERSION, blocking_keys_for, exact_key_for_name
from redstring.domain.ids import EntityId
from redstring.errors import SchemaMigrationRequiredError
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.graph.sqlite import SCHEMA, SqliteGraphStore
from redstring.ports.graph_store import GraphStore
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from redstring.testing._graph_entities import edge, person
from redstring.testing._support import fixed_id

NAMES = ["Ada Lovelace", "Ada Lovelock", "Charles Babbage", "Grace Hopper", "Alan Turing"]
QUERIES = ["Ada Lovelace", "Lovelace", "Babage", "A. Lovelock", "Hopper Grace", "Turing"]


def corpus(tenant: TenantId, other: TenantId) -> list[Entity]:
    """The same ids in both tenants: the same names for some, other names for the rest."""
    mine = [person(tenant, name, fixed_id(n)) for n, name in enumerate(NAMES)]
    theirs = [person(other, name, fixed_id(n)) for n, name in enumerate(reversed(NAMES))]
    theirs.append(person(other, "Ada Lovelace", fixed_id(9)))
    return mine + theirs


def write_version_two(path: Path, entities: list[Entity]) -> None:
    database = SqliteDatabase(path)
    database.ensure_schema(Schema("graph", SCHEMA.migrations[:2]), migrate=False, store="v2")
    with database.connection as raw:
        for e in entities:
            raw.execute(
                "INSERT INTO graph_entities (tenant_id, id, normalized_type, body, key_version)"
                " VALUES (?, ?, ?, ?, ?)",
                (str(e.tenant_id), str(e.id), "person", e.model_dump_json(), KEY_VERSION),
            )
            raw.executemany(
                "INSERT INTO graph_blocking_keys (tenant_id, key, entity_id) VALUES (?, ?, ?)",
                [(str(e.tenant_id), key, str(e.id)) for key in blocking_keys_for(e)],
            )
        knows = edge(entities[0], entities[1])
        raw.execute(
            "INSERT INTO graph_relationships (tenant_id, id, source_id, target_id, body)"
            " VALUES (?, ?, ?, ?, ?)",
            (
                str(knows.tenant_id),
                str(knows.id),
                str(knows.source_id),
                str(knows.target_id),
                knows.model_dump_json(),
            ),
        )
    database.close()


def version_two_blocks(path: Path) -> dict[tuple[str, str], list[str]]:
    """Every (tenant, key)'s members as the version-2 table lists them, by id."""
    blocks: dict[tuple[str, str], list[str]] = {}
    with contextlib.closing(sqlite3.connect(path)) as raw:
        for tenant, key, entity_id in raw.execute(
            "SELECT tenant_id, key, entity_id FROM graph_blocking_keys"
            " ORDER BY tenant_id, key, entity_id"
        ):
            blocks.setdefault((tenant, key), []).append(entity_id)
    return blocks


async def rankings(graph: GraphStore, tenant: TenantId) -> list[list[tuple[str, float]]]:
    retriever = Retriever.lexical_only(graph=graph)
    answers = []
    for query in QUERIES:
        result = await retriever.retrieve(query, tenant, k=10, mode=RetrievalMode.LEXICAL)
        answers.append([(str(m.entity.id), m.score) for m in result.matches])
    return answers


@pytest.mark.asyncio
async def test_a_version_two_file_keeps_every_block_and_ranking_through_the_migration(
    tmp_path: Path,
) -> None:
    path, tenant, other = tmp_path / "v2.db", new_tenant_id(), new_tenant_id()
    entities = corpus(tenant, other)
    write_version_two(path, entities)
    before = version_two_blocks(path)
    with pytest.raises(SchemaMigrationRequiredError):
        SqliteGraphStore(SqliteDatabase(path))

    database = SqliteDatabase(path)
    store = SqliteGraphStore(database, migrate=True)
    after: dict[tuple[str, str], list[str]] = {}
    for owner in (tenant, other):
        keys = sorted({key for (t, key) in before if t == str(owner)})
        for key, members in (await store.find_ids_by_blocking_keys(keys, owner)).items():
            after[(str(owner), key)] = [str(UUID(int=member)) for member in members]
        capped = await store.find_by_blocking_keys(keys, owner, limit=1)
        assert all([str(e.id) for e in capped[k]] == before[(str(owner), k)][:1] for k in keys)
    assert after == before

    memory = InMemoryGraphStore()
    await memory.upsert(entities)
    for owner in (tenant, other):
        assert await rankings(store, owner) == await rankings(memory, owner)
    [knows] = await store.relationships_of(fixed_id(0), tenant)
    assert (knows.source_id, knows.target_id) == (fixed_id(0), fixed_id(1))

    raw = database.connection
    tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert "graph_blocking_keys" not in tables
    assert "graph_blocking_keys_by_entity" not in tables
    assert sorted(row[0] for row in raw.execute("SELECT tenant_id FROM graph_tenants")) == sorted(
        [str(tenant), str(other)]
    )
    # Version 4 gives each tenant a generation token of its own (ADR 0450).
    tokens = dict(raw.execute("SELECT tenant_id, token FROM graph_generations").fetchall())
    assert sorted(tokens) == sorted([str(tenant), str(other)])
    assert len(set(tokens.values())) == 2
    assert raw.execute("PRAGMA foreign_key_check").fetchall() == []
    database.close()


@pytest.mark.asyncio
async def test_a_migrated_entity_is_unfiled_in_its_own_tenant_only(tmp_path: Path) -> None:
    path, tenant, other = tmp_path / "v2.db", new_tenant_id(), new_tenant_id()
    write_version_two(path, corpus(tenant, other))
    database = SqliteDatabase(path)
    store = SqliteGraphStore(database, migrate=True)
    ada = exact_key_for_name("Ada Lovelace")
    assert ada is not None
    # fixed_id(0) is Ada Lovelace in `tenant`, Alan Turing in `other`; fixed_id(4) and
    # fixed_id(9) are `other`'s Ada Lovelaces.
    await store.delete_entities([fixed_id(0)], tenant)
    assert await store.find_ids_by_blocking_keys([ada], tenant) == {ada: []}
    assert await store.find_ids_by_blocking_keys([ada], other) == {
        ada: [fixed_id(4).int, fixed_id(9).int]
    }
    await store.upsert([person(other, "Zelda Zimmer", fixed_id(9))])  # re-filed after migration
    assert await store.find_ids_by_blocking_keys([ada], other) == {ada: [fixed_id(4).int]}
    turing = exact_key_for_name("Alan Turing")
    assert turing is not None
    assert await store.find_ids_by_blocking_keys([turing], other) == {
        turing: [EntityId(fixed_id(0)).int]
    }
    # `tenant`'s id 3 (Grace Hopper) takes the name `other`'s id 3 has (Ada Lovelock): each
    # row lists its own tenant's keys, so all of the new name's keys are filed.
    lovelock = person(tenant, "Ada Lovelock", fixed_id(3))
    await store.upsert([lovelock])
    keys = sorted(blocking_keys_for(lovelock))
    filed = await store.find_ids_by_blocking_keys(keys, tenant)
    assert all(fixed_id(3).int in members for members in filed.values())
    database.close()
