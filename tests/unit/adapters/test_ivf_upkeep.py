"""The IVF index kept up to date in place by writes, in memory and in SQLite (ADR 0265).

Where every list is scanned (`probes` above the lists) the index is complete,
so after in-place writes each answer must equal exact search's; where one
list is scanned, every match must still be a current row at its exact score.
The exact `InMemoryVectorStore`, given the same writes, is the reference.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.ports import VectorStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import ApproximateVectorStore, InMemoryVectorStore
from redstring.testing._support import fixed_id, fresh_tenant
from redstring.vector.ivf import RETRAIN_SHARE, IvfIndex
from redstring.vector.rows import TenantRows
from redstring.vector.sqlite import SqliteVectorStore

DIM = 16
ROWS = 3000
#: More probes than any index here has lists: the scan is complete.
EVERY_LIST = 10_000

Maker = Callable[..., VectorStore]


def in_memory(tmp_path: Path, **settings: int) -> VectorStore:
    return ApproximateVectorStore(dimension=DIM, exact_below=100, **settings)


def in_sqlite(tmp_path: Path, **settings: int) -> VectorStore:
    database = SqliteDatabase(tmp_path / f"{uuid.uuid4().hex}.db")
    return SqliteVectorStore(
        database, dimension=DIM, search_mode="ivf", **{"exact_below": 100, **settings}
    )


STORES = pytest.mark.parametrize("make", [in_memory, in_sqlite], ids=["memory", "sqlite"])


def rows_of(store: VectorStore, tenant: TenantId) -> TenantRows:
    """The tenant's rows as the store holds them (SQLite: its cache entry)."""
    if isinstance(store, SqliteVectorStore):
        return store._cache._entries[str(tenant)].value
    assert isinstance(store, ApproximateVectorStore)
    return store._tenants[tenant].rows


def index_of(store: VectorStore, tenant: TenantId) -> IvfIndex:
    index = rows_of(store, tenant).index
    assert isinstance(index, IvfIndex)
    return index


def clustered(rng: np.random.Generator, rows: int) -> np.ndarray:
    centres = rng.standard_normal((30, DIM))
    matrix = centres[rng.integers(30, size=rows)] + 0.7 * rng.standard_normal((rows, DIM))
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def kind(number: int) -> str:
    return "place" if number % 5 == 0 else "person"


def record(tenant: TenantId, number: int, row: np.ndarray, entity_type: str) -> VectorRecord:
    return VectorRecord(
        tenant_id=tenant, entity_id=fixed_id(number), entity_type=entity_type, vector=row.tolist()
    )


def keys(matches: list[VectorMatch]) -> list[tuple[str, str, float]]:
    return [(str(m.entity_id), m.entity_type, round(m.score, 6)) for m in matches]


async def filled(make: Maker, tmp_path: Path, tenant: TenantId, **settings: int):
    """The store under test and the exact reference, 3,000 rows each, the index built."""
    rng = np.random.default_rng(5)
    matrix = clustered(rng, ROWS)
    store, exact = make(tmp_path, **settings), InMemoryVectorStore(dimension=DIM)
    batch = [record(tenant, n, matrix[n], kind(n)) for n in range(ROWS)]
    for each in (store, exact):
        await each.upsert(batch)
    await store.search(matrix[0].tolist(), tenant, k=10)  # builds the index
    return store, exact, matrix, rng


async def rewrite(
    stores: tuple[VectorStore, ...],
    tenant: TenantId,
    matrix: np.ndarray,
    rng: np.random.Generator,
) -> tuple[set[EntityId], dict[int, str]]:
    """750 rows changed (a quarter, not more): overwritten, moved type, deleted, added."""
    fresh = clustered(rng, 500)
    overwritten = [record(tenant, n, fresh[n], kind(n)) for n in range(200)]
    moved_to = {n: "person" if kind(n) == "place" else "place" for n in range(200, 300)}
    moved = [record(tenant, n, matrix[n], moved_to[n]) for n in range(200, 300)]
    added = [record(tenant, ROWS + n, fresh[200 + n], kind(n)) for n in range(300)]
    deleted = [fixed_id(n) for n in range(300, 450)]
    for store in stores:
        await store.upsert(overwritten)
        await store.upsert(moved)
        await store.delete(deleted, tenant)
        await store.upsert(added)
    return set(deleted), moved_to


