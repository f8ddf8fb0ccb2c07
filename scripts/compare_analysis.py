"""Passage figures per holdout family under each text analysis, in one run.

Replays the recorded semantic answers through the real `ChunkRetriever`
(`quality.floors.replay`, passage sets and Lee only) once per analysis: the
tokenizer stores used before text analysis was a setting (words, a 49-word
stopword list, no stemming), `language="none"`, the default English analysis,
and English with NLTK's 179 stopwords (the list LanceDB's full-text search
and bm25s's `"en_plus"` drop) in place of Lucene's 33. Prints LEXICAL and
HYBRID per family for each. `--data DIR ...` adds collections in BEIR's
layout (`scripts.bench_beir`), nDCG@10 of LEXICAL and HYBRID under the two
English stop lists on the same cached vectors.

Run: `uv run python -m scripts.compare_analysis [--data DIR ...]`.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import Stemmer  # type: ignore[import-not-found]
from bm25s.stopwords import STOPWORDS_EN_PLUS  # type: ignore[import-untyped]

from redstring import ChunkRetriever, RetrievalMode
from redstring.domain.tokenize import Analyzer, words
from redstring.stores import InMemoryChunkStore
from scripts.bench_beir import ASKED, CachedVectors, embedded, load_passages, score
from scripts.quality import floors
from scripts.quality.beir import Collection, load_collection
from scripts.quality.harness import TENANT
from tests.unit.stores.legacy_chunk_files import legacy_terms

Terms = Callable[[Analyzer, str], list[str]]

#: NLTK's English stopwords as bm25s ships them, the forms with an apostrophe
#: left out (a word never holds one here).
NLTK_STOPWORDS = frozenset(word for word in STOPWORDS_EN_PLUS if "'" not in word)
_ENGLISH = Stemmer.Stemmer("english")


def nltk_terms(_self: Analyzer, text: str) -> list[str]:
    """English analysis with NLTK's stopwords dropped before stemming."""
    return [_ENGLISH.stemWord(word) for word in words(text) if word not in NLTK_STOPWORDS]


@contextmanager
def analysed_by(terms: Terms | None) -> Iterator[None]:
    """Every `Analyzer` analyses with `terms` (`None`: its own) inside the block."""
    original = Analyzer.terms
    if terms is not None:
        Analyzer.terms = terms  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        Analyzer.terms = original  # type: ignore[method-assign]


def measured(terms: Terms | None) -> floors.Report:
    entities, floors.ENTITY_CORPORA = floors.ENTITY_CORPORA, {}
    try:
        with analysed_by(terms):
            return floors.replay((RetrievalMode.LEXICAL, RetrievalMode.HYBRID))
    finally:
        floors.ENTITY_CORPORA = entities


async def collection_figures(
    collection: Collection, vectors: CachedVectors, terms: Terms | None
) -> dict[str, float]:
    """nDCG@10 of LEXICAL and HYBRID on a public collection under `terms`."""
    with analysed_by(terms):
        store = InMemoryChunkStore(dimension=vectors.dimension)
        await load_passages(store, collection, vectors)
        retriever = ChunkRetriever(embeddings=vectors, chunks=store)
        figures = {}
        for mode in (RetrievalMode.LEXICAL, RetrievalMode.HYBRID):
            ranking = {}
            for query_id, text in collection.queries.items():
                found = await retriever.retrieve_chunks(text, TENANT, k=ASKED, mode=mode)
                ranking[query_id] = [m.chunk.source_id for m in found.matches]
            figures[mode.value] = statistics.fmean(score(collection, ranking)[0])
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", type=Path, default=[], help="BEIR-layout folders")
    args = parser.parse_args()
    original, none = Analyzer.terms, Analyzer("none")
    runs = {
        "before": measured(lambda _self, text: legacy_terms(text)),
        "none": measured(lambda _self, text: original(none, text)),
        "english": measured(None),
        "nltk": measured(nltk_terms),
    }
    print("family                      metric   mode    " + "  ".join(f"{n:>8}" for n in runs))
    for family in sorted(runs["english"]):
        for mode in ("lexical", "hybrid"):
            for metric in runs["english"][family][mode]:
                values = "  ".join(f"{runs[n][family][mode][metric]:8.4f}" for n in runs)
                print(f"{family:27} {metric:8} {mode:7} {values}")
    for folder in args.data:
        collection = load_collection(folder)
        vectors = embedded(collection)
        for name, terms in (("english", None), ("nltk", nltk_terms)):
            figures = asyncio.run(collection_figures(collection, vectors, terms))
            shown = "  ".join(f"{mode} {value:.4f}" for mode, value in figures.items())
            print(f"{folder.name} ({name}): nDCG@10 {shown}")


if __name__ == "__main__":
    main()
