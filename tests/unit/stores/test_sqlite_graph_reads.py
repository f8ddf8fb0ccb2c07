"""The SQLite graph store's kept reads (ADR 0450): served while the tenant's token stands.

Each test reads through a store that keeps what it read, writes (through it,
through another connection to the same file, or in a batch that rolls
back), and holds its reads to those of a store on a new connection that
keeps nothing. Tests using `kept` run twice: reads kept per key, and the
tenant read whole into its mirror from the first read (ADR 0455).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path
from uuid import UUID

import pytest

from redstring import Entity, EntityId, TenantId
from redstring.domain.blocking import query_blocking_keys, query_ngram_keys, query_token_keys
from redstring.domain.query import NormalizedQuery
from redstring.graph import sqlite_reads
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage import sqlite_apart
from redstring.storage.sqlite import SqliteDatabase

TENANT = TenantId(UUID(int=1))
OTHER = TenantId(UUID(int=2))
QUERY = NormalizedQuery.of("Ada Lovelace")
KEYS = list(
    dict.fromkeys([*query_blocking_keys(QUERY), *query_ngram_keys(QUERY), *query_token_keys(QUERY)])
)

type Reads = tuple[dict[str, int], dict[str, int], dict[str, list[int]], dict[EntityId, list[str]]]


@pytest.fixture(params=["per key", "mirrored"])
def kept(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """How the store keeps its reads: per key, or whole from the first read."""
    if request.param == "mirrored":  # the load run in place, so the first read is mirrored
        monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 0)
        monkeypatch.setattr(sqlite_apart, "_spawn", lambda run: run())
    return str(request.param)


def the_id(n: int) -> EntityId:
    return EntityId(UUID(int=0x100 + n))  # none is a tenant's text


def person(tenant: TenantId, n: int, name: str, *aliases: str) -> Entity:
    return Entity(
        tenant_id=tenant, id=the_id(n), entity_type="person", name=name, aliases=list(aliases)
    )


async def reads(store: SqliteGraphStore, tenant: TenantId = TENANT) -> Reads:
    """Every read the store keeps: counts at two caps, capped blocks, names of ids 1..12."""
    return (
        await store.count_blocking_keys(KEYS, tenant, limit=3),
        await store.count_blocking_keys(KEYS, tenant),
        await store.find_ids_by_blocking_keys(KEYS, tenant, limit=3),
        await store.get_names([the_id(n).int for n in range(1, 13)], tenant),
    )


async def opened(path: Path) -> SqliteGraphStore:
    store = SqliteGraphStore(SqliteDatabase(path), migrate=True)
    await store.upsert(
        [person(TENANT, n, f"Ada Lovelace {n}") for n in range(1, 6)]
        + [person(TENANT, 6, "Augusta Byron", "Ada Lovelace")]
        + [person(OTHER, n, f"Ada Lovelace of {n}") for n in range(1, 4)]
    )
    for tenant in (TENANT, OTHER):  # a token another write gave: each upsert must replace it
        await store.delete_entities([the_id(99)], tenant)
    return store


def unkept(path: Path) -> SqliteGraphStore:
    """A store on a new connection that keeps nothing: what the file holds now."""
    return SqliteGraphStore(SqliteDatabase(path), cache_bytes=0)


def block_reads(store: SqliteGraphStore) -> Callable[[], Awaitable[list[str]]]:
    """`reads` of the store, returning the statements that read blocks or bodies."""

    async def traced() -> list[str]:
        statements: list[str] = []
        store._db.connection.set_trace_callback(statements.append)
        try:
            await reads(store)
        finally:
            store._db.connection.set_trace_callback(None)
        return [s for s in statements if "graph_keys" in s or "graph_entities" in s]

    return traced


@pytest.mark.asyncio
async def test_a_second_read_reads_no_block_and_no_held_name_again(tmp_path: Path) -> None:
    store = await opened(tmp_path / "g.db")
    traced = block_reads(store)
    assert await traced() != []
    # Only the token is read again, and the names of the ids the tenant lacks (7..12).
    [again] = await traced()
    assert str(the_id(7)) in again
    assert all(str(the_id(n)) not in again for n in range(1, 7))
    assert await reads(store) == await reads(unkept(tmp_path / "g.db"))


@pytest.mark.asyncio
@pytest.mark.usefixtures("kept")
async def test_kept_reads_follow_every_write_of_the_store_itself(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    writes: list[Callable[[], Awaitable[None]]] = [
        lambda: store.upsert([person(TENANT, 7, "Ada Lovelace"), person(TENANT, 2, "Bob Ross")]),
        lambda: store.upsert([person(TENANT, 3, "Ada Lovelace 3", "Ada King")]),
        lambda: store.delete_entities([the_id(1), the_id(6)], TENANT),
        lambda: store.rebuild_blocking_index(TENANT),
        lambda: store.purge_tenant(TENANT),
        lambda: store.upsert([person(TENANT, 9, "Ada Lovelace")]),
    ]
    for write in writes:
        await reads(store)
        await write()
        assert await reads(store) == await reads(unkept(path))
        assert await reads(store, OTHER) == await reads(unkept(path), OTHER)


@pytest.mark.asyncio
@pytest.mark.usefixtures("kept")
async def test_a_write_through_another_connection_retires_the_kept_reads(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    elsewhere = SqliteGraphStore(SqliteDatabase(path))
    before = await reads(store)
    await reads(elsewhere)
    await elsewhere.upsert([person(TENANT, 8, "Ada Lovelace"), person(TENANT, 4, "Ada King")])
    after = await reads(store)
    assert after != before
    assert after == await reads(unkept(path))
    await elsewhere.delete_entities([the_id(8)], TENANT)
    assert await reads(store) == await reads(unkept(path))
    assert await reads(elsewhere) == await reads(unkept(path))


@pytest.mark.asyncio
@pytest.mark.usefixtures("kept")
async def test_reads_kept_inside_a_batch_that_rolls_back_are_never_served(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    before = await reads(store)

    async def write_read_then_fail() -> None:
        async with store._db.batch(store="test"):
            await store.upsert([person(TENANT, 10, "Ada Lovelace"), person(TENANT, 2, "Ada X")])
            assert await reads(store) != before  # the batch reads its own write
            raise RuntimeError("undo")

    with pytest.raises(RuntimeError, match="undo"):
        await write_read_then_fail()
    assert await reads(store) == before == await reads(unkept(path))


@pytest.mark.asyncio
@pytest.mark.usefixtures("kept")
async def test_changing_what_a_read_returned_changes_nothing_kept(tmp_path: Path) -> None:
    store = await opened(tmp_path / "g.db")
    first = await reads(store)
    expected = await reads(unkept(tmp_path / "g.db"))
    for block in first[2].values():
        block.clear()
    for names in first[3].values():
        names.append("Mallory")
    assert await reads(store) == expected


@pytest.mark.asyncio
@pytest.mark.usefixtures("kept")
async def test_the_same_ids_in_two_tenants_are_kept_apart(tmp_path: Path) -> None:
    store = await opened(tmp_path / "g.db")
    mine, theirs = await reads(store), await reads(store, OTHER)
    assert mine[3][the_id(1).int] == ["Ada Lovelace 1"]
    assert theirs[3][the_id(1).int] == ["Ada Lovelace of 1"]
    assert the_id(6).int not in theirs[3]
    assert (mine, theirs) == (await reads(store), await reads(store, OTHER))


@pytest.mark.asyncio
@pytest.mark.usefixtures("kept")
async def test_a_rebuild_retires_the_reads_kept_of_a_lost_index(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    with closing(sqlite3.connect(path)) as raw, raw:  # key rows lost under a new token
        raw.execute("DELETE FROM graph_keys")
        raw.execute("UPDATE graph_generations SET token = 'lost'")
    lost = await reads(store)
    assert lost[1] == dict.fromkeys(KEYS, 0)
    await store.rebuild_blocking_index(TENANT)
    assert await reads(store) == await reads(unkept(path)) != lost
