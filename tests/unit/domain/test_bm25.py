"""BM25 over chunk candidates: hand-computed values, edge cases, and agreement with bm25s."""

from __future__ import annotations

import math
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.bm25 import (
    CorpusStats,
    LexicalCandidate,
    LexicalCandidates,
    LexicalRanking,
    idf,
    rank_chunks,
    term_score,
)
from redstring.domain.chunk import StoredChunk
from redstring.domain.errors import InconsistentCorpusError
from redstring.domain.tokenize import Analyzer
from tests.factories import DEFAULT_TENANT

ENGLISH = Analyzer()


def chunk(text: str, source: str = "doc") -> StoredChunk:
    return StoredChunk(
        tenant_id=DEFAULT_TENANT, source_id=source, text=text, index=0, start=0, end=len(text)
    )


def corpus(texts: list[str], terms: list[str]) -> LexicalCandidates:
    """What a correct store answers for `terms` over `texts`, computed by brute force.

    Text `n` is the chunk of source `s<n>`; `text_of` maps its id back.
    """
    counted = [(chunk(text, f"s{n}"), Counter(ENGLISH.terms(text))) for n, text in enumerate(texts)]
    lengths = [sum(counts.values()) for _, counts in counted]
    stats = CorpusStats(
        document_count=len(texts),
        average_length=sum(lengths) / len(texts) if texts else 0.0,
        document_frequencies={t: sum(1 for _, c in counted if c[t]) for t in terms},
    )
    candidates = [
        LexicalCandidate(
            chunk_id=c.id,
            length=length,
            term_frequencies={t: counts[t] for t in terms if counts[t]},
        )
        for (c, counts), length in zip(counted, lengths, strict=True)
        if any(counts[t] for t in terms)
    ]
    return LexicalCandidates.of(stats, candidates, terms=terms)


# Four chunks, 3 + 1 + 5 + 2 = 11 terms, so average_length = 2.75.
FIXTURE = [
    "engine engine notes",  # d1: engine x2, notes; length 3
    "The engine",  # d2: engine; length 1 ("the" is a stopword)
    "notes about babbage difference machine",  # d3: length 5
    "Ada Lovelace",  # d4: length 2
]


def scores(query: str, texts: list[str] = FIXTURE, k: int = 10) -> dict[str, float]:
    terms = ENGLISH.terms(query)
    found = corpus(texts, terms)
    text_of = {chunk(text, f"s{n}").id: text for n, text in enumerate(texts)}
    return {
        text_of[c]: s
        for c, s in rank_chunks(
            LexicalCandidates.of(found.stats, found.candidates, terms=terms).asked_by(terms), k=k
        )
    }


def test_idf_matches_hand_computed_values() -> None:
    # ln(1 + (4 - 2 + 0.5) / (2 + 0.5)) = ln 2;  ln(1 + 3.5 / 1.5) = ln(10 / 3).
    assert idf(2, 4) == pytest.approx(0.693147, abs=1e-6)
    assert idf(1, 4) == pytest.approx(1.203973, abs=1e-6)


def test_an_absent_term_contributes_nothing() -> None:
    assert term_score(0, 3, 2.75, idf(2, 4)) == 0.0
    assert term_score(1, 3, 2.75, idf(2, 4)) > 0.0


def test_single_term_scores_match_hand_computed_values() -> None:
    # d1: norm = 1.2 * (0.25 + 0.75 * 3 / 2.75) = 1.281818; ln2 * 2 / (2 + 1.281818) = 0.422417
    # d2: norm = 1.2 * (0.25 + 0.75 * 1 / 2.75) = 0.627273; ln2 * 1 / (1 + 0.627273) = 0.425956
    assert scores("engine") == pytest.approx(
        {"The engine": 0.425956, "engine engine notes": 0.422417}, abs=1e-6
    )


def test_length_normalisation_lets_a_short_chunk_beat_a_repetitive_long_one() -> None:
    """Without length normalisation d1 (tf 2) would outrank d2 (tf 1)."""
    ranked = list(scores("engine"))
    assert ranked == ["The engine", "engine engine notes"]


def test_a_multi_term_score_is_the_sum_over_terms() -> None:
    # notes in d1: ln2 * 1 / (1 + 1.281818) = 0.303770; in d3: norm = 1.2 * (0.25 + 0.75 * 5 / 2.75)
    # = 1.936364, ln2 / 2.936364 = 0.236056. d1 = 0.422417 + 0.303770 = 0.726186.
    assert scores("engine notes") == pytest.approx(
        {
            "engine engine notes": 0.726186,
            "The engine": 0.425956,
            "notes about babbage difference machine": 0.236056,
        },
        abs=1e-6,
    )


