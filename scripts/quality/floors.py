"""HYBRID floors per family: the recorded semantic answers replayed through the real retrievers.

`replay()` rebuilds each committed corpus's lexical side for real (graph
store with blocking and trigram keys; chunk store with BM25), answers the
semantic channel from `recorded.RECORDED`, and runs `Retriever` /
`ChunkRetriever` with their default fusions in every mode over the holdout
half. It returns `{set/family: {mode: {metric: value}}}` (entities and the
graded passage sets: hit@10 and MRR; Lee: nDCG@10). `write_floors()` records
that report as `FLOORS`, which `tests/quality/test_fusion_floors.py` holds
HYBRID to:

    uv run python -m scripts.fit_fusion --record   # only after a corpus or model change
    uv run python -m scripts.fit_fusion --floors
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.pyplot as plt

from redstring import RetrievalMode, Retriever

from .common import DATA_DIR, split_of
from .harness import (
    ENTITY_CORPORA,
    MODES,
    TENANT,
    build_graph,
    load_entity_corpus,
    measure_by_shape,
    ndcg_at,
    rank_all,
)
from .passage_sets import (
    PASSAGE_SETS,
    lee_documents,
    lee_grades,
    lee_query,
    load_passage_set,
    rank_documents,
)
from .recorded import load_recording, recorded_chunk_retriever, recorded_semantic

FLOORS = DATA_DIR / "fusion_floors.json"
Report = dict[str, dict[str, dict[str, float]]]


def replay(modes: Sequence[RetrievalMode] = MODES) -> Report:
    """Every holdout family's figures in `modes`, from the recorded semantic answers."""
    return asyncio.run(_replay(load_recording()["answers"], modes))


async def _replay(answers: dict[str, Any], modes: Sequence[RetrievalMode]) -> Report:
    report: Report = defaultdict(dict)
    for name, path in ENTITY_CORPORA.items():
        corpus = load_entity_corpus(path)
        queries = [q for q in corpus.queries if q.targets and q.split == "holdout"]
        semantic = recorded_semantic(name, corpus, answers, queries)
        retriever = Retriever(
            embeddings=semantic, vectors=semantic, graph=await build_graph(corpus)
        )
        for mode in modes:
            ranked = await rank_all(retriever, queries, mode)
            rows = measure_by_shape(queries, [r.ids for r in ranked])
            for shape, m in rows.items():
                if shape != "all" and m.mrr == m.mrr:  # a family with no graded query is NaN
                    report[f"{name}/{shape}"][mode.value] = {"hit@10": m.hit10, "mrr": m.mrr}
    for name, path in PASSAGE_SETS.items():
        passages = load_passage_set(path)
        queries_p = [q for q in passages.queries if q.split == "holdout"]  # no_match kept: BM25 N
        chunk_retriever = await recorded_chunk_retriever(
            passages.documents, answers[f"passages/{name}"], {q.id: q.text for q in queries_p}
        )
        for mode in modes:
            ranked_p = await rank_documents(chunk_retriever, queries_p, mode)
            rows = measure_by_shape(queries_p, [r.ids for r in ranked_p])
            for shape, m in rows.items():
                if shape != "all" and m.mrr == m.mrr:  # a family with no graded query is NaN
                    report[f"{name}/{shape}"][mode.value] = {"hit@10": m.hit10, "mrr": m.mrr}
    documents = lee_documents()
    held = [d for d in documents if split_of(d.id) == "holdout"]
    lee_retriever = await recorded_chunk_retriever(
        documents, answers["passages/lee"], {d.id: lee_query(d) for d in held}
    )
    for mode in modes:
        gains = []
        for d in held:
            result = await lee_retriever.retrieve_chunks(lee_query(d), TENANT, k=200, mode=mode)
            ids = list(
                dict.fromkeys(
                    m.chunk.source_id for m in result.matches if m.chunk.source_id != d.id
                )
            )
            gains.append(ndcg_at(ids, lee_grades(d.id)))
        report["lee/first_sentence"][mode.value] = {"ndcg@10": sum(gains) / len(gains)}
    return dict(report)


def write_floors() -> Report:
    """Replay and record the figures as the floors; returns them."""
    report = replay()
    rounded = {
        f: {m: {k: round(v, 4) for k, v in r.items()} for m, r in row.items()}
        for f, row in report.items()
    }
    FLOORS.write_text(json.dumps(rounded, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return report


def load_floors() -> Report:
    loaded: Report = json.loads(FLOORS.read_text(encoding="utf-8"))
    return loaded


def floors_table(report: Report, margin: float = 0.01) -> str:
    """The markdown table per family of `report` (holdout), flagging HYBRID below a channel.

    A family is flagged when HYBRID's hit@10 or MRR (nDCG@10 for Lee) is more
    than `margin` below the better single channel's: the done line of issue 13.
    """
    lines = [
        "| family | LEXICAL hit@10 | LEXICAL MRR | SEMANTIC hit@10 | SEMANTIC MRR "
        "| HYBRID hit@10 | HYBRID MRR | HYBRID below the better channel |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for family in sorted(report):
        row = report[family]
        metrics = sorted(row["hybrid"], reverse=True)  # hit@10 before mrr; Lee: ndcg@10 only
        below = [
            f"{metric} {row['hybrid'][metric] - best:+.3f}"
            for metric in metrics
            if row["hybrid"][metric]
            < (best := max(row["lexical"][metric], row["semantic"][metric])) - margin
        ]
        cells = []
        for mode in ("lexical", "semantic", "hybrid"):
            if "ndcg@10" in row[mode]:
                cells += [f"nDCG@10 {row[mode]['ndcg@10']:.3f}", "—"]
            else:
                cells += [f"{row[mode]['hit@10']:.3f}", f"{row[mode]['mrr']:.3f}"]
        lines.append(f"| {family} | " + " | ".join(cells) + f" | {', '.join(below) or 'no'} |")
    return "\n".join(lines)


#: The per-family plot `plot_floors` writes, in the directory it is given.
FLOORS_PLOT = "hybrid_by_family.png"


def plot_floors(report: Report, out_dir: Path) -> Path:
    """hit@10 and MRR (nDCG@10 for Lee) per family and mode, holdout, as bars."""
    matplotlib.use("Agg")
    families = sorted(report)
    figure, axes = plt.subplots(2, 1, figsize=(13, 8.5))
    width = 0.27
    for axis, metric in zip(axes, ("hit@10", "mrr"), strict=True):
        for offset, mode in enumerate(("lexical", "semantic", "hybrid")):
            values = [
                report[f][mode].get(metric, report[f][mode].get("ndcg@10", 0.0)) for f in families
            ]
            axis.bar(
                [x + (offset - 1) * width for x in range(len(families))], values, width, label=mode
            )
        axis.set_xticks(range(len(families)), families, rotation=35, ha="right", fontsize=8)
        axis.set_ylim(0, 1.05)
        axis.set_ylabel(f"{metric} (holdout; Lee: nDCG@10)")
        axis.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes[0].set_title("HYBRID against each channel per family (recorded local-model answers)")
    figure.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    figure.savefig(out_dir / FLOORS_PLOT, dpi=100)
    plt.close(figure)
    return out_dir / FLOORS_PLOT
