"""`PostgresDatabase.batch`: one task's reads and writes on one connection, one transaction."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest

from redstring import StoredChunk, TenantId
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.transactions import one_transaction
from redstring.storage.postgres import Connection, PostgresDatabase
from tests.factories import make_entity

type Admin = psycopg.AsyncConnection[Any]


class Boom(Exception):
    """Raised inside a batch on purpose."""


@pytest.mark.asyncio
async def test_a_batch_nests_reads_its_writes_and_rolls_back_whole(postgres_url: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    database = await PostgresDatabase.connect(postgres_url, schema=schema, min_size=1, max_size=3)
    q = database.sql

    async def create(connection: Connection) -> None:
        await connection.execute(q("CREATE TABLE {schema}.t (n integer PRIMARY KEY)"))

    async def insert(n: int) -> None:
        async def work(connection: Connection) -> None:
            await connection.execute(q("INSERT INTO {schema}.t (n) VALUES (%s)"), (n,))

        await database.write(work, store="t")

    async def rows() -> list[int]:
        async def work(connection: Connection) -> list[int]:
            cursor = await connection.execute(q("SELECT n FROM {schema}.t ORDER BY n"))
            return [int(n) for (n,) in await cursor.fetchall()]

        return await database.read(work, store="t")

    async def fail_in_batch() -> None:
        async with database.batch(store="t"):
            await insert(3)
            raise Boom

    try:
        await database.write(create, store="t")
        async with database.batch(store="t"):
            await insert(1)
            async with database.batch(store="t"):  # joins
                await insert(2)
            assert await rows() == [1, 2]  # read on the batch's connection
            with pytest.raises(Exception, match="duplicate"):
                await insert(1)  # undone alone: a savepoint
            await insert(4)
        with pytest.raises(Boom):
            await fail_in_batch()
        assert await rows() == [1, 2, 4]
    finally:
        await database.close()


# Cancelling a batch (Ctrl-C through the blocking client, `close()`) while it is
# inside its transaction: at rest in its body, with a statement of it running on
# the server, and with its COMMIT running there. None of the batch is visible
# after, its connection is in no transaction, and the next write and read go
# through a pool of that one connection.


async def _one_connection(url: str) -> PostgresDatabase:
    """A database whose pool holds one connection, so what follows reuses the batch's."""
    schema = f"t_{uuid.uuid4().hex[:12]}"
    database = await PostgresDatabase.connect(url, schema=schema, min_size=1, max_size=1)

    async def create(connection: Connection) -> None:
        await connection.execute(database.sql("CREATE TABLE {schema}.t (n integer PRIMARY KEY)"))

    await database.write(create, store="t")
    return database


async def _insert(database: PostgresDatabase, n: int) -> None:
    async def work(connection: Connection) -> None:
        await connection.execute(database.sql("INSERT INTO {schema}.t (n) VALUES (%s)"), (n,))

    await database.write(work, store="t")


async def _rows(database: PostgresDatabase) -> list[int]:
    async def work(connection: Connection) -> list[int]:
        cursor = await connection.execute(database.sql("SELECT n FROM {schema}.t ORDER BY n"))
        return [int(n) for (n,) in await cursor.fetchall()]

    return await database.read(work, store="t")


async def _backend(database: PostgresDatabase) -> int:
    """The server process of the connection this task reads on (its batch's, inside one)."""

    async def work(connection: Connection) -> int:
        cursor = await connection.execute("SELECT pg_backend_pid()")
        row = await cursor.fetchone()
        assert row is not None
        return int(row[0])

    return await database.read(work, store="t")


async def _state(admin: Admin, pid: int) -> tuple[str | None, str | None]:
    """The state and wait event type of server process `pid` (`None`s once it has gone).

    An idle process may show no wait event for a moment: compare its state only.
    """
    cursor = await admin.execute(
        "SELECT state, wait_event_type FROM pg_stat_activity WHERE pid = %s", (pid,)
    )
    row = await cursor.fetchone()
    return (None, None) if row is None else (row[0], row[1])


async def _until_waiting_on_a_lock(admin: Admin, pid: int) -> None:
    """Return once server process `pid` runs a statement waiting on a lock (held to 20 s)."""
    for _ in range(2_000):
        if await _state(admin, pid) == ("active", "Lock"):
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"process {pid} never waited on a lock")


async def _writes_on_after(database: PostgresDatabase, admin: Admin, pid: int) -> None:
    """The cancelled batch left nothing and no transaction open; the database writes on."""
    # The connection is idle, or was closed by the driver when the server could not
    # stop the statement (it then cannot be in a transaction either).
    assert (await _state(admin, pid))[0] in {"idle", None}
    cursor = await admin.execute(
        "SELECT count(*) FROM pg_stat_activity"
        " WHERE datname = current_database() AND state LIKE 'idle in transaction%%'"
    )
    assert await cursor.fetchone() == (0,)
    assert await _rows(database) == []
    await _insert(database, 3)
    assert await _rows(database) == [3]


