"""`replace_source` by difference, keeping a stored vector without reading it (ADR 0255),
and `delete_chunks`.

Mixed into `ChunkStoreCompliance`. Every case writes the same source and
texts (so the same chunk ids) into another tenant first, with other vectors,
models and entities, and checks that tenant is untouched.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter

import pytest

from redstring.domain.bm25 import CorpusStats
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId
from redstring.domain.tokenize import document_length
from redstring.ports.chunk_store import ChunkStore
from redstring.testing._chunks import DIMENSION, axis, passage
from redstring.testing._support import fixed_id, fresh_tenant

_TEXTS = ("engine notes kept", "mill ledger moved", "loom drawings dropped", "forge added later")


def _source(tenant: TenantId, *, embedded: bool, model: str) -> list[StoredChunk]:
    return [
        passage(
            tenant,
            "doc",
            text,
            index=n,
            embedding=axis(n) if embedded else None,
            entity_ids=[fixed_id(n + 1)],
        ).model_copy(update={"embedding_model": model if embedded else None})
        for n, text in enumerate(_TEXTS[:3])
    ]


async def _state(
    store: ChunkStore, tenant: TenantId
) -> tuple[list[StoredChunk], CorpusStats, list[tuple[ChunkId, int]]]:
    """The source's chunks, the statistics of their terms, and each candidate's length."""
    chunks = await store.chunks_of_source("doc", tenant)
    terms = sorted({t for c in chunks for t in store.analyzer.terms(c.text)})
    found = await store.lexical_candidates(terms, tenant)
    return chunks, found.stats, sorted((c.chunk_id, c.length) for c in found.candidates)


class ChunkReplaceCompliance(ABC):
    """What `replace_source` keeps of a stored chunk, and that it never crosses tenants."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_a_kept_chunk_keeps_its_stored_vector_and_model_in_its_new_place(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(_source(other, embedded=True, model="other-model"))
        await store.replace_source("doc", other, _source(other, embedded=True, model="other-model"))
        before_other = await _state(store, other)
        await store.upsert_chunks(_source(tenant, embedded=True, model="m-1"))
        kept, moved, _ = _source(tenant, embedded=True, model="m-1")
        # Kept by id: new place and entities, no vector given, another model named.
        kept_again = kept.model_copy(
            update={"embedding": None, "embedding_model": "ignored", "index": 1, "start": 7,
                    "end": 7 + len(kept.text), "entity_ids": [fixed_id(9)]}
        )  # fmt: skip
        moved_again = moved.model_copy(update={"index": 0, "embedding": axis(5)})
        added = passage(tenant, "doc", _TEXTS[3], index=2).model_copy(
            update={"embedding_model": "ignored"}
        )
        await store.replace_source(
            "doc",
            tenant,
            [moved_again, kept_again, added],
            keep_embeddings=[kept.id, added.id, passage(tenant, "doc", "absent").id],
        )
        chunks = await store.chunks_of_source("doc", tenant)
        assert [c.id for c in chunks] == [moved.id, kept.id, added.id]
        now = {c.id: c for c in chunks}
        assert now[kept.id].embedding == pytest.approx(axis(0))
        assert now[kept.id].embedding_model == "m-1"
        assert (now[kept.id].index, now[kept.id].start) == (1, 7)
        assert now[moved.id].embedding == pytest.approx(axis(5))
        assert now[added.id].embedding is None
        assert now[added.id].embedding_model is None
        assert [c.id for c in await store.chunks_of_entity(fixed_id(9), tenant)] == [kept.id]
        assert await store.chunks_of_entity(fixed_id(1), tenant) == []
        [best] = await store.search_chunks(axis(0), tenant, k=1)
        assert best.chunk.id == kept.id
        assert best.score == pytest.approx(1.0, abs=1e-6)
        manifest = {m.id: m for m in await store.source_manifest("doc", tenant)}
        assert (manifest[kept.id].embedded, manifest[added.id].embedded) == (True, False)
        assert await _state(store, other) == before_other

    @pytest.mark.asyncio
    async def test_a_kept_chunk_carrying_a_vector_is_refused_and_nothing_changes(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        chunks = _source(tenant, embedded=True, model="m-1")
        await store.upsert_chunks(chunks)
        before = await _state(store, tenant)
        with pytest.raises(InvalidArgumentError, match="keep_embeddings"):
            await store.replace_source("doc", tenant, chunks[:1], keep_embeddings=[chunks[0].id])
        assert await _state(store, tenant) == before

    @pytest.mark.asyncio
    async def test_replacing_by_difference_keeps_rows_postings_and_totals_exact(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(_source(other, embedded=False, model=""))
        before_other = await _state(store, other)
        rounds = [(0, 1, 2), (1, 2, 3), (3,), (0, 3, 1), (), (2, 0)]
        for texts in rounds:
            given = [
                passage(tenant, "doc", _TEXTS[t], index=i, embedding=axis(t + i),
                        entity_ids=[fixed_id(t + i)])
                for i, t in enumerate(texts)
            ]  # fmt: skip
            await store.replace_source("doc", tenant, given)
            chunks, stats, candidates = await _state(store, tenant)
            assert chunks == given
            counts = {c.id: Counter(store.analyzer.terms(c.text)) for c in given}
            assert stats.document_count == len(given)
            total = sum(document_length(n) for n in counts.values())
            assert stats.average_length == pytest.approx(total / len(given) if given else 0.0)
            assert stats.document_frequencies == Counter(t for n in counts.values() for t in n)
            assert candidates == sorted((i, document_length(n)) for i, n in counts.items())
            for c in given:
                assert [x.id for x in await store.chunks_of_entity(c.entity_ids[0], tenant)] == [
                    c.id
                ]
        assert await _state(store, other) == before_other

    @pytest.mark.asyncio
    async def test_deleting_chunks_by_id_leaves_what_writing_only_the_rest_would(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant, other = fresh_tenant(), fresh_tenant()
        await store.upsert_chunks(_source(other, embedded=True, model="other-model"))
        before_other = await _state(store, other)
        await store.upsert_chunks(_source(tenant, embedded=True, model="m-1"))
        kept, gone, also_gone = _source(tenant, embedded=True, model="m-1")
        absent = passage(tenant, "doc", "never stored").id
        assert len(await store.search_chunks(axis(1), tenant, k=3)) == 3  # cached, if it caches
        await _state(store, tenant)
        await store.delete_chunks([gone.id, absent, also_gone.id, gone.id], tenant)
        only = await self.make_store(DIMENSION)
        await only.upsert_chunks([kept])
        assert await _state(store, tenant) == await _state(only, tenant)
        assert [m.id for m in await store.source_manifest("doc", tenant)] == [kept.id]
        assert [m.chunk.id for m in await store.search_chunks(axis(1), tenant, k=3)] == [kept.id]
        assert await store.chunks_of_entity(fixed_id(2), tenant) == []
        assert await store.embedding_models(tenant) == {"m-1": 1}
        await store.delete_chunks([], tenant)
        await store.delete_chunks([kept.id], fresh_tenant())
        assert (await store.chunk_summary(tenant)).chunks == 1
        assert await _state(store, other) == before_other
