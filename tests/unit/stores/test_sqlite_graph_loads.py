"""A SQLite graph tenant read whole in the background (ADR 0465).

Each load is held at a gate in its own thread (after it has read the token
and taken its snapshot), so what happens while it runs is driven, not timed.
Every answer is held to a store on a new connection that keeps nothing.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import wait
from pathlib import Path
from uuid import UUID

import pytest

from redstring import Entity, EntityId, TenantId
from redstring.domain.blocking import query_blocking_keys, query_ngram_keys, query_token_keys
from redstring.domain.errors import StoreUnavailableError
from redstring.domain.query import NormalizedQuery
from redstring.graph import sqlite_loads, sqlite_mirror, sqlite_reads
from redstring.graph.sqlite import SqliteGraphStore
from redstring.graph.sqlite_mirror import TenantMirror
from redstring.storage.sqlite import SqliteDatabase

TENANT = TenantId(UUID(int=1))
OTHER = TenantId(UUID(int=2))
QUERY = NormalizedQuery.of("Ada Lovelace")
KEYS = list(
    dict.fromkeys([*query_blocking_keys(QUERY), *query_ngram_keys(QUERY), *query_token_keys(QUERY)])
)

type Reads = tuple[dict[str, int], dict[str, list[int]], dict[EntityId, list[str]]]


def the_id(n: int) -> EntityId:
    return EntityId(UUID(int=(n << 100) + n))


def person(tenant: TenantId, n: int, name: str) -> Entity:
    return Entity(tenant_id=tenant, id=the_id(n), entity_type="person", name=name)


async def reads(store: SqliteGraphStore, tenant: TenantId = TENANT) -> Reads:
    return (
        await store.count_blocking_keys(KEYS, tenant, limit=3),
        await store.find_ids_by_blocking_keys(KEYS, tenant, limit=3),
        await store.get_names([the_id(n).int for n in range(1, 13)], tenant),
    )


async def opened(path: Path, label: str = "") -> SqliteGraphStore:
    store = SqliteGraphStore(SqliteDatabase(path), migrate=True)
    await store.upsert(
        [person(TENANT, n, f"Ada Lovelace {label}{n}") for n in range(1, 6)]
        + [person(OTHER, n, f"Ada Lovelace of {label}{n}") for n in range(1, 4)]
    )
    return store


def unkept(path: Path) -> SqliteGraphStore:
    return SqliteGraphStore(SqliteDatabase(path), cache_bytes=0)


def mirrored(store: SqliteGraphStore, tenant: TenantId = TENANT) -> bool:
    held = store._reads.peek(str(tenant))
    return held is not None and held.mirror is not None


def finished(store: SqliteGraphStore) -> None:
    """Wait for the store's loads still running (each is held to 20 s)."""
    _, running = wait([load.answer for load in store._loads._loads.values()], timeout=20)
    assert not running


def until(check: Callable[[], bool]) -> None:
    """Return once `check` holds (held to 20 s)."""
    for _ in range(20_000):
        if check():
            return
        time.sleep(0.001)
    raise AssertionError("never held")


type Load = Callable[[sqlite3.Connection, str, int], TenantMirror | None]


class Gate:
    """Holds each load, after it read the token, until `release`; notes the tenants loaded."""

    def __init__(self, load: Load = sqlite_mirror.load_mirror) -> None:
        self.release = threading.Event()
        self.tenants: list[str] = []
        self._load = load

    def __call__(
        self, connection: sqlite3.Connection, tenant: str, room: int
    ) -> TenantMirror | None:
        self.tenants.append(tenant)
        assert self.release.wait(20), "the test never released the load"
        return self._load(connection, tenant, room)


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Gate:
    """Every load from the first read on, held at a gate."""
    monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 0)
    held = Gate()
    monkeypatch.setattr(sqlite_loads, "load_mirror", held)
    return held


