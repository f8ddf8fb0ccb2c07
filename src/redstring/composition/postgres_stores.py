"""`open_postgres`: the stores of several families sharing one PostgreSQL pool and schema.

Composes the `redstring.graph`, `redstring.vector`, `redstring.chunks` and
`redstring.events` adapters over one
`redstring.storage.postgres.PostgresDatabase`. Needs the `postgres` extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from redstring.chunks.postgres import PostgresChunkStore
from redstring.composition.rebuild import catch_up_every_tenant
from redstring.domain.errors import DimensionRequiredError, ForeignSchemaError
from redstring.domain.validation import require_dimension
from redstring.events.postgres import PostgresEventLog
from redstring.graph.postgres import PostgresGraphStore
from redstring.storage.postgres import PostgresDatabase
from redstring.vector.postgres import (
    DEFAULT_EF_SEARCH,
    DEFAULT_EXACT_BELOW,
    EXTENSIONS,
    PgVectorStore,
    SearchMode,
    configure_connection,
)


@dataclass(repr=False)
class PostgresStores:
    """The stores of one PostgreSQL schema: `await close()` it, or use it as `async with`."""

    database: PostgresDatabase
    graph: PostgresGraphStore
    vectors: PgVectorStore
    chunks: PostgresChunkStore
    events: PostgresEventLog

    def __repr__(self) -> str:  # the schema, never the URL and its credentials
        schema, dimension = self.database.schema, self.vectors.dimension
        return f"<PostgresStores schema={schema} dimension={dimension}>"

    async def close(self) -> None:
        """Close the shared pool; the stores raise `StoreUnavailableError` after."""
        await self.database.close()

    async def __aenter__(self) -> PostgresStores:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


async def open_postgres(
    url: str,
    *,
    dimension: int | None = None,
    schema: str = "redstring",
    migrate: bool = False,
    search_mode: SearchMode = "exact",
    iterative_scan: Literal["relaxed_order", "strict_order"] = "relaxed_order",
    ef_search: int = DEFAULT_EF_SEARCH,
    exact_below: int = DEFAULT_EXACT_BELOW,
    min_size: int = 1,
    max_size: int = 10,
    connect_timeout: float = 10.0,
    language: str | None = None,
) -> PostgresStores:
    """Connect to `url` and open the stores in `schema`, creating their tables if absent.

    `dimension` is the length of entity vectors and chunk embeddings; it may
    be omitted for a schema that already records one, and a schema that
    records none opened without one raises `DimensionRequiredError` (no table
    is created).
    `search_mode="hnsw"` searches an HNSW index with `iterative_scan` and
    `ef_search` set in each query's transaction, and ranks exactly when fewer
    than `exact_below` rows pass the filters (`PgVectorStore`).
    `pgvector` is created if missing (which needs the privilege to). An
    older schema raises `SchemaMigrationRequiredError` unless `migrate=True`;
    a newer one `SchemaTooNewError`; an unreachable server
    `StoreUnavailableError` after `connect_timeout` seconds. A schema holding
    another application's tables and no redstring data raises
    `ForeignSchemaError` (nothing is written into it), and a recorded dimension
    that is not a positive integer `CorruptSettingError`. Every store is
    first caught up with the event log for each tenant it lags behind (a
    crash between append and fold). `language` is what
    passages are analysed in for BM25 (a Snowball language, or "none"), see
    `open_sqlite`.
    """
    dimension = require_dimension(dimension)
    database = await PostgresDatabase.connect(
        url,
        schema=schema,
        extensions=EXTENSIONS,
        configure=configure_connection,
        min_size=min_size,
        max_size=max_size,
        connect_timeout=connect_timeout,
    )
    try:
        foreign = await database.foreign_tables(store=database.name)
        if foreign:
            raise ForeignSchemaError(store=database.name, schema=schema, tables=foreign)
        if dimension is None:
            dimension = await database.stored_dimension("vector", store=database.name)
            if dimension is None:
                raise DimensionRequiredError(store=database.name, path=f"schema {schema!r}")
        graph = await PostgresGraphStore.open(database, migrate=migrate)
        vectors = await PgVectorStore.open(
            database,
            dimension=dimension,
            migrate=migrate,
            search_mode=search_mode,
            iterative_scan=iterative_scan,
            ef_search=ef_search,
            exact_below=exact_below,
        )
        chunks = await PostgresChunkStore.open(
            database, dimension=dimension, migrate=migrate, language=language
        )
        events = await PostgresEventLog.open(database, migrate=migrate)
        await catch_up_every_tenant(events, graph=graph, vectors=vectors, chunks=chunks)
    except BaseException:
        await database.close()
        raise
    return PostgresStores(
        database=database, graph=graph, vectors=vectors, chunks=chunks, events=events
    )
