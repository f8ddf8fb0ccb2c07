"""The text analysis of a chunk store: the language it indexes in, kept with the index.

Part of `ChunkStoreCompliance`. A store opened without a language indexes
English (stemmed, stopwords dropped); `make_store(dimension, language=...)`
sets another, and `reopen_store` (for a store whose index outlives it) opens
the same index again.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest

from redstring.domain.errors import AnalysisMismatchError, InvalidArgumentError
from redstring.domain.tokenize import Analyzer
from redstring.ports.chunk_store import ChunkStore
from redstring.testing._chunks import DIMENSION, frequencies, passage
from redstring.testing._support import fresh_tenant

_TEXT = "The engines were running, and the engine runs"


class ChunkAnalysisCompliance(ABC):
    """Stemming and stopwords by default; a language per index; the index keeps its language."""

    @abstractmethod
    async def make_store(self, dimension: int, *, language: str | None = None) -> ChunkStore:
        """A new, empty store of `dimension` analysing in `language` (`None`: the default)."""

    async def reopen_store(self, store: ChunkStore, *, language: str | None) -> ChunkStore:
        """`store`'s index opened again with `language`; a store living in memory only skips."""
        pytest.skip("this store's index lives and dies with the store")

    @pytest.mark.asyncio
    async def test_a_new_store_stems_english_and_drops_its_stopwords(self) -> None:
        store = await self.make_store(DIMENSION)
        assert store.analyzer == Analyzer("english")
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", _TEXT)
        await store.upsert_chunks([chunk])
        terms = store.analyzer.terms("running engine the were")
        assert terms == ["run", "engin", "were"]
        found = await store.lexical_candidates(terms, tenant)
        assert frequencies(found) == {chunk.id: {"run": 2, "engin": 2, "were": 1}}
        assert found.candidates[0].length == len(["engin", "were", "run", "engin", "run"])
        absent = await store.lexical_candidates(["the", "running", "engines"], tenant)
        assert absent.candidates == []
        assert list(absent.document_frequencies) == [0, 0, 0]

    @pytest.mark.asyncio
    async def test_an_identifier_is_indexed_whole_and_counted_by_its_words(self) -> None:
        """`max_connections` is a term of its own beside `max` and `connect`; the
        chunk's length counts its words only, in every tenant alike."""
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        joined = passage(tenant, "doc", "Raise max_connections now")
        apart = passage(tenant, "other", "the max of open connections")
        await store.upsert_chunks([joined, apart, passage(other, "doc", "max_connections")])
        terms = store.analyzer.terms("max_connections")
        assert terms == ["max", "connect", "max_connect"]
        found = await store.lexical_candidates(terms, tenant)
        assert frequencies(found) == {
            joined.id: {"max": 1, "connect": 1, "max_connect": 1},
            apart.id: {"max": 1, "connect": 1},
        }
        lengths = {c.chunk_id: c.length for c in found.candidates}
        assert lengths == {joined.id: len(["rais", "max", "connect", "now"]), apart.id: 3}
        assert found.stats.average_length == 3.5
        assert list(found.document_frequencies) == [2, 2, 1]

    @pytest.mark.asyncio
    async def test_a_store_of_no_analysis_indexes_the_words_as_written(self) -> None:
        store = await self.make_store(DIMENSION, language="none")
        assert store.analyzer.language == "none"
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", _TEXT)
        await store.upsert_chunks([chunk])
        found = await store.lexical_candidates(["the", "running", "run", "engine"], tenant)
        assert frequencies(found) == {chunk.id: {"the": 2, "running": 1, "engine": 1}}
        assert found.candidates[0].length == 8

    @pytest.mark.asyncio
    async def test_another_language_stems_its_own_words_and_drops_no_stopwords(
        self,
    ) -> None:
        store = await self.make_store(DIMENSION, language="German")
        assert store.analyzer.language == "german"
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", "Die Häuser und das Haus, the houses")
        await store.upsert_chunks([chunk])
        terms = store.analyzer.terms("häuser haus the")
        assert terms == ["haus", "haus", "the"]
        found = await store.lexical_candidates(terms, tenant)
        assert frequencies(found) == {chunk.id: {"haus": 2, "the": 1}}

    @pytest.mark.asyncio
    async def test_an_unknown_language_is_refused_naming_the_argument(self) -> None:
        with pytest.raises(InvalidArgumentError, match="language") as refused:
            await self.make_store(DIMENSION, language="klingon")
        assert refused.value.name == "language"
        assert "english" in str(refused.value)
        assert "none" in str(refused.value)

    @pytest.mark.asyncio
    async def test_a_reopened_index_keeps_the_language_it_was_built_in(self) -> None:
        store = await self.make_store(DIMENSION, language="none")
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", _TEXT)
        await store.upsert_chunks([chunk])
        again = await self.reopen_store(store, language=None)
        assert again.analyzer.language == "none"
        found = await again.lexical_candidates(again.analyzer.terms("running"), tenant)
        assert [c.chunk_id for c in found.candidates] == [chunk.id]
        same = await self.reopen_store(store, language="none")
        assert same.analyzer.language == "none"

    @pytest.mark.asyncio
    async def test_another_language_for_an_index_holding_chunks_is_refused(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert_chunks([passage(tenant, "doc", _TEXT)])
        with pytest.raises(AnalysisMismatchError) as refused:
            await self.reopen_store(store, language="none")
        assert refused.value.stored == "english"
        assert refused.value.asked == "none"
        assert "language='english'" in str(refused.value)
        assert "without language" in str(refused.value)
        assert (await self.reopen_store(store, language=None)).analyzer.language == "english"

    @pytest.mark.asyncio
    async def test_an_index_holding_no_chunk_takes_the_language_asked(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        chunk = passage(tenant, "doc", _TEXT)
        await store.upsert_chunks([chunk])
        await store.purge_tenant(tenant)
        again = await self.reopen_store(store, language="none")
        assert again.analyzer.language == "none"
        await again.upsert_chunks([chunk])
        found = await again.lexical_candidates(["running"], tenant)
        assert [c.chunk_id for c in found.candidates] == [chunk.id]
        assert (await self.reopen_store(again, language=None)).analyzer.language == "none"
