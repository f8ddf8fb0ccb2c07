"""The SQLite file's IVF index, saved in it and read back instead of trained (ADR 0320).

Trainings are counted by wrapping `IvfIndex.train`. A reopened file must
answer as the store that saved it did (one list probed, so each row's list
matters); a saved index the tenant's generation token has moved past must be
trained again, not trusted.
"""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import numpy as np
import pytest

from redstring.domain.ids import TenantId
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryVectorStore
from redstring.testing._support import fixed_id, fresh_tenant
from redstring.vector.ivf import IvfIndex
from redstring.vector.rows import TenantRows
from redstring.vector.sqlite import SqliteVectorStore
from tests.unit.adapters.test_ivf_upkeep import (
    DIM,
    EVERY_LIST,
    ROWS,
    asked,
    clustered,
    keys,
    kind,
    record,
    rewrite,
    two_tenants_with_the_same_ids,
)


@pytest.fixture
def trainings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry per `IvfIndex.train` call: the rows it trained on."""
    counted: list[int] = []
    train = IvfIndex.train.__func__  # type: ignore[attr-defined]

    def counting(cls: type[IvfIndex], part: TenantRows) -> IvfIndex:
        counted.append(part.live)
        return train(cls, part)  # type: ignore[no-any-return]

    monkeypatch.setattr(IvfIndex, "train", classmethod(counting))
    return counted


def opened(path: Path, *, probes: int = 1, read_only: bool = False) -> SqliteVectorStore:
    database = SqliteDatabase(path, read_only=read_only)
    return SqliteVectorStore(
        database, dimension=DIM, search_mode="ivf", exact_below=100, probes=probes
    )


def cached_index(store: SqliteVectorStore, tenant: TenantId) -> IvfIndex:
    index = store._cache._entries[str(tenant)].value.index
    assert isinstance(index, IvfIndex)
    return index


async def filled(path: Path, tenant: TenantId, *, probes: int = 1):
    """A file of 3,000 rows, its index trained by a first search, and the exact reference."""
    rng = np.random.default_rng(9)
    matrix = clustered(rng, ROWS)
    store, exact = opened(path, probes=probes), InMemoryVectorStore(dimension=DIM)
    batch = [record(tenant, n, matrix[n], kind(n)) for n in range(ROWS)]
    for each in (store, exact):
        await each.upsert(batch)
    await store.search(matrix[0].tolist(), tenant, k=10)
    return store, exact, matrix, rng


async def answers(store: SqliteVectorStore, tenant: TenantId, queries: list[list[float]]):
    found = []
    for query in queries:
        for filters in ({}, {"entity_types": ["place"]}):
            found.append(keys(await store.search(query, tenant, k=10, **filters)))  # type: ignore[arg-type]
    return found


def filed_at_nearest_centre(index: IvfIndex, part: TenantRows) -> bool:
    """Whether every row the index holds is in the list of its nearest centre (ties aside)."""
    slots, lists = index.filing()
    scores = part.rows[slots] @ index.centres.T
    best = np.sort(scores, axis=1)
    tied = best[:, -1] - best[:, -2] < 1e-5
    return bool(np.all((scores.argmax(axis=1) == lists) | tied))


@pytest.mark.asyncio
async def test_a_reopened_file_serves_its_first_ivf_search_without_training(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    store, _, matrix, rng = await filled(path, tenant)
    assert trainings == [ROWS]
    queries = asked(rng, matrix, count=30)
    before = await answers(store, tenant, queries)
    again = opened(path)
    assert await answers(again, tenant, queries) == before
    assert trainings == [ROWS]  # read back, not trained
    assert cached_index(again, tenant).training == cached_index(store, tenant).training


@pytest.mark.asyncio
async def test_in_place_writes_keep_the_saved_index_current(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    store, exact, matrix, rng = await filled(path, tenant)
    deleted, _ = await rewrite((store, exact), tenant, matrix, rng)
    queries = asked(rng, matrix, count=30)
    before = await answers(store, tenant, queries)
    again = opened(path)
    assert await answers(again, tenant, queries) == before
    assert trainings == [ROWS]
    restored = cached_index(again, tenant)
    assert (restored.trained, restored.changed) == (ROWS, cached_index(store, tenant).changed)
    part = again._cache._entries[str(tenant)].value
    assert part.live == ROWS + 300 - len(deleted)
    assert filed_at_nearest_centre(restored, part)
    complete = opened(path, probes=EVERY_LIST)
    for query in queries:
        assert keys(await complete.search(query, tenant, k=10)) == keys(
            await exact.search(query, tenant, k=10)
        )
    assert trainings == [ROWS]


@pytest.mark.asyncio
async def test_another_stores_ivf_writes_file_their_rows_in_the_saved_lists(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    _, exact, matrix, rng = await filled(path, tenant)
    writer = opened(path)  # holds no index: files rows by the saved centres
    deleted, _ = await rewrite((writer, exact), tenant, matrix, rng)
    assert str(tenant) not in writer._cache._entries
    again = opened(path, probes=EVERY_LIST)
    queries = asked(rng, matrix, count=20)
    for query in queries:
        found = await again.search(query, tenant, k=10)
        assert keys(found) == keys(await exact.search(query, tenant, k=10))
        assert not {m.entity_id for m in found} & deleted
    assert trainings == [ROWS]
    part = again._cache._entries[str(tenant)].value
    assert filed_at_nearest_centre(cached_index(again, tenant), part)


@pytest.mark.asyncio
async def test_a_write_the_saved_index_did_not_follow_makes_it_stale_and_trained_again(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    _, exact, matrix, rng = await filled(path, tenant, probes=EVERY_LIST)
    plain = SqliteVectorStore(SqliteDatabase(path), dimension=DIM)  # exact: keeps no index
    moved = [record(tenant, n, -matrix[n], kind(n)) for n in range(5)]
    for each in (plain, exact):
        await each.upsert(moved)
    again = opened(path, probes=EVERY_LIST)
    for query in asked(rng, -matrix[:5], count=10):
        assert keys(await again.search(query, tenant, k=10)) == keys(
            await exact.search(query, tenant, k=10)
        )
    assert trainings == [ROWS, ROWS]  # stale: trained again, and saved
    await opened(path).search(matrix[0].tolist(), tenant, k=10)
    assert trainings == [ROWS, ROWS]


@pytest.mark.asyncio
async def test_a_rolled_back_write_leaves_the_saved_index_current_and_unchanged(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    store, exact, matrix, rng = await filled(path, tenant)
    queries = asked(rng, matrix, count=20)
    before = await answers(opened(path), tenant, queries)

    async def write_then_fail() -> None:
        async with store._db.batch(store="test"):
            await store.upsert([record(tenant, n, -matrix[n], "place") for n in range(50)])
            await store.delete([fixed_id(n) for n in range(50, 100)], tenant)
            raise RuntimeError("undo")

    with pytest.raises(RuntimeError, match="undo"):
        await write_then_fail()
    assert await answers(opened(path), tenant, queries) == before
    assert trainings == [ROWS]
    assert len(await exact.search(matrix[0].tolist(), tenant, k=10)) == 10


@pytest.mark.asyncio
async def test_saved_lists_that_miss_an_entity_are_not_trusted(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    _, exact, matrix, _ = await filled(path, tenant, probes=EVERY_LIST)
    with sqlite3.connect(path) as raw:
        raw.execute("DELETE FROM vector_ivf_lists WHERE entity_id = ?", (str(fixed_id(7)),))
    again = opened(path, probes=EVERY_LIST)
    query = matrix[7].tolist()
    assert keys(await again.search(query, tenant, k=10)) == keys(
        await exact.search(query, tenant, k=10)
    )
    assert trainings == [ROWS, ROWS]


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE vector_ivf SET centres = substr(centres, 1, length(centres) - 1)",
        "UPDATE vector_ivf SET centres = zeroblob(0)",
        f"UPDATE vector_ivf_lists SET list_no = 1000000 WHERE entity_id = '{fixed_id(7)}'",
        f"UPDATE vector_ivf_lists SET entity_id = 'not-a-row' WHERE entity_id = '{fixed_id(7)}'",
    ],
    ids=["cut-centres", "no-centres", "list-out-of-range", "unknown-entity"],
)
@pytest.mark.asyncio
async def test_a_damaged_saved_index_is_trained_again_not_trusted(
    tmp_path: Path, trainings: list[int], damage: str
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    _, exact, matrix, _ = await filled(path, tenant, probes=EVERY_LIST)
    with sqlite3.connect(path) as raw:
        raw.execute(damage)
    again = opened(path, probes=EVERY_LIST)
    query = matrix[7].tolist()
    assert keys(await again.search(query, tenant, k=10)) == keys(
        await exact.search(query, tenant, k=10)
    )
    assert trainings == [ROWS, ROWS]


@pytest.mark.asyncio
async def test_a_delete_after_a_write_the_saved_index_missed_leaves_it_stale(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    _, exact, matrix, rng = await filled(path, tenant)
    plain = SqliteVectorStore(SqliteDatabase(path), dimension=DIM)  # exact: keeps no index
    moved = [record(tenant, n, -matrix[n], kind(n)) for n in range(5)]
    for each in (plain, exact):
        await each.upsert(moved)
    for each in (opened(path), exact):  # an ivf store's delete must not make it current again
        await each.delete([fixed_id(100)], tenant)
    again = opened(path, probes=EVERY_LIST)
    for query in asked(rng, -matrix[:5], count=5):
        assert keys(await again.search(query, tenant, k=10)) == keys(
            await exact.search(query, tenant, k=10)
        )
    assert trainings == [ROWS, ROWS - 1]  # stale: trained again on the rows left


@pytest.mark.asyncio
async def test_saved_indexes_of_tenants_with_the_same_ids_never_cross(
    tmp_path: Path, trainings: list[int]
) -> None:
    first, second, path = fresh_tenant(), fresh_tenant(), tmp_path / "saved.db"
    rng = np.random.default_rng(13)
    store, exact = opened(path, probes=EVERY_LIST), InMemoryVectorStore(dimension=DIM)
    _, matrix_b = await two_tenants_with_the_same_ids(store, exact, (first, second), rng)
    for each in (store, exact):
        await each.upsert([record(first, n, matrix_b[n], "c") for n in range(100)])
        await each.delete([fixed_id(n) for n in range(100, 200)], first)
    await store.purge_tenant(second)
    await exact.purge_tenant(second)
    with sqlite3.connect(path) as raw:
        assert raw.execute(
            "SELECT count(*) FROM vector_ivf_lists WHERE tenant_id = ?", (str(second),)
        ).fetchone() == (0,)
    again = opened(path, probes=EVERY_LIST)
    for query in asked(rng, matrix_b, count=10):
        assert keys(await again.search(query, first, k=10)) == keys(
            await exact.search(query, first, k=10)
        )
        assert await again.search(query, second, k=10) == []
    assert trainings == [1000, 1000]
    assert cached_index(again, first).changed == 200


@pytest.mark.asyncio
async def test_a_read_only_file_reads_its_saved_index_and_trains_without_saving(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    await filled(path, tenant)
    reader = opened(path, read_only=True)
    await reader.search([1.0] * DIM, tenant, k=10)
    assert trainings == [ROWS]
    other = TenantId(uuid.UUID(int=77))
    rng = np.random.default_rng(3)
    rows = clustered(rng, 200)
    await opened(path).upsert([record(other, n, rows[n], "a") for n in range(200)])
    await opened(path, read_only=True).search(rows[0].tolist(), other, k=10)
    await opened(path, read_only=True).search(rows[0].tolist(), other, k=10)
    assert trainings == [ROWS, 200, 200]  # trained each time, never written


@pytest.mark.asyncio
async def test_an_index_is_not_saved_after_a_write_moved_the_token_it_was_taken_at(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "saved.db"
    store, exact, matrix, _ = await filled(path, tenant)
    saved = store._saved
    assert saved is not None
    with sqlite3.connect(path) as raw:
        raw.execute("DELETE FROM vector_ivf")
    saved._written.clear()
    database = store._db
    part = store._cache._entries[str(tenant)].value
    token = database.read_now(
        lambda c: c.execute(
            "SELECT token FROM vector_generations WHERE tenant_id = ?", (str(tenant),)
        ).fetchone()[0],
        store="test",
    )
    snapshot = saved.unsaved(part, token)
    assert snapshot is not None
    overwritten = [record(tenant, n, -matrix[n], kind(n)) for n in range(50)]
    for each in (store, exact):
        await each.upsert(overwritten)
    database.write_now(lambda c: saved.save(c, str(tenant), snapshot), store="test")
    again = opened(path, probes=EVERY_LIST)
    query = (-matrix[0]).tolist()
    assert keys(await again.search(query, tenant, k=10)) == keys(
        await exact.search(query, tenant, k=10)
    )
    assert trainings == [ROWS, ROWS]


@pytest.mark.asyncio
async def test_a_file_from_before_saved_indexes_opens_and_searches_without_migrate(
    tmp_path: Path, trainings: list[int]
) -> None:
    tenant, path = fresh_tenant(), tmp_path / "older.db"
    rng = np.random.default_rng(21)
    rows = clustered(rng, 300)
    await opened(path).upsert([record(tenant, n, rows[n], kind(n)) for n in range(300)])
    with sqlite3.connect(path) as raw:  # as the library before ADR 0320 left it
        raw.execute("DROP TABLE vector_ivf")
        raw.execute("DROP TABLE vector_ivf_lists")
        raw.execute("DELETE FROM redstring_schema WHERE component = 'vector_ivf'")
    query = rows[3].tolist()
    exact = InMemoryVectorStore(dimension=DIM)
    await exact.upsert([record(tenant, n, rows[n], kind(n)) for n in range(300)])
    want = keys(await exact.search(query, tenant, k=10))
    reader = opened(path, probes=EVERY_LIST, read_only=True)
    assert keys(await reader.search(query, tenant, k=10)) == want
    assert trainings == [300]  # trained as before, nothing written
    with sqlite3.connect(path) as raw:
        assert raw.execute(
            "SELECT count(*) FROM sqlite_master WHERE name = 'vector_ivf'"
        ).fetchone() == (0,)
    writable = opened(path, probes=EVERY_LIST)  # no migrate: the tables are added
    assert keys(await writable.search(query, tenant, k=10)) == want
    await opened(path).search(query, tenant, k=10)
    assert trainings == [300, 300]  # saved by the writable store, read back after
