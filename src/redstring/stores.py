"""The store adapters, the one-call openers, and the jobs that maintain stores.

- in memory (complete, for tests and small jobs): `InMemoryGraphStore`,
  `InMemoryVectorStore`, `InMemoryChunkStore`, `InMemoryEventLog`;
- one SQLite file (the embedded default): `open_sqlite` -> `SqliteStores`, or
  each adapter over a `SqliteDatabase` (its vector and chunk stores sharing
  one `CacheBudget` of bytes for cached matrices);
- PostgreSQL with pgvector (the `postgres` extra, loaded on first use):
  `open_postgres` -> `PostgresStores`, or each adapter over a `PostgresDatabase`;
- an approximate (faiss IVF) in-memory vector store for large tenants (the `ann`
  extra, loaded on first use): `ApproximateVectorStore`;
- what a client opens (`AsyncRedstring(opener=...)`): a `StoreSet`, by a `StoreOpener`;
- a `Schema` is what an adapter of your own asks a database to ensure;
- upkeep through the event log: `rebuild_stores`, `catch_up_stores`,
  `undo_merge`, `rekey_graph` (the client's `rebuild()` reports a `RebuildReport`);
- a scan for damaged rows: the SQLite stores' and the PostgreSQL graph and
  chunk stores' `damaged_rows()`, each a
  `DamagedRow`, gathered by the client's `check()` into a `CheckReport`, with
  each tenant's `StaleNameIndex` when its name index needs `rekey_graph`.

Every adapter passes its port's suite in `redstring.testing`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from redstring.chunks.in_memory import InMemoryChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.client.check import CheckReport, StaleNameIndex
from redstring.client.store_set import StoreOpener, StoreSet
from redstring.client.upkeep import RebuildReport
from redstring.composition.rebuild import catch_up_stores, rebuild_stores
from redstring.composition.rekey import RekeyReport, rekey_graph
from redstring.composition.sqlite_stores import SqliteStores, open_sqlite
from redstring.composition.undo import undo_merge
from redstring.domain.damage import DamagedRow
from redstring.domain.errors import MissingExtraError
from redstring.events.in_memory import InMemoryEventLog
from redstring.events.sqlite import SqliteEventLog
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import CacheBudget
from redstring.vector.in_memory import InMemoryVectorStore
from redstring.vector.sqlite import SqliteVectorStore

if TYPE_CHECKING:
    from redstring.chunks.postgres import PostgresChunkStore
    from redstring.composition.postgres_stores import PostgresStores, open_postgres
    from redstring.events.postgres import PostgresEventLog
    from redstring.graph.postgres import PostgresGraphStore
    from redstring.storage.postgres import PostgresDatabase
    from redstring.vector.approximate import ApproximateVectorStore
    from redstring.vector.postgres import PgVectorStore

# Adapters that need an extra load on first use: name -> (module, extra).
_NEEDS_EXTRA = {
    "ApproximateVectorStore": ("redstring.vector.approximate", "ann"),
    "PgVectorStore": ("redstring.vector.postgres", "postgres"),
    "PostgresDatabase": ("redstring.storage.postgres", "postgres"),
    "PostgresChunkStore": ("redstring.chunks.postgres", "postgres"),
    "PostgresEventLog": ("redstring.events.postgres", "postgres"),
    "PostgresGraphStore": ("redstring.graph.postgres", "postgres"),
    "PostgresStores": ("redstring.composition.postgres_stores", "postgres"),
    "open_postgres": ("redstring.composition.postgres_stores", "postgres"),
}


def __getattr__(name: str) -> Any:
    if name not in _NEEDS_EXTRA:
        raise AttributeError(f"module 'redstring.stores' has no attribute {name!r}")
    module, extra = _NEEDS_EXTRA[name]
    try:
        return getattr(import_module(module), name)
    except ModuleNotFoundError as error:
        raise MissingExtraError(extra=extra, missing=str(error.name)) from error


__all__ = [
    "ApproximateVectorStore",
    "CacheBudget",
    "CheckReport",
    "DamagedRow",
    "InMemoryChunkStore",
    "InMemoryEventLog",
    "InMemoryGraphStore",
    "InMemoryVectorStore",
    "PgVectorStore",
    "PostgresChunkStore",
    "PostgresDatabase",
    "PostgresEventLog",
    "PostgresGraphStore",
    "PostgresStores",
    "RebuildReport",
    "RekeyReport",
    "Schema",
    "SqliteChunkStore",
    "SqliteDatabase",
    "SqliteEventLog",
    "SqliteGraphStore",
    "SqliteStores",
    "SqliteVectorStore",
    "StaleNameIndex",
    "StoreOpener",
    "StoreSet",
    "catch_up_stores",
    "open_postgres",
    "open_sqlite",
    "rebuild_stores",
    "rekey_graph",
    "undo_merge",
]
