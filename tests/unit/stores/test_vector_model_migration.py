"""Entity vectors written before stores kept their model: migrated, kept, named as unknown.

A database whose vector rows were written before each names its embedding
model is refused until it is migrated (as every schema change is); migrated,
its rows are kept, searched as before, and counted under no model (`None`),
which a search never refuses. A vector written after names its model. Two
tenants share every entity id. Whether a model made some vector of a tenant
is one seek in the model index (SQLite's plan, read here), never a scan.
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import numpy as np
import psycopg
import pytest
from pgvector.psycopg import register_vector

from redstring.domain.ids import EntityId, TenantId, new_tenant_id
from redstring.domain.vector import VectorRecord
from redstring.errors import SchemaMigrationRequiredError
from redstring.storage.postgres import PostgresDatabase
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from redstring.vector.postgres import PgVectorStore, configure_connection, schema_for
from redstring.vector.sqlite import SCHEMA, SqliteVectorStore

DIMENSION = 8
ROWS = 6


def _vectors() -> np.ndarray:
    return np.random.default_rng(5).standard_normal((ROWS, DIMENSION)).astype(np.float32)


def _ids() -> list[EntityId]:
    return [EntityId(uuid.UUID(int=n + 1)) for n in range(ROWS)]


def _sqlite_file_of_version_one(path: Path, tenants: list[TenantId]) -> None:
    database = SqliteDatabase(path)
    try:
        database.ensure_schema(Schema("vector", SCHEMA.migrations[:1]), migrate=False, store="old")
        database.ensure_dimension("vector", DIMENSION, store="old", holds="vectors")
        database.connection.executemany(
            "INSERT INTO vector_records"
            " (tenant_id, entity_id, entity_type, normalized_type, vector)"
            " VALUES (?, ?, 'person', 'person', ?)",
            [
                (str(tenant), str(entity_id), vector.tobytes())
                for tenant in tenants
                for entity_id, vector in zip(_ids(), _vectors(), strict=True)
            ],
        )
        database.connection.commit()
    finally:
        database.close()


async def _holds_the_old_rows_and_takes_a_model(
    store: SqliteVectorStore | PgVectorStore, tenant: TenantId, other: TenantId
) -> None:
    """A migrated store still searches the rows it held, which name no model, and a row
    written again names its model in its own tenant only."""
    for t in (tenant, other):
        assert await store.embedding_models(t) == {None: ROWS}
        assert await store.embeds_with(t, {None})
        assert not await store.embeds_with(t, {"m-new"})
    [best] = await store.search(list(_vectors()[2]), tenant, k=1)
    assert best.entity_id == _ids()[2]
    first = _ids()[0]
    await store.upsert(
        [
            VectorRecord(
                tenant_id=tenant, entity_id=first, entity_type="person",
                vector=list(_vectors()[0]), model="m-new",
            )
        ]
    )  # fmt: skip
    assert await store.embedding_models(tenant) == {None: ROWS - 1, "m-new": 1}
    assert await store.embeds_with(tenant, {"m-new"})
    assert not await store.embeds_with(other, {"m-new"})
    assert await store.embedding_models(other) == {None: ROWS}
    [kept] = await store.get([first], other)
    assert kept.model is None


@pytest.mark.asyncio
async def test_a_sqlite_file_of_vectors_naming_no_model_migrates_and_keeps_them(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.db"
    tenant, other = new_tenant_id(), new_tenant_id()
    _sqlite_file_of_version_one(path, [tenant, other])
    database = SqliteDatabase(path)
    try:
        with pytest.raises(SchemaMigrationRequiredError):
            SqliteVectorStore(database, dimension=DIMENSION)
        store = SqliteVectorStore(database, dimension=DIMENSION, migrate=True)
        await _holds_the_old_rows_and_takes_a_model(store, tenant, other)
    finally:
        database.close()


@pytest.mark.asyncio
async def test_a_sqlite_model_check_is_a_seek_in_the_model_index(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "x.db")
    try:
        store = SqliteVectorStore(database, dimension=DIMENSION)
        run: list[str] = []
        database.connection.set_trace_callback(run.append)
        await store.embeds_with(new_tenant_id(), {"m-1", "m-2", None})
        database.connection.set_trace_callback(None)
        asked = [s for s in run if "vector_records" in s]
        assert len(asked) == 2  # the named models, then the rows naming none
        for statement in asked:
            plan = " | ".join(
                row[-1] for row in database.connection.execute(f"EXPLAIN QUERY PLAN {statement}")
            )
            assert "USING COVERING INDEX vector_records_by_model" in plan, plan
            assert "SCAN vector_records" not in plan, plan
    finally:
        database.close()


@pytest.mark.asyncio
async def test_a_postgres_schema_of_vectors_naming_no_model_migrates_and_keeps_them(
    postgres_url: str,
) -> None:
    schema = f"m_{uuid.uuid4().hex[:12]}"
    tenant, other = new_tenant_id(), new_tenant_id()
    database = await PostgresDatabase.connect(
        postgres_url, schema=schema, extensions=("vector",), configure=configure_connection
    )
    try:
        current = schema_for(DIMENSION)
        version_three = Schema(component="vector", migrations=current.migrations[:3])
        await database.ensure_schema(version_three, migrate=False, store="old")
        await database.ensure_dimension("vector", DIMENSION, store="old", holds="vectors")
        with psycopg.connect(postgres_url, autocommit=True) as connection:
            register_vector(connection)
            for t in (tenant, other):
                for entity_id, vector in zip(_ids(), _vectors(), strict=True):
                    connection.execute(
                        f'INSERT INTO "{schema}".vector_records (tenant_id, entity_id,'
                        " entity_type, normalized_type, embedding)"
                        " VALUES (%s, %s, 'person', 'person', %s)",
                        (t, entity_id, vector),
                    )
        with pytest.raises(SchemaMigrationRequiredError):
            await PgVectorStore.open(database, dimension=DIMENSION)
        store = await PgVectorStore.open(database, dimension=DIMENSION, migrate=True)
        await _holds_the_old_rows_and_takes_a_model(store, tenant, other)
    finally:
        await database.close()


def test_the_sqlite_migration_adds_the_model_column_and_its_index(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _sqlite_file_of_version_one(path, [new_tenant_id()])
    database = SqliteDatabase(path)
    try:
        SqliteVectorStore(database, dimension=DIMENSION, migrate=True)
    finally:
        database.close()
    with sqlite3.connect(path) as raw:
        columns = [row[1] for row in raw.execute("PRAGMA table_info(vector_records)")]
        indexes = [row[1] for row in raw.execute("PRAGMA index_list(vector_records)")]
        assert raw.execute("SELECT count(*) FROM vector_records WHERE model IS NULL").fetchone()
    assert columns[-1] == "model"
    assert "vector_records_by_model" in indexes
