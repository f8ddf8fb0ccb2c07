"""The contract every `ChunkStore` adapter satisfies.

Subclass `ChunkStoreCompliance` in a test module and implement `make_store`
(and `reopen_store` when the index outlives the store, as a file does):

    class TestMine(ChunkStoreCompliance):
        async def make_store(
            self, dimension: int, *, language: str | None = None
        ) -> ChunkStore:
            return MyChunkStore(dimension=dimension, language=language)

The suite is written against the port and the domain only.
"""

from __future__ import annotations

from abc import abstractmethod
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import JsonValue

from redstring.domain.errors import DimensionMismatchError, InvalidVectorError
from redstring.ports.chunk_store import ChunkStore
from redstring.testing._chunks import DIMENSION, axis, frequencies, passage
from redstring.testing._support import fixed_id, fresh_tenant, property_settings
from redstring.testing.chunk_analysis import ChunkAnalysisCompliance
from redstring.testing.chunk_ids import ChunkIdCompliance
from redstring.testing.chunk_manifest import ChunkManifestCompliance
from redstring.testing.chunk_replace import ChunkReplaceCompliance
from redstring.testing.chunk_search import ChunkSearchCompliance
from redstring.testing.concurrency import ChunkStoreConcurrency
from redstring.testing.json_numbers import ChunkJsonNumberCompliance
from redstring.testing.tenant_keys import ChunkTenantKeyCompliance
from redstring.testing.tenant_summary import ChunkSummaryCompliance


