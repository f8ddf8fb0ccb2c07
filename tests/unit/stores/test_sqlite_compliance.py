"""The SQLite adapters pass the same compliance suites as every adapter, each on a new file."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from redstring.chunks.sqlite import SqliteChunkStore
from redstring.events.sqlite import SqliteEventLog
from redstring.graph.sqlite import SqliteGraphStore
from redstring.ports import GraphStore, VectorStore
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.event_log import EventLog
from redstring.storage.sqlite import SqliteDatabase
from redstring.testing.chunk_store import ChunkStoreCompliance
from redstring.testing.event_log import EventLogCompliance
from redstring.testing.graph_store import GraphStoreCompliance
from redstring.testing.vector_store import VectorStoreCompliance
from redstring.vector.sqlite import SqliteVectorStore


class _NewFiles:
    folder: Path

    @pytest.fixture(autouse=True)
    def _folder(self, tmp_path: Path) -> None:
        self.folder = tmp_path

    def new_file(self) -> SqliteDatabase:
        # Hypothesis calls make_store once per example: one file per call.
        return SqliteDatabase(self.folder / f"{uuid.uuid4().hex}.db")


class TestSqliteGraphStore(_NewFiles, GraphStoreCompliance):
    async def make_store(self) -> GraphStore:
        return SqliteGraphStore(self.new_file())


class TestSqliteVectorStore(_NewFiles, VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return SqliteVectorStore(self.new_file(), dimension=dimension)


class TestSqliteVectorStoreWithoutCache(_NewFiles, VectorStoreCompliance):
    async def make_store(self, dimension: int) -> VectorStore:
        return SqliteVectorStore(self.new_file(), dimension=dimension, cache_bytes=0)


class TestSqliteVectorStoreThroughTheIndex(_NewFiles, VectorStoreCompliance):
    """With `search_mode="ivf"` and the switch at 0 every search goes through the index,
    kept up to date in place by the suite's writes (ADR 0265), and still passes."""

    async def make_store(self, dimension: int) -> VectorStore:
        return SqliteVectorStore(
            self.new_file(), dimension=dimension, search_mode="ivf", exact_below=0
        )


class _ChunkFiles(_NewFiles):
    cache_bytes: int | None = None
    #: Each store made, by `id`, to the path of its file.
    files: dict[int, Path]

    async def make_store(self, dimension: int, *, language: str | None = None) -> ChunkStore:
        return self._open(self.new_file(), dimension, language)

    async def reopen_store(self, store: ChunkStore, *, language: str | None) -> ChunkStore:
        """The same file through a new connection."""
        return self._open(SqliteDatabase(self.files[id(store)]), store.dimension, language)

    def _open(self, file: SqliteDatabase, dimension: int, language: str | None) -> ChunkStore:
        if self.cache_bytes is None:
            store = SqliteChunkStore(file, dimension=dimension, language=language)
        else:
            store = SqliteChunkStore(
                file, dimension=dimension, language=language, cache_bytes=self.cache_bytes
            )
        self.files = {**getattr(self, "files", {}), id(store): file.path}
        return store


class TestSqliteChunkStore(_ChunkFiles, ChunkStoreCompliance):
    pass


class TestSqliteChunkStoreWithoutCache(_ChunkFiles, ChunkStoreCompliance):
    cache_bytes = 0


class TestSqliteEventLog(_NewFiles, EventLogCompliance):
    async def make_log(self) -> EventLog:
        return SqliteEventLog(self.new_file())