@pytest.mark.asyncio
async def test_a_batch_of_the_stores_cancelled_while_its_body_waits_leaves_nothing(
    postgres_url: str,
) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema, max_size=1)
    tenant = TenantId(uuid.uuid4())
    text = "Ada Lovelace wrote the first program."
    passage = StoredChunk(
        tenant_id=tenant, source_id="ada", text=text, index=0, start=0, end=len(text)
    )
    inside, pids = asyncio.Event(), list[int]()

    async def batch() -> None:
        async with one_transaction(stores.events, stores.graph, stores.vectors, stores.chunks):
            await stores.chunks.upsert_chunks([passage])
            await stores.graph.upsert([make_entity(tenant_id=tenant)])
            pids.append(await _backend(stores.database))
            inside.set()
            await asyncio.Event().wait()  # until cancelled

    try:
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as admin:
            writing = asyncio.create_task(batch())
            await inside.wait()
            assert (await _state(admin, pids[0]))[0] == "idle in transaction"
            writing.cancel()  # Ctrl-C or close() while the batch awaits something else
            with pytest.raises(asyncio.CancelledError):
                await writing
            assert (await _state(admin, pids[0]))[0] == "idle"
            assert await stores.chunks.list_chunks(tenant) == []
            assert await stores.graph.list_entities(tenant) == []
            await stores.chunks.upsert_chunks([passage])
            assert [c.id for c in await stores.chunks.list_chunks(tenant)] == [passage.id]
            assert await _backend(stores.database) == pids[0]  # the very connection
    finally:
        await stores.close()


@pytest.mark.asyncio
async def test_a_batch_cancelled_while_its_statement_waits_on_the_server_leaves_nothing(
    postgres_url: str,
) -> None:
    database = await _one_connection(postgres_url)
    key = uuid.uuid4().int % 2**62  # an advisory lock of this test's own
    waiting, pids = asyncio.Event(), list[int]()

    async def take_the_lock(connection: Connection) -> None:
        await connection.execute("SELECT pg_advisory_xact_lock(%s)", (key,))

    async def batch() -> None:
        async with database.batch(store="t"):
            await _insert(database, 1)
            pids.append(await _backend(database))
            waiting.set()
            await database.write(take_the_lock, store="t")  # `admin` holds it
            await _insert(database, 2)

    try:
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as admin:
            await admin.execute("SELECT pg_advisory_lock(%s)", (key,))
            writing = asyncio.create_task(batch())
            await waiting.wait()
            await _until_waiting_on_a_lock(admin, pids[0])
            writing.cancel()  # Ctrl-C or close() while the server runs the batch's statement
            with pytest.raises(asyncio.CancelledError):
                await writing
            await _writes_on_after(database, admin, pids[0])
    finally:
        await database.close()


@pytest.mark.asyncio
async def test_a_batch_cancelled_while_its_commit_waits_on_the_server_leaves_nothing(
    postgres_url: str,
) -> None:
    database = await _one_connection(postgres_url)
    key = uuid.uuid4().int % 2**62
    # A deferred constraint trigger runs inside COMMIT: it holds the commit on a lock.
    hold_the_commit = (
        "CREATE FUNCTION {schema}.hold_commit() RETURNS trigger LANGUAGE plpgsql AS $$"
        f" BEGIN PERFORM pg_advisory_xact_lock({key}); RETURN NULL; END $$",
        "CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON {schema}.t"
        " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION {schema}.hold_commit()",
    )
    began, body_done, pids = asyncio.Event(), asyncio.Event(), list[int]()

    async def create(connection: Connection) -> None:
        for statement in hold_the_commit:
            await connection.execute(database.sql(statement))

    async def batch() -> None:
        async with database.batch(store="t"):
            pids.append(await _backend(database))
            began.set()
            await _insert(database, 1)
            await _insert(database, 2)
            body_done.set()

    try:
        await database.write(create, store="t")
        async with await psycopg.AsyncConnection.connect(postgres_url, autocommit=True) as admin:
            await admin.execute("SELECT pg_advisory_lock(%s)", (key,))
            writing = asyncio.create_task(batch())
            await began.wait()
            await _until_waiting_on_a_lock(admin, pids[0])
            assert body_done.is_set(), "a write of the batch waited: it committed alone"
            writing.cancel()  # Ctrl-C or close() while the server commits the batch
            with pytest.raises(asyncio.CancelledError):
                await writing
            await admin.execute("SELECT pg_advisory_unlock(%s)", (key,))  # the next commit's
            await _writes_on_after(database, admin, pids[0])
    finally:
        await database.close()
