"""Measure retrieval quality on the committed corpora and print a markdown report.

    uv run python -m scripts.evaluate_retrieval                 # fake + local model
    uv run python -m scripts.evaluate_retrieval --provider fake # plumbing only
    uv run python -m scripts.evaluate_retrieval --provider models  # MiniLM beside multilingual-e5
    uv run python -m scripts.evaluate_retrieval --corpus world  # one entity corpus (none: --corpus)
    uv run python -m scripts.evaluate_retrieval --passages      # no graded passage set
    uv run python -m scripts.evaluate_retrieval --json          # for machines
    uv run python -m scripts.evaluate_retrieval --study --plot docs/img

Per corpus (`names`: tests/data/quality/entity_corpus.json; `world`:
world_corpus.json), per provider (the fake provider always; the local
all-MiniLM-L6-v2 model when the `local` extra is installed), per mode and per
query shape, for the fit and the holdout halves: hit@1, hit@10, MRR and the
share of empty answers (for `no_match`, the share of non-empty ones).
`--study` adds the fusion study (ADR 0060) per corpus, the PROPERTY_WEIGHT
grid (ADR 0061, names corpus) and the passage check; `--plot DIR` writes the
quality-per-shape plot of each corpus. Graded passage sets (`--passages`,
default all: `elements`, lay questions against technical element
descriptions; `python`, lay questions against the Python reference)
report hit@10, MRR and nDCG@10 per family. The harness is the `quality` package
beside this script. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio

from scripts.quality.harness import ENTITY_CORPORA
from scripts.quality.passage_sets import PASSAGE_SETS
from scripts.quality.report import main

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--provider", choices=["fake", "local", "multilingual", "all", "models"], default="all"
    )
    parser.add_argument(
        "--corpus", choices=list(ENTITY_CORPORA), nargs="*", default=list(ENTITY_CORPORA)
    )
    parser.add_argument(
        "--passages", choices=list(PASSAGE_SETS), nargs="*", default=list(PASSAGE_SETS)
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    parser.add_argument(
        "--study", action="store_true", help="fusion study, PROPERTY_WEIGHT grid, passages"
    )
    parser.add_argument("--plot", metavar="DIR", help="write docs plots into DIR")
    asyncio.run(main(parser.parse_args()))
