"""The columnar ranker ranks exactly as the one-object-per-candidate path did (ADR 0186)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.bm25 import CorpusStats, LexicalCandidate, LexicalCandidates, rank_chunks
from redstring.domain.chunk import ChunkId
from tests.unit.domain.bm25_reference import reference_rank

TERMS = ["ada", "engine", "notes", "babbage", "mill", "zebra"]


@st.composite
def corpora(draw: st.DrawFn) -> tuple[list[str], list[LexicalCandidate], CorpusStats]:
    """Candidates with forced score ties (shared lengths and counts) and ids out of order."""
    size = draw(st.integers(min_value=1, max_value=30))
    lengths = draw(st.lists(st.integers(1, 6), min_size=size, max_size=size))
    rows = [
        draw(st.dictionaries(st.sampled_from(TERMS[:5]), st.integers(1, 3), max_size=3))
        for _ in range(size)
    ]
    ids = draw(
        st.lists(
            st.text("abz09", min_size=1, max_size=3), min_size=size, max_size=size, unique=True
        )
    )
    extra = draw(st.integers(0, 20))  # chunks holding no asked term
    count = size + extra
    frequencies = {t: sum(1 for r in rows if t in r) for t in TERMS}
    stats = CorpusStats(
        document_count=count,
        average_length=draw(st.sampled_from([0.0, 1.0, 2.75, 3.5])),
        document_frequencies=frequencies,
    )
    candidates = [
        LexicalCandidate(chunk_id=ChunkId(i), length=n, term_frequencies=r)
        for i, n, r in zip(ids, lengths, rows, strict=True)
        if r
    ]
    query = draw(st.lists(st.sampled_from(TERMS), min_size=1, max_size=5))
    return query, candidates, stats


# 100 examples: each one forces ties (lengths 1-6, counts 1-3) and ids out of order, and three
# seeded breaks (ties at the k cut dropped, ties by input order, the zero-average guard moved)
# each failed within the first 100 on ten seeds out of ten; 300 took 10 s of CI.
@settings(deadline=None, max_examples=100)
@given(corpus=corpora(), k=st.sampled_from([1, 2, 3, 5, 10, 100]), seed=st.integers(0, 99))
def test_columns_rank_exactly_as_the_reference_ranker(
    corpus: tuple[list[str], list[LexicalCandidate], CorpusStats], k: int, seed: int
) -> None:
    query, candidates, stats = corpus
    shuffled = [candidates[i] for i in np.random.default_rng(seed).permutation(len(candidates))]
    found = LexicalCandidates.of(stats, shuffled, terms=query)
    assert rank_chunks(found, k=k) == reference_rank(query, candidates, stats, k=k)


def test_postings_rows_give_the_same_columns_as_objects() -> None:
    stats = CorpusStats(
        document_count=5, average_length=2.0, document_frequencies={"ada": 2, "engine": 1}
    )
    rows = [("c2", "engine", 2, 3), ("c1", "ada", 1, 2), ("c2", "ada", 1, 3)]
    found = LexicalCandidates.from_postings(["ada", "engine", "ada"], rows, stats)
    assert found.terms == ("ada", "engine")
    assert [c.model_dump() for c in found.candidates] == [
        {"chunk_id": "c2", "length": 3, "term_frequencies": {"ada": 1, "engine": 2}},
        {"chunk_id": "c1", "length": 2, "term_frequencies": {"ada": 1}},
    ]
    assert found.stats == stats
    assert rank_chunks(found, k=5) == reference_rank(
        ["ada", "engine"], found.candidates, stats, k=5
    )
