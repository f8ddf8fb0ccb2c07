"""SQLite readers never need the write lock, and read files they cannot write (ADR 0130)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from redstring import Entity, StoredChunk, new_tenant_id
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.ids import TenantId
from redstring.errors import (
    DimensionRequiredError,
    ReadOnlyDatabaseError,
    SchemaMigrationRequiredError,
)
from tests.unit.stores.file_access import unwritable, write_locked


async def _written(path: Path) -> TenantId:
    """A database at `path` holding one entity and one chunk of a new tenant."""
    tenant = new_tenant_id()
    async with open_sqlite(path, dimension=4) as stores:
        await stores.graph.upsert([Entity(tenant_id=tenant, entity_type="person", name="Ada")])
        chunk = StoredChunk(
            tenant_id=tenant, source_id="doc", text="Ada wrote", index=0, start=0, end=9
        )
        await stores.chunks.upsert_chunks([chunk])
    return tenant


@pytest.mark.asyncio
@pytest.mark.parametrize("read_only", [False, True])
async def test_a_reader_opens_and_queries_while_another_connection_holds_the_write_lock(
    tmp_path: Path, read_only: bool
) -> None:
    path = tmp_path / "busy.db"
    tenant = await _written(path)
    with write_locked(path):
        # A busy timeout far shorter than the lock is held: opening must not wait for it.
        async with open_sqlite(path, busy_timeout=0.1, read_only=read_only) as stores:
            assert [e.name for e in await stores.graph.list_entities(tenant)] == ["Ada"]
            found = await stores.chunks.lexical_candidates(["ada"], tenant)
            assert found.stats.document_count == 1
            assert await stores.events.last_sequence(tenant) == 0


@pytest.mark.asyncio
async def test_a_read_only_database_refuses_writes_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "ro.db"
    tenant = await _written(path)
    before = path.read_bytes()
    async with open_sqlite(path, read_only=True) as stores:
        with pytest.raises(ReadOnlyDatabaseError, match="read-only") as caught:
            await stores.graph.upsert([Entity(tenant_id=tenant, entity_type="person", name="X")])
        assert caught.value.missing is None
        assert [e.name for e in await stores.graph.list_entities(tenant)] == ["Ada"]
    assert path.read_bytes() == before


def test_read_only_refuses_what_only_a_write_could_create(tmp_path: Path) -> None:
    missing = tmp_path / "absent.db"
    with pytest.raises(ReadOnlyDatabaseError, match="database file"):
        open_sqlite(missing, read_only=True, dimension=4)
    assert not missing.exists()
    empty = tmp_path / "empty.db"  # another application's file is refused first (ADR 0142)
    empty.touch()
    with pytest.raises(DimensionRequiredError):
        open_sqlite(empty, read_only=True)
    with pytest.raises(ReadOnlyDatabaseError, match="'graph'") as caught:
        open_sqlite(empty, read_only=True, dimension=4)
    assert caught.value.missing == "graph"


@pytest.mark.asyncio
async def test_a_read_only_open_of_an_older_schema_asks_for_a_migration(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    await _written(path)
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE redstring_schema SET version = 1 WHERE component = 'graph'")
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path, read_only=True)


@pytest.mark.asyncio
async def test_a_file_in_a_folder_nobody_may_write_is_searched(tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    path = folder / "kept.db"
    tenant = await _written(path)
    with unwritable(folder):
        with pytest.raises(PermissionError):
            path.open("ab").close()  # the file really cannot be written
        with pytest.raises(PermissionError):
            (folder / "probe").touch()  # nor the folder
        async with open_sqlite(path, read_only=True) as stores:
            assert [e.name for e in await stores.graph.list_entities(tenant)] == ["Ada"]
            found = await stores.chunks.lexical_candidates(["ada"], tenant)
            assert [c.chunk_id for c in found.candidates] != []
            assert await stores.vectors.count(tenant) == 0
