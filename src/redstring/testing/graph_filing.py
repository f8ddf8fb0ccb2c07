"""How a graph store files and unfiles blocking keys: id order, tenants, repeats.

Mixed into `GraphStoreCompliance`. A store may keep its key index in any
form (ADR 0260 files an id's bytes and finds an entity's rows through its own
row rather than an index); these tests pin what such a form must keep: a
block lists its members in the order of their ids' text whatever position
the ids differ in, removing or re-filing an id in one tenant leaves the same
id in another filed as it was, and an id written twice in one batch is filed
under its last version's keys only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from uuid import UUID

import pytest

from redstring.domain.blocking import blocking_keys_for, prefix_key_for_name, token_keys_for
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import EntityId
from redstring.domain.validation import MAX_NAME_LENGTH
from redstring.ports.graph_store import GraphStore
from redstring.testing._graph_entities import filed_ids, person
from redstring.testing._support import fixed_id, fresh_tenant

#: Ids whose text order differs from the order of their first field read
#: little-endian, of their last field, and of their insertion here.
_SCRAMBLED = [
    EntityId(UUID(text))
    for text in (
        "01000000-0000-4000-8000-000000000000",
        "00000002-0000-4000-8000-000000000000",
        "00000001-0001-4000-8000-000000000001",
        "00000001-0000-4000-8000-00000000000a",
        "00000001-0000-4000-8000-000000000009",
        "f0000000-0000-4000-8000-000000000000",
    )
]


class GraphKeyFilingCompliance(ABC):
    """Filing behaviour any `GraphStore` must show; see the module docstring."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_a_block_follows_the_id_text_wherever_the_ids_differ(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        await store.upsert([person(tenant, f"Lovelace {n}", i) for n, i in enumerate(_SCRAMBLED)])
        [key, *_] = token_keys_for("lovelace")
        by_text = sorted(_SCRAMBLED, key=str)
        assert (await filed_ids(store, [key], tenant)) == {key: by_text}
        capped = await store.find_by_blocking_keys([key], tenant, limit=2)
        assert [e.id for e in capped[key]] == by_text[:2]

    @pytest.mark.asyncio
    async def test_unfiling_an_id_in_one_tenant_leaves_it_filed_in_another(self) -> None:
        store = await self.make_store()
        first, second = fresh_tenant(), fresh_tenant()
        shared = fixed_id(1)
        mine, theirs = person(first, "Ada Lovelace", shared), person(second, "Ada Lovelace", shared)
        await store.upsert([mine])
        await store.upsert([theirs])
        keys = sorted(blocking_keys_for(theirs))
        await store.upsert([person(first, "Zelda Zimmer", shared)])  # re-filed in `first`
        assert all(v == [shared] for v in (await filed_ids(store, keys, second)).values())
        await store.delete_entities([shared], first)
        found = await filed_ids(store, keys, second)
        assert all(members == [shared] for members in found.values())
        zelda = prefix_key_for_name("Zelda Zimmer")
        assert await filed_ids(store, [zelda], first) == {zelda: []}

    @pytest.mark.asyncio
    async def test_a_purged_tenant_is_unfiled_and_can_be_filed_again(self) -> None:
        store = await self.make_store()
        first, second = fresh_tenant(), fresh_tenant()
        shared = fixed_id(1)
        await store.upsert([person(first, "Ada Lovelace", shared)])
        await store.upsert([person(second, "Ada Lovelace", shared)])
        key = prefix_key_for_name("Ada Lovelace")
        await store.purge_tenant(first)
        assert await filed_ids(store, [key], first) == {key: []}
        assert await store.count_blocking_keys([key], first) == {key: 0}
        assert await filed_ids(store, [key], second) == {key: [shared]}
        await store.upsert([person(first, "Ada Lovelock", fixed_id(2))])
        assert await filed_ids(store, [key], first) == {key: [fixed_id(2)]}
        assert await filed_ids(store, [key], second) == {key: [shared]}

    @pytest.mark.asyncio
    async def test_an_id_written_twice_in_one_batch_is_filed_as_its_last_version(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada, zelda = (
            person(tenant, "Ada Lovelace", fixed_id(1)),
            person(tenant, "Zelda Zimmer", fixed_id(1)),
        )
        await store.upsert([ada, zelda])
        old, new = prefix_key_for_name("Ada Lovelace"), prefix_key_for_name("Zelda Zimmer")
        for _ in range(2):  # and again after writing it unchanged: filed once, not twice
            assert await store.get_entities([fixed_id(1)], tenant) == [zelda]
            found = await filed_ids(store, [old, new], tenant)
            assert found == {old: [], new: [fixed_id(1)]}
            await store.upsert([zelda])
        await store.delete_entities([fixed_id(1)], tenant)
        assert await store.count_blocking_keys([old, new], tenant) == {old: 0, new: 0}

    @pytest.mark.asyncio
    async def test_removing_from_a_tenant_that_holds_nothing_changes_nothing(self) -> None:
        store = await self.make_store()
        tenant, empty = fresh_tenant(), fresh_tenant()
        ada = person(tenant, "Ada Lovelace", fixed_id(1))
        await store.upsert([ada])
        await store.delete_entities([fixed_id(1)], empty)
        await store.purge_tenant(empty)
        key = prefix_key_for_name("Ada Lovelace")
        assert await filed_ids(store, [key], tenant) == {key: [fixed_id(1)]}
        assert await filed_ids(store, [key], empty) == {key: []}
        assert await store.get_entities([fixed_id(1)], tenant) == [ada]

    @pytest.mark.asyncio
    async def test_a_lone_key_string_or_a_dict_for_an_entity_is_refused_naming_it(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace", entity_id=fixed_id(1))
        await store.upsert([ada])
        key = sorted(blocking_keys_for(ada))[0]
        for method in (store.find_by_blocking_keys, store.find_ids_by_blocking_keys):
            with pytest.raises(InvalidArgumentError, match=r"keys") as refused:
                await method(key, tenant)
            assert refused.value.name == "keys"
            assert str([key]) in str(refused.value)  # the fix: a list of one key
        entity_as_dict = ada.model_dump(mode="json")
        with pytest.raises(InvalidArgumentError, match=r"entities\[0\]") as refused:
            await store.upsert([entity_as_dict])  # type: ignore[list-item]
        assert "Entity" in str(refused.value)
        with pytest.raises(InvalidArgumentError, match=r"relationships\[0\]"):
            await store.upsert([], [entity_as_dict])  # type: ignore[list-item]
        with pytest.raises(InvalidArgumentError, match="entities"):
            await store.upsert(ada)  # type: ignore[arg-type]
        assert (await store.find_by_blocking_keys([key], tenant))[key] == [ada]

    @pytest.mark.asyncio
    async def test_a_name_or_alias_longer_than_the_limit_is_refused_before_any_key_is_filed(
        self,
    ) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        longest = "a" * MAX_NAME_LENGTH
        kept = person(tenant, longest, entity_id=fixed_id(1))
        await store.upsert([kept])
        too_long = person(tenant, longest + "b", entity_id=fixed_id(2))
        with pytest.raises(InvalidArgumentError, match=r"entities\[0\]\.name") as refused:
            await store.upsert([too_long])
        assert str(MAX_NAME_LENGTH) in str(refused.value)
        aliased = kept.model_copy(update={"entity_id": fixed_id(3), "name": "Ada",
                                          "aliases": ["Ada", longest + "b"]})  # fmt: skip
        with pytest.raises(InvalidArgumentError, match=r"entities\[0\]\.aliases\[1\]"):
            await store.upsert([aliased])
        assert await store.list_entities(tenant) == [kept]
