"""The contract of a graph store's whole-word keys: each word's count is its exact rarity.

The lexical channel weighs a query word by how many of the tenant's entities
hold it whole in a name or alias: the size of its `k:` block (ADR 0350). That
count must stay exact under every write (upserts, alias changes, renames,
merges, deletes) with no rebuild, and never count another tenant's entities,
even under the same ids. Mixed into `GraphStoreCompliance`, so every graph
store runs it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from redstring.domain.blocking import query_token_keys
from redstring.domain.entity import Entity
from redstring.domain.ids import TenantId
from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery
from redstring.ports.graph_store import GraphStore
from redstring.testing._graph_entities import filed_ids, person
from redstring.testing._support import fixed_id, fresh_tenant, property_settings

#: Words that share prefixes, sounds and trigrams, so only a whole-word count tells them apart.
WORDS = ["meir", "meira", "meister", "rush", "rus", "russia", "satie", "sate", "golda"]


def word_key(word: str) -> str:
    """The `k:` key of one word."""
    [key] = query_token_keys(NormalizedQuery.of(word))
    return key


def holders(entities: dict[int, Entity], word: str) -> int:
    """How many of `entities` hold `word` whole in a name or alias."""
    return sum(
        any(word in matching_form(name).split() for name in [e.name, *e.aliases])
        for e in entities.values()
    )


#: One write: (tenant 0/1, op, id, name words, alias words, merged-away id).
WRITES = st.lists(
    st.tuples(
        st.integers(0, 1),
        st.sampled_from(["upsert", "upsert", "delete", "merge"]),
        st.integers(1, 6),
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=3),
        st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=2), max_size=2),
        st.integers(1, 6),
    ),
    max_size=12,
)


class WordCountCompliance(ABC):
    """Whole-word keys filed, counted exactly under every write, and kept per tenant."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_a_words_count_is_how_many_entities_hold_it_whole(self) -> None:
        store = await self.make_store()
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert(
            [
                person(tenant, "Golda Meir", fixed_id(1)),
                person(tenant, "Meir Meir", fixed_id(2), aliases=["Rabbi Meir"]),  # counts once
                person(tenant, "Meister Eckhart", fixed_id(3), aliases=["Meira"]),  # no whole word
                person(tenant, "Someone", fixed_id(4), aliases=["R. MEIR"]),  # an alias, any case
            ]
        )
        await store.upsert([person(other, "Meir", fixed_id(n)) for n in (1, 3, 5)])
        meir, meister = word_key("Meir"), word_key("Meister")
        counts = await store.count_blocking_keys([meir, meister, word_key("Mei")], tenant)
        assert counts == {meir: 3, meister: 1, word_key("Mei"): 0}
        assert await store.count_blocking_keys([meir], other) == {meir: 3}
        found = await filed_ids(store, [meir], tenant)
        assert found == {meir: [fixed_id(1), fixed_id(2), fixed_id(4)]}

    @pytest.mark.asyncio
    @property_settings
    @given(writes=WRITES)
    # A merge whatever is drawn: the survivor takes the merged-away name and aliases.
    @example(
        writes=[
            (0, "upsert", 1, ["golda", "meir"], [], 1),
            (0, "upsert", 2, ["meira"], [["rush", "satie"]], 1),
            (1, "upsert", 2, ["meira"], [], 1),
            (0, "merge", 1, ["meir"], [], 2),
        ]
    )
    async def test_word_counts_stay_exact_under_every_write_without_a_rebuild(
        self, writes: list[tuple[int, str, int, list[str], list[list[str]], int]]
    ) -> None:
        store = await self.make_store()
        tenants: list[TenantId] = [fresh_tenant(), fresh_tenant()]
        model: list[dict[int, Entity]] = [{}, {}]
        for side, op, n, name, aliases, away in writes:
            tenant, held = tenants[side], model[side]
            if op == "upsert":
                entity = person(
                    tenant, " ".join(name), fixed_id(n), aliases=[" ".join(a) for a in aliases]
                )
                await store.upsert([entity])
                held[n] = entity
            elif op == "delete":
                await store.delete_entities([fixed_id(n)], tenant)
                held.pop(n, None)
            elif n in held and away in held and n != away:  # a merge: the survivor takes the name
                survivor = held[n]
                taken = [*survivor.aliases, held[away].name, *held[away].aliases]
                held[n] = survivor.model_copy(update={"aliases": taken})
                await store.upsert([held[n]])
                await store.delete_entities([fixed_id(away)], tenant)
                del held[away]
            for at, each in enumerate(tenants):
                counts = await store.count_blocking_keys([word_key(w) for w in WORDS], each)
                assert counts == {word_key(w): holders(model[at], w) for w in WORDS}
