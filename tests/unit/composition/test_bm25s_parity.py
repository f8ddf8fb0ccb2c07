"""LEXICAL scores equal bm25s's, run with the same Snowball stemmer and English stopwords.

bm25s tokenizes with its own pattern (words of two or more word characters,
lowercased), drops its English stopword list (Lucene's, as ours) and stems
with PyStemmer; `method="lucene"` is our BM25's formula. On text both
tokenizers split alike (words of two or more letters), every chunk's score
must be the same, through the whole pipeline: the store's postings, its
statistics, the retriever's query analysis and `rank_chunks`. Given our word
pattern (one word character or more), bm25s scores one-character words as
we do too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import Stemmer
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring import ChunkRetriever, SourceDocument, index_documents, new_tenant_id
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.ports import ChunkStore
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryChunkStore

bm25s = pytest.importorskip("bm25s")

#: Inflected forms that stem alike, stopwords, and words the stemmer leaves alone.
VOCABULARY = [
    "run",
    "runs",
    "running",
    "runner",
    "ran",
    "engine",
    "engines",
    "engineering",
    "engineer",
    "study",
    "studies",
    "studied",
    "studying",
    "connect",
    "connected",
    "connection",
    "connections",
    "generous",
    "generously",
    "generate",
    "generation",
    "happy",
    "happiness",
    "the",
    "a",
    "of",
    "and",
    "is",
    "are",
    "was",
    "were",
    "to",
    "in",
    "on",
    "for",
    "with",
    "that",
    "this",
    "these",
    "it",
    "not",
    "no",
    "such",
    "mill",
    "river",
    "loom",
    "archive",
    "comet",
    "Babbage",
    "Lovelace",
    "notes",
    "noted",
    "noting",
    "analytical",
    "analysis",
    "analyse",
    "compute",
    "computer",
    "computing",
    "computation",
    "memory",
    "memories",
    "store",
    "stored",
    "storing",
    "DIFFERENCE",
    "Differences",
    "differ",
    "published",
    "publishing",
    "wrote",
    "writes",
    "writing",
]


def generated_corpus(seed: int, size: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(size):
        words = rng.choices(VOCABULARY, k=rng.randint(1, 40))
        texts.append(" ".join(w + rng.choice(["", "", "", ",", ".", ";"]) for w in words))
    return texts


#: bm25s's default word pattern: two or more word characters.
BM25S_WORDS = r"(?u)\b\w\w+\b"
#: Ours: one or more, so "vitamin D" and "type 2" keep their last word.
OUR_WORDS = r"(?u)\b\w+\b"


def bm25s_scores(texts: list[str], query: str, words: str = BM25S_WORDS) -> list[float]:
    stemmer = Stemmer.Stemmer("english")

    def analysed(some: list[str]) -> list[list[str]]:
        return bm25s.tokenize(  # type: ignore[no-any-return]
            some,
            stopwords="en",
            stemmer=stemmer.stemWords,
            token_pattern=words,
            return_ids=False,
            show_progress=False,
        )

    tokens = analysed(texts)
    if not any(tokens):  # every word of every text a stopword: bm25s cannot index it
        return [0.0] * len(texts)
    index = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    index.index(tokens, show_progress=False)
    [asked] = analysed([query])
    if not asked:  # every word a stopword: bm25s cannot score an empty query
        return [0.0] * len(texts)
    return [float(s) for s in index.get_scores(asked)]


async def our_scores(store: ChunkStore, texts: list[str], query: str) -> list[float]:
    tenant = new_tenant_id()
    documents = [SourceDocument(id=f"d{n}", text=text) for n, text in enumerate(texts)]
    await index_documents(documents, chunks=store, tenant_id=tenant)
    result = await ChunkRetriever.lexical_only(chunks=store).retrieve_chunks(
        query, tenant, k=len(texts)
    )
    by_source = {m.chunk.source_id: m.bm25 or 0.0 for m in result.matches}
    return [by_source.get(f"d{n}", 0.0) for n in range(len(texts))]


QUERIES = [
    "running engines",
    "the study of connections",
    "Babbage's analytical engine",
    "computing memory stores",
    "happy generous runner",
    "generation",
    "differences",
    "the and of",
    "the engine studies engines: engineering studied, engine running, engines run",
]


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_every_chunks_score_equals_bm25s_with_the_same_stemmer(
    backend: str, tmp_path: Path
) -> None:
    texts = generated_corpus(seed=7, size=300)
    for n, query in enumerate(QUERIES):
        if backend == "memory":
            store: ChunkStore = InMemoryChunkStore(dimension=8)
        else:
            store = SqliteChunkStore(SqliteDatabase(tmp_path / f"{n}.db"), dimension=8)
        expected = bm25s_scores(texts, query)
        ours = await our_scores(store, texts, query)
        assert ours == pytest.approx(expected, rel=1e-6, abs=1e-9), query
        assert sum(s > 0 for s in ours) == sum(s > 0 for s in expected)
    assert any(s > 0 for s in bm25s_scores(texts, QUERIES[0]))


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    size=st.integers(1, 30),
    query=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=8).map(" ".join),
)
@pytest.mark.asyncio
async def test_scores_equal_bm25s_on_any_small_corpus(seed: int, size: int, query: str) -> None:
    texts = generated_corpus(seed, size)
    ours = await our_scores(InMemoryChunkStore(dimension=8), texts, query)
    assert ours == pytest.approx(bm25s_scores(texts, query), rel=1e-6, abs=1e-9)


#: One-character words bm25s's default pattern drops and ours keeps, among longer ones.
SHORT_WORDS = ["D", "C", "2", "x", "vitamin", "vitamins", "type", "types", "engine", "memory"]


@pytest.mark.asyncio
async def test_one_character_words_score_as_bm25s_does_with_our_word_pattern() -> None:
    rng = random.Random(11)
    texts = [" ".join(rng.choices(SHORT_WORDS, k=rng.randint(1, 12))) for _ in range(200)]
    for query in ["vitamin D", "type 2 engine", "C", "x memory vitamins"]:
        ours = await our_scores(InMemoryChunkStore(dimension=8), texts, query)
        assert ours == pytest.approx(bm25s_scores(texts, query, OUR_WORDS), rel=1e-6, abs=1e-9)
        # bm25s's own pattern reads "vitamin D" as "vitamin": the one difference between the two.
        assert ours != pytest.approx(bm25s_scores(texts, query), rel=1e-6, abs=1e-9), query