async def two_tenants_with_the_same_ids(
    store: VectorStore,
    exact: VectorStore,
    tenants: tuple[TenantId, TenantId],
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """1,000 rows in each tenant under the same ids (types "a" and "b"), each index built."""
    first, second = tenants
    matrix_a, matrix_b = clustered(rng, 1000), clustered(rng, 1000)
    for each in (store, exact):
        await each.upsert([record(first, n, matrix_a[n], "a") for n in range(1000)])
        await each.upsert([record(second, n, matrix_b[n], "b") for n in range(1000)])
    for tenant in tenants:
        await store.search(matrix_a[0].tolist(), tenant, k=10)
    return matrix_a, matrix_b


def asked(rng: np.random.Generator, matrix: np.ndarray, count: int = 20) -> list[list[float]]:
    picked = np.vstack([matrix[:5], matrix[rng.integers(len(matrix), size=count - 5)]])
    return (picked + 0.2 * rng.standard_normal(picked.shape)).tolist()  # type: ignore[no-any-return]


@STORES
@pytest.mark.asyncio
async def test_after_in_place_writes_a_complete_index_answers_as_exact_search(
    make: Maker, tmp_path: Path
) -> None:
    tenant = fresh_tenant()
    store, exact, matrix, rng = await filled(make, tmp_path, tenant, probes=EVERY_LIST)
    index = index_of(store, tenant)
    deleted, _ = await rewrite((store, exact), tenant, matrix, rng)
    assert index_of(store, tenant) is index  # updated in place, not trained again
    assert (index.trained, index.changed) == (ROWS, int(RETRAIN_SHARE * ROWS))
    for query in asked(rng, matrix):  # the first five are old rows of overwritten entities
        for filters in ({}, {"entity_types": ["place"]}, {"min_score": 0.8}):
            found = await store.search(query, tenant, k=10, **filters)  # type: ignore[arg-type]
            assert keys(found) == keys(await exact.search(query, tenant, k=10, **filters))  # type: ignore[arg-type]
            assert not {m.entity_id for m in found} & deleted
    assert index_of(store, tenant) is index


@STORES
@pytest.mark.asyncio
async def test_after_in_place_writes_every_match_is_a_current_row_at_its_exact_score(
    make: Maker, tmp_path: Path
) -> None:
    tenant = fresh_tenant()
    store, exact, matrix, rng = await filled(make, tmp_path, tenant, probes=1)
    deleted, moved_to = await rewrite((store, exact), tenant, matrix, rng)
    for query in asked(rng, matrix):
        everything = {
            m.entity_id: (m.entity_type, round(m.score, 6))
            for m in await exact.search(query, tenant, k=ROWS + 300)
        }
        for filters in ({}, {"entity_types": ["place"]}):
            found = await store.search(query, tenant, k=10, **filters)  # type: ignore[arg-type]
            assert len(found) == 10
            for match in found:
                assert match.entity_id not in deleted
                assert (match.entity_type, round(match.score, 6)) == everything[match.entity_id]
            if filters:
                assert {m.entity_type for m in found} == {"place"}
    moved_in = {fixed_id(n) for n, to in moved_to.items() if to == "place"}
    placed = await store.search(
        (await exact.get([min(moved_in)], tenant))[0].vector, tenant, k=1, entity_types=["place"]
    )
    assert [m.entity_id for m in placed] == [min(moved_in)]  # found under its new type


@STORES
@pytest.mark.asyncio
async def test_in_place_writes_to_one_tenant_never_reach_another_with_the_same_ids(
    make: Maker, tmp_path: Path
) -> None:
    first, second = fresh_tenant(), fresh_tenant()
    rng = np.random.default_rng(41)
    store, exact = make(tmp_path, probes=EVERY_LIST), InMemoryVectorStore(dimension=DIM)
    _, matrix_b = await two_tenants_with_the_same_ids(store, exact, (first, second), rng)
    untouched = index_of(store, second)
    fresh = clustered(rng, 100)
    for each in (store, exact):
        await each.upsert([record(first, n, fresh[n], "c") for n in range(100)])
        await each.delete([fixed_id(n) for n in range(100, 200)], first)
    assert (untouched.changed, index_of(store, first).changed) == (0, 200)
    for query in asked(rng, np.vstack([matrix_b[:100], fresh]), count=10):
        for tenant in (first, second):
            found = await store.search(query, tenant, k=10)
            assert keys(found) == keys(await exact.search(query, tenant, k=10))
            assert {m.entity_type for m in found} <= ({"a", "c"} if tenant == first else {"b"})


@STORES
@pytest.mark.asyncio
async def test_the_lists_are_trained_again_only_past_the_share_of_changed_rows(
    make: Maker, tmp_path: Path
) -> None:
    tenant = fresh_tenant()
    store, _, matrix, rng = await filled(make, tmp_path, tenant)
    first = index_of(store, tenant)
    limit = int(RETRAIN_SHARE * ROWS)
    fresh = clustered(rng, limit + 1)
    await store.upsert([record(tenant, ROWS + n, fresh[n], "person") for n in range(limit)])
    await store.search(matrix[0].tolist(), tenant, k=10)
    assert index_of(store, tenant) is first
    await store.upsert([record(tenant, ROWS + limit, fresh[limit], "person")])
    await store.search(matrix[0].tolist(), tenant, k=10)
    again = index_of(store, tenant)
    assert again is not first
    assert (again.trained, again.changed) == (ROWS + limit + 1, 0)


@pytest.mark.asyncio
async def test_a_sqlite_write_keeps_the_cached_rows_and_another_connections_write_reloads(
    tmp_path: Path,
) -> None:
    tenant = fresh_tenant()
    store, exact, _, rng = await filled(in_sqlite, tmp_path, tenant, probes=EVERY_LIST)
    held = rows_of(store, tenant)
    fresh = clustered(rng, 20)
    mine = [record(tenant, n, fresh[n], "person") for n in range(10)]
    for each in (store, exact):
        await each.upsert(mine)
    await store.search(fresh[0].tolist(), tenant, k=10)
    assert rows_of(store, tenant) is held  # patched in place under the write's new token
    assert isinstance(store, SqliteVectorStore)
    elsewhere = SqliteVectorStore(SqliteDatabase(store._db.path), dimension=DIM)
    theirs = [record(tenant, ROWS + n, fresh[10 + n], "place") for n in range(5)]
    for each in (elsewhere, exact):
        await each.upsert(theirs)
    again = [record(tenant, ROWS + 5 + n, fresh[15 + n], "place") for n in range(5)]
    for each in (store, exact):  # the cache is behind the other writer: dropped, not patched
        await each.upsert(again)
    for query in asked(rng, fresh, count=10):
        assert keys(await store.search(query, tenant, k=10)) == keys(
            await exact.search(query, tenant, k=10)
        )
    assert rows_of(store, tenant) is not held  # another writer's token: loaded again


@pytest.mark.asyncio
async def test_a_sqlite_write_rolled_back_with_its_batch_is_never_served(tmp_path: Path) -> None:
    tenant = fresh_tenant()
    store, exact, matrix, _ = await filled(in_sqlite, tmp_path, tenant, probes=EVERY_LIST)
    assert isinstance(store, SqliteVectorStore)
    query = (-matrix[0]).tolist()
    intruder = record(tenant, ROWS, -matrix[0], "place")

    async def write_then_fail() -> None:
        async with store._db.batch(store="test"):
            await store.upsert([intruder])  # patches the cached rows under the write's token
            raise RuntimeError("undo")

    with pytest.raises(RuntimeError, match="undo"):
        await write_then_fail()
    after = await store.search(query, tenant, k=10)
    assert keys(after) == keys(await exact.search(query, tenant, k=10))
    assert await store.count(tenant) == ROWS
