"""`open_sqlite`: the stores of every family sharing one SQLite file.

Composes the `redstring.graph`, `redstring.vector`, `redstring.chunks` and
`redstring.events` adapters over one `redstring.storage.sqlite.SqliteDatabase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from redstring.chunks.sqlite import SqliteChunkStore
from redstring.domain.errors import StoreOperationError
from redstring.events.sqlite import SqliteEventLog
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.vector.sqlite import SqliteVectorStore


@dataclass
class SqliteStores:
    """The stores of one SQLite file: `await close()` it, or use it as `async with`."""

    database: SqliteDatabase
    graph: SqliteGraphStore
    vectors: SqliteVectorStore
    chunks: SqliteChunkStore
    events: SqliteEventLog

    async def close(self) -> None:
        """Close the shared connection; the stores raise `StoreUnavailableError` after."""
        self.database.close()

    async def __aenter__(self) -> SqliteStores:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()


def open_sqlite(
    path: str | Path,
    *,
    dimension: int | None = None,
    migrate: bool = False,
    busy_timeout: float = 5.0,
    cache_tenants: int = 16,
) -> SqliteStores:
    """Open (creating if absent) the database file at `path` and the stores over it.

    `dimension` is the length of entity vectors and chunk embeddings; it may
    be omitted for a file that already records one. An older schema raises
    `SchemaMigrationRequiredError` unless `migrate=True`; a newer one raises
    `SchemaTooNewError`; a file that cannot be opened raises
    `StoreUnavailableError`.
    """
    database = SqliteDatabase(path, busy_timeout=busy_timeout)
    try:
        if dimension is None:
            recorded = database.stored_setting("vector", "dimension", store=database.name)
            if recorded is None:
                raise StoreOperationError(
                    store=database.name,
                    cause="a new database needs a vector dimension: pass dimension=...",
                )
            dimension = int(recorded)
        graph = SqliteGraphStore(database, migrate=migrate)
        vectors = SqliteVectorStore(
            database, dimension=dimension, migrate=migrate, cache_tenants=cache_tenants
        )
        chunks = SqliteChunkStore(
            database, dimension=dimension, migrate=migrate, cache_tenants=cache_tenants
        )
        events = SqliteEventLog(database, migrate=migrate)
    except BaseException:
        database.close()
        raise
    return SqliteStores(
        database=database, graph=graph, vectors=vectors, chunks=chunks, events=events
    )
