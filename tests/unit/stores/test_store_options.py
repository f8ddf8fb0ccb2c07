"""Options and edge paths of the persistent stores that the compliance suites do not reach."""

from __future__ import annotations

import uuid
from pathlib import Path

import psycopg
import pytest

from redstring import Entity, new_tenant_id
from redstring.chunks.postgres import PostgresChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.errors import (
    DimensionMismatchError,
    InvalidArgumentError,
    StoreUnavailableError,
)
from redstring.ports import VectorRecord
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import CacheBudget
from redstring.stores import ApproximateVectorStore, open_postgres, open_sqlite
from redstring.vector.postgres import PgVectorStore
from redstring.vector.sqlite import SqliteVectorStore


def _unit(n: int, dimension: int = 4) -> list[float]:
    return [1.0 if i == n % dimension else 0.1 * n for i in range(dimension)]


def test_an_in_memory_sqlite_database_is_refused_for_lack_of_wal() -> None:
    with pytest.raises(StoreUnavailableError, match="WAL"):
        open_sqlite(":memory:", dimension=4)


def test_a_non_positive_dimension_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dimension"):
        SqliteVectorStore(SqliteDatabase(tmp_path / "d.db"), dimension=0)


@pytest.mark.asyncio
async def test_hnsw_mode_builds_its_index_and_keeps_the_search_contract(postgres_url: str) -> None:
    """Only invariants every approximate answer must keep; recall is the benchmark's job."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema, search_mode="hnsw")
    tenant, other = new_tenant_id(), new_tenant_id()
    records = [
        VectorRecord(
            tenant_id=t,
            entity_id=Entity(tenant_id=t, entity_type=kind, name=f"E{n}").id,
            entity_type=kind,
            vector=_unit(n),
        )
        for t in (tenant, other)
        for n in range(30)
        for kind in ("person", "place")
    ]
    await stores.vectors.upsert(records)
    mine = {r.entity_id for r in records if r.tenant_id == tenant and r.entity_type == "place"}
    hits = await stores.vectors.search(_unit(3), tenant, k=5, entity_types=["place"], min_score=0.1)
    assert len(hits) <= 5
    assert {h.entity_id for h in hits} <= mine
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(0.1 <= h.score <= 1.0 for h in hits)
    with psycopg.connect(postgres_url) as connection:
        indexes = connection.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = %s", (schema,)
        ).fetchall()
    assert ("vector_records_hnsw",) in indexes
    await stores.close()


@pytest.mark.asyncio
async def test_bad_search_options_are_refused(postgres_url: str) -> None:
    stores = await open_postgres(postgres_url, dimension=4, schema=f"t_{uuid.uuid4().hex[:12]}")
    with pytest.raises(ValueError, match="search_mode"):
        PgVectorStore(stores.database, dimension=4, search_mode="fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="iterative_scan"):
        PgVectorStore(stores.database, dimension=4, iterative_scan="off")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="dimension"):
        PgVectorStore(stores.database, dimension=0)
    await stores.close()


@pytest.mark.asyncio
async def test_the_chunk_stores_check_their_dimension_and_cache_bound(
    tmp_path: Path, postgres_url: str
) -> None:
    path = tmp_path / "chunks.db"
    await open_sqlite(path, dimension=4).close()
    with pytest.raises(ValueError, match="dimension"):
        SqliteChunkStore(SqliteDatabase(path), dimension=0)
    with pytest.raises(DimensionMismatchError) as caught:
        SqliteChunkStore(SqliteDatabase(path), dimension=8)
    assert (caught.value.expected, caught.value.actual) == (4, 8)
    with pytest.raises(ValueError, match="cache_bytes"):
        CacheBudget(-1)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    async with await open_postgres(postgres_url, dimension=4, schema=schema) as stores:
        with pytest.raises(ValueError, match="dimension"):
            PostgresChunkStore(stores.database, dimension=0)
        with pytest.raises(DimensionMismatchError) as caught:
            await PostgresChunkStore.open(stores.database, dimension=8)
        assert (caught.value.expected, caught.value.actual) == (4, 8)


@pytest.mark.parametrize("read_only", [False, True])
def test_every_connection_caches_up_to_cache_kib_of_pages(tmp_path: Path, read_only: bool) -> None:
    from redstring.storage.sqlite import CACHE_KIB  # noqa: PLC0415

    SqliteDatabase(tmp_path / "c.db").close()  # the read-only open needs the file
    database = SqliteDatabase(tmp_path / "c.db", read_only=read_only)
    try:
        (size,) = database.connection.execute("PRAGMA cache_size").fetchone()
        assert size == -CACHE_KIB == -65536
    finally:
        database.close()


@pytest.mark.parametrize(
    ("setting", "value"),
    [("search_mode", "hnsw"), ("exact_below", -1), ("probes", 0), ("probes", True)],
)
def test_open_sqlite_refuses_a_bad_search_setting_before_touching_the_file(
    tmp_path: Path, setting: str, value: object
) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        open_sqlite(tmp_path / "a.db", dimension=4, **{setting: value})  # type: ignore[arg-type]
    assert refused.value.name == setting
    assert not (tmp_path / "a.db").exists()


def test_the_approximate_store_reports_its_switch() -> None:
    assert ApproximateVectorStore(dimension=4, exact_below=7).exact_below == 7


@pytest.mark.parametrize("busy_timeout", ["5", None, -1, float("nan"), float("inf"), True, [5]])
def test_a_busy_timeout_that_is_no_finite_number_of_seconds_is_refused_before_the_file(
    tmp_path: Path, busy_timeout: object
) -> None:
    """A negative, NaN or `True` wait would mean no wait at all; a text a bare `TypeError`."""
    with pytest.raises(InvalidArgumentError, match="busy_timeout=") as raised:
        open_sqlite(tmp_path / "d.db", dimension=4, busy_timeout=busy_timeout)  # type: ignore[arg-type]
    assert raised.value.name == "busy_timeout"
    with pytest.raises(InvalidArgumentError, match="busy_timeout=") as raised:
        SqliteDatabase(tmp_path / "d.db", busy_timeout=busy_timeout)  # type: ignore[arg-type]
    assert raised.value.name == "busy_timeout"
    assert not (tmp_path / "d.db").exists()


@pytest.mark.parametrize("busy_timeout", [0, 0.5, 7])
def test_a_busy_timeout_of_zero_or_more_seconds_opens(tmp_path: Path, busy_timeout: float) -> None:
    SqliteDatabase(tmp_path / "d.db", busy_timeout=busy_timeout).close()


@pytest.mark.parametrize(
    ("flag", "value"), [("migrate", "yes"), ("read_only", 1), ("migrate", None)]
)
def test_open_sqlites_flags_that_are_no_bool_are_refused_before_the_file(
    tmp_path: Path, flag: str, value: object
) -> None:
    """`read_only="no"` would open writable as its truth; `1` is no `True` either."""
    with pytest.raises(InvalidArgumentError) as raised:
        open_sqlite(tmp_path / "d.db", dimension=4, **{flag: value})
    assert raised.value.name == flag
    assert not (tmp_path / "d.db").exists()
