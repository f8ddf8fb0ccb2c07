"""The contract of a graph store's exact-name, joined, pair and trigram keys, and its counts.

Mixed into `GraphStoreCompliance`, so every graph store runs it (ADR 0115, 0200).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.blocking import blocking_keys_for, exact_key_for_name, query_ngram_keys
from redstring.domain.ids import EntityId
from redstring.domain.ngrams import ngram_keys_of_form
from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery
from redstring.ports.graph_store import GraphStore
from redstring.testing._graph_entities import filed_ids, person
from redstring.testing._support import fixed_id, fresh_tenant, property_settings


def trigram_keys(name: str) -> list[str]:
    """The sorted trigram keys of one name."""
    return sorted(ngram_keys_of_form(matching_form(name)))


def exact_key(name: str) -> str:
    """The `n:` key of a non-blank name."""
    key = exact_key_for_name(name)
    assert key is not None
    return key


class TrigramIndexCompliance(ABC):
    """Exact-name and trigram keys filed, counted, capped and kept per tenant."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_each_name_and_alias_is_filed_under_its_exact_form_and_trigrams(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace", fixed_id(1), aliases=["Tchaikovsky"])
        await store.upsert([ada, person(tenant, "Bob Quinn", fixed_id(2))])
        keys = [*trigram_keys("Ada Lovelace"), *trigram_keys("Tchaikovsky")]
        keys += [exact_key("ada LOVELACE"), exact_key("Tchaikovsky")]
        assert set(keys) <= blocking_keys_for(ada)
        found = await filed_ids(store, keys, tenant)
        assert found == {key: [ada.id] for key in keys}
        assert await store.count_blocking_keys(keys, tenant) == {key: 1 for key in keys}

    @pytest.mark.asyncio
    async def test_each_name_and_alias_is_filed_under_its_joined_and_pair_keys(self) -> None:
        store = await self.make_store()
        tenant, other = fresh_tenant(), fresh_tenant()
        ada = person(tenant, "Ada Lovelace", fixed_id(1), aliases=["Augusta King"])
        await store.upsert([ada, person(tenant, "Alan Lovelock", fixed_id(2))])
        await store.upsert([person(other, "Ada Lovelace", fixed_id(1))])
        keys = ["j:adalovelace", "a:a lovelace", "a:l ada", "j:augustaking", "a:k augusta"]
        assert set(keys) <= blocking_keys_for(ada)
        found = await filed_ids(store, keys, tenant)
        assert found == {key: [ada.id] for key in keys}
        assert await store.count_blocking_keys(keys, tenant) == {key: 1 for key in keys}
        await store.delete_entities([ada.id], tenant)
        assert await store.count_blocking_keys(keys, tenant) == dict.fromkeys(keys, 0)
        theirs = await store.count_blocking_keys(keys, other)
        assert theirs == {key: int(key in keys[:3]) for key in keys}  # the name's, not the alias's

    @pytest.mark.asyncio
    async def test_names_are_read_by_id_name_first_and_never_across_tenants(self) -> None:
        store = await self.make_store()
        tenant, other = fresh_tenant(), fresh_tenant()
        aliases = ["Augusta King", "Ada King"]
        await store.upsert([person(tenant, "Ada Lovelace", fixed_id(1), aliases=aliases)])
        await store.upsert([person(tenant, "Bob Quinn", fixed_id(2))])
        await store.upsert([person(other, "Zed", fixed_id(1)), person(other, "Cy", fixed_id(3))])
        one, two, three, nine = (fixed_id(n).int for n in (1, 2, 3, 9))
        # Numbers no id has are held by no tenant: asked, they are left out.
        asked = [three, one, two, one, nine, -1, 1 << 128, -one]
        names = await store.get_names(asked, tenant)
        wanted = {one: ["Ada Lovelace", *aliases], two: ["Bob Quinn"]}
        assert names == wanted
        names[one].append("Mutated")  # the caller's copy, not the store's
        assert await store.get_names([one], tenant) == {one: wanted[one]}
        assert await store.get_names([one], other) == {one: ["Zed"]}
        assert await store.get_names([], tenant) == {}
        await store.delete_entities([fixed_id(1)], tenant)
        assert await store.get_names([one, two], tenant) == {two: ["Bob Quinn"]}

    @pytest.mark.asyncio
    async def test_counts_answer_every_key_and_are_capped_at_the_limit(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        await store.upsert([person(tenant, f"Lovelace {n}", fixed_id(n)) for n in [5, 1, 7, 3]])
        await store.upsert([person(tenant, "Ada Lovelock", fixed_id(9))])
        [shared] = [key for key in trigram_keys("Lovelace") if key.endswith("ace")]
        lov = "g:lov"
        counts = await store.count_blocking_keys([shared, lov, "g:zzz", shared], tenant)
        assert counts == {shared: 4, lov: 5, "g:zzz": 0}
        assert await store.count_blocking_keys([lov], tenant, limit=2) == {lov: 2}
        assert await store.count_blocking_keys([], tenant) == {}
        capped = await filed_ids(store, [lov], tenant, limit=2)
        assert capped == {lov: [fixed_id(1), fixed_id(3)]}
        with pytest.raises(ValueError, match="limit"):
            await store.count_blocking_keys([lov], tenant, limit=0)

    @pytest.mark.asyncio
    async def test_counts_and_trigrams_never_cross_tenants_with_colliding_ids(self) -> None:
        store = await self.make_store()
        first, second = fresh_tenant(), fresh_tenant()
        await store.upsert([person(first, "Tchaikovsky", fixed_id(1))])
        await store.upsert([person(second, "Tchaikovsky", fixed_id(1))])
        await store.upsert([person(second, "Chaikovsky", fixed_id(2))])
        keys = trigram_keys("Chaikovsky")
        only_second = [key for key in keys if key not in trigram_keys("Tchaikovsky")]
        assert only_second  # " ch" is not a trigram of " tchaikovsky "
        mine = await store.count_blocking_keys(keys, first)
        assert mine == {key: 0 if key in only_second else 1 for key in keys}
        theirs = await store.count_blocking_keys(keys, second)
        assert theirs == {key: 1 if key in only_second else 2 for key in keys}
        await store.delete_entities([fixed_id(1)], first)
        assert await store.count_blocking_keys(keys, first) == dict.fromkeys(keys, 0)
        assert await store.count_blocking_keys(keys, second) == theirs
        await store.purge_tenant(second)
        assert await store.count_blocking_keys(keys, second) == dict.fromkeys(keys, 0)

    @pytest.mark.asyncio
    async def test_a_merge_a_rename_and_a_delete_keep_the_trigram_index_consistent(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        survivor = person(tenant, "Tchaikovsky", fixed_id(1))
        merged = person(tenant, "Chaikovsky", fixed_id(2))
        await store.upsert([survivor, merged])
        # A merge: the survivor takes the merged-away name as an alias, the other goes.
        await store.upsert([survivor.model_copy(update={"aliases": ["Chaikovsky"]})])
        await store.delete_entities([merged.id], tenant)
        keys = [*trigram_keys("Chaikovsky"), exact_key("Chaikovsky")]
        found = await filed_ids(store, keys, tenant)
        assert found == {key: [fixed_id(1)] for key in keys}
        await store.upsert([person(tenant, "Zelda Zimmer", fixed_id(1))])  # a rename
        assert await store.count_blocking_keys(keys, tenant) == dict.fromkeys(keys, 0)
        await store.delete_entities([fixed_id(1)], tenant)
        zelda = trigram_keys("Zelda Zimmer")
        assert await store.count_blocking_keys(zelda, tenant) == dict.fromkeys(zelda, 0)

    @pytest.mark.asyncio
    async def test_a_rebuild_files_every_entity_under_its_trigrams_again(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace", fixed_id(3), aliases=["Augusta King"])
        await store.upsert([ada])
        assert await store.rebuild_blocking_index(tenant) == 1
        keys = [*trigram_keys("Ada Lovelace"), *trigram_keys("Augusta King")]
        assert await filed_ids(store, keys, tenant) == {k: [ada.id] for k in keys}

    @pytest.mark.asyncio
    @property_settings
    @given(
        names=st.lists(
            st.tuples(
                st.integers(0, 6),
                st.sampled_from(["Ada Lovelace", "Ada Lovelock", "Adah Love", "Grace Hopper"]),
            ),
            max_size=10,
        ),
        other_names=st.lists(
            st.tuples(st.integers(0, 6), st.sampled_from(["Ada Lovelace", "Alan Turing"])),
            max_size=10,
        ),
        limit=st.integers(1, 4),
    )
    async def test_trigram_postings_and_counts_agree_with_the_keys_per_tenant(
        self, names: list[tuple[int, str]], other_names: list[tuple[int, str]], limit: int
    ) -> None:
        store = await self.make_store()
        tenant, other = fresh_tenant(), fresh_tenant()
        mine = {n: person(tenant, name, fixed_id(n)) for n, name in names}
        await store.upsert(list(mine.values()))
        theirs = {n: person(other, name, fixed_id(n)) for n, name in other_names}
        await store.upsert(list(theirs.values()))
        keys = query_ngram_keys(NormalizedQuery.of("Ada Lovelace"))
        postings = await filed_ids(store, keys, tenant, limit=limit)
        counts = await store.count_blocking_keys(keys, tenant, limit=limit)
        for key in keys:
            members: list[EntityId] = sorted(
                (e.id for e in mine.values() if key in blocking_keys_for(e)), key=str
            )
            assert postings[key] == members[:limit]
            assert counts[key] == min(len(members), limit)
