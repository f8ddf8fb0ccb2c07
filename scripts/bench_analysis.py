"""The cost of analysing passages: the tokenizer before text analysis against each analyzer.

Times, per pass over N benchmark passages (`bench_corpus.chunk_corpus`, the
passages `bench_workers.py` ingests), the variants interleaved pass by pass
so load drifts hit all of them alike:

- `before`: the tokenizer stores used before text analysis was a setting
  (words, a 49-word stopword list, no stemming), the baseline;
- `none`: `Analyzer("none")`, the words as written;
- `english`: `Analyzer("english")`, the default: stopwords, then each word's
  Snowball stem, remembered per word;
- `english-uncached`: the same terms through `Stemmer.stemWords` on each
  passage's word list (PyStemmer's own small cache only), what the remembered
  stems save.

Run: `uv run python -m scripts.bench_analysis --n 100000 --passes 5`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import Stemmer

from redstring.domain.tokenize import ENGLISH_STOPWORDS, Analyzer, words
from scripts.bench_corpus import chunk_corpus
from tests.unit.stores.legacy_chunk_files import legacy_terms


def uncached() -> Callable[[str], list[str]]:
    stem_words = Stemmer.Stemmer("english").stemWords

    def terms(text: str) -> list[str]:
        return stem_words([w for w in words(text) if w not in ENGLISH_STOPWORDS])

    return terms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    _, texts, _, _ = chunk_corpus(args.n, 8)
    english = Analyzer("english")
    variants: dict[str, Callable[[str], list[str]]] = {
        "before": legacy_terms,
        "none": Analyzer("none").terms,
        "english": english.terms,
        "english-uncached": uncached(),
    }
    assert [english.terms(t) for t in texts[:200]] == [uncached()(t) for t in texts[:200]]
    seconds: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.passes):
        for name, analyse in variants.items():
            started = time.perf_counter()
            for text in texts:
                analyse(text)
            seconds[name].append(time.perf_counter() - started)
    terms = sum(len(english.terms(t)) for t in texts)
    print(f"{args.n:,} passages, {terms:,} English terms, {args.passes} passes (median, min)")
    baseline = statistics.median(seconds["before"])
    for name, taken in seconds.items():
        median = statistics.median(taken)
        print(
            f"  {name:17} {median:7.3f} s  {min(taken):7.3f} s  "
            f"{median / baseline:5.2f}x before  {1e6 * median / args.n:6.2f} us/passage"
        )


if __name__ == "__main__":
    main()
