"""`SqliteDatabase.batch`: one task's writes as one transaction (ADR 0256)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path

import pytest

from redstring.composition.sqlite_stores import open_sqlite
from redstring.composition.transactions import one_transaction
from redstring.storage.sqlite import SqliteDatabase
from tests.hang_guard import HANG_GUARD_SECONDS


class Boom(Exception):
    """Raised inside a batch on purpose."""


def _database(path: Path) -> tuple[SqliteDatabase, list[str]]:
    database = SqliteDatabase(path)
    database.write_now(lambda c: c.execute("CREATE TABLE t (n INTEGER PRIMARY KEY)"), store="t")
    executed: list[str] = []
    database.connection.set_trace_callback(executed.append)
    return database, executed


async def _insert(database: SqliteDatabase, n: int) -> None:
    await database.write(lambda c: c.execute("INSERT INTO t (n) VALUES (?)", (n,)), store="t")


async def _rows(database: SqliteDatabase) -> list[int]:
    def work(connection: sqlite3.Connection) -> list[tuple[int]]:
        return connection.execute("SELECT n FROM t ORDER BY n").fetchall()

    rows = await database.read(work, store="t")
    return [int(n) for (n,) in rows]


@pytest.mark.asyncio
async def test_a_batch_commits_its_writes_as_one_transaction_and_reads_them_inside(
    tmp_path: Path,
) -> None:
    database, executed = _database(tmp_path / "b.db")
    try:
        async with database.batch(store="t"):
            await _insert(database, 1)
            async with database.batch(store="t"):  # a nested batch joins
                await _insert(database, 2)
            assert await _rows(database) == [1, 2]
        assert [s for s in executed if s.startswith("BEGIN IMMEDIATE")] == ["BEGIN IMMEDIATE"]
        assert executed.count("COMMIT") >= 1
        assert await _rows(database) == [1, 2]
    finally:
        database.close()


@pytest.mark.asyncio
async def test_a_batch_that_raises_leaves_nothing_and_a_failed_write_inside_only_itself(
    tmp_path: Path,
) -> None:
    database, _ = _database(tmp_path / "b.db")
    try:

        async def fail_in_batch() -> None:
            async with database.batch(store="t"):
                await _insert(database, 1)
                raise Boom

        with pytest.raises(Boom):
            await fail_in_batch()
        assert await _rows(database) == []
        async with database.batch(store="t"):
            await _insert(database, 3)

            def half_then_fail(connection: sqlite3.Connection) -> None:
                connection.execute("INSERT INTO t (n) VALUES (4)")
                connection.execute("INSERT INTO t (n) VALUES (3)")  # a duplicate key

            with pytest.raises(Exception, match="UNIQUE"):
                await database.write(half_then_fail, store="t")
            await _insert(database, 5)
        assert await _rows(database) == [3, 5]
    finally:
        database.close()


@pytest.mark.asyncio
async def test_another_tasks_write_never_joins_a_batch_that_then_rolls_back(
    tmp_path: Path,
) -> None:
    database, _ = _database(tmp_path / "b.db")
    go = asyncio.Event()

    async def other() -> None:  # created before the batch: its context holds no batch
        await go.wait()
        await _insert(database, 2)

    try:
        waiting = asyncio.create_task(other())

        async def fail_in_batch() -> None:
            async with database.batch(store="t"):
                await _insert(database, 1)
                go.set()
                await asyncio.sleep(0)  # let the other task issue its write
                raise Boom

        with pytest.raises(Boom):
            await fail_in_batch()
        await waiting
        assert await _rows(database) == [2]
    finally:
        database.close()


@pytest.mark.asyncio
async def test_one_transaction_spans_stores_only_when_they_share_one_database(
    tmp_path: Path,
) -> None:
    first, second = (
        open_sqlite(tmp_path / "a.db", dimension=4),
        open_sqlite(tmp_path / "b.db", dimension=4),
    )
    try:
        shared = one_transaction(first.events, first.graph, None, first.chunks)
        apart = one_transaction(first.events, second.graph)
        assert not isinstance(shared, nullcontext)
        assert isinstance(apart, nullcontext)
        assert isinstance(one_transaction(), nullcontext)
        assert isinstance(one_transaction(None), nullcontext)
    finally:
        await first.close()
        await second.close()


async def _writes_on_after(database: SqliteDatabase) -> None:
    """The next write is not left waiting on the file, and the rows are 1 and 2; closes it."""
    try:
        await asyncio.wait_for(_insert(database, 2), HANG_GUARD_SECONDS)
        assert await _rows(database) == [1, 2]
    finally:
        database.close()


@pytest.mark.asyncio
async def test_a_batch_cancelled_while_its_transaction_begins_never_holds_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    database, _ = _database(tmp_path / "b.db")
    holding, release = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with database.batch(store="t"):
            await _insert(database, 1)
            holding.set()
            await release.wait()

    holder = asyncio.create_task(hold())
    await holding.wait()
    beginning = threading.Event()
    begin = SqliteDatabase._begin

    def say_and_begin(self: SqliteDatabase, token: object, store: str) -> None:
        beginning.set()
        begin(self, token, store)  # waits for the holder's batch, then begins

    monkeypatch.setattr(SqliteDatabase, "_begin", say_and_begin)

    async def empty_batch() -> None:
        async with database.batch(store="t"):
            pass

    cancelled = asyncio.create_task(empty_batch())
    assert await asyncio.to_thread(beginning.wait, HANG_GUARD_SECONDS)
    cancelled.cancel()  # Ctrl-C or close() while a worker begins the transaction
    with pytest.raises(asyncio.CancelledError):
        await cancelled
    release.set()
    await holder
    await _writes_on_after(database)


@pytest.mark.asyncio
async def test_a_batch_cancelled_while_its_commit_waits_for_a_worker_still_commits(
    tmp_path: Path,
) -> None:
    database, _ = _database(tmp_path / "b.db")
    asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(max_workers=1))
    inside, go_on, ending = asyncio.Event(), asyncio.Event(), asyncio.Event()

    async def batch() -> None:
        async with database.batch(store="t"):
            await _insert(database, 1)
            inside.set()
            await go_on.wait()
            ending.set()  # the commit goes to the one worker next, queued behind `occupied`

    committing = asyncio.create_task(batch())
    await inside.wait()
    free = threading.Event()
    occupied = asyncio.create_task(asyncio.to_thread(free.wait, HANG_GUARD_SECONDS))
    go_on.set()
    await ending.wait()
    committing.cancel()  # Ctrl-C or close() before a worker took the commit
    with pytest.raises(asyncio.CancelledError):
        await committing
    free.set()
    await occupied
    await _writes_on_after(database)  # and row 1 shows the batch was committed, not dropped