@pytest.mark.asyncio
async def test_reads_and_writes_go_on_per_key_while_a_load_runs(tmp_path: Path, gate: Gate) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    assert await reads(store) == await reads(unkept(path))  # answered with the load held
    until(lambda: bool(gate.tenants))  # the load has taken its snapshot and waits
    assert gate.tenants == [str(TENANT)]
    assert await reads(store) == await reads(unkept(path))
    assert gate.tenants == [str(TENANT)]  # one load a tenant at a time
    assert not mirrored(store)
    gate.release.set()
    finished(store)
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)


@pytest.mark.asyncio
@pytest.mark.parametrize("through", ["the store", "another connection"])
async def test_a_write_while_a_load_runs_drops_its_mirror(
    tmp_path: Path, gate: Gate, through: str
) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)
    until(lambda: bool(gate.tenants))  # the load read the token before the write
    writer = store if through == "the store" else SqliteGraphStore(SqliteDatabase(path))
    await writer.upsert([person(TENANT, 9, "Ada Lovelace")])  # the load holds its snapshot
    gate.release.set()
    finished(store)
    gate.release.clear()
    after = await reads(store)  # the mirror of the old token is dropped, a new load starts
    assert after == await reads(unkept(path))
    assert the_id(9).int in after[2]
    assert not mirrored(store)
    gate.release.set()
    finished(store)
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)
    assert gate.tenants == [str(TENANT)] * 2


@pytest.mark.asyncio
@pytest.mark.parametrize("commit", [True, False])
async def test_a_load_never_sees_a_batchs_writes_before_they_commit(
    tmp_path: Path, gate: Gate, commit: bool
) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)  # a load under the committed token, held

    async def write_then_end() -> None:
        async with store._db.batch(store="test"):
            await store.upsert([person(TENANT, 9, "Ada Lovelace")])
            gate.release.set()
            await asyncio.to_thread(finished, store)  # it read the committed rows
            gate.release.clear()
            if not commit:
                raise RuntimeError("undo")

    if commit:
        await write_then_end()
    else:
        with pytest.raises(RuntimeError, match="undo"):
            await write_then_end()
    answer = await reads(store)
    assert answer == await reads(unkept(path))
    assert (the_id(9).int in answer[2]) == commit
    assert mirrored(store) == (not commit)  # a committed write moved the token: dropped
    gate.release.set()
    finished(store)
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)


@pytest.mark.asyncio
@pytest.mark.parametrize("commit", [True, False])
async def test_reads_inside_a_batch_never_mirror_its_uncommitted_token(
    tmp_path: Path, gate: Gate, commit: bool
) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    gate.release.set()

    async def write_read_then_end() -> None:
        async with store._db.batch(store="test"):
            await store.upsert([person(TENANT, 9, "Ada Lovelace")])
            for _ in range(3):  # each finds the load read the committed token, not the batch's
                assert the_id(9).int in (await reads(store))[2]
                await asyncio.to_thread(finished, store)
                assert not mirrored(store)
            if not commit:
                raise RuntimeError("undo")

    if commit:  # the batch's token, now committed, is not refused for having been early
        await write_read_then_end()
    else:
        with pytest.raises(RuntimeError, match="undo"):
            await write_read_then_end()
    assert gate.tenants == []  # the token differed: no tenant was read whole
    assert await reads(store) == await reads(unkept(path))
    finished(store)
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)


@pytest.mark.asyncio
async def test_closing_the_file_during_a_load_stops_it_and_waits_for_its_thread(
    tmp_path: Path, gate: Gate, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)
    [load] = store._loads._loads.values()
    [thread] = store._db._apart._running.values()
    closer = threading.Thread(target=store._db.close)
    closer.start()
    await asyncio.to_thread(until, lambda: store._db._apart._closed)  # close waits for the load
    assert closer.is_alive()
    gate.release.set()  # its first statement is stopped at once
    closer.join(20)
    assert not closer.is_alive()
    assert load.answer.cancelled()
    assert not thread.is_alive()
    assert not store._db._apart._running
    assert not caplog.records
    with pytest.raises(StoreUnavailableError):
        await reads(store)
    assert store._db.read_apart(lambda c: 1, store="test").cancelled()


