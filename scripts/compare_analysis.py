"""Passage figures per holdout family under each text analysis, in one run.

Replays the recorded semantic answers through the real `ChunkRetriever`
(`quality.floors.replay`, passage sets and Lee only) three times: with the
tokenizer stores used before text analysis was a setting (words, a 49-word
stopword list, no stemming), with `language="none"`, and with the default
English analysis. Prints LEXICAL and HYBRID per family for each.

Run: `uv run python -m scripts.compare_analysis`.
"""

from __future__ import annotations

from collections.abc import Callable

from redstring import RetrievalMode
from redstring.domain.tokenize import Analyzer
from scripts.quality import floors
from tests.unit.stores.legacy_chunk_files import legacy_terms


def measured(terms: Callable[[Analyzer, str], list[str]] | None) -> floors.Report:
    original = Analyzer.terms
    entities, floors.ENTITY_CORPORA = floors.ENTITY_CORPORA, {}
    if terms is not None:
        Analyzer.terms = terms  # type: ignore[method-assign]
    try:
        return floors.replay((RetrievalMode.LEXICAL, RetrievalMode.HYBRID))
    finally:
        Analyzer.terms = original  # type: ignore[method-assign]
        floors.ENTITY_CORPORA = entities


def main() -> None:
    original, none = Analyzer.terms, Analyzer("none")
    runs = {
        "before": measured(lambda _self, text: legacy_terms(text)),
        "none": measured(lambda _self, text: original(none, text)),
        "english": measured(None),
    }
    print("family                      metric   mode    " + "  ".join(f"{n:>8}" for n in runs))
    for family in sorted(runs["english"]):
        for mode in ("lexical", "hybrid"):
            for metric in runs["english"][family][mode]:
                values = "  ".join(f"{runs[n][family][mode][metric]:8.4f}" for n in runs)
                print(f"{family:27} {metric:8} {mode:7} {values}")


if __name__ == "__main__":
    main()