def test_a_rare_term_outweighs_a_common_one() -> None:
    # ada: idf ln(10/3); norm = 1.2 * (0.25 + 0.75 * 2 / 2.75) = 0.954545; 1.203973 / 1.954545.
    assert scores("ada") == pytest.approx({"Ada Lovelace": 0.615986}, abs=1e-6)


def test_a_term_in_most_chunks_still_scores_positive() -> None:
    """The +1 inside the log: without it, df > N/2 gives a negative idf and df = N/2 zero."""
    texts = ["engine one", "engine two", "engine three", "other"]
    found = scores("engine", texts)
    assert len(found) == 3
    assert all(score > 0 for score in found.values())
    assert idf(3, 4) == pytest.approx(math.log(1 + 1.5 / 3.5))
    assert idf(4, 4) > 0


def test_a_repeated_query_term_counts_each_time() -> None:
    once = scores("engine")
    assert scores("engine engine ENGINE") == pytest.approx({t: 3 * s for t, s in once.items()})
    assert scores("notes engine notes") != pytest.approx(scores("engine notes"))
    # Asked without the query's terms, a term counts once.
    found = corpus(FIXTURE, ["engin"])
    assert rank_chunks(found, k=10) == rank_chunks(found.asked_by(["engin"]), k=10)


def test_ties_break_by_ascending_chunk_id_string() -> None:
    texts = [f"engine copy{n}" for n in range(5)]
    terms = ["engin"]
    found = corpus(texts, terms)
    ranked = rank_chunks(
        LexicalCandidates.of(found.stats, list(reversed(found.candidates)), terms=terms), k=3
    )
    assert len({score for _, score in ranked}) == 1
    expected = sorted((c.chunk_id for c in found.candidates), key=str)[:3]
    assert [chunk_id for chunk_id, _ in ranked] == expected


def test_k_zero_one_beyond_the_corpus_and_negative() -> None:
    terms = ["engin", "note"]
    found = corpus(FIXTURE, terms)
    assert rank_chunks(LexicalCandidates.of(found.stats, found.candidates, terms=terms), k=0) == []
    [(best, _)] = rank_chunks(LexicalCandidates.of(found.stats, found.candidates, terms=terms), k=1)
    assert best == chunk("engine engine notes", "s0").id
    assert (
        len(rank_chunks(LexicalCandidates.of(found.stats, found.candidates, terms=terms), k=50))
        == 3
    )
    with pytest.raises(ValueError, match="k must be zero or more"):
        rank_chunks(LexicalCandidates.of(found.stats, found.candidates, terms=terms), k=-1)


def test_a_candidate_with_no_query_term_is_dropped() -> None:
    found = corpus(FIXTURE, ["engin"])
    stray = LexicalCandidate(chunk_id=chunk("Ada").id, length=2, term_frequencies={"ada": 1})
    ranked = rank_chunks(
        LexicalCandidates.of(found.stats, [*found.candidates, stray], terms=["engin"]), k=10
    )
    assert len(ranked) == 2
    assert stray.chunk_id not in [chunk_id for chunk_id, _ in ranked]


def test_a_chunk_offered_twice_is_refused_rather_than_counted_twice() -> None:
    found = corpus(FIXTURE, ["engin"])
    doubled = [*found.candidates, found.candidates[0]]
    with pytest.raises(InconsistentCorpusError, match="twice"):
        rank_chunks(LexicalCandidates.of(found.stats, doubled, terms=["engin"]), k=10)


def test_a_missing_or_impossible_document_frequency_is_refused() -> None:
    found = corpus(FIXTURE, ["engin"])
    for frequencies in ({}, {"engin": 0}, {"engin": 5}):
        stats = found.stats.model_copy(update={"document_frequencies": frequencies})
        with pytest.raises(InconsistentCorpusError, match="engin"):
            rank_chunks(LexicalCandidates.of(stats, found.candidates, terms=["engin"]), k=10)


def test_an_empty_corpus_or_query_ranks_nothing() -> None:
    empty = CorpusStats(document_count=0, average_length=0.0)
    assert rank_chunks(LexicalCandidates.of(empty, [], terms=["engin"]), k=10) == []
    found = corpus(FIXTURE, [])
    assert rank_chunks(LexicalCandidates.of(found.stats, found.candidates, terms=[]), k=10) == []


