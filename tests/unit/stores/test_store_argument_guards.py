"""Bad constructor arguments of the persistent chunk stores and the tenant cache fail clearly."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.chunks.sqlite import SqliteChunkStore
from redstring.errors import DimensionMismatchError
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import CacheBudget


def test_a_sqlite_chunk_store_refuses_a_dimension_below_one(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "chunks.db")
    with pytest.raises(ValueError, match="dimension must be positive"):
        SqliteChunkStore(database, dimension=0)
    database.close()


def test_a_sqlite_chunk_store_refuses_a_file_holding_another_dimension(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "chunks.db")
    SqliteChunkStore(database, dimension=4)
    with pytest.raises(DimensionMismatchError):
        SqliteChunkStore(database, dimension=8)
    database.close()


def test_a_tenant_cache_refuses_a_negative_capacity() -> None:
    with pytest.raises(ValueError, match="cache_bytes"):
        CacheBudget(-1)
