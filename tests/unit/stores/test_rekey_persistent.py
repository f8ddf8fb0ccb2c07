"""Re-keying persistent graph stores written under key scheme version 1 (ADR 0070)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import redstring.graph.postgres as postgres_graph
from redstring import Entity, RetrievalMode, Retriever, TenantId, new_tenant_id
from redstring.composition.postgres_stores import open_postgres
from redstring.domain.blocking import (
    KEY_VERSION,
    blocking_keys_for,
    prefix_key_for_name,
    soundex_key_for_name,
)
from redstring.graph.sqlite import SCHEMA, SqliteGraphStore
from redstring.ports.graph_store import GraphStore
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import rekey_graph


def version_one_keys(entity: Entity) -> frozenset[str]:
    """The whole-name keys of ADR 0003, as version-1 code filed them."""
    keys = {prefix_key_for_name(entity.name), soundex_key_for_name(entity.name)}
    return frozenset(key for key in keys if key is not None)


async def lexical(graph: GraphStore, query: str, tenant: TenantId) -> list[str]:
    result = await Retriever.lexical_only(graph=graph).retrieve(
        query, tenant, mode=RetrievalMode.LEXICAL
    )
    return [match.entity.name for match in result.matches]


@pytest.mark.asyncio
async def test_a_version_one_sqlite_file_migrates_and_rekeys(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    tenant = new_tenant_id()
    ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace")
    old = SqliteDatabase(path)  # a file as the version-1 library left it: schema 1, whole-name keys
    old.ensure_schema(Schema("graph", [SCHEMA.migrations[0]]), migrate=False, store="old")
    with old.connection:
        old.connection.execute(
            "INSERT INTO graph_entities (tenant_id, id, normalized_type, body) VALUES (?,?,?,?)",
            (str(tenant), str(ada.id), "person", ada.model_dump_json()),
        )
        old.connection.executemany(
            "INSERT INTO graph_blocking_keys (tenant_id, key, entity_id) VALUES (?,?,?)",
            [(str(tenant), key, str(ada.id)) for key in version_one_keys(ada)],
        )
    old.close()

    database = SqliteDatabase(path)
    store = SqliteGraphStore(database, migrate=True)
    assert await store.blocking_key_version(tenant) == 1
    assert await lexical(store, "Lovelace", tenant) == []
    report = await rekey_graph(store, tenant)
    assert (report.version_before, report.version_after, report.rekeyed) == (1, KEY_VERSION, 1)
    assert await lexical(store, "Lovelace", tenant) == ["Ada Lovelace"]
    await store.delete_entities([ada.id], tenant)  # the keys the rebuild filed go with her
    assert await store.count_blocking_keys(sorted(blocking_keys_for(ada)), tenant) == dict.fromkeys(
        sorted(blocking_keys_for(ada)), 0
    )
    database.close()


@pytest.mark.asyncio
async def test_a_postgres_tenant_filed_by_old_code_rekeys_alone(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = await open_postgres(
        postgres_url, dimension=4, schema=f"t_{uuid.uuid4().hex[:12]}", min_size=1, max_size=2
    )
    try:
        tenant, other = new_tenant_id(), new_tenant_id()
        with monkeypatch.context() as old_code:
            old_code.setattr(postgres_graph, "blocking_keys_for", version_one_keys)
            old_code.setattr(postgres_graph, "KEY_VERSION", 1)
            for who in (tenant, other):
                await stores.graph.upsert(
                    [Entity(tenant_id=who, entity_type="person", name="Ada Lovelace")]
                )
        assert await lexical(stores.graph, "Lovelace", tenant) == []
        report = await rekey_graph(stores.graph, tenant)
        assert (report.version_before, report.version_after, report.rekeyed) == (1, KEY_VERSION, 1)
        assert await lexical(stores.graph, "Lovelace", tenant) == ["Ada Lovelace"]
        assert await stores.graph.blocking_key_version(other) == 1
        assert await lexical(stores.graph, "Lovelace", other) == []
    finally:
        await stores.close()
