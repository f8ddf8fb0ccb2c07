"""The retrieval-quality report: every entity corpus, every provider, every mode, both halves.

Entry point: `scripts.evaluate_retrieval` (its docstring lists the flags).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt

from redstring import RetrievalMode, Retriever
from redstring.domain.fusion import DEFAULT_FUSION
from redstring.fusion import EvidenceFusion
from redstring.ports import EmbeddingProvider

from .common import SPLITS
from .fusion_study import fusion_study, grid_table, property_weight_grid, study_table
from .harness import (
    ENTITY_CORPORA,
    MODES,
    NO_MATCH,
    EntityCorpus,
    QualityQuery,
    Ranked,
    build_graph,
    build_vectors,
    load_entity_corpus,
    measure_by_shape,
    quality_table,
    rank_all,
)
from .passage_eval import passage_check
from .passage_sets import (
    PASSAGE_SETS,
    load_passage_set,
    passage_report,
    passage_retriever,
    passage_table,
    rank_documents,
)
from .providers import PreEmbeddedQueries, environment, providers


@dataclass
class ProviderRun:
    """Everything measured with one provider on one corpus."""

    name: str
    rankings: dict[RetrievalMode, list[Ranked]]
    seconds: float


async def run_provider(
    name: str, make: Callable[[], EmbeddingProvider], corpus: EntityCorpus
) -> tuple[ProviderRun, Retriever]:
    """Every query of `corpus` ranked in every mode, with `make()`'s embeddings."""
    started = time.perf_counter()
    provider = PreEmbeddedQueries(make())
    graph = await build_graph(corpus)
    vectors = await build_vectors(corpus, provider)
    await provider.prepare([query.text for query in corpus.queries])
    retriever = Retriever(embeddings=provider, vectors=vectors, graph=graph)
    rankings = {mode: await rank_all(retriever, corpus.queries, mode) for mode in MODES}
    return ProviderRun(name, rankings, time.perf_counter() - started), retriever


def report_of(run: ProviderRun, queries: Sequence[QualityQuery]) -> dict[str, Any]:
    """split -> mode -> shape (and `all`) -> `Metrics.as_dict()`."""
    return {
        split: {
            mode.value: {
                shape: metrics.as_dict()
                for shape, metrics in measure_by_shape(
                    queries, [r.ids for r in run.rankings[mode]], split
                ).items()
            }
            for mode in MODES
        }
        for split in SPLITS
    }


def plot(
    reports: dict[str, dict[str, Any]],
    shapes: Sequence[str],
    out_dir: Path,
    file_name: str,
    title: str,
) -> Path:
    """hit@10 per shape per mode (bars), one panel per provider, holdout half."""
    matplotlib.use("Agg")
    out_dir.mkdir(parents=True, exist_ok=True)
    names = list(reports)
    figure, axes = plt.subplots(len(names), 1, figsize=(11, 3.6 * len(names)), squeeze=False)
    width = 0.27
    for axis, name in zip(axes[:, 0], names, strict=True):
        for offset, mode in enumerate(MODES):
            values = [reports[name]["holdout"][mode.value][s]["hit@10"] for s in shapes]
            axis.bar(
                [x + (offset - 1) * width for x in range(len(shapes))],
                values,
                width,
                label=mode.value,
            )
        axis.set_xticks(range(len(shapes)), shapes, rotation=20)
        axis.set_ylim(0, 1.05)
        axis.set_ylabel("hit@10 (holdout)")
        axis.set_title(f"{title} — {name} embeddings")
        axis.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    figure.savefig(out_dir / file_name, dpi=110)
    plt.close(figure)
    return out_dir / file_name


#: The plot of each corpus, in the `--plot` directory.
PLOT_NAMES = {"names": "quality_by_shape.png", "world": "quality_by_family.png"}


