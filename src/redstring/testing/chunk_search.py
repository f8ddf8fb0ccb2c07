"""Exact cosine search over a tenant's embedded chunks.

Mixed into `ChunkStoreCompliance`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod

import pytest

from redstring.domain.errors import DimensionMismatchError
from redstring.ports.chunk_store import ChunkStore
from redstring.testing._chunks import DIMENSION, axis, blend, passage
from redstring.testing._support import fresh_tenant


class ChunkSearchCompliance(ABC):
    """`search_chunks`: embedded rows only, scores on 0..1, filters before `k`, ties by id;
    `semantic_ranking`: the same answer as ids and scores."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_unembedded_rows_are_never_semantic_matches_but_stay_lexical(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        embedded = passage(tenant, "doc", "engine embedded", embedding=axis(1))
        bare = passage(tenant, "doc", "engine bare", index=1)
        await store.upsert_chunks([embedded, bare])
        matches = await store.search_chunks(axis(0), tenant, k=10)
        assert [m.chunk.id for m in matches] == [embedded.id]
        found = await store.lexical_candidates(store.analyzer.terms("engine"), tenant)
        assert {c.chunk_id for c in found.candidates} == {bare.id, embedded.id}

    @pytest.mark.asyncio
    async def test_scores_are_on_the_match_scale_best_first(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        same = passage(tenant, "doc", "same", embedding=[3.0 * x for x in axis(0)])
        near = passage(tenant, "doc", "near", index=1, embedding=blend(0, 1, 0.8))
        opposite = passage(tenant, "doc", "opposite", index=2, embedding=axis(0, sign=-1.0))
        await store.upsert_chunks([opposite, near, same])
        matches = await store.search_chunks(axis(0), tenant, k=3)
        assert [m.chunk.id for m in matches] == [same.id, near.id, opposite.id]
        cosine = 0.8 / math.sqrt(0.8**2 + 0.2**2)
        assert [m.score for m in matches] == pytest.approx([1.0, (1 + cosine) / 2, 0.0], abs=1e-6)

    @pytest.mark.asyncio
    async def test_the_source_filter_applies_before_k(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        best = passage(tenant, "a", "best", embedding=axis(0))
        wanted = passage(tenant, "b", "wanted", embedding=blend(0, 1, 0.6))
        await store.upsert_chunks([best, wanted])
        [match] = await store.search_chunks(axis(0), tenant, k=1, source_ids=["b"])
        assert match.chunk.id == wanted.id
        assert await store.search_chunks(axis(0), tenant, k=1, source_ids=[]) == []

    @pytest.mark.asyncio
    async def test_ties_break_by_ascending_chunk_id_string(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        chunks = [passage(tenant, "doc", f"tied {n}", index=n, embedding=axis(0)) for n in range(6)]
        in_order = sorted(chunks, key=lambda c: str(c.id))
        await store.upsert_chunks(list(reversed(in_order)))
        matches = await store.search_chunks(axis(0), tenant, k=4)
        assert [m.chunk.id for m in matches] == [c.id for c in in_order[:4]]

    @pytest.mark.asyncio
    async def test_k_zero_one_beyond_the_corpus_and_negative(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert_chunks(
            [
                passage(tenant, "doc", f"row {n}", index=n, embedding=blend(0, n, 0.5))
                for n in range(1, 4)
            ]
        )
        assert await store.search_chunks(axis(0), tenant, k=0) == []
        assert len(await store.search_chunks(axis(0), tenant, k=1)) == 1
        assert len(await store.search_chunks(axis(0), tenant, k=50)) == 3
        with pytest.raises(ValueError, match="k"):
            await store.search_chunks(axis(0), tenant, k=-1)

    @pytest.mark.asyncio
    async def test_a_wrong_length_query_is_refused_even_for_an_empty_tenant(self) -> None:
        store = await self.make_store(DIMENSION)
        with pytest.raises(DimensionMismatchError):
            await store.search_chunks([1.0] * (DIMENSION + 1), fresh_tenant())

    @pytest.mark.asyncio
    async def test_a_replaced_embedding_is_the_one_searched(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", "moving", embedding=axis(0))
        await store.upsert_chunks([chunk])
        await store.upsert_chunks([chunk.model_copy(update={"embedding": axis(1)})])
        [match] = await store.search_chunks(axis(1), tenant, k=5)
        assert match.score == pytest.approx(1.0, abs=1e-6)
        await store.upsert_chunks([chunk.model_copy(update={"embedding": None})])
        assert await store.search_chunks(axis(1), tenant, k=5) == []

    @pytest.mark.asyncio
    async def test_semantic_ranking_is_search_chunks_as_ids_and_scores(self) -> None:
        """Ties, unembedded rows, a source filter and every k, with the same ids in
        another tenant: the ranking is `search_chunks` without the bodies."""
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        rows = [
            passage(tenant, f"s{n % 3}", f"row {n}", index=n, embedding=blend(0, 1 + n % 4, 0.5))
            for n in range(12)
        ]
        rows.append(passage(tenant, "s0", "bare row", index=12))
        await store.upsert_chunks(rows)
        await store.upsert_chunks([r.model_copy(update={"tenant_id": other}) for r in rows])
        for k in (0, 1, 5, 12, 50):
            for sources in (None, ["s1", "s2"], []):
                found = await store.search_chunks(axis(0), tenant, k=k, source_ids=sources)
                ranked = await store.semantic_ranking(axis(0), tenant, k=k, source_ids=sources)
                assert ranked == [(m.chunk.id, m.score) for m in found]
        with pytest.raises(ValueError, match="k"):
            await store.semantic_ranking(axis(0), tenant, k=-1)
        with pytest.raises(DimensionMismatchError):
            await store.semantic_ranking([1.0] * (DIMENSION + 1), fresh_tenant())

    @pytest.mark.asyncio
    async def test_semantic_ranks_are_the_places_in_the_whole_ranking(self) -> None:
        """Tied rows, an unembedded row, another tenant's same ids and a source
        filter: each asked id's rank and score are its place in `semantic_ranking`,
        and `semantic_scores` gives the same scores."""
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        rows = [
            passage(tenant, f"s{n % 3}", f"row {n}", index=n, embedding=blend(0, 1 + n % 4, 0.5))
            for n in range(12)
        ]
        bare = passage(tenant, "s0", "bare row", index=12)
        await store.upsert_chunks([*rows, bare])
        await store.upsert_chunks([r.model_copy(update={"tenant_id": other}) for r in rows[:3]])
        asked = [c.id for c in reversed([*rows, bare])]
        for sources in (None, ["s1", "s2"]):
            whole = await store.semantic_ranking(axis(0), tenant, k=50, source_ids=sources)
            places = {i: (rank, s) for rank, (i, s) in enumerate(whole, start=1)}
            ranks = await store.semantic_ranks(axis(0), tenant, asked, source_ids=sources)
            assert ranks == places
            scores = await store.semantic_scores(axis(0), tenant, asked, source_ids=sources)
            assert scores == {i: s for i, (_, s) in places.items()}
            few = await store.semantic_scores(axis(0), tenant, asked[::4], source_ids=sources)
            assert few == {i: s for i, (_, s) in places.items() if i in asked[::4]}
        for read in (store.semantic_ranks, store.semantic_scores):
            assert await read(axis(0), tenant, []) == {}
            assert await read(axis(0), fresh_tenant(), asked) == {}
            assert set(await read(axis(0), other, asked)) == {r.id for r in rows[:3]}

    @pytest.mark.asyncio
    async def test_the_same_query_after_a_write_reads_the_written_rows(self) -> None:
        """A search and its ranks, the same vector asked again after a write
        replaces a row's vector: both answer from the rows as written."""
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        near = passage(tenant, "doc", "near", embedding=blend(0, 1, 0.2))
        far = passage(tenant, "doc", "far", index=1, embedding=axis(1))
        await store.upsert_chunks([near, far])
        assert [i for i, _ in await store.semantic_ranking(axis(0), tenant, k=2)] == [
            near.id,
            far.id,
        ]
        assert (await store.semantic_ranks(axis(0), tenant, [far.id]))[far.id][0] == 2
        await store.upsert_chunks([far.model_copy(update={"embedding": axis(0)})])
        assert [i for i, _ in await store.semantic_ranking(axis(0), tenant, k=2)] == [
            far.id,
            near.id,
        ]
        assert (await store.semantic_ranks(axis(0), tenant, [far.id]))[far.id] == (1, 1.0)