@pytest.mark.asyncio
async def test_a_load_that_fails_is_logged_and_the_tenant_stays_per_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def failing(connection: sqlite3.Connection, tenant: str, room: int) -> None:
        tried.append(tenant)
        raise RuntimeError("the disk said no")

    tried: list[str] = []
    monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 0)
    monkeypatch.setattr(sqlite_loads, "load_mirror", failing)
    path = tmp_path / "g.db"
    store = await opened(path)
    with caplog.at_level(logging.WARNING, logger="redstring.graph"):
        assert await reads(store) == await reads(unkept(path))
        finished(store)
        for _ in range(3):
            assert await reads(store) == await reads(unkept(path))
    assert tried == [str(TENANT)]  # not tried again under this token
    held = store._reads.peek(str(TENANT))
    assert held is not None
    assert held.refused
    assert not mirrored(store)
    until(lambda: bool(caplog.records))  # logged by the load's thread once it ended
    [record] = caplog.records
    assert str(TENANT) in record.getMessage()
    assert record.exc_info is not None
    assert "the disk said no" in str(record.exc_info[1])
    await store.upsert([person(TENANT, 9, "Ada Lovelace")])  # a new token: tried again
    await reads(store)
    finished(store)
    assert tried == [str(TENANT)] * 2


@pytest.mark.asyncio
async def test_loads_of_tenants_and_stores_with_the_same_ids_never_cross(
    tmp_path: Path, gate: Gate
) -> None:
    paths = [tmp_path / "one.db", tmp_path / "two.db"]
    stores = [await opened(paths[0], "one "), await opened(paths[1], "two ")]
    pairs = [
        (store, path, tenant)
        for store, path in zip(stores, paths, strict=True)
        for tenant in (TENANT, OTHER)
    ]
    for store, path, tenant in pairs * 2:  # one load a tenant a store, however often asked
        assert await reads(store, tenant) == await reads(unkept(path), tenant)
    until(lambda: len(gate.tenants) >= 4)
    assert sorted(gate.tenants) == sorted([str(TENANT), str(OTHER)] * 2)
    gate.release.set()
    for store in stores:
        finished(store)
    for store, path, tenant in pairs:
        answer = await reads(store, tenant)
        assert answer == await reads(unkept(path), tenant)
        assert mirrored(store, tenant)
        label = "one" if path == paths[0] else "two"
        assert all(label in names[0] for names in answer[2].values())
        assert (tenant == OTHER) == all("of" in names[0] for names in answer[2].values())


@pytest.mark.asyncio
async def test_a_read_apart_sees_committed_rows_only_and_holds_up_no_batch(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    database = store._db

    def entities(connection: sqlite3.Connection) -> int:
        return int(connection.execute("SELECT count(*) FROM graph_entities").fetchone()[0])

    async with database.batch(store="test"):
        await store.upsert([person(TENANT, 9, "Ada Lovelace")])
        inside = await database.read(entities, store="test")
        apart = await asyncio.to_thread(database.read_apart(entities, store="test").result, 20)
    assert (inside, apart) == (9, 8)
    assert database.read_apart(entities, store="test").result(20) == 9


@pytest.mark.asyncio
async def test_a_read_only_file_is_read_whole_on_a_connection_of_its_own(
    tmp_path: Path, gate: Gate
) -> None:
    path = tmp_path / "g.db"
    await opened(path)
    store = SqliteGraphStore(SqliteDatabase(path, read_only=True))
    assert await reads(store) == await reads(unkept(path))
    gate.release.set()
    finished(store)
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)
    assert gate.tenants == [str(TENANT)]
