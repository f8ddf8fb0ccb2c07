"""The PostgreSQL adapters pass the same compliance suites as every adapter.

Each `make_store` opens an empty schema in this module's database: a new one, or
one a finished test of the module left, emptied (`schema_pool`); the pools
opened during a test are closed after it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Hashable

import pytest_asyncio

from redstring.composition.postgres_stores import PostgresStores, open_postgres
from redstring.ports import ChunkStore, EventLog, GraphStore, VectorStore
from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.event_log import EventLogCompliance
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance
from tests.schema_pool import SchemaPool


class _OpensSchemas:
    url: str
    opened: list[PostgresStores]
    pool: SchemaPool
    #: The schemas this test took from the pool (or made), with their keys.
    taken: dict[str, Hashable]

    @pytest_asyncio.fixture(autouse=True)
    async def _pools(self, postgres_url: str, schema_pool: SchemaPool) -> AsyncIterator[None]:
        self.url, self.pool = postgres_url, schema_pool
        self.opened, self.taken = [], {}
        yield
        for stores in self.opened:
            await stores.close()
        for name, key in self.taken.items():
            self.pool.give_back(name, key)

    async def open(
        self, dimension: int, schema: str | None = None, **options: object
    ) -> PostgresStores:
        key: Hashable = (dimension, tuple(sorted(options.items())))
        new = False
        if schema is None:
            schema, reused = self.pool.take(key)
            self.taken[schema], new = key, not reused
        stores = await open_postgres(
            self.url,
            dimension=dimension,
            schema=schema,
            min_size=1,
            max_size=2,
            **options,  # type: ignore[arg-type]
        )
        self.opened.append(stores)
        if new:
            self.pool.record_created(schema)
        return stores


class TestPostgresGraphStore(_OpensSchemas, GraphStoreCompliance):
    async def make_store(self) -> GraphStore:
        return (await self.open(8)).graph


class TestPgVectorStoreExact(_OpensSchemas, VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return (await self.open(dimension)).vectors


class TestPostgresChunkStore(_OpensSchemas, ChunkStoreCompliance):
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


class TestPostgresEventLog(_OpensSchemas, EventLogCompliance):
    async def make_log(self) -> EventLog:
        return (await self.open(8)).events
