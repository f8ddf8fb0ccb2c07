"""PostgreSQL's open names another application's schema and a corrupt setting (B141).

Before: a schema holding another application's `graph_entities` failed inside
`CREATE TABLE` with "the database rejected the operation ... retry" after
writing redstring's bookkeeping tables into it, and a recorded dimension of
'abc' surfaced `invalid literal for int()`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from psycopg import sql

from redstring.errors import CorruptSettingError, ForeignSchemaError
from redstring.stores import open_postgres


@pytest.fixture
def schema(postgres_url: str) -> Iterator[str]:
    name = f"o_{uuid.uuid4().hex[:12]}"
    yield name
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))


def _tables(url: str, schema: str) -> list[str]:
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
            " ORDER BY table_name",
            (schema,),
        ).fetchall()
    return [str(row[0]) for row in rows]


@pytest.mark.asyncio
@pytest.mark.parametrize("table", ["notes", "graph_entities"])
async def test_another_applications_schema_is_named_and_never_written(
    postgres_url: str, schema: str, table: str
) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
        connection.execute(
            sql.SQL("CREATE TABLE {}.{} (x integer)").format(
                sql.Identifier(schema), sql.Identifier(table)
            )
        )
    for dimension in (4, None):
        with pytest.raises(ForeignSchemaError) as refused:
            await open_postgres(postgres_url, dimension=dimension, schema=schema, max_size=2)
        message = str(refused.value)
        assert table in message
        assert "another application" in message
        assert "retry" not in message
    assert refused.value.tables == [table]
    assert _tables(postgres_url, schema) == [table]


@pytest.mark.asyncio
@pytest.mark.parametrize("value", ["abc", "-3", "0", "4.0"])
async def test_a_corrupt_stored_dimension_is_named_not_an_int_parse_error(
    postgres_url: str, schema: str, value: str
) -> None:
    stores = await open_postgres(postgres_url, dimension=4, schema=schema, max_size=2)
    await stores.close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(
            sql.SQL("UPDATE {}.redstring_settings SET value = %s WHERE name = 'dimension'").format(
                sql.Identifier(schema)
            ),
            (value,),
        )
    for dimension in (None, 4):
        with pytest.raises(CorruptSettingError) as refused:
            await open_postgres(postgres_url, dimension=dimension, schema=schema, max_size=2)
        message = str(refused.value)
        assert f"dimension = {value!r}" in message
        assert "invalid literal" not in message
        assert "backup" in message
