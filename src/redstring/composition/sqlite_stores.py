"""`open_sqlite`: the stores of every family sharing one SQLite file.

Composes the `redstring.graph`, `redstring.vector`, `redstring.chunks` and
`redstring.events` adapters over one `redstring.storage.sqlite.SqliteDatabase`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from redstring.chunks.sqlite import SqliteChunkStore
from redstring.composition.rebuild import catch_up_every_tenant
from redstring.domain.errors import (
    DimensionRequiredError,
    ForeignDatabaseError,
    ReadOnlyDatabaseError,
)
from redstring.domain.validation import require_bool, require_dimension
from redstring.events.sqlite import SqliteEventLog
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.loop_thread import run_to_end
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import DEFAULT_CACHE_BYTES, CacheBudget
from redstring.vector.ivf_settings import EXACT_BELOW, PROBES
from redstring.vector.sqlite import SqliteSearchMode, SqliteVectorStore, row_search


@dataclass(repr=False)
class SqliteStores:
    """The stores of one SQLite file: `await close()` it, or use it as `async with`."""

    database: SqliteDatabase
    graph: SqliteGraphStore
    vectors: SqliteVectorStore
    chunks: SqliteChunkStore
    events: SqliteEventLog

    def __repr__(self) -> str:
        return f"<SqliteStores {str(self.database.path)!r} dimension={self.vectors.dimension}>"

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
    cache_bytes: int = DEFAULT_CACHE_BYTES,
    read_only: bool = False,
    search_mode: SqliteSearchMode = "exact",
    exact_below: int = EXACT_BELOW,
    probes: int = PROBES,
    language: str | None = None,
) -> SqliteStores:
    """Open (creating if absent) the database file at `path` and the stores over it.

    `dimension` is the length of entity vectors and chunk embeddings; it may
    be omitted for a file that already records one, and a file that records
    none opened without one raises `DimensionRequiredError` (a path that did
    not exist is not created). Opening an up-to-date file reads only, so it
    never waits for a writer's lock; `read_only=True` opens it `mode=ro`
    (for a file or folder this process cannot write) and its writes raise
    `ReadOnlyDatabaseError`, as does a read-only file lacking a table or
    setting. Reads wait up to `busy_timeout` seconds for a lock. The vector
    and chunk stores keep recently searched tenants' matrices in memory, and
    the graph store the blocks and names it has read, within
    `cache_bytes` together (default 256 MiB; 0 caches nothing).
    `search_mode="ivf"` (the `ann` extra) searches a tenant of at least
    `exact_below` entity vectors through a faiss IVF index scanning `probes`
    lists, held beside its cached rows, so `cache_bytes` must hold about
    twice the tenant's rows (`SqliteVectorStore`). An older
    schema raises `SchemaMigrationRequiredError` unless `migrate=True`; a
    newer one raises `SchemaTooNewError`; a file that cannot be opened at all
    raises `DatabaseOpenError`, another application's SQLite file
    `ForeignDatabaseError` (nothing is written into it), and a recorded
    dimension that is not a positive integer `CorruptSettingError`. A
    writable open first catches every store up with the event log for each
    tenant it lags behind (a crash between append and fold);
    a read-only one cannot, and reads the stores as they are. `language` is
    what passages are analysed in for BM25: a Snowball language (stemming;
    English also drops stopwords) or "none" (words as written). `None` keeps
    the one the file records, English for a new file; another than a file
    holding passages records raises `AnalysisMismatchError`.
    """
    dimension = require_dimension(dimension)
    migrate, read_only = require_bool("migrate", migrate), require_bool("read_only", read_only)
    name = f"SqliteDatabase({Path(path)})"
    if not os.path.exists(path):
        if read_only:
            raise ReadOnlyDatabaseError(store=name, path=str(path), missing="database file")
        if dimension is None:
            raise DimensionRequiredError(store=name, path=str(path))
    budget = CacheBudget(cache_bytes)  # checked before the file is touched
    row_search(search_mode, exact_below, probes)  # refused, or the extra missing, first too
    database = SqliteDatabase(path, busy_timeout=busy_timeout, read_only=read_only)
    try:
        foreign = database.foreign_tables(store=database.name)
        if foreign:
            raise ForeignDatabaseError(store=database.name, path=str(path), tables=foreign)
        if dimension is None:
            dimension = database.stored_dimension("vector", store=database.name)
            if dimension is None:
                raise DimensionRequiredError(store=database.name, path=str(path))
        graph = SqliteGraphStore(database, migrate=migrate, cache_bytes=budget)
        vectors = SqliteVectorStore(
            database,
            dimension=dimension,
            migrate=migrate,
            cache_bytes=budget,
            search_mode=search_mode,
            exact_below=exact_below,
            probes=probes,
        )
        chunks = SqliteChunkStore(
            database, dimension=dimension, migrate=migrate, cache_bytes=budget, language=language
        )
        events = SqliteEventLog(database, migrate=migrate)
        if not read_only:
            catch_up = catch_up_every_tenant(events, graph=graph, vectors=vectors, chunks=chunks)
            run_to_end(catch_up, method="open_sqlite")  # also from async code
    except BaseException:
        database.close()
        raise
    return SqliteStores(
        database=database, graph=graph, vectors=vectors, chunks=chunks, events=events
    )
