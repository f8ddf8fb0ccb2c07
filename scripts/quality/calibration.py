"""How well `confidence` reads as the chance that a result is right, on the holdout half.

Replays the recorded semantic answers through the real retrievers (as
`floors.replay` does) and pairs the confidence of each query's first result
with whether that result is an acceptable answer. Per family it reports the
expected calibration error (ECE: over `BINS` equal-width confidence bins, the
share-weighted mean of |mean confidence - share right|), the mean confidence
and the share right; `all` pools every family of a side. A perfectly
calibrated confidence has ECE 0; one that says 0.99 for a wrong answer half of
the time has about 0.5.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from redstring import RetrievalMode, Retriever

from .harness import ENTITY_CORPORA, TENANT, build_graph, load_entity_corpus
from .passage_sets import CHUNK_DEPTH, PASSAGE_SETS, load_passage_set
from .recorded import load_recording, recorded_chunk_retriever, recorded_semantic

#: Equal-width confidence bins of the ECE.
BINS = 10


@dataclass(frozen=True)
class Calibration:
    """The first results of one group of queries: how sure, how often right."""

    n: int
    ece: float
    mean_confidence: float
    share_right: float


def calibration(pairs: Sequence[tuple[float, bool]], bins: int = BINS) -> Calibration:
    """The calibration of `(confidence, right)` pairs; NaN figures when there are none."""
    if not pairs:
        nan = float("nan")
        return Calibration(n=0, ece=nan, mean_confidence=nan, share_right=nan)
    grouped: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for confidence, right in pairs:
        grouped[min(int(confidence * bins), bins - 1)].append((confidence, right))
    ece = sum(
        len(group)
        / len(pairs)
        * abs(sum(c for c, _ in group) / len(group) - sum(r for _, r in group) / len(group))
        for group in grouped.values()
    )
    return Calibration(
        n=len(pairs),
        ece=ece,
        mean_confidence=sum(c for c, _ in pairs) / len(pairs),
        share_right=sum(r for _, r in pairs) / len(pairs),
    )


Pairs = dict[str, list[tuple[float, bool]]]


def first_results(mode: RetrievalMode = RetrievalMode.HYBRID) -> dict[str, Pairs]:
    """`{side: {family: [(confidence, right), ...]}}` of the holdout's first results."""
    return asyncio.run(_first_results(load_recording()["answers"], mode))


async def _first_results(answers: dict[str, Any], mode: RetrievalMode) -> dict[str, Pairs]:
    sides: dict[str, Pairs] = {"entities": defaultdict(list), "passages": defaultdict(list)}
    for name, path in ENTITY_CORPORA.items():
        corpus = load_entity_corpus(path)
        queries = [q for q in corpus.queries if q.targets and q.split == "holdout"]
        semantic = recorded_semantic(name, corpus, answers, queries)
        retriever = Retriever(
            embeddings=semantic, vectors=semantic, graph=await build_graph(corpus)
        )
        for query in queries:
            result = await retriever.retrieve(query.text, TENANT, k=1, mode=mode)
            for match in result.matches[:1]:
                right = match.entity.id in query.targets
                sides["entities"][f"{name}/{query.shape}"].append((match.confidence, right))
    for name, path in PASSAGE_SETS.items():
        passages = load_passage_set(path)
        graded = [q for q in passages.queries if q.split == "holdout" and q.targets]
        chunk_retriever = await recorded_chunk_retriever(
            passages.documents, answers[f"passages/{name}"], {q.id: q.text for q in graded}
        )
        for query in graded:
            result = await chunk_retriever.retrieve_chunks(
                query.text, TENANT, k=CHUNK_DEPTH, mode=mode
            )
            for match in result.matches[:1]:
                right = match.chunk.source_id in query.targets
                sides["passages"][f"{name}/{query.shape}"].append((match.confidence, right))
    return sides


def calibration_table(sides: dict[str, Pairs]) -> str:
    """The markdown table of `first_results`: a row a family, then `all` per side."""
    lines = [
        "| side | family | queries | ECE | mean confidence | share right |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for side, families in sides.items():
        rows = [(family, calibration(pairs)) for family, pairs in sorted(families.items())]
        rows.append(("all", calibration([p for pairs in families.values() for p in pairs])))
        lines += [
            f"| {side} | {family} | {c.n} | {c.ece:.3f} | {c.mean_confidence:.3f} "
            f"| {c.share_right:.3f} |"
            for family, c in rows
        ]
    return "\n".join(lines)
