"""The SQLite graph store's mirror of a tenant (ADR 0455): read whole once its token stands.

Every answer is held to a store on a new connection that keeps nothing (what
the file's statements answer now). Tenants share entity ids on purpose. Each
load runs in place here (on its own connection, in the read that starts it),
so a tenant is mirrored by the read that finds its token has stood; the load
in its own thread is `test_sqlite_graph_loads.py`'s (ADR 0465).
"""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
from collections.abc import Awaitable, Callable
from contextlib import closing
from pathlib import Path
from uuid import UUID

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redstring import Entity, EntityId, TenantId
from redstring.domain.blocking import query_blocking_keys, query_ngram_keys, query_token_keys
from redstring.domain.query import NormalizedQuery
from redstring.errors import DamagedRowError
from redstring.graph import sqlite_loads, sqlite_mirror, sqlite_reads
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage import sqlite_apart
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import CacheBudget, TenantCache

TENANT = TenantId(UUID(int=1))
OTHER = TenantId(UUID(int=2))
#: A key no entity is filed under, asked beside the held ones.
NOBODYS = "k:nobodysword"

type Reads = tuple[dict[str, int], dict[str, list[int]], dict[EntityId, list[str]]]


def in_place(run: Callable[[], None]) -> None:
    run()


@pytest.fixture(autouse=True)
def loads_in_place(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_apart, "_spawn", in_place)


@pytest.fixture
def at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every tenant read whole from its first read on."""
    monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 0)


def the_id(n: int) -> EntityId:
    return EntityId(UUID(int=(n << 100) + n))  # ids differing in their first bytes too


def keys_of(*queries: str) -> list[str]:
    keys: list[str] = [NOBODYS]
    for text in queries:
        query = NormalizedQuery.of(text)
        keys += [*query_blocking_keys(query), *query_ngram_keys(query), *query_token_keys(query)]
    return list(dict.fromkeys(keys))


KEYS = keys_of("Ada Lovelace", "Ada King")


async def reads(
    store: SqliteGraphStore,
    tenant: TenantId = TENANT,
    keys: list[str] = KEYS,
    cap: int = 3,
    ids: range = range(1, 13),
) -> Reads:
    return (
        await store.count_blocking_keys(keys, tenant, limit=cap),
        await store.find_ids_by_blocking_keys(keys, tenant, limit=cap),
        await store.get_names([the_id(n).int for n in ids], tenant),
    )


def person(tenant: TenantId, n: int, name: str, *aliases: str) -> Entity:
    return Entity(
        tenant_id=tenant, id=the_id(n), entity_type="person", name=name, aliases=list(aliases)
    )


async def opened(path: Path) -> SqliteGraphStore:
    store = SqliteGraphStore(SqliteDatabase(path), migrate=True)
    await store.upsert(
        [person(TENANT, n, f"Ada Lovelace {n}") for n in range(1, 6)]
        + [person(TENANT, 6, "Augusta Byron", "Ada King")]
        + [person(OTHER, n, f"Ada King of {n}") for n in range(1, 4)]
    )
    return store


def unkept(path: Path) -> SqliteGraphStore:
    return SqliteGraphStore(SqliteDatabase(path), cache_bytes=0)


def traced(store: SqliteGraphStore) -> Callable[[Awaitable[object]], Awaitable[list[str]]]:
    """Await a read of the store, returning the statements it ran on the file's tables."""

    async def run(read: Awaitable[object]) -> list[str]:
        statements: list[str] = []
        store._db.connection.set_trace_callback(statements.append)
        try:
            await read
        finally:
            store._db.connection.set_trace_callback(None)
        return [s for s in statements if "graph_keys" in s or "graph_entities" in s]

    return run


def counted[**P, R](tenants: list[str], load: Callable[P, R]) -> Callable[P, R]:
    """`load`, noting the tenant (its second argument) of each call in `tenants`."""

    def noted(*args: P.args, **kwargs: P.kwargs) -> R:
        tenants.append(str(args[1]))
        return load(*args, **kwargs)

    return noted


