"""SQLite key rows staged apart and merged in key order (ADR 0261).

A block's members may lie partly in `graph_keys` and partly in
`graph_keys_staged`; every read takes the first members by id over both.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from redstring.domain.blocking import blocking_keys_for, token_keys_for
from redstring.graph import sqlite_keys
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.testing._graph_entities import person
from redstring.testing._support import fixed_id, fresh_tenant


def table_rows(path: Path) -> tuple[int, int, int]:
    """(merged rows, staged rows, the staged count) as the file holds them."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        [(merged,)] = raw.execute("SELECT count(*) FROM graph_keys")
        [(staged,)] = raw.execute("SELECT count(*) FROM graph_keys_staged")
        [(counted,)] = raw.execute("SELECT rows FROM graph_staging")
    return int(merged), int(staged), int(counted)


@pytest.mark.asyncio
async def test_a_block_split_over_merged_and_staged_rows_reads_in_id_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, tenant, other = tmp_path / "staged.db", fresh_tenant(), fresh_tenant()
    database = SqliteDatabase(path)
    store = SqliteGraphStore(database)
    people = {n: person(tenant, f"Lovelace {n}", fixed_id(n)) for n in (6, 2, 9, 4, 1, 8)}
    per_entity = len(blocking_keys_for(people[6]))
    # Of twelve batches of one entity, the fifth and the tenth merge; two stay staged.
    monkeypatch.setattr(sqlite_keys, "STAGED_ROWS", 4 * per_entity + 1)
    for entity in people.values():  # one batch each, ids out of order
        await store.upsert([entity])
        await store.upsert([person(other, entity.name, entity.id)])  # the same ids elsewhere
    merged, staged, counted = table_rows(path)
    assert (merged, staged, counted) == (10 * per_entity, 2 * per_entity, 2 * per_entity)
    [key, *_] = token_keys_for("lovelace")
    everyone = [fixed_id(n) for n in (1, 2, 4, 6, 8, 9)]
    for limit in range(1, 8):
        found = await store.find_ids_by_blocking_keys([key], tenant, limit=limit)
        assert found == {key: everyone[:limit]}
        bodies = await store.find_by_blocking_keys([key], tenant, limit=limit)
        assert [e.id for e in bodies[key]] == everyone[:limit]
        assert await store.count_blocking_keys([key], tenant, limit=limit) == {key: min(limit, 6)}
    await store.delete_entities([fixed_id(6), fixed_id(8)], tenant)  # one merged, one staged
    survivors = [fixed_id(n) for n in (1, 2, 4, 9)]
    assert await store.find_ids_by_blocking_keys([key], tenant) == {key: survivors}
    assert await store.find_ids_by_blocking_keys([key], other) == {key: everyone}
    await store.purge_tenant(other)
    assert await store.count_blocking_keys([key], other) == {key: 0}
    assert await store.rebuild_blocking_index(tenant) == 4
    assert await store.find_ids_by_blocking_keys([key], tenant) == {key: survivors}
    database.close()


@pytest.mark.asyncio
async def test_staged_rows_are_merged_once_they_pass_the_threshold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, tenant = tmp_path / "merge.db", fresh_tenant()
    database = SqliteDatabase(path)
    store = SqliteGraphStore(database)
    ada = person(tenant, "Ada Lovelace", fixed_id(1))
    rows = len(blocking_keys_for(ada))
    monkeypatch.setattr(sqlite_keys, "STAGED_ROWS", rows)
    await store.upsert([ada])
    assert table_rows(path) == (0, rows, rows)  # at the threshold: kept staged
    await store.upsert([person(tenant, "Charles Babbage", fixed_id(2))])
    merged, staged, counted = table_rows(path)
    assert (staged, counted) == (0, 0)
    assert merged == rows + len(blocking_keys_for(person(tenant, "Charles Babbage")))
    database.close()
