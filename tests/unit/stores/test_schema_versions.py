"""Both backends record schema versions and never migrate or downgrade silently."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from redstring.errors import SchemaMigrationRequiredError, SchemaTooNewError
from redstring.storage.postgres import PostgresDatabase
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import open_postgres, open_sqlite

V1 = [
    "CREATE TABLE {schema}.widgets"
    " (tenant_id TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (tenant_id, id))"
]
V2 = ["ALTER TABLE {schema}.widgets ADD COLUMN colour TEXT"]


def _widgets(*migrations: list[str], qualify: bool) -> Schema:
    def fix(statement: str) -> str:
        return statement if qualify else statement.replace("{schema}.", "")

    return Schema(component="widgets", migrations=[[fix(s) for s in m] for m in migrations])


def test_sqlite_refuses_an_older_schema_until_asked_to_migrate(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "w.db")
    database.ensure_schema(_widgets(V1, qualify=False), migrate=False, store="test")
    database.connection.execute("INSERT INTO widgets VALUES ('t', 'w1')")
    newer = _widgets(V1, V2, qualify=False)
    with pytest.raises(SchemaMigrationRequiredError) as caught:
        database.ensure_schema(newer, migrate=False, store="test")
    assert (caught.value.found, caught.value.expected) == (1, 2)
    assert "migrate=True" in str(caught.value)
    columns = [row[1] for row in database.connection.execute("PRAGMA table_info(widgets)")]
    assert columns == ["tenant_id", "id"]
    database.ensure_schema(newer, migrate=True, store="test")
    assert database.connection.execute("SELECT id, colour FROM widgets").fetchall() == [
        ("w1", None)
    ]
    database.ensure_schema(newer, migrate=False, store="test")  # current: nothing to do


@pytest.mark.asyncio
@pytest.mark.parametrize("component", ["graph", "vector", "chunks", "events"])
async def test_sqlite_refuses_a_file_from_a_newer_library(tmp_path: Path, component: str) -> None:
    path = tmp_path / "new.db"
    await open_sqlite(path, dimension=4).close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT component, version FROM redstring_schema").fetchall() == [
            ("graph", 4),
            ("vector", 2),
            ("vector_ivf", 1),
            ("chunks", 6),
            ("events", 1),
            ("projection_positions", 1),
            ("answer_memory", 1),
        ]
        raw.execute("UPDATE redstring_schema SET version = 99 WHERE component = ?", (component,))
    with pytest.raises(SchemaTooNewError) as caught:
        open_sqlite(path)
    expected = {"graph": 4, "vector": 2, "chunks": 6, "events": 1}[component]
    assert (caught.value.component, caught.value.found, caught.value.expected) == (
        component,
        99,
        expected,
    )
    assert "Upgrade redstring" in str(caught.value)
    with sqlite3.connect(path) as raw:
        assert raw.execute(
            "SELECT version FROM redstring_schema WHERE component = ?", (component,)
        ).fetchone() == (99,)


@pytest.mark.asyncio
async def test_postgres_refuses_an_older_schema_until_asked_to_migrate(postgres_url: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    database = await PostgresDatabase.connect(postgres_url, schema=schema)
    try:
        await database.ensure_schema(_widgets(V1, qualify=True), migrate=False, store="test")
        newer = _widgets(V1, V2, qualify=True)
        with pytest.raises(SchemaMigrationRequiredError):
            await database.ensure_schema(newer, migrate=False, store="test")
        await database.ensure_schema(newer, migrate=True, store="test")

        async def columns(connection: psycopg.AsyncConnection[object]) -> list[object]:
            cursor = await connection.execute(
                "SELECT column_name FROM information_schema.columns"
                " WHERE table_schema = %s AND table_name = 'widgets' ORDER BY ordinal_position",
                (schema,),
            )
            return [row[0] for row in await cursor.fetchall()]

        assert await database.read(columns, store="test") == ["tenant_id", "id", "colour"]
    finally:
        await database.close()


@pytest.mark.asyncio
async def test_postgres_refuses_a_schema_from_a_newer_library(postgres_url: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    await (await open_postgres(postgres_url, dimension=4, schema=schema)).close()
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(
            sql.SQL("UPDATE {}.redstring_schema SET version = 7 WHERE component = 'vector'").format(
                sql.Identifier(schema)
            )
        )
    with pytest.raises(SchemaTooNewError) as caught:
        await open_postgres(postgres_url, dimension=4, schema=schema)
    assert (caught.value.component, caught.value.found) == ("vector", 7)
