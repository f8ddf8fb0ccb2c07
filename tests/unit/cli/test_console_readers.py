"""Read-only commands on SQLite: they run while another process writes, and on unwritable files."""

from __future__ import annotations

import asyncio
from pathlib import Path

from redstring import Entity
from redstring.client.tenants import DEFAULT_TENANT
from redstring.composition.sqlite_stores import open_sqlite
from tests.unit.cli.console import redstring
from tests.unit.stores.file_access import unwritable, write_locked


def _database(path: Path) -> str:
    async def write() -> None:
        async with open_sqlite(path, dimension=4) as stores:
            ada = Entity(tenant_id=DEFAULT_TENANT, entity_type="person", name="Ada Lovelace")
            await stores.graph.upsert([ada])

    asyncio.run(write())
    return str(path)


def _reads(db: str) -> None:
    stats = redstring("stats", "--db", db, "--embeddings", "none")
    found = redstring("search", "Ada Lovelace", "--db", db, "--embeddings", "none")
    assert (stats.status, stats.err) == (0, "")
    assert "entities       1" in stats.out
    assert (found.status, found.err) == (0, "")
    assert found.out.splitlines()[0] == "1 entity for 'Ada Lovelace' (lexical)"


def test_stats_and_search_run_while_another_process_holds_the_write_lock(tmp_path: Path) -> None:
    db = _database(tmp_path / "busy.db")
    with write_locked(Path(db)):
        _reads(db)


def test_stats_and_search_read_a_file_in_a_folder_nobody_may_write(tmp_path: Path) -> None:
    folder = tmp_path / "shelf"
    folder.mkdir()
    db = _database(folder / "kept.db")
    with unwritable(folder):
        _reads(db)