def mirrored(store: SqliteGraphStore, tenant: TenantId = TENANT) -> bool:
    held = store._reads.peek(str(tenant))
    return held is not None and held.mirror is not None


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_a_mirrored_tenant_reads_nothing_of_the_file_but_its_token(tmp_path: Path) -> None:
    store = await opened(tmp_path / "g.db")
    run = traced(store)
    assert not any("GROUP BY key" in s for s in await run(reads(store)))  # on its own
    assert mirrored(store)
    assert await run(reads(store, keys=keys_of("Byron Lovelace"), cap=1000)) == []
    assert await reads(store) == await reads(unkept(tmp_path / "g.db"))


@pytest.mark.asyncio
async def test_the_mirror_waits_until_the_token_has_stood_for_its_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 6)
    tried: list[str] = []
    monkeypatch.setattr(sqlite_loads, "load_mirror", counted(tried, sqlite_mirror.load_mirror))
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)
    await reads(store)  # six reads served per key
    assert not mirrored(store)
    assert tried == []
    await reads(store)
    assert tried == [str(TENANT)]
    assert mirrored(store)
    await store.upsert([person(TENANT, 7, "Ada Lovelace")])  # a new token: per key again
    assert await reads(store) == await reads(unkept(path))
    assert not mirrored(store)


@pytest.mark.asyncio
async def test_a_write_through_another_connection_retires_the_mirror(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 3)
    path = tmp_path / "g.db"
    store = await opened(path)
    before = await reads(store)
    await reads(store)
    assert mirrored(store)
    elsewhere = SqliteGraphStore(SqliteDatabase(path))
    await elsewhere.upsert([person(TENANT, 8, "Ada Lovelace"), person(TENANT, 2, "Bob Ross")])
    after = await reads(store)
    assert after != before
    assert after == await reads(unkept(path))
    assert not mirrored(store)
    await reads(store)  # the new token stood for three reads: read whole again
    assert mirrored(store)
    await elsewhere.delete_entities([the_id(1)], TENANT)
    assert await reads(store) == await reads(unkept(path))


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_a_tenant_over_the_cap_is_read_per_key_and_answers_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_loads, "MAX_TENANT_READS_BYTES", 3000)
    tried: list[str] = []
    monkeypatch.setattr(sqlite_loads, "load_mirror", counted(tried, sqlite_mirror.load_mirror))
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)
    await reads(store)
    assert tried == [str(TENANT)]  # tried once
    held = store._reads.peek(str(TENANT))
    assert held is not None
    assert held.refused
    assert held.mirror is None
    assert await reads(store) == await reads(unkept(path))
    assert await reads(store, OTHER) == await reads(unkept(path), OTHER)


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_a_mirror_takes_only_room_no_other_cache_holds(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    await opened(path)
    budget = CacheBudget(1 << 20)
    matrices = TenantCache[int](budget, lambda size: size)
    matrices.get("a tenant", "its token", lambda: budget.max_bytes - 2000)
    store = SqliteGraphStore(SqliteDatabase(path), cache_bytes=budget)
    assert await store.count_blocking_keys([NOBODYS], TENANT) == {NOBODYS: 0}
    assert not mirrored(store)
    assert len(matrices) == 1  # not evicted for the mirror
    assert await reads(store) == await reads(unkept(path))
    matrices.get("a tenant", "a new token", lambda: 0)  # the room is free again
    await store.upsert([person(TENANT, 7, "Ada Lovelace")])
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_tenants_with_the_same_ids_are_mirrored_apart(tmp_path: Path) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    mine, theirs = await reads(store), await reads(store, OTHER)
    assert mirrored(store)
    assert mirrored(store, OTHER)
    assert mine[2][the_id(1).int] == ["Ada Lovelace 1"]
    assert theirs[2][the_id(1).int] == ["Ada King of 1"]
    assert the_id(6).int not in theirs[2]
    assert theirs == await reads(unkept(path), OTHER)
    assert mine == await reads(unkept(path))


def swap_rows(raw: sqlite3.Connection, one: tuple[str, str], other: tuple[str, str]) -> None:
    """Give two entity rows (tenant, id) each other's row number; no token changes."""
    where = "WHERE tenant_id = ? AND id = ?"
    numbers = [
        raw.execute(f"SELECT rowid FROM graph_entities {where}", key).fetchone()[0]
        for key in (one, other)
    ]
    raw.execute(f"UPDATE graph_entities SET rowid = -1 {where}", one)
    raw.execute(f"UPDATE graph_entities SET rowid = ? {where}", (numbers[0], *other))
    raw.execute("UPDATE graph_entities SET rowid = ? WHERE rowid = -1", (numbers[1],))
    assert raw.execute(f"SELECT rowid FROM graph_entities {where}", one).fetchone()[0] == numbers[1]


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_entities_read_by_row_number_are_checked_against_their_tenant_and_id(
    tmp_path: Path,
) -> None:
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)
    assert mirrored(store)

    async def entities(ids: list[int], tenant: TenantId = TENANT) -> list[tuple[TenantId, str]]:
        found = await store.get_entities([the_id(n) for n in ids], tenant)
        return sorted((e.tenant_id, e.name) for e in found)

    assert await entities([1, 2, 6, 99]) == [
        (TENANT, "Ada Lovelace 1"),
        (TENANT, "Ada Lovelace 2"),
        (TENANT, "Augusta Byron"),
    ]
    # Rows renumbered under the standing token (as a VACUUM may): id 1's rows of both
    # tenants trade numbers, and so do ids 2 and 3 of the searched tenant.
    with closing(sqlite3.connect(path)) as raw, raw:
        swap_rows(raw, (str(TENANT), str(the_id(1))), (str(OTHER), str(the_id(1))))
        swap_rows(raw, (str(TENANT), str(the_id(2))), (str(TENANT), str(the_id(3))))
    assert mirrored(store)
    assert await entities([1]) == [(TENANT, "Ada Lovelace 1")]
    assert await entities([1], OTHER) == [(OTHER, "Ada King of 1")]
    assert await entities([2]) == [(TENANT, "Ada Lovelace 2")]
    assert await entities([2, 3]) == [(TENANT, "Ada Lovelace 2"), (TENANT, "Ada Lovelace 3")]


