"""The PostgreSQL graph store's key lookups are index searches, never a scan of the key table.

The statements are captured as the store runs them and handed, with the
parameters they ran with, to `EXPLAIN` with sequential scans priced out
(`enable_seqscan = off`, so a tiny test table does not make a scan the cheap
plan). Every read of `graph_blocking_keys` must then be an index search whose
condition fixes both the tenant and the key: a sequential scan, or a walk of
a whole index filtered on a column it does not lead with, is the defect this
test exists for. SQLite's twin is `test_sqlite_query_plans.py`.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import psycopg
import pytest

from redstring import Entity, new_tenant_id
from redstring.composition.postgres_stores import open_postgres
from redstring.domain.blocking import query_blocking_keys, query_ngram_keys
from redstring.domain.query import NormalizedQuery
from tests.unit.stores.partitioning import as_text

KEY_TABLE = "graph_blocking_keys"


def _nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", ()):
        yield from _nodes(child)


def key_table_reads(url: str, text: str, parameters: Any) -> list[str]:
    """Each read of the key table in the plan of `text`: a lookup, or what it is instead."""
    with psycopg.connect(url) as connection, connection.transaction(force_rollback=True):
        connection.execute("SET LOCAL enable_seqscan = off")
        [[plan]] = connection.execute(f"EXPLAIN (FORMAT JSON) {text}", parameters).fetchall()
    reads = []
    for node in _nodes(plan[0]["Plan"]):
        if str(node.get("Index Name", "")).startswith(KEY_TABLE):
            condition = str(node.get("Index Cond", ""))
            fixed = "tenant_id =" in condition and "key =" in condition
            reads.append("lookup" if fixed else f"{node['Node Type']} on {condition or 'nothing'}")
        elif node.get("Relation Name") == KEY_TABLE and node["Node Type"] == "Seq Scan":
            reads.append("Seq Scan")
    return reads


def test_a_filter_the_key_index_cannot_serve_is_seen_as_a_scan(postgres_url: str) -> None:
    """The check can fail: a lookup on the entity column alone reads the table whole."""
    schema = f"q_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{schema}"')
        connection.execute(
            f'CREATE TABLE "{schema}".{KEY_TABLE} (tenant_id uuid, key text, entity_id uuid,'
            " PRIMARY KEY (tenant_id, key, entity_id))"
        )
    table = f'"{schema}".{KEY_TABLE}'
    by_key = f"SELECT entity_id FROM {table} WHERE tenant_id = %s AND key = %s"
    by_entity = f"SELECT key FROM {table} WHERE entity_id = %s"
    tenant, entity = uuid.uuid4(), uuid.uuid4()
    assert key_table_reads(postgres_url, by_key, (tenant, "g:abc")) == ["lookup"]
    assert key_table_reads(postgres_url, by_entity, (entity,)) != ["lookup"]


@pytest.mark.asyncio
async def test_key_lookups_and_counts_read_the_key_index(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = await open_postgres(
        postgres_url, dimension=4, schema=f"q_{uuid.uuid4().hex[:12]}", min_size=1, max_size=2
    )
    try:
        tenants = [new_tenant_id() for _ in range(3)]
        for tenant in tenants:
            await stores.graph.upsert(
                [Entity(tenant_id=tenant, entity_type="person", name=f"Ada {n}") for n in range(30)]
            )
        query = NormalizedQuery.of("Ada 7")
        tenant = tenants[1]
        calls: dict[str, Callable[[], Awaitable[object]]] = {
            "find_ids_by_blocking_keys": lambda: stores.graph.find_ids_by_blocking_keys(
                query_blocking_keys(query), tenant, limit=5
            ),
            "find_by_blocking_keys": lambda: stores.graph.find_by_blocking_keys(
                query_blocking_keys(query), tenant, limit=5
            ),
            "count_blocking_keys": lambda: stores.graph.count_blocking_keys(
                query_ngram_keys(query), tenant, limit=5
            ),
        }
        execute = psycopg.AsyncCursor.execute
        seen: list[tuple[str, Any]] = []

        async def recording(
            cursor: psycopg.AsyncCursor[Any], statement: Any, params: Any = None, **kw: Any
        ) -> Any:
            seen.append((as_text(statement, cursor.connection), params))
            return await execute(cursor, statement, params, **kw)

        for name, call in calls.items():
            seen.clear()
            with monkeypatch.context() as patch:
                patch.setattr(psycopg.AsyncCursor, "execute", recording)
                await call()
            reads = [
                read
                for text, parameters in seen
                if KEY_TABLE in text
                for read in key_table_reads(postgres_url, text, parameters)
            ]
            assert reads, name
            assert set(reads) == {"lookup"}, f"{name}: {reads}"
    finally:
        await stores.close()
