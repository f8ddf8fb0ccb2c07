"""Fit `NGRAM_MIX` (the trigram reading's share of a name score) on the fit half (ADR 0115).

    uv run python scripts/fit_ngram_mix.py
    uv run python scripts/fit_ngram_mix.py --grid 0 0.1 0.2 0.3

Runs `Retriever.lexical_only` over the committed quality corpus once per
grid value, prints LEXICAL hit@10 / MRR per shape for both halves, and names
the value with the best fit-half MRR over all graded queries (ties: the
smaller value). The holdout columns are reported, never used to choose.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from redstring import RetrievalMode, Retriever
from redstring.domain import lexical

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_quality import (
    SHAPES,
    Metrics,
    build_graph,
    load_entity_corpus,
    measure_by_shape,
    rank_all,
)


async def measure_at(mix: float) -> dict[str, dict[str, Metrics]]:
    """LEXICAL metrics per split and shape with `NGRAM_MIX = mix`."""
    lexical.NGRAM_MIX = mix
    corpus = load_entity_corpus()
    retriever = Retriever.lexical_only(graph=await build_graph(corpus))
    ranked = await rank_all(retriever, corpus.queries, RetrievalMode.LEXICAL)
    ids = [answer.ids for answer in ranked]
    return {split: measure_by_shape(corpus.queries, ids, split) for split in ("fit", "holdout")}


def cell(metrics: Metrics) -> str:
    return f"{metrics.hit10:.3f} / {metrics.mrr:.3f}"


async def main(args: argparse.Namespace) -> None:
    results = {mix: await measure_at(mix) for mix in args.grid}
    shapes = [shape for shape in (*SHAPES, "all") if shape != "no_match"]
    print("| NGRAM_MIX | split | " + " | ".join(shapes) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in shapes) + " |")
    for mix, by_split in results.items():
        for split, report in by_split.items():
            print(f"| {mix} | {split} | " + " | ".join(cell(report[s]) for s in shapes) + " |")
    chosen = max(args.grid, key=lambda mix: (results[mix]["fit"]["all"].mrr, -mix))
    fit, holdout = results[chosen]["fit"]["all"], results[chosen]["holdout"]["all"]
    print(f"\nchosen on fit: NGRAM_MIX = {chosen} (fit {cell(fit)}, holdout {cell(holdout)})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", type=float, nargs="+", default=[0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    asyncio.run(main(parser.parse_args()))
