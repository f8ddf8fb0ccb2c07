"""SQLite files persist across processes, survive a writer killed mid-batch, and fail loudly."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from redstring import Entity, Relationship, StoredChunk, new_tenant_id
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.blocking import prefix_key_for_name
from redstring.errors import (
    DatabaseBusyError,
    DimensionMismatchError,
    DimensionRequiredError,
    StoreUnavailableError,
)
from redstring.ports import DocumentChunked, VectorRecord
from tests.hang_guard import HANG_GUARD_SECONDS

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def _child(script: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HERE / script), *args],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.asyncio
async def test_a_file_written_by_another_process_reads_back(tmp_path: Path) -> None:
    path, tenant = tmp_path / "kept.db", new_tenant_id()
    child = _child("persist_writer.py", str(path), str(tenant))
    assert child.wait(timeout=HANG_GUARD_SECONDS) == 0
    stores = open_sqlite(path)  # the dimension comes from the file
    assert stores.vectors.dimension == 4
    names = [e.name for e in await stores.graph.list_entities(tenant)]
    assert names == sorted(
        names, key=lambda n: str(Entity(tenant_id=tenant, entity_type="person", name=n).id)
    )
    assert set(names) == {"Ada Lovelace", "Charles Babbage"}
    [ada] = [e for e in await stores.graph.list_entities(tenant) if e.name == "Ada Lovelace"]
    assert ada.aliases == ["Ada"]
    assert len(await stores.graph.relationships_of(ada.id, tenant)) == 1
    [best, _] = await stores.vectors.search([1, 0, 0, 0], tenant, k=2)
    assert best.entity_id == ada.id
    assert best.score == pytest.approx(1.0)
    await stores.close()


@pytest.mark.asyncio
async def test_a_writer_killed_mid_batch_leaves_the_previous_state(tmp_path: Path) -> None:
    path, tenant = tmp_path / "crash.db", new_tenant_id()
    stores = open_sqlite(path, dimension=4)
    ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace")
    charles = Entity(tenant_id=tenant, entity_type="person", name="Charles Babbage")
    knows = Relationship(
        tenant_id=tenant, source_id=ada.id, target_id=charles.id, relationship_type="knows"
    )
    await stores.graph.upsert([ada, charles], [knows])
    await stores.close()

    child = _child("crash_writer.py", str(path), str(tenant), "4000")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "paused"
    uncommitted_bytes = await asyncio.to_thread(os.path.getsize, f"{path}-wal")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    # The batch had spilled pages into the WAL: the kill really interrupted a write.
    assert uncommitted_bytes > 1_000_000

    reopened = open_sqlite(path)
    assert await reopened.graph.list_entities(tenant) == sorted(
        [ada, charles], key=lambda e: str(e.id)
    )
    assert await reopened.graph.relationships_of(ada.id, tenant) == [knows]
    key = prefix_key_for_name("Person 1")
    assert (await reopened.graph.find_by_blocking_keys([key], tenant))[key] == []
    connection = reopened.database.connection
    assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    await reopened.close()


@pytest.mark.asyncio
async def test_a_chunk_writer_killed_mid_batch_leaves_the_previous_chunks(tmp_path: Path) -> None:
    path, tenant = tmp_path / "chunks.db", new_tenant_id()
    before = StoredChunk(
        tenant_id=tenant,
        source_id="doc",
        text="Ada Lovelace wrote notes",
        index=0,
        start=0,
        end=24,
        embedding=[0.0, 1.0, 0.0, 0.0],
    )
    async with open_sqlite(path, dimension=4) as stores:
        await stores.chunks.upsert_chunks([before])

    # 2,000 chunks of 42 words spill about 4 MB into the WAL before the pause at the 2,000th
    # of their 84,000 posting blocks: past the 1 MB checked below, at a tenth of the time
    # 20,000 chunks took (64 MB spilled).
    child = _child("crash_writer.py", str(path), str(tenant), "2000", "chunks")
    assert child.stdout is not None
    assert child.stdout.readline().strip() == "paused"
    uncommitted_bytes = await asyncio.to_thread(os.path.getsize, f"{path}-wal")
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    # Every chunk row and part of the postings had gone in: the kill interrupted a write.
    assert uncommitted_bytes > 1_000_000

    async with open_sqlite(path) as reopened:
        assert await reopened.chunks.list_chunks(tenant) == [before]
        found = await reopened.chunks.lexical_candidates(["passage", "ada"], tenant)
        assert found.stats.document_count == 1
        assert found.stats.average_length == 4.0
        assert found.stats.document_frequencies == {"passage": 0, "ada": 1}
        assert [c.chunk_id for c in found.candidates] == [before.id]
        [hit] = await reopened.chunks.search_chunks([0, 1, 0, 0], tenant, k=5)
        assert hit.chunk == before
        connection = reopened.database.connection
        assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


@pytest.mark.asyncio
async def test_a_locked_file_raises_busy_and_writes_nothing(tmp_path: Path) -> None:
    path, tenant = tmp_path / "locked.db", new_tenant_id()
    stores = open_sqlite(path, dimension=4, busy_timeout=0.2)
    ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace")
    await stores.graph.upsert([ada])
    chunk = StoredChunk(tenant_id=tenant, source_id="doc", text="Ada", index=0, start=0, end=3)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(DatabaseBusyError) as chunks:
            await stores.chunks.upsert_chunks([chunk])
        with pytest.raises(DatabaseBusyError) as events:
            await stores.events.append(
                [DocumentChunked(tenant_id=tenant, document_id="doc", chunks=[chunk])]
            )
        with pytest.raises(DatabaseBusyError) as caught:
            await stores.graph.upsert(
                [
                    ada.model_copy(update={"description": "x"}),
                    Entity(tenant_id=tenant, entity_type="person", name="Grace Hopper"),
                ]
            )
        with pytest.raises(DatabaseBusyError):
            await stores.vectors.upsert(
                [
                    VectorRecord(
                        tenant_id=tenant,
                        entity_id=ada.id,
                        entity_type="person",
                        vector=[1, 0, 0, 0],
                    )
                ]
            )
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert "SqliteGraphStore" in str(caught.value)
    assert "locked" in caught.value.cause
    assert isinstance(caught.value, StoreUnavailableError)  # a kind of it: callers catching it hold
    said = str(caught.value)
    assert "another connection or process is writing to this database" in said
    assert "retry when that write finishes" in said
    assert "busy_timeout" in said
    assert "reachable" not in said
    assert caught.value.store.startswith("SqliteGraphStore")
    assert await stores.graph.list_entities(tenant) == [ada]
    assert await stores.vectors.count(tenant) == 0
    assert chunks.value.store.startswith("SqliteChunkStore")
    assert events.value.store.startswith("SqliteEventLog")
    assert await stores.chunks.list_chunks(tenant) == []
    assert await stores.events.last_sequence(tenant) == 0
    await stores.close()


def test_a_file_that_cannot_be_opened_raises_unavailable(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailableError, match="unable to open"):
        open_sqlite(tmp_path / "no-such-folder" / "x.db", dimension=4)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreUnavailableError, match="not a database"):
        open_sqlite(garbage, dimension=4)


@pytest.mark.asyncio
async def test_a_closed_database_raises_unavailable(tmp_path: Path) -> None:
    stores = open_sqlite(tmp_path / "closed.db", dimension=4)
    await stores.close()
    tenant = new_tenant_id()
    with pytest.raises(StoreUnavailableError, match="closed"):
        await stores.graph.list_entities(tenant)
    with pytest.raises(StoreUnavailableError, match="closed") as chunks:
        await stores.chunks.lexical_candidates(["ada"], tenant)
    with pytest.raises(StoreUnavailableError, match="closed") as events:
        await stores.events.read(tenant)
    assert chunks.value.store.startswith("SqliteChunkStore")
    assert events.value.store.startswith("SqliteEventLog")


@pytest.mark.asyncio
async def test_the_dimension_is_recorded_and_checked(tmp_path: Path) -> None:
    path = tmp_path / "dims.db"
    with pytest.raises(DimensionRequiredError, match="dimension=N"):
        open_sqlite(path)
    assert not path.exists()  # refused before anything was created
    await open_sqlite(path, dimension=4).close()
    with pytest.raises(DimensionMismatchError) as caught:
        open_sqlite(path, dimension=8)
    assert (caught.value.expected, caught.value.actual) == (4, 8)
    async with open_sqlite(path) as stores:
        assert stores.vectors.dimension == 4
        assert stores.chunks.dimension == 4


@pytest.mark.asyncio
async def test_a_write_through_another_connection_invalidates_the_cached_matrix(
    tmp_path: Path,
) -> None:
    path, tenant = tmp_path / "shared.db", new_tenant_id()
    reader, writer = open_sqlite(path, dimension=4), open_sqlite(path)
    ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace")
    grace = Entity(tenant_id=tenant, entity_type="person", name="Grace Hopper")

    def vector(entity: Entity, values: list[float]) -> VectorRecord:
        return VectorRecord(
            tenant_id=tenant, entity_id=entity.id, entity_type="person", vector=values
        )

    await writer.vectors.upsert([vector(ada, [1, 0, 0, 0])])
    assert [m.entity_id for m in await reader.vectors.search([0, 1, 0, 0], tenant, k=1)] == [ada.id]
    await writer.vectors.upsert([vector(grace, [0, 1, 0, 0])])
    assert [m.entity_id for m in await reader.vectors.search([0, 1, 0, 0], tenant, k=1)] == [
        grace.id
    ]
    await writer.vectors.delete([grace.id], tenant)
    assert [m.entity_id for m in await reader.vectors.search([0, 1, 0, 0], tenant, k=1)] == [ada.id]
    await writer.vectors.purge_tenant(tenant)
    assert await reader.vectors.search([0, 1, 0, 0], tenant, k=1) == []
    await reader.close()
    await writer.close()