@pytest.mark.asyncio
@pytest.mark.parametrize("whole", [True, False], ids=["mirrored", "per key"])
async def test_an_entity_row_holding_another_rows_json_is_named_as_damaged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: bool
) -> None:
    """Valid JSON of another row: the same id of another tenant, another id of the same
    tenant. Each read of it by id, mirrored or not, raises `DamagedRowError` naming it."""
    if whole:
        monkeypatch.setattr(sqlite_reads, "MIRROR_AFTER_READS", 0)
    path = tmp_path / "g.db"
    store = await opened(path)
    await reads(store)
    await reads(store, OTHER)
    assert mirrored(store) == whole
    assert mirrored(store, OTHER) == whole
    copy = "UPDATE graph_entities SET body = (SELECT body FROM graph_entities WHERE tenant_id = ?"
    with closing(sqlite3.connect(path)) as raw, raw:  # no token moves: the mirror stands
        where = " AND id = ?) WHERE tenant_id = ? AND id = ?"
        raw.execute(copy + where, (str(TENANT), str(the_id(1)), str(OTHER), str(the_id(1))))
        raw.execute(copy + where, (str(TENANT), str(the_id(3)), str(TENANT), str(the_id(2))))
    for tenant, n in ((OTHER, 1), (TENANT, 2)):
        with pytest.raises(DamagedRowError) as raised:
            await store.get_entities([the_id(4), the_id(n)], tenant)
        assert (raised.value.tenant, raised.value.row) == (str(tenant), f"entity {the_id(n)}")
        assert raised.value.problem == "its JSON holds another row's id or tenant"
    assert mirrored(store) == whole
    found = await store.get_entities([the_id(1), the_id(3)], TENANT)
    assert sorted(e.name for e in found) == ["Ada Lovelace 1", "Ada Lovelace 3"]
    assert [e.name for e in await store.get_entities([the_id(2)], OTHER)] == ["Ada King of 2"]


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_keys_of_one_hash_stay_apart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_mirror, "hash", lambda key: 7, raising=False)
    path = tmp_path / "g.db"
    store = await opened(path)
    assert await reads(store) == await reads(unkept(path))
    assert mirrored(store)


