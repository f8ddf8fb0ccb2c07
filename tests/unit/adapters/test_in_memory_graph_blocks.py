"""The in-memory graph store's blocks hold exactly what filing each entity afresh would.

Ids filed by a write wait unsorted until their key is next read (B101), so
these tests interleave bulk writes (many ids per key), re-writes that move
an entity between keys, deletions and reads at arbitrary points, and compare
every key's answer with the blocks computed from scratch: each key of each
live entity, its ids in ascending id-string order.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from redstring import Entity, TenantId
from redstring.domain.blocking import blocking_keys_for
from redstring.domain.ids import EntityId
from redstring.stores import InMemoryGraphStore

TENANTS = (TenantId(uuid.UUID(int=1)), TenantId(uuid.UUID(int=2)))
#: Few words, so keys are shared by many entities and a batch files well over 16 ids per key.
WORDS = ("ada", "lovelace", "alan", "turing", "grace", "hopper", "adams", "lovell")


def expected_blocks(live: dict[EntityId, Entity]) -> dict[str, list[EntityId]]:
    blocks: defaultdict[str, list[EntityId]] = defaultdict(list)
    for entity in live.values():
        for key in blocking_keys_for(entity):
            blocks[key].append(entity.id)
    return {key: sorted(ids, key=str) for key, ids in blocks.items()}


def entity(tenant: TenantId, number: int, words: list[str], aliases: list[str]) -> Entity:
    # Ids fixed by number (not derived from the name), so a later write of the same
    # number moves one entity to other keys; the same numbers in both tenants collide.
    # Hashed, so ids come in no order: a batch must be sorted to be filed right.
    return Entity(
        tenant_id=tenant,
        entity_type="person" if number % 3 else "organization",
        name=" ".join(words),
        aliases=aliases,
        id=EntityId(uuid.UUID(bytes=hashlib.sha256(b"%d" % number).digest()[:16])),
    )


TENANT_AT = st.sampled_from(range(len(TENANTS)))
names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3)
writes = st.lists(
    st.tuples(st.integers(0, 59), names, st.lists(st.sampled_from(WORDS), max_size=1)),
    min_size=1,
    max_size=60,
)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("write"), TENANT_AT, writes),
        st.tuples(st.just("delete"), TENANT_AT, st.lists(st.integers(0, 59))),
        st.tuples(st.just("read"), TENANT_AT, st.sampled_from(WORDS)),
    ),
    min_size=1,
    max_size=12,
)


async def check(store: InMemoryGraphStore, live: dict[EntityId, Entity], tenant: TenantId) -> None:
    expected = expected_blocks(live)
    every = [*expected, "w:none", "g:zzz"]  # keys nothing is filed under answer empty
    # Counted first: counting must see the ids still waiting, which a find would settle.
    counted = await store.count_blocking_keys(every, tenant, limit=10_000)
    assert counted == {key: len(expected.get(key, [])) for key in every}
    found = await store.find_ids_by_blocking_keys(every, tenant, limit=10_000)
    assert found == {key: [i.int for i in expected.get(key, [])] for key in every}


@settings(max_examples=60, deadline=None)
@given(steps)
def test_blocks_after_any_mix_of_writes_deletes_and_reads_equal_filing_afresh(
    plan: list[tuple[str, int, object]],
) -> None:
    async def run() -> None:
        store = InMemoryGraphStore()
        live: dict[TenantId, dict[EntityId, Entity]] = {tenant: {} for tenant in TENANTS}
        for action, which, argument in plan:
            tenant = TENANTS[which]
            if action == "write":
                assert isinstance(argument, list)
                batch = [entity(tenant, n, words, aliases) for n, words, aliases in argument]
                await store.upsert(batch)
                live[tenant].update((e.id, e) for e in batch)
            elif action == "delete":
                assert isinstance(argument, list)
                ids = [entity(tenant, n, ["x"], []).id for n in argument]
                await store.delete_entities(ids, tenant)
                for entity_id in ids:
                    live[tenant].pop(entity_id, None)
            else:  # a read settles some keys and leaves the others waiting
                await store.find_by_blocking_keys([f"w:{str(argument)[:4]}"], tenant)
        for tenant in TENANTS:
            await check(store, live[tenant], tenant)

    asyncio.run(run())


def test_a_bulk_load_read_part_way_and_capped_answers_the_first_members_by_id() -> None:
    async def run() -> None:
        store = InMemoryGraphStore()
        tenant = TENANTS[0]
        live: dict[EntityId, Entity] = {}
        for start in range(0, 400, 100):  # four batches, each filing 100 ids under "w:ada"
            numbers = range(start, start + 100)
            batch = [entity(tenant, n, ["ada", WORDS[n % 8]], []) for n in numbers]
            await store.upsert(batch)
            live.update((e.id, e) for e in batch)
            if start == 100:
                await check(store, live, tenant)
        assert (await store.count_blocking_keys(["w:ada"], tenant, limit=7)) == {"w:ada": 7}
        capped = await store.find_ids_by_blocking_keys(["w:ada"], tenant, limit=7)
        assert capped["w:ada"] == [i.int for i in sorted(live, key=str)[:7]]
        await store.rebuild_blocking_index(tenant)
        await check(store, live, tenant)

    asyncio.run(run())
