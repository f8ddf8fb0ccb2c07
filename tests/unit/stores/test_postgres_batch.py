"""`PostgresDatabase.batch`: one task's reads and writes on one connection, one transaction."""

from __future__ import annotations

import uuid

import pytest

from redstring.storage.postgres import Connection, PostgresDatabase


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
