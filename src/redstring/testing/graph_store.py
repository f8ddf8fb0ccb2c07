"""The contract every `GraphStore` adapter satisfies.

Subclass `GraphStoreCompliance` in a test module and implement `make_store`
returning a new, empty store. Written against the port and the domain only.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.blocking import (
    KEY_VERSION,
    MAX_BLOCK_MEMBERS,
    blocking_keys_for,
    name_keys_for,
    prefix_key_for_name,
    query_blocking_keys,
    token_keys_for,
)
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import UnknownEntityError
from redstring.domain.query import NormalizedQuery
from redstring.ports.graph_store import GraphStore
from redstring.testing._graph_entities import edge, filed_ids, person
from redstring.testing._support import fixed_id, fresh_tenant, property_settings
from redstring.testing.concurrency import GraphStoreConcurrency
from redstring.testing.graph_filing import GraphKeyFilingCompliance
from redstring.testing.graph_ngrams import TrigramIndexCompliance
from redstring.testing.graph_words import WordCountCompliance
from redstring.testing.json_numbers import GraphJsonNumberCompliance
from redstring.testing.tenant_keys import GraphTenantKeyCompliance
from redstring.testing.tenant_summary import GraphSummaryCompliance


class GraphStoreCompliance(
    GraphKeyFilingCompliance,
    GraphJsonNumberCompliance,
    TrigramIndexCompliance,
    WordCountCompliance,
    GraphTenantKeyCompliance,
    GraphSummaryCompliance,
    GraphStoreConcurrency,
    ABC,
):
    """Behaviour any `GraphStore` must show; see the module docstring."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_an_upserted_entity_reads_back_equal(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(
            tenant,
            "Ada Lovelace",
            description="mathematician",
            aliases=["Countess of Lovelace"],
            properties={"born": 1815, "tags": ["math"], "meta": {"a": "b"}, "note": None},
            confidence=0.75,
            source_document_ids=["doc-1"],
        )
        await store.upsert([ada])
        assert await store.get_entities([ada.id], tenant) == [ada]

    @pytest.mark.asyncio
    async def test_missing_ids_are_omitted(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace")
        await store.upsert([ada])
        assert await store.get_entities([fixed_id(404), ada.id], tenant) == [ada]
        assert await store.get_entities([], tenant) == []

    @pytest.mark.asyncio
    async def test_mutating_a_returned_or_given_entity_changes_nothing_stored(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace", aliases=["Ada"])
        await store.upsert([ada])
        ada.aliases.append("given-side edit")
        [read] = await store.get_entities([ada.id], tenant)
        read.aliases.append("read-side edit")
        read.properties["x"] = "y"
        [again] = await store.get_entities([ada.id], tenant)
        assert again.aliases == ["Ada"]
        assert again.properties == {}

    @pytest.mark.asyncio
    async def test_the_same_entity_id_in_two_tenants_never_crosses(self) -> None:
        store = await self.make_store()
        first, second = fresh_tenant(), fresh_tenant()
        shared = fixed_id(1)
        await store.upsert([person(first, "Ada Lovelace", shared)])
        await store.upsert([person(second, "Charles Babbage", shared)])
        [in_first] = await store.get_entities([shared], first)
        [in_second] = await store.get_entities([shared], second)
        assert (in_first.name, in_second.name) == ("Ada Lovelace", "Charles Babbage")
        blocks = await store.find_by_blocking_keys([prefix_key_for_name("Ada Lovelace")], second)
        assert blocks == {prefix_key_for_name("Ada Lovelace"): []}
        await store.delete_entities([shared], first)
        assert await store.get_entities([shared], second) == [in_second]

    @pytest.mark.asyncio
    async def test_every_key_asked_for_is_answered_and_lists_are_ordered_by_id(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        late, early = (
            person(tenant, "Ada Lovelace", fixed_id(9)),
            person(tenant, "Ada Lovelock", fixed_id(2)),
        )
        await store.upsert([late, early])
        key = prefix_key_for_name("Ada Lo")
        result = await store.find_by_blocking_keys([key, "p:zzzzz"], tenant)
        assert set(result) == {key, "p:zzzzz"}
        assert [e.id for e in result[key]] == [fixed_id(2), fixed_id(9)]
        assert result["p:zzzzz"] == []

    @pytest.mark.asyncio
    async def test_an_entity_is_filed_under_every_key_of_its_names(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace", aliases=["Augusta King"])
        await store.upsert([ada])
        keys = sorted(blocking_keys_for(ada))
        result = await store.find_by_blocking_keys(keys, tenant)
        assert all(result[key] == [ada] for key in keys)
        alias_hits = await store.find_by_blocking_keys(name_keys_for("Augusta King"), tenant)
        assert all(hits == [ada] for hits in alias_hits.values())
        surname_keys = query_blocking_keys(NormalizedQuery.of("Lovelace"))
        surname = await store.find_by_blocking_keys(surname_keys, tenant)
        assert [ada] in surname.values()  # a surname alone shares a per-token key

    @pytest.mark.asyncio
    async def test_a_block_is_capped_at_its_first_members_by_id(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        order = [5, 1, 7, 3, 6, 2, 4]
        await store.upsert([person(tenant, f"Lovelace {n}", fixed_id(n)) for n in order])
        [key, *_] = token_keys_for("lovelace")
        capped = await store.find_by_blocking_keys([key], tenant, limit=3)
        assert [e.id for e in capped[key]] == [fixed_id(1), fixed_id(2), fixed_id(3)]
        whole = await store.find_by_blocking_keys([key], tenant)
        assert len(whole[key]) == 7
        ids = await filed_ids(store, [key], tenant, limit=3)
        assert ids == {key: [fixed_id(1), fixed_id(2), fixed_id(3)]}
        with pytest.raises(ValueError, match="limit"):
            await store.find_by_blocking_keys([key], tenant, limit=0)
        with pytest.raises(ValueError, match="limit"):
            await filed_ids(store, [key], tenant, limit=0)

    @pytest.mark.asyncio
    async def test_the_default_cap_is_max_block_members(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        crowd = [person(tenant, f"Member{n:05d} Smith", fixed_id(n)) for n in range(1, 1003)]
        assert len(crowd) > MAX_BLOCK_MEMBERS
        await store.upsert(crowd)
        [key, *_] = token_keys_for("smith")
        found = await store.find_by_blocking_keys([key], tenant)
        assert [e.id for e in found[key]] == [fixed_id(n) for n in range(1, MAX_BLOCK_MEMBERS + 1)]
        assert await store.count_blocking_keys([key], tenant) == {key: MAX_BLOCK_MEMBERS}

    @pytest.mark.asyncio
    async def test_the_index_records_its_key_version_and_rebuilds_per_tenant(self) -> None:
        store = await self.make_store()
        tenant, other = fresh_tenant(), fresh_tenant()
        assert await store.blocking_key_version(tenant) is None
        ada = person(tenant, "Ada Lovelace", aliases=["Augusta King"])
        await store.upsert([ada, person(tenant, "Charles Babbage")])
        await store.upsert([person(other, "Ada Lovelace")])
        assert await store.blocking_key_version(tenant) == KEY_VERSION
        assert await store.rebuild_blocking_index(tenant) == 2
        assert await store.rebuild_blocking_index(tenant) == 2  # idempotent
        assert await store.blocking_key_version(tenant) == KEY_VERSION
        keys = sorted(blocking_keys_for(ada))
        found = await store.find_by_blocking_keys(keys, tenant)
        assert all(found[key] == [ada] for key in keys if not key.startswith("t:"))
        assert len(await store.list_entities(other)) == 1
        assert await store.rebuild_blocking_index(fresh_tenant()) == 0

    @pytest.mark.asyncio
    async def test_a_renamed_entity_leaves_its_old_keys(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace", fixed_id(1))
        await store.upsert([ada])
        await store.upsert([person(tenant, "Zelda Zimmer", fixed_id(1))])
        old = prefix_key_for_name("Ada Lovelace")
        assert (await store.find_by_blocking_keys([old], tenant))[old] == []

    @pytest.mark.asyncio
    async def test_find_by_type_compares_normalised_types(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada Lovelace")
        place = Entity(tenant_id=tenant, entity_type="Place", name="London")
        await store.upsert([ada, place])
        assert await store.find_by_type("  PLACE ", tenant) == [place]
        assert await store.find_by_type("person", fresh_tenant()) == []

    @pytest.mark.asyncio
    async def test_relationships_and_neighbours(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada, charles, london = (
            person(tenant, "Ada Lovelace"),
            person(tenant, "Charles Babbage"),
            person(tenant, "London"),
        )
        knows, lives = edge(ada, charles), edge(ada, london, "lives_in")
        await store.upsert([ada, charles, london], [knows, lives])
        assert await store.list_relationships(tenant) == sorted(
            [knows, lives], key=lambda r: str(r.id)
        )
        neighbours = await store.neighbours(ada.id, tenant)
        assert {(rel.id, other.name) for rel, other in neighbours} == {
            (knows.id, "Charles Babbage"),
            (lives.id, "London"),
        }
        assert [
            (rel.id, other.id) for rel, other in await store.neighbours(charles.id, tenant)
        ] == [(knows.id, ada.id)]
        assert await store.relationships_of(london.id, tenant) == [lives]

    @pytest.mark.asyncio
    async def test_a_relationship_to_a_missing_entity_fails_the_whole_batch(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada, ghost = person(tenant, "Ada Lovelace"), person(tenant, "Ghost")
        with pytest.raises(UnknownEntityError) as caught:
            await store.upsert([ada], [edge(ada, ghost)])
        assert caught.value.entity_id == ghost.id
        assert await store.list_entities(tenant) == []

    @pytest.mark.asyncio
    async def test_a_relationship_cannot_reach_into_another_tenant(self) -> None:
        store = await self.make_store()
        first, second = fresh_tenant(), fresh_tenant()
        theirs = person(second, "Charles Babbage")
        await store.upsert([theirs])
        mine = person(first, "Ada Lovelace")
        crossing = Relationship(
            tenant_id=first, source_id=mine.id, target_id=theirs.id, relationship_type="knows"
        )
        with pytest.raises(UnknownEntityError):
            await store.upsert([mine], [crossing])
        assert await store.list_entities(first) == []

    @pytest.mark.asyncio
    async def test_deleting_an_entity_removes_its_relationships_and_keys(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada, charles = person(tenant, "Ada Lovelace"), person(tenant, "Charles Babbage")
        await store.upsert([ada, charles], [edge(ada, charles)])
        await store.delete_entities([ada.id, fixed_id(404)], tenant)
        assert await store.list_relationships(tenant) == []
        assert await store.neighbours(charles.id, tenant) == []
        key = prefix_key_for_name("Ada Lovelace")
        assert (await store.find_by_blocking_keys([key], tenant))[key] == []
        assert await store.list_entities(tenant) == [charles]

    @pytest.mark.asyncio
    async def test_re_upserting_an_entity_keeps_its_relationships(self) -> None:
        """A store that replaces a row by delete-then-insert cascades its edges away."""
        store = await self.make_store()
        tenant = fresh_tenant()
        ada, charles = person(tenant, "Ada Lovelace"), person(tenant, "Charles Babbage")
        knows = edge(ada, charles)
        await store.upsert([ada, charles], [knows])
        renamed = ada.model_copy(update={"description": "mathematician"})
        await store.upsert([renamed])
        assert await store.relationships_of(ada.id, tenant) == [knows]
        assert await store.get_entities([ada.id], tenant) == [renamed]

    @pytest.mark.asyncio
    async def test_delete_relationships(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada, charles = person(tenant, "Ada Lovelace"), person(tenant, "Charles Babbage")
        knows = edge(ada, charles)
        await store.upsert([ada, charles], [knows])
        await store.delete_relationships([knows.id], tenant)
        assert await store.relationships_of(ada.id, tenant) == []
        assert len(await store.list_entities(tenant)) == 2

    @pytest.mark.asyncio
    async def test_purge_removes_one_tenant_only(self) -> None:
        store = await self.make_store()
        first, second = fresh_tenant(), fresh_tenant()
        a1, b1 = (
            person(first, "Ada Lovelace", fixed_id(1)),
            person(first, "Charles Babbage", fixed_id(2)),
        )
        a2, b2 = (
            person(second, "Ada Lovelace", fixed_id(1)),
            person(second, "Charles Babbage", fixed_id(2)),
        )
        await store.upsert([a1, b1], [edge(a1, b1)])
        await store.upsert([a2, b2], [edge(a2, b2)])
        await store.purge_tenant(first)
        assert await store.list_entities(first) == []
        assert await store.list_relationships(first) == []
        assert await store.list_entities(second) == [a2, b2]
        assert len(await store.list_relationships(second)) == 1

    @pytest.mark.asyncio
    async def test_list_tenants_names_each_tenant_holding_an_entity_once(self) -> None:
        store = await self.make_store()
        first, second, emptied = fresh_tenant(), fresh_tenant(), fresh_tenant()
        assert await store.list_tenants() == []
        a1, b1 = person(first, "Ada Lovelace", fixed_id(1)), person(first, "Alan Turing")
        await store.upsert([a1, b1], [edge(a1, b1)])
        await store.upsert([person(second, "Ada Lovelace", fixed_id(1))])
        gone = person(emptied, "Grace Hopper")
        await store.upsert([gone])
        await store.delete_entities([gone.id], emptied)
        assert await store.list_tenants() == sorted([first, second], key=str)
        await store.purge_tenant(first)
        assert await store.list_tenants() == [second]

    @pytest.mark.asyncio
    @property_settings
    @given(
        names=st.lists(
            st.tuples(
                st.integers(0, 5),
                st.sampled_from(
                    ["Ada Lovelace", "Ada Lovelock", "Charles Babbage", "Grace Hopper"]
                ),
            ),
            max_size=10,
        ),
        other_names=st.lists(
            st.tuples(
                st.integers(0, 5), st.sampled_from(["Ada Lovelace", "Alan Turing", "Grace Hopper"])
            ),
            max_size=10,
        ),
    )
    async def test_two_tenants_with_colliding_ids_each_see_only_their_own(
        self, names: list[tuple[int, str]], other_names: list[tuple[int, str]]
    ) -> None:
        store = await self.make_store()
        tenant, other = fresh_tenant(), fresh_tenant()
        mine = {n: person(tenant, name, fixed_id(n)) for n, name in names}
        theirs = {n: person(other, name, fixed_id(n)) for n, name in other_names}
        await store.upsert(list(mine.values()))
        await store.upsert(list(theirs.values()))
        assert await store.list_entities(tenant) == sorted(mine.values(), key=lambda e: str(e.id))
        assert await store.list_entities(other) == sorted(theirs.values(), key=lambda e: str(e.id))
        keys = query_blocking_keys(NormalizedQuery.of("Ada Lovelace"))
        found = await store.find_by_blocking_keys(keys, tenant)
        for key in keys:
            expected = sorted(
                (e for e in mine.values() if key in blocking_keys_for(e)), key=lambda e: str(e.id)
            )
            assert found[key] == expected