#: A fixture corpus for the comparison with bm25s: varied lengths and repeats.
BM25S_CORPUS = [
    "Ada Lovelace wrote the first published algorithm for Babbage's Analytical Engine.",
    "Charles Babbage designed the Difference Engine and later the Analytical Engine.",
    "The Analytical Engine had a mill and a store, much like a processor and memory.",
    "Lovelace's notes on the engine were longer than the article they annotated.",
    "Grace Hopper wrote the first compiler and popularised machine-independent languages.",
    "Alan Turing described a universal machine; Turing machines define computability.",
    "Engine engine engine: a passage that repeats one word many times over.",
    "Memory.",
    "Babbage never finished an engine in his lifetime, for want of funding and precision.",
    "The Difference Engine No. 2 was finally built in 1991 from Babbage's plans.",
]

BM25S_QUERIES = [
    "analytical engine",
    "Babbage",
    "Lovelace notes",
    "machine",
    "memory processor",
    "first compiler Hopper",
    "engine",
    "the engine, the Analytical Engine, Babbage's engine and its notes",
]


@pytest.mark.parametrize("query", BM25S_QUERIES)
def test_scores_agree_with_bm25s_lucene(query: str) -> None:
    """bm25s `method="lucene"` uses the same idf and term-frequency formula."""
    bm25s = pytest.importorskip("bm25s")
    tokens = [ENGLISH.terms(text) for text in BM25S_CORPUS]
    reference = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    reference.index(tokens, show_progress=False)
    terms = ENGLISH.terms(query)
    expected = reference.get_scores(terms)
    ours = dict(rank_chunks(corpus(BM25S_CORPUS, terms).asked_by(terms), k=100))
    assert len(ours) == sum(1 for score in expected if score > 0)
    for n, (text, score) in enumerate(zip(BM25S_CORPUS, expected, strict=True)):
        mine = ours.get(chunk(text, f"s{n}").id, 0.0)
        assert mine == pytest.approx(float(score), rel=1e-5, abs=1e-6)


@settings(deadline=None)
@given(
    texts=st.lists(
        st.lists(st.sampled_from(["ada", "engine", "notes", "babbage", "mill"]), max_size=8).map(
            " ".join
        ),
        min_size=1,
        max_size=12,
    ),
    query=st.lists(st.sampled_from(["ada", "engine", "notes", "zebra"]), min_size=1, max_size=4),
    k=st.sampled_from([0, 1, 3, 100]),
)
def test_ranking_is_total_and_independent_of_candidate_order(
    texts: list[str], query: list[str], k: int
) -> None:
    found = corpus(texts, query)
    forward = rank_chunks(LexicalCandidates.of(found.stats, found.candidates, terms=query), k=k)
    backward = rank_chunks(
        LexicalCandidates.of(found.stats, list(reversed(found.candidates)), terms=query), k=k
    )
    assert forward == backward
    assert all(s > 0 for _, s in forward)
    keys = [(-s, str(c)) for c, s in forward]
    assert keys == sorted(keys)
    assert len(forward) == min(k, len(found.candidates))


@given(
    texts=st.lists(
        st.lists(st.sampled_from(["ada", "mill", "kilo", "zeta"]), max_size=6).map(" ".join),
        min_size=1,
        max_size=30,
    ),
    query=st.lists(st.sampled_from(["ada", "mill", "kilo", "yarn"]), min_size=1, max_size=3),
    asked=st.sets(st.integers(0, 29), max_size=8),
    n=st.integers(0, 31),
)
def test_a_ranking_read_in_part_agrees_with_the_whole_ranking(
    texts: list[str], query: list[str], asked: set[int], n: int
) -> None:
    """`first(n)` is the whole ranking's first n, `places` each id's place in it, ties
    included (texts repeat, so equal scores are common), and `scores_of` its score."""
    found = corpus(texts, query)
    whole = rank_chunks(found, k=len(texts))
    ranking = LexicalRanking(found)
    assert ranking.size == len(whole)
    assert ranking.first(n) == whole[:n]
    ids = [chunk(texts[i], f"s{i}").id for i in asked if i < len(texts)]
    place_of = {chunk_id: (place, score) for place, (chunk_id, score) in enumerate(whole, start=1)}
    assert ranking.places(ids) == {c: place_of[c] for c in ids if c in place_of}
    assert ranking.scores_of(ids) == {c: place_of[c][1] for c in ids if c in place_of}
