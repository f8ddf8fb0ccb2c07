"""`open_postgres`: the stores of several families sharing one PostgreSQL pool and schema.

Composes `redstring.graph` and `redstring.vector` adapters over one
`redstring.storage.postgres.PostgresDatabase`. Needs the `postgres` extra.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from redstring.graph.postgres import PostgresGraphStore
from redstring.storage.postgres import PostgresDatabase
from redstring.vector.postgres import (
    EXTENSIONS,
    PgVectorStore,
    SearchMode,
    configure_connection,
)


@dataclass
class PostgresStores:
    """The stores of one PostgreSQL schema; `await close()` releases the pool."""

    database: PostgresDatabase
    graph: PostgresGraphStore
    vectors: PgVectorStore

    async def close(self) -> None:
        """Close the shared pool."""
        await self.database.close()


async def open_postgres(
    url: str,
    *,
    dimension: int,
    schema: str = "redstring",
    migrate: bool = False,
    search_mode: SearchMode = "exact",
    iterative_scan: Literal["relaxed_order", "strict_order"] = "relaxed_order",
    min_size: int = 1,
    max_size: int = 10,
    connect_timeout: float = 10.0,
) -> PostgresStores:
    """Connect to `url` and open the stores in `schema`, creating their tables if absent.

    `pgvector` is created if missing (which needs the privilege to). An
    older schema raises `SchemaMigrationRequiredError` unless `migrate=True`;
    a newer one `SchemaTooNewError`; an unreachable server
    `StoreUnavailableError` after `connect_timeout` seconds.
    """
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
        graph = await PostgresGraphStore.open(database, migrate=migrate)
        vectors = await PgVectorStore.open(
            database,
            dimension=dimension,
            migrate=migrate,
            search_mode=search_mode,
            iterative_scan=iterative_scan,
        )
    except BaseException:
        await database.close()
        raise
    return PostgresStores(database=database, graph=graph, vectors=vectors)
