"""Every statement the PostgreSQL adapters issue touches one tenant's partition.

The shared compliance suites run here against a schema in which every table
holding `tenant_id` is hash-partitioned on it (plain declarative
partitioning, `PARTITIONS` partitions). Each statement a test issues is
recorded, and after the test the planner is asked (`EXPLAIN`) which
partitions it touches with the parameters it ran with: exactly one, except
the statements named in `CROSS_TENANT`, which list every tenant by design.
This is the property a deployment distributed by `tenant_id` (Citus,
docs/how-to/use-postgres.md) relies on: every query is routed to one shard.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import psycopg
import pytest
import pytest_asyncio
from pgvector.psycopg import register_vector

import redstring.storage.postgres as postgres_storage
from redstring.composition.postgres_stores import PostgresStores, open_postgres
from redstring.ports import ChunkStore, EventLog, GraphStore, VectorStore
from redstring.storage.schema import Schema, pending_migrations
from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.event_log import EventLogCompliance
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance
from tests.schema_pool import SchemaPool
from tests.unit.stores.partitioning import (
    PARTITIONS,
    StatementLog,
    as_text,
    confined,
    partition_parents,
    partitioned,
    partitions_touched,
    shape,
    spread_failures,
)

#: Statements that read every tenant on purpose (listing the tenants a store
#: holds); on a distributed cluster each is a fan-out to every shard.
CROSS_TENANT = ("SELECT DISTINCT tenant_id", "WITH every_tenant")

#: Schema migrations rewrite every tenant's rows once per database, on purpose
#: (ADR 0133's chunk id migration); `_partitioned_pending` collects them.
MIGRATIONS: set[str] = set()


def _partitioned_pending(
    schema: Schema, found: int | None, *, migrate: bool, store: str
) -> list[Sequence[str]]:
    pending = pending_migrations(schema, found, migrate=migrate, store=store)
    MIGRATIONS.update(statement for migration in pending for statement in migration)
    return [partitioned(m) for m in pending]


@dataclass
class Verdicts:
    """Across a module: each statement shape seen, and whether some plan proved it confined."""

    proved: dict[str, bool] = field(default_factory=dict)

    def unproved(self) -> list[str]:
        return sorted(text for text, ok in self.proved.items() if not ok)


@pytest.fixture(scope="module")
def verdicts() -> Iterator[Verdicts]:
    """Fails the module's last test if a statement was never seen on exactly one partition."""
    found = Verdicts()
    yield found
    assert not found.unproved(), "statements never seen confined to one partition:\n" + (
        "\n".join(found.unproved())
    )


@pytest.fixture
def statements(monkeypatch: pytest.MonkeyPatch) -> StatementLog:
    """Partitioned DDL for every schema opened, and a log of every statement run."""
    log = StatementLog()
    monkeypatch.setattr(postgres_storage, "pending_migrations", _partitioned_pending)
    execute, executemany = psycopg.AsyncCursor.execute, psycopg.AsyncCursor.executemany

    async def recording_execute(
        self: psycopg.AsyncCursor[Any], query: Any, params: Any = None, **kwargs: Any
    ) -> Any:
        log.record(as_text(query, self.connection), params)
        return await execute(self, query, params, **kwargs)

    async def recording_executemany(
        self: psycopg.AsyncCursor[Any], query: Any, params_seq: Any, **kwargs: Any
    ) -> Any:
        rows = list(params_seq)
        for row in rows:
            log.record(as_text(query, self.connection), row)
        return await executemany(self, query, rows, **kwargs)

    monkeypatch.setattr(psycopg.AsyncCursor, "execute", recording_execute)
    monkeypatch.setattr(psycopg.AsyncCursor, "executemany", recording_executemany)
    return log


def spread_statements(url: str, schema: str, log: StatementLog, verdicts: Verdicts) -> list[str]:
    """Each statement of `log` on `schema` that touches more than one partition of a table.

    Records in `verdicts` whether each statement was proved confined.
    """
    failures: list[str] = []
    with psycopg.connect(url, autocommit=True) as connection:
        register_vector(connection)
        parents = partition_parents(connection, schema)
        for text, samples in log.seen.items():
            if schema not in text:
                continue
            plans = [partitions_touched(connection, text, p, parents) for p in samples]
            if not any(plan.tables for plan in plans):
                continue  # bookkeeping tables only (schema versions, settings)
            if text.lstrip().startswith(CROSS_TENANT) or shape(text, schema) in MIGRATIONS:
                continue
            key = shape(text, schema)
            verdicts.proved[key] = verdicts.proved.get(key, False) or confined(plans)
            reasons = spread_failures(plans)
            if reasons:
                failures.append(f"{text}\n    -> {'; '.join(reasons)}")
    return failures