class ChunkStoreCompliance(
    ChunkAnalysisCompliance,
    ChunkJsonNumberCompliance,
    ChunkTenantKeyCompliance,
    ChunkSummaryCompliance,
    ChunkIdCompliance,
    ChunkManifestCompliance,
    ChunkReplaceCompliance,
    ChunkSearchCompliance,
    ChunkStoreConcurrency,
):
    """Behaviour any `ChunkStore` must show; see the module docstring."""

    @abstractmethod
    async def make_store(self, dimension: int, *, language: str | None = None) -> ChunkStore:
        """A new, empty store of `dimension` analysing in `language` (`None`: the default)."""

    # -- reading and writing ----------------------------------------------

    @pytest.mark.asyncio
    async def test_reports_its_dimension(self) -> None:
        store = await self.make_store(DIMENSION)
        assert store.dimension == DIMENSION

    @pytest.mark.asyncio
    async def test_an_upserted_chunk_reads_back_equal_by_id_source_and_entity(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        first = passage(tenant, "doc", "Ada wrote notes.", index=0, entity_ids=[fixed_id(1)])
        first = first.model_copy(update={"metadata": {"page": 3, "tags": ["a"], "x": None}})
        second = passage(tenant, "doc", "Babbage built engines.", index=1, embedding=axis(0))
        second = second.model_copy(update={"embedding_model": "an-embedding-model"})
        other = passage(tenant, "other", "Ada again.", index=0, entity_ids=[fixed_id(1)])
        await store.upsert_chunks([second, other, first])
        assert await store.get_chunks([first.id], tenant) == [first]
        assert await store.chunks_of_source("doc", tenant) == [first, second]
        assert await store.chunks_of_entity(fixed_id(1), tenant) == [first, other]
        assert await store.chunks_of_entity(fixed_id(2), tenant) == []
        [stored] = await store.get_chunks([second.id], tenant)
        assert stored.embedding == pytest.approx(axis(0))
        assert stored.embedding_model == "an-embedding-model"  # B20: a model change shows

    @pytest.mark.asyncio
    async def test_get_chunks_orders_by_id_string_and_omits_missing(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        chunks = [passage(tenant, "doc", f"passage number {n}", index=n) for n in range(5)]
        await store.upsert_chunks(chunks)
        missing = passage(tenant, "doc", "never stored").id
        asked = [chunks[3].id, missing, chunks[0].id, chunks[4].id, chunks[0].id]
        got = await store.get_chunks(asked, tenant)
        expected = sorted([chunks[0], chunks[3], chunks[4]], key=lambda c: str(c.id))
        assert got == expected

    @pytest.mark.asyncio
    async def test_the_same_source_and_text_in_two_tenants_never_cross(self) -> None:
        """Same source id and text means the same chunk id in both tenants: a forced collision."""
        store = await self.make_store(DIMENSION)
        first, second = fresh_tenant(), fresh_tenant()
        mine = passage(
            first, "doc", "shared words here", embedding=axis(0), entity_ids=[fixed_id(1)]
        )
        theirs = passage(second, "doc", "shared words here", embedding=axis(1))
        assert mine.id == theirs.id
        extra = passage(second, "doc", "shared again", index=1)
        await store.upsert_chunks([mine, theirs, extra])
        assert await store.get_chunks([mine.id], first) == [mine]
        assert await store.chunks_of_source("doc", first) == [mine]
        assert await store.list_chunks(first) == [mine]
        assert await store.list_chunks(second) == sorted([theirs, extra], key=lambda c: c.index)
        assert await store.chunks_of_entity(fixed_id(1), second) == []
        [hit] = await store.search_chunks(axis(0), first, k=5)
        assert hit.chunk.tenant_id == first
        assert hit.score == pytest.approx(1.0, abs=1e-6)
        [hit] = await store.search_chunks(axis(0), second, k=5)
        assert hit.score == pytest.approx(0.5, abs=1e-6)
        shared = store.analyzer.terms("shared")
        found = await store.lexical_candidates(shared, first)
        assert found.stats.document_count == 1
        assert found.stats.document_frequencies == {shared[0]: 1}
        assert [c.chunk_id for c in found.candidates] == [mine.id]
        await store.delete_source("doc", first)
        assert await store.chunks_of_source("doc", first) == []
        assert await store.list_chunks(first) == []
        assert len(await store.chunks_of_source("doc", second)) == 2
        assert (await store.lexical_candidates(shared, second)).stats.document_count == 2

    @pytest.mark.asyncio
    async def test_a_tenant_with_nothing_stored_reads_empty_everywhere(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert_chunks(
            [passage(fresh_tenant(), "doc", "elsewhere", entity_ids=[fixed_id(1)])]
        )
        some_id = passage(tenant, "doc", "elsewhere").id
        assert await store.get_chunks([some_id], tenant) == []
        assert await store.chunks_of_source("doc", tenant) == []
        assert await store.chunks_of_entity(fixed_id(1), tenant) == []
        assert await store.search_chunks(axis(0), tenant) == []
        [elsewhere] = store.analyzer.terms("elsewhere")
        found = await store.lexical_candidates([elsewhere], tenant)
        assert found.candidates == []
        assert found.stats.document_count == 0
        assert found.stats.average_length == 0.0
        assert found.stats.document_frequencies == {elsewhere: 0}
        await store.delete_source("doc", tenant)
        await store.purge_tenant(tenant)

    @pytest.mark.asyncio
    async def test_mutating_a_returned_or_given_chunk_changes_nothing_stored(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        given_chunk = passage(tenant, "doc", "Ada wrote notes.", embedding=axis(0))
        await store.upsert_chunks([given_chunk])
        given_chunk.metadata["changed"] = True
        assert given_chunk.embedding is not None
        given_chunk.embedding[0] = -1.0
        [got] = await store.get_chunks([given_chunk.id], tenant)
        assert got.metadata == {}
        got.entity_ids.append(fixed_id(9))
        assert got.embedding is not None
        got.embedding[1] = 5.0
        [again] = await store.chunks_of_source("doc", tenant)
        assert again.entity_ids == []
        assert again.embedding == pytest.approx(axis(0))
        [hit] = await store.search_chunks(axis(0), tenant, k=1)
        assert hit.score == pytest.approx(1.0, abs=1e-6)

    @pytest.mark.asyncio
    async def test_mutating_given_or_returned_metadata_changes_nothing_stored(self) -> None:
        # nested metadata: a store holding the caller's dict, or a shallow copy, shows the edits
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        given_chunk = passage(tenant, "doc", "Ada wrote notes.", entity_ids=[fixed_id(1)])
        tags: list[JsonValue] = ["draft"]
        given_chunk.metadata = {"tags": tags, "page": {"number": 3}}
        await store.upsert_chunks([given_chunk])
        tags.append("given")
        given_chunk.entity_ids.append(fixed_id(2))
        [got] = await store.get_chunks([given_chunk.id], tenant)
        got_tags, got_page = got.metadata["tags"], got.metadata["page"]
        assert isinstance(got_tags, list)
        assert isinstance(got_page, dict)
        got_tags.append("got")
        got_page["number"] = 4
        [again] = await store.chunks_of_source("doc", tenant)
        assert again.metadata == {"tags": ["draft"], "page": {"number": 3}}
        assert again.entity_ids == [fixed_id(1)]

    # -- atomic writes ----------------------------------------------------

    @pytest.mark.asyncio
    async def test_a_wrong_length_embedding_is_refused_and_nothing_of_its_batch_is_written(
        self,
    ) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        good = passage(tenant, "doc", "good passage", embedding=axis(0))
        bad = passage(tenant, "doc", "bad passage", index=1, embedding=[1.0] * (DIMENSION + 1))
        with pytest.raises(DimensionMismatchError) as caught:
            await store.upsert_chunks([good, bad])
        assert (caught.value.expected, caught.value.actual) == (DIMENSION, DIMENSION + 1)
        assert await store.chunks_of_source("doc", tenant) == []
        assert (await store.lexical_candidates(["good"], tenant)).stats.document_count == 0

    @pytest.mark.asyncio
    async def test_a_zero_embedding_and_a_zero_query_are_refused(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        with pytest.raises(InvalidVectorError):
            await store.upsert_chunks([passage(tenant, "doc", "zero", embedding=[0.0] * DIMENSION)])
        with pytest.raises(InvalidVectorError):
            await store.search_chunks([0.0] * DIMENSION, tenant)

    @pytest.mark.asyncio
    async def test_replace_source_swaps_the_whole_source(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        old = [
            passage(tenant, "doc", "old alpha", index=0),
            passage(tenant, "doc", "kept", index=1),
        ]
        neighbour = passage(tenant, "elsewhere", "old alpha")
        await store.upsert_chunks([*old, neighbour])
        new = [passage(tenant, "doc", "kept", index=0), passage(tenant, "doc", "new beta", index=1)]
        await store.replace_source("doc", tenant, new)
        assert await store.chunks_of_source("doc", tenant) == new
        assert await store.chunks_of_source("elsewhere", tenant) == [neighbour]
        found = await store.lexical_candidates(["old", "beta", "kept"], tenant)
        assert found.stats.document_count == 3
        assert found.stats.document_frequencies == {"old": 1, "beta": 1, "kept": 1}
        assert found.stats.average_length == pytest.approx((2 + 1 + 2) / 3)

    @pytest.mark.asyncio
    async def test_replace_source_refuses_a_foreign_chunk_and_changes_nothing(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        before = [passage(tenant, "doc", "original text")]
        await store.upsert_chunks(before)
        wrong_source = passage(tenant, "another", "replacement")
        wrong_tenant = passage(other, "doc", "replacement")
        bad_vector = passage(tenant, "doc", "replacement", embedding=[1.0])
        for foreign in (wrong_source, wrong_tenant):
            with pytest.raises(ValueError, match=r"another|tenant"):
                await store.replace_source("doc", tenant, [passage(tenant, "doc", "ok"), foreign])
        with pytest.raises(DimensionMismatchError):
            await store.replace_source("doc", tenant, [passage(tenant, "doc", "ok"), bad_vector])
        assert await store.chunks_of_source("doc", tenant) == before
        assert await store.chunks_of_source("another", tenant) == []
        assert await store.chunks_of_source("doc", other) == []
        original, ok = store.analyzer.terms("original ok")
        found = await store.lexical_candidates([original, ok], tenant)
        assert found.stats.document_frequencies == {original: 1, ok: 0}

    @pytest.mark.asyncio
    async def test_replace_source_with_nothing_empties_it(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert_chunks([passage(tenant, "doc", "something", embedding=axis(0))])
        await store.replace_source("doc", tenant, [])
        assert await store.chunks_of_source("doc", tenant) == []
        assert await store.search_chunks(axis(0), tenant) == []

    @pytest.mark.asyncio
    async def test_delete_source_and_purge_tenant(self) -> None:
        store = await self.make_store(DIMENSION)
        first, second = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(
            [
                passage(first, "a", "alpha text", embedding=axis(0)),
                passage(first, "b", "beta text", embedding=axis(0)),
                passage(second, "a", "alpha text", embedding=axis(0)),
            ]
        )
        await store.delete_source("a", first)
        await store.delete_source("never", first)
        assert [m.chunk.source_id for m in await store.search_chunks(axis(0), first)] == ["b"]
        assert (await store.lexical_candidates(["alpha"], first)).candidates == []
        await store.purge_tenant(first)
        assert await store.chunks_of_source("b", first) == []
        assert (await store.lexical_candidates(["text"], first)).stats.document_count == 0
        assert len(await store.chunks_of_source("a", second)) == 1

    # -- lexical ------------------------------------------------------------

    @pytest.mark.asyncio
    async def test_postings_count_terms_as_the_analyzer_gives_them(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        text = "The Engine, the ENGINE and the engine's notes"
        long, short = passage(tenant, "doc", text), passage(tenant, "doc", "notes", index=1)
        await store.upsert_chunks([long, short])
        engine, notes, absent = store.analyzer.terms("engine notes absent")
        found = await store.lexical_candidates([engine, notes, absent, engine], tenant)
        terms = store.analyzer.terms(text)
        assert found.stats.document_count == 2
        assert found.stats.average_length == pytest.approx((len(terms) + 1) / 2)
        assert found.stats.document_frequencies == {engine: 1, notes: 2, absent: 0}
        lengths = {c.chunk_id: c.length for c in found.candidates}
        assert lengths == {long.id: len(terms), short.id: 1}
        assert frequencies(found) == {long.id: {engine: 3, notes: 1}, short.id: {notes: 1}}

    @pytest.mark.asyncio
    async def test_a_chunk_of_stopwords_only_counts_in_the_corpus_but_posts_nothing(
        self,
    ) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        empty, worded = (
            passage(tenant, "doc", "the and of"),
            passage(tenant, "doc", "engine", index=1),
        )
        await store.upsert_chunks([empty, worded])
        assert store.analyzer.terms(empty.text) == []
        [engine] = store.analyzer.terms("engine")
        found = await store.lexical_candidates(["the", engine], tenant)
        assert found.stats.document_count == 2
        assert found.stats.average_length == pytest.approx(0.5)
        assert found.stats.document_frequencies == {"the": 0, engine: 1}
        assert [c.chunk_id for c in found.candidates] == [worded.id]
        await store.upsert_chunks([empty])
        assert await store.chunks_of_source("doc", tenant) == [empty, worded]

    @pytest.mark.asyncio
    async def test_writing_a_chunk_again_does_not_duplicate_its_postings(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", "engine engine notes")
        await store.upsert_chunks([chunk])
        await store.upsert_chunks([chunk, chunk])
        await store.replace_source("doc", tenant, [chunk])
        await store.replace_source("doc", tenant, [chunk, chunk])
        [engine] = store.analyzer.terms("engine")
        found = await store.lexical_candidates([engine], tenant)
        assert found.stats.document_count == 1
        assert found.stats.average_length == pytest.approx(3.0)
        assert found.stats.document_frequencies == {engine: 1}
        assert [c.chunk_id for c in found.candidates] == [chunk.id]
        assert found.candidates[0].term_frequencies[engine] == 2

    @pytest.mark.asyncio
    async def test_the_lexical_filter_narrows_candidates_but_not_statistics(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        a, b = passage(tenant, "a", "engine one"), passage(tenant, "b", "engine two words")
        await store.upsert_chunks([a, b])
        engine = store.analyzer.terms("engine")
        everything = await store.lexical_candidates(engine, tenant)
        only_b = await store.lexical_candidates(engine, tenant, source_ids=["b"])
        nothing = await store.lexical_candidates(engine, tenant, source_ids=[])
        assert {c.chunk_id for c in everything.candidates} == {a.id, b.id}
        assert [c.chunk_id for c in only_b.candidates] == [b.id]
        assert nothing.candidates == []
        assert only_b.stats == everything.stats == nothing.stats

    @pytest.mark.asyncio
    @property_settings
    @given(
        texts=st.lists(
            st.tuples(
                st.sampled_from(["a", "b", "c"]),
                st.lists(
                    st.sampled_from(["ada", "engine", "notes", "the", "Ada", "ENGINE"]), max_size=6
                ),
            ),
            max_size=10,
        ),
        decoys=st.lists(st.sampled_from(["ada", "engine", "notes"]), max_size=5),
        terms=st.lists(
            st.sampled_from(["ada", "engine", "notes", "missing"]), min_size=1, max_size=3
        ),
    )
    async def test_lexical_candidates_agree_with_a_brute_force_count(
        self, texts: list[tuple[str, list[str]]], decoys: list[str], terms: list[str]
    ) -> None:
        """Another tenant holds colliding chunks (same source and text) that must not count."""
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        chunks = {}
        for n, (source, words) in enumerate(texts):
            chunk = passage(tenant, source, " ".join(words) + f" n{n % 3}", index=n)
            chunks[chunk.id] = chunk
        await store.upsert_chunks(list(chunks.values()))
        await store.upsert_chunks(
            [passage(other, "a", f"{word} n0", index=i) for i, word in enumerate(decoys)]
        )
        terms = [t for word in terms for t in store.analyzer.terms(word)]
        found = await store.lexical_candidates(terms, tenant)
        counted = {c.id: Counter(store.analyzer.terms(c.text)) for c in chunks.values()}
        assert found.stats.document_count == len(chunks)
        total = sum(sum(counts.values()) for counts in counted.values())
        assert found.stats.average_length == pytest.approx(total / len(chunks) if chunks else 0.0)
        assert found.stats.document_frequencies == {
            t: sum(1 for counts in counted.values() if counts[t]) for t in dict.fromkeys(terms)
        }
        expected = {
            cid: {t: counts[t] for t in terms if counts[t]}
            for cid, counts in counted.items()
            if any(counts[t] for t in terms)
        }
        actual = {
            c.chunk_id: {t: n for t, n in c.term_frequencies.items() if n} for c in found.candidates
        }
        assert len(found.candidates) == len(actual)
        assert actual == expected
        for candidate in found.candidates:
            assert candidate.length == sum(counted[candidate.chunk_id].values())
