"""A read-only SQLite file refuses a batch and a setting it lacks, naming what was missing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from redstring.composition.sqlite_stores import open_sqlite
from redstring.errors import ReadOnlyDatabaseError


@pytest.mark.asyncio
async def test_a_read_only_database_refuses_a_batch_before_taking_the_write_lock(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ro.db"
    async with open_sqlite(path, dimension=4):
        pass
    before = path.read_bytes()
    async with open_sqlite(path, read_only=True) as stores:
        with pytest.raises(ReadOnlyDatabaseError, match="read-only") as caught:
            async with stores.database.batch(store="graph"):
                raise AssertionError("a read-only batch began")
        assert caught.value.missing is None
    assert path.read_bytes() == before


@pytest.mark.asyncio
async def test_a_read_only_open_names_the_dimension_setting_the_file_lacks(
    tmp_path: Path,
) -> None:
    path = tmp_path / "ro.db"
    async with open_sqlite(path, dimension=4):
        pass
    with sqlite3.connect(path) as connection:
        components = [
            row[0]
            for row in connection.execute(
                "SELECT component FROM redstring_settings WHERE name = 'dimension' ORDER BY 1"
            )
        ]
        connection.execute("DELETE FROM redstring_settings WHERE name = 'dimension'")
    connection.close()
    assert components
    with pytest.raises(ReadOnlyDatabaseError, match="read-only") as caught:
        open_sqlite(path, read_only=True, dimension=4)
    assert caught.value.missing in {f"{component} dimension" for component in components}
    with sqlite3.connect(path) as connection:  # nothing was written back
        assert connection.execute(
            "SELECT count(*) FROM redstring_settings WHERE name = 'dimension'"
        ).fetchone() == (0,)
    connection.close()
