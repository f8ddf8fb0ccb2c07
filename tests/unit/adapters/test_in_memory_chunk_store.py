"""What the in-memory chunk store adds beyond the compliance suite."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
import uuid
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.bm25 import CorpusStats, LexicalCandidate, rank_chunks
from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.domain.tokenize import Analyzer, document_length
from redstring.stores import InMemoryChunkStore
from tests.unit.domain.bm25_reference import reference_rank

#: These tests are about the postings, not the analysis: terms are the words.
WORDS_AS_WRITTEN = "none"


@pytest.mark.parametrize("dimension", [0, -3])
def test_a_non_positive_dimension_is_refused(dimension: int) -> None:
    with pytest.raises(ValueError, match="dimension must be positive"):
        InMemoryChunkStore(dimension=dimension)


@pytest.mark.asyncio
async def test_each_embedding_is_kept_once_as_a_float32_row_not_also_as_a_list() -> None:
    # 384 floats as a Python list cost ~12 KB (pointers plus float objects);
    # as a float32 row ~1.5 KB. What the store holds once the caller has let
    # go of its chunks tells which it keeps.
    dimension, count = 384, 200
    tenant = TenantId(uuid.uuid4())
    store = InMemoryChunkStore(dimension=dimension)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        await store.upsert_chunks([_embedded(tenant, n, dimension) for n in range(count)])
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown / count < 4 * dimension * 4, f"{grown / count:.0f} bytes per chunk"
    wanted = _embedded(tenant, 3, dimension)
    (got,) = await store.get_chunks([wanted.id], tenant)
    assert got.embedding == pytest.approx(wanted.embedding, rel=1e-3)


@pytest.mark.asyncio
async def test_cached_posting_arrays_follow_every_write() -> None:
    """The per-term arrays are built on a query and must not outlive a write (ADR 0186)."""
    tenant, other = TenantId(uuid.uuid4()), TenantId(uuid.uuid4())
    store = InMemoryChunkStore(dimension=3, language=WORDS_AS_WRITTEN)

    def text(source: str, body: str, index: int = 0) -> StoredChunk:
        return StoredChunk(
            tenant_id=tenant, source_id=source, text=body, index=index, start=0, end=len(body)
        )

    async def held(term: str) -> dict[str, int]:
        found = await store.lexical_candidates([term], tenant)
        return {c.chunk_id: c.term_frequencies[term] for c in found.candidates}

    first = text("a", "engine notes")
    await store.upsert_chunks([first])
    assert await held("engine") == {first.id: 1}
    second = text("b", "engine engine")
    await store.upsert_chunks([second])
    assert await held("engine") == {first.id: 1, second.id: 2}
    await store.replace_source("a", tenant, [text("a", "mill only")])
    assert await held("engine") == {second.id: 2}
    await store.delete_source("b", tenant)
    assert await held("engine") == {}
    # the same chunk id under another tenant never shows here
    await store.upsert_chunks([second.model_copy(update={"tenant_id": other})])
    assert await held("engine") == {}


def _embedded(tenant: TenantId, n: int, dimension: int) -> StoredChunk:
    text = f"passage {n}"
    # unit length already, so the stored unit row lists back as the same values
    raw = [n + i / dimension for i in range(1, dimension + 1)]
    norm = sum(x * x for x in raw) ** 0.5
    return StoredChunk(
        tenant_id=tenant,
        source_id="doc",
        index=n,
        start=0,
        end=len(text),
        text=text,
        embedding=[x / norm for x in raw],
    )


WORDS = ("engine", "mill", "river", "tide", "archive", "loom", "comet")
WRITE_KINDS = st.sampled_from(["upsert", "replace", "delete"])
BODIES = st.lists(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6), max_size=4)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            WRITE_KINDS,
            st.integers(min_value=0, max_value=3),
            BODIES,
        ),
        min_size=1,
        max_size=30,
    ),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=4),
    st.integers(min_value=1, max_value=12),
)
def test_slot_postings_rank_as_the_reference_after_any_writes(
    writes: list[tuple[str, int, list[list[str]]]], query: list[str], k: int
) -> None:
    """Slots holed or renumbered by rewrites rank as one object per live chunk (ADR 0188)."""
    asyncio.run(_rank_after(writes, query, k))


def _chunks_of(tenant: TenantId, source_id: str, bodies: list[list[str]]) -> list[StoredChunk]:
    """One chunk per body, its words joined, at index = position."""
    return [
        StoredChunk(
            tenant_id=tenant, source_id=source_id, text=" ".join(words), index=i, start=0, end=1
        )
        for i, words in enumerate(bodies)
    ]


async def _rank_after(
    writes: list[tuple[str, int, list[list[str]]]], query: list[str], k: int
) -> None:
    tenant = TenantId(uuid.UUID(int=7))
    store = InMemoryChunkStore(dimension=3, language=WORDS_AS_WRITTEN)
    live: dict[str, StoredChunk] = {}
    for step, (kind, source, bodies) in enumerate(writes):
        chunks = _chunks_of(tenant, f"s{source}", bodies)
        if kind == "upsert":
            await store.upsert_chunks(chunks)
        elif kind == "replace":
            await store.replace_source(f"s{source}", tenant, chunks)
            live = {i: c for i, c in live.items() if c.source_id != f"s{source}"}
        else:
            await store.delete_source(f"s{source}", tenant)
            live = {i: c for i, c in live.items() if c.source_id != f"s{source}"}
        if kind != "delete":
            live.update({str(c.id): c for c in chunks})
        if step % 3 == 0:  # build the cached arrays between writes too
            await store.lexical_candidates(query, tenant)
    counted = [(c, Counter(Analyzer(WORDS_AS_WRITTEN).terms(c.text))) for c in live.values()]
    total = sum(document_length(counts) for _, counts in counted)
    stats = CorpusStats.from_totals(
        document_count=len(counted),
        total_length=total,
        document_frequencies={t: sum(1 for _, n in counted if n[t]) for t in query},
    )
    candidates = [
        LexicalCandidate(
            chunk_id=c.id,
            length=counts.total(),
            term_frequencies={t: counts[t] for t in query if counts[t]},
        )
        for c, counts in counted
        if any(counts[t] for t in query)
    ]
    found = await store.lexical_candidates(query, tenant)
    assert rank_chunks(found, k=k) == reference_rank(query, candidates, stats, k=k)
    assert found.stats == stats


@pytest.mark.asyncio
async def test_rewriting_one_chunk_many_times_renumbers_and_still_ranks_it() -> None:
    tenant = TenantId(uuid.UUID(int=8))
    store = InMemoryChunkStore(dimension=3, language=WORDS_AS_WRITTEN)
    keep = StoredChunk(
        tenant_id=tenant, source_id="k", text="comet mill mill mill mill", index=0, start=0, end=1
    )
    await store.upsert_chunks([keep])
    for n in range(200):  # far past the renumbering threshold of 2 x live + 64
        body = f"engine {'mill ' * (n % 3)}"
        chunk = StoredChunk(tenant_id=tenant, source_id="r", text=body, index=0, start=0, end=1)
        await store.replace_source("r", tenant, [chunk])
        found = await store.lexical_candidates(["engine", "comet"], tenant)
        assert sorted(map(str, found.chunk_ids)) == sorted([str(chunk.id), str(keep.id)])
        mills = await store.lexical_candidates(["mill"], tenant)
        expected = {keep.id: {"mill": 4}} | ({chunk.id: {"mill": n % 3}} if n % 3 else {})
        assert {c.chunk_id: c.term_frequencies for c in mills.candidates} == expected
    assert found.stats.document_count == 2


TWO_TENANTS = (TenantId(uuid.UUID(int=21)), TenantId(uuid.UUID(int=22)))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            WRITE_KINDS,
            st.integers(min_value=0, max_value=1),
            st.integers(min_value=0, max_value=2),
            BODIES,
            st.integers(min_value=1, max_value=40),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_every_posting_equals_the_chunks_written_when_nothing_is_read_between_writes(
    writes: list[tuple[str, int, int, list[list[str]], int]],
) -> None:
    """Array postings (B101) hold what the live chunks hold, in both tenants, however written.

    No query runs between writes, so the dead entries of rewritten chunks are
    dropped by the writes themselves (each write repeated up to 40 times to
    pass the renumbering threshold); the same source and text in both tenants
    give the same chunk id.
    """
    asyncio.run(_postings_after(writes))


async def _postings_after(writes: list[tuple[str, int, int, list[list[str]], int]]) -> None:
    store = InMemoryChunkStore(dimension=3, language=WORDS_AS_WRITTEN)
    live: dict[TenantId, dict[str, StoredChunk]] = {tenant: {} for tenant in TWO_TENANTS}
    for kind, which, source, bodies, times in writes:
        tenant = TWO_TENANTS[which]
        chunks = _chunks_of(tenant, f"s{source}", bodies)
        for _ in range(times):
            if kind == "upsert":
                await store.upsert_chunks(chunks)
            elif kind == "replace":
                await store.replace_source(f"s{source}", tenant, chunks)
            else:
                await store.delete_source(f"s{source}", tenant)
        if kind != "upsert":
            live[tenant] = {i: c for i, c in live[tenant].items() if c.source_id != f"s{source}"}
        if kind != "delete":
            live[tenant].update({str(c.id): c for c in chunks})
    for tenant in TWO_TENANTS:
        counted = {
            str(c.id): Counter(Analyzer(WORDS_AS_WRITTEN).terms(c.text))
            for c in live[tenant].values()
        }
        found = await store.lexical_candidates(list(WORDS), tenant)
        held = {str(c.chunk_id): (c.length, c.term_frequencies) for c in found.candidates}
        assert held == {
            chunk_id: (counts.total(), dict(counts)) for chunk_id, counts in counted.items()
        }
        assert found.stats == CorpusStats.from_totals(
            document_count=len(counted),
            total_length=sum(counts.total() for counts in counted.values()),
            document_frequencies={t: sum(1 for n in counted.values() if n[t]) for t in WORDS},
        )


@pytest.mark.asyncio
async def test_rewrites_with_no_read_between_them_do_not_pile_up_dead_postings() -> None:
    # A rewritten chunk's old entries stay in its terms' arrays (while another
    # chunk keeps those terms) until the slots are renumbered; the writes must
    # renumber, or 1,000 rewrites of one chunk of 20 terms would hold
    # 1,000 x 20 x 16 bytes (~330 KB measured) of dead postings; renumbered, under 40 KB.
    tenant = TenantId(uuid.UUID(int=23))
    store = InMemoryChunkStore(dimension=3, language=WORDS_AS_WRITTEN)
    words = [f"word{n}" for n in range(20)]

    def chunk(n: int) -> StoredChunk:
        text = " ".join(words[n % 20 :] + words[: n % 20])  # the same terms, another id
        return StoredChunk(tenant_id=tenant, source_id="r", text=text, index=0, start=0, end=1)

    keep = StoredChunk(
        tenant_id=tenant, source_id="k", text=" ".join(words), index=0, start=0, end=1
    )
    await store.upsert_chunks([keep])  # keeps every term's postings alive
    await store.replace_source("r", tenant, [chunk(0)])
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for n in range(1, 1001):
            await store.replace_source("r", tenant, [chunk(n)])
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 150_000, f"{grown:,} bytes held after 1,000 rewrites"
    found = await store.lexical_candidates(["word3"], tenant)
    assert sorted(found.chunk_ids) == sorted([keep.id, chunk(1000).id])


@pytest.mark.asyncio
async def test_a_chunk_taken_out_after_renumbering_forgets_its_own_terms() -> None:
    # Renumbering forgets terms no live chunk holds and numbers the rest again
    # (ADR 0290); a row kept across it must drop its terms under their new numbers.
    tenant = TenantId(uuid.UUID(int=24))
    store = InMemoryChunkStore(dimension=3, language=WORDS_AS_WRITTEN)

    def chunk(source: str, text: str) -> StoredChunk:
        return StoredChunk(tenant_id=tenant, source_id=source, text=text, index=0, start=0, end=1)

    await store.upsert_chunks([chunk("gone", "engine")])  # numbered before "mill"
    await store.upsert_chunks([chunk("kept", "mill")])
    await store.delete_source("gone", tenant)
    for n in range(80):  # past the renumbering threshold: "engine" is forgotten
        await store.replace_source("churn", tenant, [chunk("churn", f"tide{n}")])
    await store.upsert_chunks([chunk("late", "comet")])
    await store.delete_source("kept", tenant)
    found = await store.lexical_candidates(["mill", "comet", "engine"], tenant)
    assert found.stats.document_frequencies == {"mill": 0, "comet": 1, "engine": 0}
    assert [str(i) for i in found.chunk_ids] == [str(chunk("late", "comet").id)]