class _PartitionedSchemas:
    url: str
    opened: list[tuple[str, PostgresStores]]
    pool: SchemaPool
    #: The schemas this test took from the pool (or made), with their keys.
    taken: dict[str, Hashable]

    @pytest_asyncio.fixture(autouse=True)
    async def _pools(
        self,
        postgres_url: str,
        statements: StatementLog,
        verdicts: Verdicts,
        schema_pool: SchemaPool,
    ) -> AsyncIterator[None]:
        self.url, self.pool, self.opened, self.taken = postgres_url, schema_pool, [], {}
        yield
        for _, stores in self.opened:
            await stores.close()
        failures = [
            failure
            for name, _ in self.opened
            for failure in spread_statements(self.url, name, statements, verdicts)
        ]
        for name, key in self.taken.items():
            self.pool.give_back(name, key)
        assert not failures, "statements spread over several partitions:\n" + "\n".join(failures)

    async def open(
        self, dimension: int, name: str | None = None, language: str | None = None
    ) -> PostgresStores:
        new = False
        if name is None:
            key = (dimension, language)
            name, reused = self.pool.take(key)
            self.taken[name], new = key, not reused
        stores = await open_postgres(
            self.url, dimension=dimension, schema=name, max_size=2, language=language
        )
        self.opened.append((name, stores))
        if new:
            self.pool.record_created(name)
        return stores


class TestPartitionedGraphStore(_PartitionedSchemas, GraphStoreCompliance):
    async def make_store(self) -> GraphStore:
        return (await self.open(8)).graph


class TestPartitionedVectorStore(_PartitionedSchemas, VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return (await self.open(dimension)).vectors


class TestPartitionedChunkStore(_PartitionedSchemas, ChunkStoreCompliance):
    #: Each store made, by `id`, to its schema.
    schemas: dict[int, str]

    async def make_store(self, dimension: int, *, language: str | None = None) -> ChunkStore:
        return await self._chunks(dimension, None, language)

    async def reopen_store(self, store: ChunkStore, *, language: str | None) -> ChunkStore:
        """The same schema through a new pool."""
        return await self._chunks(store.dimension, self.schemas[id(store)], language)

    async def _chunks(self, dimension: int, schema: str | None, language: str | None) -> ChunkStore:
        stores = await self.open(dimension, schema, language=language)
        self.schemas = {**getattr(self, "schemas", {}), id(stores.chunks): stores.database.schema}
        return stores.chunks


class TestPartitionedEventLog(_PartitionedSchemas, EventLogCompliance):
    async def make_log(self) -> EventLog:
        return (await self.open(8)).events


@pytest.fixture
def one_schema(postgres_url: str) -> Iterator[tuple[str, str]]:
    name = f"p_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{name}"')
        for statement in partitioned(
            [
                "CREATE TABLE {schema}.things (tenant_id uuid NOT NULL, id uuid NOT NULL,"
                " PRIMARY KEY (tenant_id, id))"
            ]
        ):
            connection.execute(statement.format(schema=f'"{name}"'))
    yield postgres_url, name
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(f'DROP SCHEMA "{name}" CASCADE')


def test_the_rewritten_schema_is_partitioned_by_tenant(one_schema: tuple[str, str]) -> None:
    url, name = one_schema
    with psycopg.connect(url, autocommit=True) as connection:
        parents = partition_parents(connection, name)
    assert sorted(parents) == [f"things_p{i}" for i in range(PARTITIONS)]
    assert set(parents.values()) == {"things"}


def test_a_statement_without_a_tenant_filter_is_caught(one_schema: tuple[str, str]) -> None:
    """The check can fail: a scan of every tenant, and an insert not routed by tenant."""
    url, name = one_schema
    tenant = uuid.uuid4()
    log = StatementLog()
    log.record(f'SELECT id FROM "{name}".things WHERE id = %s', (tenant,))
    log.record(f'SELECT id FROM "{name}".things WHERE tenant_id = %s AND id = %s', (tenant, tenant))
    log.record(
        f'SELECT id FROM "{name}".things WHERE tenant_id = %s AND id = ANY(%s)', (tenant, [])
    )
    log.record(f'INSERT INTO "{name}".things (tenant_id, id) VALUES (%s, %s)', (tenant, tenant))
    log.record(
        f'INSERT INTO "{name}".things (id, tenant_id) VALUES (%s, gen_random_uuid())', (tenant,)
    )
    log.record(f'SELECT DISTINCT tenant_id FROM "{name}".things', None)
    found = Verdicts()
    failures = spread_statements(url, name, log, found)
    assert len(failures) == 1
    assert "WHERE id = %s" in failures[0]
    assert f"{PARTITIONS} partitions" in failures[0]
    assert found.unproved() == [
        "INSERT INTO {schema}.things (id, tenant_id) VALUES (%s, gen_random_uuid())",
        "SELECT id FROM {schema}.things WHERE id = %s",
        "SELECT id FROM {schema}.things WHERE tenant_id = %s AND id = ANY(%s)",
    ]
