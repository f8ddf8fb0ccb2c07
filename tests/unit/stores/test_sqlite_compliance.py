"""The SQLite adapters pass the same compliance suites as every adapter, each on a new file."""

from __future__ import annotations

import tempfile
from pathlib import Path

from redstring import GraphStore, VectorStore
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance
from redstring.vector.sqlite import SqliteVectorStore


def _new_file() -> SqliteDatabase:
    # Hypothesis calls make_store once per example, so a pytest tmp_path is not enough.
    return SqliteDatabase(Path(tempfile.mkdtemp(prefix="redstring-sqlite-")) / "store.db")


class TestSqliteGraphStore(GraphStoreCompliance):
    async def make_store(self) -> GraphStore:
        return SqliteGraphStore(_new_file())


class TestSqliteVectorStore(VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return SqliteVectorStore(_new_file(), dimension=dimension)


class TestSqliteVectorStoreWithoutCache(VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return SqliteVectorStore(_new_file(), dimension=dimension, cache_tenants=0)
