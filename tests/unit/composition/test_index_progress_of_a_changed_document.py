"""index_documents without an embedding provider: a changed large document's progress moves.

A changed document (a stored passage not among its new ones) was written in
one `replace_source`, so progress stood at its start for the whole write
and then jumped to its end. In a store offering one transaction over several
writes (SQLite, PostgreSQL), its old passages are now deleted and its new
ones written a step at a time inside one transaction with that
`replace_source`: progress moves after each step, another connection reads
the old document whole until the commit, and a run stopped midway leaves the
old document whole, in this tenant and in another holding the same passage ids.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable, Sequence
from contextlib import closing
from pathlib import Path

import psycopg
import pytest

from redstring import SourceDocument, StoredChunk, index_documents, new_tenant_id
from redstring.building import SlidingWindowChunker
from redstring.chunks.postgres import PostgresChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.composition.index_documents import WRITE_STEP
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import ChunkId, chunk_id_for
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkStore

DIMENSION = 16
TINY = SlidingWindowChunker(size=40, overlap=10)


class Stopped(Exception):
    """The run was stopped (what Ctrl-C is to the command)."""


def stopping[StoreT: (SqliteChunkStore, PostgresChunkStore)](store: type[StoreT]) -> type[StoreT]:
    """`store`, recording each `upsert_chunks` size and raising `Stopped` at call `stop_at`."""

    class Stopping(store):
        upserts: list[int]
        deletes: list[int]
        stop_at: int | None = None

        async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
            self.upserts = [*getattr(self, "upserts", []), len(chunks)]
            if len(self.upserts) == self.stop_at:
                raise Stopped
            await super().upsert_chunks(chunks)

        async def delete_chunks(self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId) -> None:
            self.deletes = [*getattr(self, "deletes", []), len(chunk_ids)]
            await super().delete_chunks(chunk_ids, tenant_id)

    return Stopping


def _book(word: str) -> SourceDocument:
    """One document of about 2.8 write steps of distinct passages under `TINY`."""
    return SourceDocument(id="book.md", text=" ".join(f"{word}{n}" for n in range(WRITE_STEP * 9)))


def _texts(document: SourceDocument) -> list[str]:
    return [span.text for span in TINY.split(document.text)]


async def _stored(store: ChunkStore, tenant: TenantId) -> list[str]:
    return [chunk.text for chunk in await store.chunks_of_source("book.md", tenant)]


def _ids(document: SourceDocument) -> set[str]:
    return {str(chunk_id_for(document.id, text)) for text in _texts(document)}


async def _the_change_moves_progress_and_commits_once(
    store: ChunkStore, tenant: TenantId, other: TenantId, seen_elsewhere: Callable[[], set[str]]
) -> None:
    """Index the old book in `other` and `tenant`; stop the change midway, then make it.

    `seen_elsewhere()` reads the ids of `tenant`'s passages on another connection.
    """
    old, new = _book("word"), _book("term")
    for t in (other, tenant):  # the same source and texts, so the same ids, in two tenants
        await index_documents([old], chunks=store, tenant_id=t, chunker=TINY)
    store.upserts = []  # type: ignore[attr-defined]
    store.stop_at = 2  # type: ignore[attr-defined]
    with pytest.raises(Stopped):
        await index_documents([new], chunks=store, tenant_id=tenant, chunker=TINY)
    assert await _stored(store, tenant) == _texts(old)  # the old document, whole
    store.stop_at = None  # type: ignore[attr-defined]
    store.upserts = store.deletes = []  # type: ignore[attr-defined]
    seen: list[tuple[int, int]] = []
    elsewhere: list[set[str]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if 0 < done < total:
            elsewhere.append(seen_elsewhere())

    report = await index_documents(
        [new], chunks=store, tenant_id=tenant, chunker=TINY, progress=progress
    )
    total = report.chunks_written
    assert total > 2 * WRITE_STEP
    gone = len(_ids(old))  # every old passage is gone: they are deleted in steps first
    assert store.deletes == [WRITE_STEP, WRITE_STEP, gone - 2 * WRITE_STEP]  # type: ignore[attr-defined]
    assert store.upserts == [WRITE_STEP, WRITE_STEP]  # type: ignore[attr-defined]
    assert seen[0] == (0, total)
    assert seen[-1] == (total, total)
    between = [done for done, _ in seen if 0 < done < total]
    assert len(between) == 5  # a report after each step
    assert between == sorted(set(between))
    assert elsewhere == [_ids(old)] * 5  # until the commit, the old document only
    assert seen_elsewhere() == _ids(new)
    assert await _stored(store, tenant) == _texts(new)
    assert await _stored(store, other) == _texts(old)


@pytest.mark.asyncio
async def test_a_changed_sqlite_document_moves_progress_and_stays_one_commit(
    tmp_path: Path,
) -> None:
    path = tmp_path / "i.db"
    tenant, other = new_tenant_id(), new_tenant_id()

    def seen_elsewhere() -> set[str]:
        with closing(sqlite3.connect(path)) as connection:
            rows = connection.execute(
                "SELECT chunk_id FROM chunk_texts WHERE tenant_id = ?", (str(tenant),)
            ).fetchall()
        return {str(row[0]) for row in rows}

    async with open_sqlite(path, dimension=DIMENSION) as stores:
        store = stopping(SqliteChunkStore)(stores.database, dimension=DIMENSION)
        await _the_change_moves_progress_and_commits_once(store, tenant, other, seen_elsewhere)


@pytest.mark.asyncio
async def test_a_changed_postgres_document_moves_progress_and_stays_one_commit(
    postgres_url: str,
) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    tenant, other = new_tenant_id(), new_tenant_id()

    def seen_elsewhere() -> set[str]:
        with psycopg.connect(postgres_url) as connection:
            rows = connection.execute(
                f"SELECT chunk_id FROM {schema}.chunk_rows WHERE tenant_id = %s", (tenant,)
            ).fetchall()
        return {str(row[0]) for row in rows}

    stores = await open_postgres(postgres_url, dimension=DIMENSION, schema=schema, max_size=2)
    try:
        store = stopping(PostgresChunkStore)(stores.database, dimension=DIMENSION)
        await _the_change_moves_progress_and_commits_once(store, tenant, other, seen_elsewhere)
    finally:
        await stores.close()
