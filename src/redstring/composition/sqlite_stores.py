"""`open_sqlite`: the stores of several families sharing one SQLite file.

Composes `redstring.graph` and `redstring.vector` adapters over one
`redstring.storage.sqlite.SqliteDatabase`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from redstring.domain.errors import StoreOperationError
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.vector.sqlite import SqliteVectorStore


@dataclass
class SqliteStores:
    """The stores of one SQLite file; `close()` releases the file."""

    database: SqliteDatabase
    graph: SqliteGraphStore
    vectors: SqliteVectorStore

    def close(self) -> None:
        """Close the shared connection."""
        self.database.close()


def open_sqlite(
    path: str | Path,
    *,
    dimension: int | None = None,
    migrate: bool = False,
    busy_timeout: float = 5.0,
    cache_tenants: int = 16,
) -> SqliteStores:
    """Open (creating if absent) the database file at `path` and the stores over it.

    `dimension` is the vector length; it may be omitted for a file that
    already records one. An older schema raises `SchemaMigrationRequiredError`
    unless `migrate=True`; a newer one raises `SchemaTooNewError`; a file
    that cannot be opened raises `StoreUnavailableError`.
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
    except BaseException:
        database.close()
        raise
    return SqliteStores(database=database, graph=graph, vectors=vectors)
