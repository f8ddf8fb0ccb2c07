"""The SQLite chunk store's packed postings (ADR 0220): exact codecs, exact BM25 after writes."""

from __future__ import annotations

import contextlib
import sqlite3
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import redstring.chunks.sqlite_lexical as lexical_module
import redstring.chunks.sqlite_rows as rows_module
from redstring import new_tenant_id
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.chunks.sqlite_codec import (
    BLOCK,
    decode_block,
    decode_blocks,
    decode_body,
    decode_terms,
    encode_block,
    encode_body,
    encode_terms,
)
from redstring.domain.bm25 import CorpusStats, LexicalCandidate, LexicalCandidates, rank_chunks
from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.domain.tokenize import Analyzer, document_length
from redstring.errors import InconsistentCorpusError
from redstring.storage.sqlite import PAGE_SIZE, SqliteDatabase
from tests.unit.stores.legacy_chunk_files import expected_postings, stored_postings

counts_64 = st.integers(min_value=0, max_value=2**63 - 1)


@given(postings=st.dictionaries(st.integers(0, BLOCK - 1), counts_64, min_size=1, max_size=BLOCK))
def test_a_block_decodes_to_its_postings_in_slot_order(postings: dict[int, int]) -> None:
    slots = np.array(list(postings), dtype=np.int64)
    counts = np.array([postings[s] for s in postings], dtype=np.int64)
    got_slots, got_counts = decode_block(encode_block(slots, counts))
    assert got_slots.tolist() == sorted(postings)
    assert got_counts.tolist() == [postings[s] for s in sorted(postings)]


blocks_of_postings = st.lists(
    st.dictionaries(st.integers(0, BLOCK - 1), counts_64, min_size=1, max_size=40),
    min_size=1,
    max_size=6,
)


@given(
    postings=blocks_of_postings,
    cut=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 400), st.integers(0, 255))),
)
def test_blocks_decode_together_as_each_alone_or_not_at_all(
    postings: list[dict[int, int]], cut: list[tuple[int, int, int]]
) -> None:
    """Many blocks at once read as `decode_block` reads each, numbered from each
    block's first chunk; a blob it refuses (a byte changed, here) makes them `None`."""
    blobs = [
        bytearray(encode_block(np.array(list(p), dtype=np.int64), np.array(list(p.values()))))
        for p in postings
    ]
    for block, at, value in cut:
        if block < len(blobs) and at < len(blobs[block]):
            blobs[block][at] = value
    frozen = [bytes(blob) for blob in blobs]
    firsts = np.arange(len(frozen), dtype=np.int64) * 1000
    together = decode_blocks(frozen, firsts)
    try:
        alone = [decode_block(blob) for blob in frozen]
    except ValueError:
        assert together is None
        return
    assert together is not None
    numbers, counts = together
    assert numbers.tolist() == [
        int(f + s) for f, (sl, _) in zip(firsts, alone, strict=True) for s in sl
    ]
    assert counts.tolist() == [int(c) for _, cs in alone for c in cs]


def test_a_block_refuses_repeated_or_out_of_range_slots_and_negative_counts() -> None:
    one = np.array([1], dtype=np.int64)
    for slots, counts in [
        (np.array([3, 3]), np.array([1, 1])),
        (np.array([BLOCK]), one),
        (np.array([-1]), one),
        (one, np.array([-2])),
        (np.array([], dtype=np.int64), np.array([], dtype=np.int64)),
        (np.array([1, 2]), one),
    ]:
        with pytest.raises(ValueError, match=r"block|negative"):
            encode_block(slots.astype(np.int64), counts.astype(np.int64))


@given(numbers=st.lists(st.integers(0, 2**40), max_size=50))
def test_a_term_list_decodes_to_its_distinct_numbers_ascending(numbers: list[int]) -> None:
    assert decode_terms(encode_terms(np.array(numbers, dtype=np.int64))).tolist() == sorted(
        set(numbers)
    )


@given(body=st.text(st.characters(blacklist_categories=["Cs"])))
def test_a_body_decodes_to_its_json(body: str) -> None:
    assert decode_body(encode_body(body)) == body.encode("utf-8")


def test_a_new_file_gets_the_library_page_size_and_an_old_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    database = SqliteDatabase(tmp_path / "new.db")
    SqliteChunkStore(database, dimension=2)
    assert database.connection.execute("PRAGMA page_size").fetchone()[0] == PAGE_SIZE == 8192
    database.close()
    with contextlib.closing(sqlite3.connect(tmp_path / "old.db")) as raw:
        raw.execute("CREATE TABLE other_app_free (a)")  # the file now has 4096-byte pages
        raw.execute("DROP TABLE other_app_free")
    database = SqliteDatabase(tmp_path / "old.db")
    assert database.connection.execute("PRAGMA page_size").fetchone()[0] == 4096
    database.close()


def chunk(tenant: TenantId, source: str, text: str, index: int) -> StoredChunk:
    return StoredChunk(
        tenant_id=tenant, source_id=source, text=text, index=index, start=0, end=len(text)
    )


