"""The summary reads every graph and chunk store answers: counts per tenant.

Mixed into `GraphStoreCompliance` and `ChunkStoreCompliance`, so an adapter
subclassing those runs these too. Every case writes the *same* ids into two
tenants (a forced collision) and checks each tenant counts only its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.domain.ids import TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.summary import ChunkSummary, GraphSummary
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.testing._support import fixed_id, fresh_tenant, property_settings

#: Types spelled several ways that normalise alike, and one that differs.
_TYPES = ["Person", "person", " PERSON ", "Organization", "organization", "Place"]


def _entity(tenant: TenantId, n: int, entity_type: str) -> Entity:
    return Entity(tenant_id=tenant, id=fixed_id(n), entity_type=entity_type, name=f"Name {n}")


def _link(tenant: TenantId, a: int, b: int) -> Relationship:
    return Relationship(
        tenant_id=tenant, source_id=fixed_id(a), target_id=fixed_id(b), relationship_type="knows"
    )


def _passage(tenant: TenantId, source_id: str, text: str, *, index: int = 0) -> StoredChunk:
    return StoredChunk(
        tenant_id=tenant, source_id=source_id, text=text, index=index, start=0, end=len(text)
    )


class GraphSummaryCompliance(ABC):
    """`graph_summary` counts by aggregate, per normalised type, per tenant."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_a_summary_counts_one_tenant_by_normalised_type(self) -> None:
        store = await self.make_store()
        mine, theirs, empty = fresh_tenant(), fresh_tenant(), fresh_tenant()
        await store.upsert(
            [_entity(mine, 1, "Person"), _entity(mine, 2, "person "), _entity(mine, 3, "Place")],
            [_link(mine, 1, 2), _link(mine, 2, 3)],
        )
        # The same ids in another tenant, typed differently, with one relationship.
        await store.upsert(
            [_entity(theirs, 1, "Organization"), _entity(theirs, 2, "Organization")],
            [_link(theirs, 1, 2)],
        )
        assert await store.graph_summary(mine) == GraphSummary(
            entities=3, relationships=2, entity_types={"person": 2, "place": 1}
        )
        assert await store.graph_summary(theirs) == GraphSummary(
            entities=2, relationships=1, entity_types={"organization": 2}
        )
        assert await store.graph_summary(empty) == GraphSummary(entities=0, relationships=0)

    @pytest.mark.asyncio
    async def test_a_summary_follows_retyping_deletion_and_purge(self) -> None:
        store = await self.make_store()
        mine, theirs = fresh_tenant(), fresh_tenant()
        await store.upsert([_entity(mine, n, "Person") for n in (1, 2, 3)], [_link(mine, 1, 2)])
        await store.upsert([_entity(theirs, n, "Person") for n in (1, 2)], [_link(theirs, 1, 2)])
        await store.upsert([_entity(mine, 3, "Place")])  # the same entity, retyped
        assert (await store.graph_summary(mine)).entity_types == {"person": 2, "place": 1}
        await store.delete_entities([fixed_id(1)], mine)  # its relationship goes with it
        assert await store.graph_summary(mine) == GraphSummary(
            entities=2, relationships=0, entity_types={"person": 1, "place": 1}
        )
        await store.purge_tenant(mine)
        assert await store.graph_summary(mine) == GraphSummary(entities=0, relationships=0)
        assert await store.graph_summary(theirs) == GraphSummary(
            entities=2, relationships=1, entity_types={"person": 2}
        )

    @pytest.mark.asyncio
    @property_settings
    @given(
        mine=st.dictionaries(st.integers(0, 7), st.sampled_from(_TYPES), max_size=8),
        theirs=st.dictionaries(st.integers(0, 7), st.sampled_from(_TYPES), max_size=8),
    )
    async def test_a_summary_agrees_with_counting_the_listed_entities(
        self, mine: dict[int, str], theirs: dict[int, str]
    ) -> None:
        store = await self.make_store()
        tenants = {fresh_tenant(): mine, fresh_tenant(): theirs}
        for tenant, types in tenants.items():
            await store.upsert([_entity(tenant, n, t) for n, t in types.items()])
        for tenant, types in tenants.items():
            summary = await store.graph_summary(tenant)
            expected = Counter(normalize_name(t) for t in types.values())
            assert summary.entity_types == dict(expected)
            assert summary.entities == len(await store.list_entities(tenant))


class ChunkSummaryCompliance(ABC):
    """`chunk_summary` counts chunks per source id, per tenant."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_a_summary_counts_chunks_per_source_in_one_tenant(self) -> None:
        store = await self.make_store(4)
        mine, theirs, empty = fresh_tenant(), fresh_tenant(), fresh_tenant()
        # Same source ids and texts in both tenants: the same chunk ids, forced to collide.
        shared = [_passage(mine, "notes.md", f"line {n}", index=n) for n in range(3)]
        shared.append(_passage(mine, "Notes.md", "line 0"))  # source ids are exact, not folded
        collided = [_passage(theirs, "notes.md", f"line {n}", index=n) for n in range(2)]
        assert shared[0].id == collided[0].id
        await store.upsert_chunks(shared + collided)
        assert await store.chunk_summary(mine) == ChunkSummary(
            chunks=4, sources={"Notes.md": 1, "notes.md": 3}
        )
        assert await store.chunk_summary(theirs) == ChunkSummary(chunks=2, sources={"notes.md": 2})
        assert await store.chunk_summary(empty) == ChunkSummary(chunks=0)
        await store.replace_source("notes.md", mine, shared[:1])
        await store.delete_source("Notes.md", mine)
        assert await store.chunk_summary(mine) == ChunkSummary(chunks=1, sources={"notes.md": 1})
        await store.purge_tenant(mine)
        assert await store.chunk_summary(mine) == ChunkSummary(chunks=0)
        assert (await store.chunk_summary(theirs)).chunks == 2

    @pytest.mark.asyncio
    async def test_a_summary_counts_the_chunks_holding_a_vector_per_tenant(self) -> None:
        store = await self.make_store(4)
        mine, theirs = fresh_tenant(), fresh_tenant()
        vector = [1.0, 0.0, 0.0, 0.0]
        # The same chunk ids in both tenants: two embedded of three in mine, one in theirs.
        for tenant, embedded in ((mine, 2), (theirs, 1)):
            await store.upsert_chunks(
                [
                    _passage(tenant, "notes.md", f"line {n}", index=n).model_copy(
                        update={"embedding": vector if n < embedded else None}
                    )
                    for n in range(3)
                ]
            )
        assert (await store.chunk_summary(mine)).embedded == 2
        assert (await store.chunk_summary(theirs)).embedded == 1
        await store.delete_source("notes.md", mine)
        assert (await store.chunk_summary(mine)).embedded == 0
        assert (await store.chunk_summary(theirs)).embedded == 1

    @pytest.mark.asyncio
    async def test_list_tenants_names_each_tenant_holding_a_chunk_once(self) -> None:
        store = await self.make_store(4)
        first, second, emptied = fresh_tenant(), fresh_tenant(), fresh_tenant()
        assert await store.list_tenants() == []
        # The same chunk id in two tenants, and a tenant whose only source is deleted.
        await store.upsert_chunks([_passage(t, "notes.md", "line 0") for t in (first, second)])
        await store.upsert_chunks([_passage(first, "notes.md", "line 1", index=1)])
        await store.upsert_chunks([_passage(emptied, "gone.md", "line 0")])
        await store.delete_source("gone.md", emptied)
        assert await store.list_tenants() == sorted([first, second], key=str)
        await store.purge_tenant(first)
        assert await store.list_tenants() == [second]
