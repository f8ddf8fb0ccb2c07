"""A PostgreSQL server nobody can reach: a read says so, a write keeps its batch's wording.

Reading commands (`passages`, `search`, `stats`) and client reads on an
unreachable server said "Nothing of the current batch was written; check that
the database is reachable and writable", which sends a reader after a batch
and a permission that were never in question. Every test reaches a real
address nothing answers on: a port of this host held bound and never
listened on, so each connection is refused at once and nobody else can take
the port meanwhile.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest
from psycopg_pool import AsyncConnectionPool

from redstring import AsyncRedstring, Redstring
from redstring.errors import StoreUnavailableError
from redstring.storage.postgres import Connection, PostgresDatabase
from tests.unit.cli.console import assert_one_error_line, redstring

#: What only a failed write (its batch rolled back) may say.
BATCH_WORDING = ("Nothing of the current batch was written", "writable")


@pytest.fixture
def unreachable() -> Iterator[str]:
    """A PostgreSQL URL at a port of this host that refuses every connection."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        port = held.getsockname()[1]
        yield f"postgresql://redstring@127.0.0.1:{port}/nowhere"


def _says_a_read_failed(message: str) -> None:
    assert "unavailable" in message
    assert "Nothing was written" in message
    assert "URL" in message
    assert "server is running" in message
    for wording in BATCH_WORDING:
        assert wording not in message


@pytest.mark.parametrize(
    "command", [["passages", "ada"], ["search", "ada"], ["stats"]], ids=lambda c: c[0]
)
def test_a_reading_command_on_an_unreachable_server_says_it_could_not_reach_it(
    unreachable: str, command: list[str]
) -> None:
    ran = redstring(*command, "--db", unreachable)
    _says_a_read_failed(assert_one_error_line(ran))


def test_a_client_on_an_unreachable_server_says_it_could_not_reach_it(unreachable: str) -> None:
    with pytest.raises(StoreUnavailableError) as refused:
        Redstring(unreachable, embeddings="none")  # the blocking client opens as it is made
    _says_a_read_failed(str(refused.value))


def test_an_async_client_search_on_an_unreachable_server_says_it_could_not_reach_it(
    unreachable: str,
) -> None:
    async def scenario() -> StoreUnavailableError:
        rs = AsyncRedstring(unreachable, embeddings="none")  # opens on its first call
        try:
            await rs.search("ada", mode="lexical")
        except StoreUnavailableError as refused:
            return refused
        finally:
            await rs.close()
        raise AssertionError("the search was answered")

    _says_a_read_failed(str(asyncio.run(scenario())))


def _database(url: str) -> PostgresDatabase:
    """A database whose pool reaches for `url` (opened without waiting for a connection)."""
    pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
        url, min_size=1, max_size=1, timeout=1.0, open=False, kwargs={"connect_timeout": 1}
    )
    return PostgresDatabase(pool, schema="redstring", name="PostgresDatabase(unreachable)")


async def _nothing(connection: Connection) -> None:
    await connection.execute("SELECT 1")


def test_a_read_that_loses_the_server_says_nothing_was_written_and_to_check_it(
    unreachable: str,
) -> None:
    async def scenario() -> StoreUnavailableError:
        database = _database(unreachable)
        await database.pool.open(wait=False)
        try:
            await database.read(_nothing, store="PostgresGraphStore(test)")
        except StoreUnavailableError as refused:
            return refused
        finally:
            await database.close()
        raise AssertionError("the read was answered")

    refused = asyncio.run(scenario())
    assert refused.store == "PostgresGraphStore(test)"
    _says_a_read_failed(str(refused))


@pytest.mark.parametrize("way", ["write", "batch"])
def test_a_write_that_loses_the_server_keeps_its_batch_wording(unreachable: str, way: str) -> None:
    async def scenario() -> StoreUnavailableError:
        database = _database(unreachable)
        await database.pool.open(wait=False)
        try:
            if way == "write":
                await database.write(_nothing, store="PostgresGraphStore(test)")
            else:
                async with database.batch(store="PostgresGraphStore(test)"):
                    await database.read(_nothing, store="PostgresGraphStore(test)")
        except StoreUnavailableError as refused:
            return refused
        finally:
            await database.close()
        raise AssertionError("the write was answered")

    message = str(asyncio.run(scenario()))
    for wording in BATCH_WORDING:
        assert wording in message