async def corpus_section(
    corpus_name: str, corpus: EntityCorpus, args: argparse.Namespace
) -> tuple[dict[str, Any], list[str]]:
    """The JSON entry and the markdown of one corpus, every provider."""
    entry: dict[str, Any] = {}
    markdown: list[str] = [f"# {corpus_name} corpus\n"]
    for name, make in providers(args.provider).items():
        run, retriever = await run_provider(name, make, corpus)
        report = report_of(run, corpus.queries)
        result: dict[str, Any] = {"seconds": round(run.seconds, 1), "quality": report}
        markdown.append(f"## {name} embeddings ({run.seconds:.1f} s)\n")
        for split in SPLITS:
            markdown += [f"### {split} half\n", quality_table(report[split], corpus.shapes), ""]
        if args.study:
            study = fusion_study(run.rankings, corpus.queries)
            result["fusion_study"] = study
            shown = [
                "rrf k=60 (seeds)",
                "rrf k=1",
                study["chosen_on_fit"],
                f"evidence floor={DEFAULT_FUSION.lexical_floor} power={DEFAULT_FUSION.power:g}"
                if isinstance(DEFAULT_FUSION, EvidenceFusion)
                else "rrf k=60 (seeds)",
            ]
            markdown += [
                "### fusion study (MRR; choice made on fit)\n",
                f"Chosen on fit: `{study['chosen_on_fit']}`. HYBRID equals the default "
                "fusion over the channel lists: "
                f"{study['hybrid_equals_default_fusion_offline']}.\n",
                study_table(study, list(dict.fromkeys(shown))),
                "",
            ]
            if corpus_name == "names":
                grid = await property_weight_grid(retriever, corpus.queries)
                result["property_weight_grid"] = grid
                markdown += [
                    "### PROPERTY_WEIGHT grid (all graded queries)\n",
                    grid_table(grid),
                    "",
                ]
        entry[name] = result
    if args.plot:
        shapes = [s for s in corpus.shapes if s != NO_MATCH]
        reports = {n: e["quality"] for n, e in entry.items()}
        title = f"Entity retrieval quality per query shape ({corpus_name} corpus)"
        path = plot(reports, shapes, Path(args.plot), PLOT_NAMES[corpus_name], title)
        markdown.append(f"plot written: {path}")
    return entry, markdown


async def passage_section(
    set_name: str, args: argparse.Namespace
) -> tuple[dict[str, Any], list[str]]:
    """The JSON entry and the markdown of one graded passage set, every provider."""
    passages = load_passage_set(PASSAGE_SETS[set_name])
    entry: dict[str, Any] = {}
    markdown = [f"# {set_name} passages\n"]
    for name, make in providers(args.provider).items():
        started = time.perf_counter()
        provider = PreEmbeddedQueries(make())
        await provider.prepare([query.text for query in passages.queries])
        retriever = await passage_retriever(passages, provider)
        rankings = {
            mode.value: await rank_documents(retriever, passages.queries, mode) for mode in MODES
        }
        report = passage_report(passages.queries, rankings)
        seconds = time.perf_counter() - started
        entry[name] = {"seconds": round(seconds, 1), "quality": report}
        markdown.append(f"## {name} embeddings ({seconds:.1f} s)\n")
        for split in SPLITS:
            markdown += [f"### {split} half\n", passage_table(report[split], passages.shapes), ""]
    return entry, markdown


async def main(args: argparse.Namespace) -> None:
    """Measure the chosen corpora and print markdown (or JSON with `--json`)."""
    output: dict[str, Any] = {"environment": environment(), "corpora": {}}
    markdown: list[str] = []
    for corpus_name in args.corpus:
        path = ENTITY_CORPORA[corpus_name]
        if not path.exists():
            markdown.append(f"{corpus_name} corpus not measured: {path} does not exist\n")
            continue
        entry, lines = await corpus_section(corpus_name, load_entity_corpus(path), args)
        output["corpora"][corpus_name] = entry
        markdown += lines
    for set_name in args.passages:
        entry, lines = await passage_section(set_name, args)
        output.setdefault("passage_sets", {})[set_name] = entry
        markdown += lines
    if args.study:
        output["passages_ndcg10"] = {}
        for name, make in providers(args.provider).items():
            passages = await passage_check(make)
            output["passages_ndcg10"][name] = passages
            markdown += [
                f"## passage check, {name} embeddings "
                "(Lee corpus, mean nDCG@10 vs human similarity)\n",
                "| mode | nDCG@10 |\n| --- | --- |",
                *[f"| {mode} | {value:.3f} |" for mode, value in passages.items()],
                "",
            ]
    if args.json:
        print(json.dumps(output, indent=1, default=float))
    else:
        env = output["environment"]
        print("# Retrieval quality\n")
        print("Environment: " + ", ".join(f"{k} {v}" for k, v in env.items()) + "\n")
        print("\n".join(markdown))