@pytest.mark.asyncio
@pytest.mark.usefixtures("at_once")
async def test_a_mirrored_read_waits_for_another_tasks_batch_in_a_thread(tmp_path: Path) -> None:
    """A read on the event loop's thread would wait there for a batch it blocks."""
    path = tmp_path / "g.db"
    answers: list[Reads] = []

    async def scenario() -> None:
        store = await opened(path)
        await reads(store)
        assert mirrored(store)
        written = asyncio.Event()

        async def write_in_a_batch() -> None:
            async with store._db.batch(store="test"):
                await store.upsert([person(TENANT, 9, "Ada Lovelace")])
                written.set()
                await asyncio.sleep(0.05)

        writer = asyncio.create_task(write_in_a_batch())
        await written.wait()
        answers.append(await reads(store))  # waits for the batch's commit
        await writer

    worker = threading.Thread(target=asyncio.run, args=(scenario(),), daemon=True)
    worker.start()
    worker.join(timeout=20)
    assert not worker.is_alive(), "the read held the event loop the batch needed"
    assert answers == [await reads(unkept(path))]
    assert the_id(9).int in answers[0][2]


NAMES = st.sampled_from(["Ada", "Ada Lovelace", "Lovelace Ada", "Ada King", "Adam", "Kin Ada"])


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    entities=st.lists(
        st.tuples(st.integers(1, 12), st.booleans(), NAMES, st.lists(NAMES, max_size=2)),
        min_size=1,
        max_size=24,
    ),
    queries=st.lists(NAMES, min_size=1, max_size=3),
    cap=st.integers(1, 6),
)
def test_a_mirror_answers_as_the_files_statements(
    entities: list[tuple[int, bool, str, list[str]]], queries: list[str], cap: int
) -> None:
    """Random tenants sharing ids and names: every count, capped block and name alike."""

    async def check(path: Path) -> None:
        store = SqliteGraphStore(SqliteDatabase(path))
        await store.upsert(
            [
                person(OTHER if other else TENANT, n, name, *aliases)
                for n, other, name, aliases in entities
            ]
        )
        keys = keys_of(*queries)
        for tenant in (TENANT, OTHER):
            held = await reads(store, tenant, keys, cap)
            assert held == await reads(unkept(path), tenant, keys, cap)
            holds = any(other == (tenant == OTHER) for _, other, _, _ in entities)
            assert mirrored(store, tenant) == holds

    with tempfile.TemporaryDirectory() as folder:
        old = sqlite_reads.MIRROR_AFTER_READS
        sqlite_reads.MIRROR_AFTER_READS = 0
        try:
            asyncio.run(check(Path(folder) / "g.db"))
        finally:
            sqlite_reads.MIRROR_AFTER_READS = old


@pytest.mark.asyncio
async def test_a_tenant_is_not_read_whole_past_its_bytes_nor_with_a_stray_key_row(
    tmp_path: Path,
) -> None:
    """Each refusal leaves the tenant read per key: too many entities for the bytes, too
    many key rows for them, a damaged name, a key row naming an entity the tenant does not
    hold, or no entity at all."""
    path = tmp_path / "g.db"
    await opened(path)
    tenant, roomy = str(TENANT), 1 << 20

    def load(max_bytes: int = roomy) -> sqlite_mirror.TenantMirror | None:
        with closing(sqlite3.connect(path)) as raw:
            return sqlite_mirror.load_mirror(raw, tenant, max_bytes)

    whole = load()
    assert whole is not None
    assert whole.names_of([the_id(6).int]) == {the_id(6).int: ["Augusta Byron", "Ada King"]}
    assert load(6 * 200 - 1) is None  # six entities of at least 200 bytes each
    assert load(6 * 200) is None  # room for the entities alone
    assert load(whole.nbytes - 1) is None  # room for the rows, not for the mirror built
    assert load(whole.nbytes) is not None
    with closing(sqlite3.connect(path)) as raw:  # a tenant the file never numbered
        assert sqlite_mirror.load_mirror(raw, str(UUID(int=77)), roomy) is None
    damaged = "UPDATE graph_entities SET body = json_set(body, '$.aliases', ?) WHERE id = ?"
    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute(damaged, (5, str(the_id(6))))  # aliases no list: the file names the row
    assert load() is None
    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute(damaged.replace("?, ", "json(?), "), ('["Ada King"]', str(the_id(6))))
    assert load() is not None
    with closing(sqlite3.connect(path)) as raw, raw:
        [(number,)] = raw.execute(
            "SELECT number FROM graph_tenants WHERE tenant_id = ?", (tenant,)
        ).fetchall()
        stray = (number, "stray key", the_id(99).bytes)
        raw.execute("INSERT INTO graph_keys VALUES (?, ?, ?)", stray)
    assert load() is None
    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute("DELETE FROM graph_entities WHERE tenant_id = ?", (tenant,))
    assert load() is None