def reference(chunks: list[StoredChunk], terms: list[str]) -> LexicalCandidates:
    """What BM25 should be given: a brute-force count over the live chunks."""
    counted = {c.id: Counter(Analyzer().terms(c.text)) for c in chunks}
    stats = CorpusStats.from_totals(
        document_count=len(chunks),
        total_length=sum(document_length(n) for n in counted.values()),
        document_frequencies={t: sum(1 for n in counted.values() if n[t]) for t in terms},
    )
    candidates = [
        LexicalCandidate(
            chunk_id=cid, length=document_length(n), term_frequencies={t: n[t] for t in terms}
        )
        for cid, n in sorted(counted.items())
        if any(n[t] for t in terms)
    ]
    return LexicalCandidates.of(stats, candidates, terms=terms)


words = st.sampled_from(["ada", "engine", "notes", "mill", "ran", "the"])
writes = st.lists(
    st.tuples(
        st.sampled_from(["upsert", "replace", "delete"]),
        st.sampled_from(["a", "b", "c"]),
        st.lists(st.lists(words, min_size=1, max_size=4), max_size=6),
    ),
    min_size=1,
    max_size=8,
)


@settings(max_examples=25, deadline=None)
@given(writes=writes, terms=st.lists(words, min_size=1, max_size=3, unique=True))
@pytest.mark.asyncio
async def test_packed_postings_rank_as_a_brute_force_count_after_any_writes(
    tmp_path_factory: pytest.TempPathFactory,
    writes: list[tuple[str, str, list[list[str]]]],
    terms: list[str],
) -> None:
    """Blocks of 4 chunk numbers, so a few writes cross blocks, share them and empty them.

    Another tenant is written the same chunks first: its numbers collide with ours.
    """
    terms = [t for word in terms for t in Analyzer().terms(word) or [word]]  # "the": unposted
    path = tmp_path_factory.mktemp("packed") / "chunks.db"
    with pytest.MonkeyPatch.context() as small:
        small.setattr(rows_module, "BLOCK", 4)
        small.setattr(lexical_module, "BLOCK", 4)
        database = SqliteDatabase(path)
        store = SqliteChunkStore(database, dimension=2)
        tenant, other = new_tenant_id(), new_tenant_id()
        live: dict[str, list[StoredChunk]] = {}
        for owner in (other, tenant):
            live = {}
            for kind, source, texts in writes:
                chunks = [chunk(owner, source, " ".join(t), n) for n, t in enumerate(texts)]
                if kind == "upsert":
                    await store.upsert_chunks(chunks)
                    kept = [c for c in live.get(source, []) if c.id not in {x.id for x in chunks}]
                    live[source] = kept + list({c.id: c for c in chunks}.values())
                elif kind == "replace":
                    await store.replace_source(source, owner, chunks)
                    live[source] = list({c.id: c for c in chunks}.values())
                else:
                    await store.delete_source(source, owner)
                    live[source] = []
                await store.lexical_candidates(terms, owner)  # a cached map between writes
            if owner == other:
                theirs = [c for group in live.values() for c in group]
        ours = [c for group in live.values() for c in group]
        found = await store.lexical_candidates(terms, tenant)
        for sources in (["a"], ["a", "c"]):
            filtered = await store.lexical_candidates(terms, tenant, source_ids=sources)
            assert filtered.stats == found.stats
            allowed = {c.id for c in ours if c.source_id in sources}
            assert {c.chunk_id for c in filtered.candidates} == {
                c.chunk_id for c in found.candidates if c.chunk_id in allowed
            }
        database.close()
    expected = reference(ours, terms)
    assert found.stats == expected.stats
    assert sorted(found.candidates, key=lambda c: c.chunk_id) == expected.candidates
    assert rank_chunks(found, k=50) == rank_chunks(expected, k=50)
    assert stored_postings(path, block_size=4) == expected_postings([*ours, *theirs])


@pytest.mark.asyncio
async def test_a_posting_no_row_holds_is_reported_not_ranked(tmp_path: Path) -> None:
    database = SqliteDatabase(tmp_path / "chunks.db")
    store = SqliteChunkStore(database, dimension=2, cache_bytes=0)
    tenant = new_tenant_id()
    await store.upsert_chunks(
        [chunk(tenant, "a", "engine notes", 0), chunk(tenant, "a", "mill", 1)]
    )
    for lost in ("engine notes", "mill"):  # one row gone, then none left
        database.connection.execute(
            "DELETE FROM chunk_texts WHERE body = ?",
            (next(b for (b,) in database.connection.execute("SELECT body FROM chunk_texts")
                  if decode_body(b).decode().find(lost) >= 0),),
        )  # fmt: skip
        with pytest.raises(InconsistentCorpusError, match="no row holds"):
            await store.lexical_candidates(store.analyzer.terms("engine mill"), tenant)
    database.close()
