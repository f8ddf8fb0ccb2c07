"""The holdout half's "nothing matches" figures, from recorded semantic answers, per mode.

Replays the local model's semantic answers (the graded holdout queries from
`semantic_answers.json.gz`, the no-match ones from `no_match_answers.json.gz`)
behind the real ports, with the real lexical channels, fusions, confidences
and retrievers, at a `min_confidence`. Per side (entities: names + world;
passages: elements) and mode it counts the graded queries answered empty,
their hit@10 and the no-match queries answered empty (all, and per family).
"""

from __future__ import annotations

import asyncio
import gzip
import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from redstring import ChunkRetriever, RetrievalMode, Retriever, index_documents

from .harness import (
    CONFIDENCE_CORPORA,
    DEPTH,
    MODES,
    TENANT,
    build_graph,
    entity_id_of,
    load_entity_corpus,
)
from .no_match_answers import (
    NO_MATCH_RECORDED,
    generated_entity_queries,
    generated_passage_queries,
)
from .passage_sets import CHUNK_DEPTH, CONFIDENCE_SETS, load_passage_set
from .recorded import RecordedChunks, RecordedSemantic, load_recording

SIDES = ("entities", "passages")


@dataclass
class Tally:
    """Counts for one side and mode at one threshold."""

    graded: int = 0
    graded_empty: int = 0
    hits: int = 0
    no_match: dict[str, list[int]] = field(default_factory=dict)  # family -> [n, empty]

    def add(self, family: str, graded: bool, empty: bool, hit: bool) -> None:
        if graded:
            self.graded += 1
            self.graded_empty += empty
            self.hits += hit
        else:
            counts = self.no_match.setdefault(family, [0, 0])
            counts[0] += 1
            counts[1] += empty

    def figures(self) -> dict[str, Any]:
        n = sum(c[0] for c in self.no_match.values())
        empty = sum(c[1] for c in self.no_match.values())
        return {
            "graded": self.graded,
            "graded_emptied": self.graded_empty / self.graded,
            "hit@10": self.hits / self.graded,
            "no_match": n,
            "no_match_emptied": empty / n,
            "families": {f: c[1] / c[0] for f, c in sorted(self.no_match.items())},
        }


Report = dict[str, dict[str, dict[str, Any]]]


def replay(min_confidence: float | None, modes: Sequence[RetrievalMode] = MODES) -> Report:
    """`{side: {mode: figures}}` on the holdout half at `min_confidence`."""
    graded = load_recording()["answers"]
    no_match = json.loads(gzip.decompress(NO_MATCH_RECORDED.read_bytes()))["answers"]
    return asyncio.run(_replay(graded, no_match, min_confidence, modes))


async def _replay(
    graded: dict[str, Any],
    no_match: dict[str, Any],
    threshold: float | None,
    modes: Sequence[RetrievalMode],
) -> Report:
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    for name, path in CONFIDENCE_CORPORA.items():
        corpus = load_entity_corpus(path)
        queries = [q for q in corpus.queries + generated_entity_queries() if q.split == "holdout"]
        type_of = {e.id: e.entity_type for e in corpus.entities}
        recorded = {**graded[f"entities/{name}"], **no_match[f"entities/{name}"]}
        semantic = RecordedSemantic(
            {
                q.text: [(entity_id_of(k), type_of[entity_id_of(k)], s) for k, s in recorded[q.id]]
                for q in queries
            }
        )
        retriever = Retriever(
            embeddings=semantic, vectors=semantic, graph=await build_graph(corpus)
        )
        for mode in modes:
            for q in queries:
                result = await retriever.retrieve(
                    q.text, TENANT, k=DEPTH, mode=mode, min_confidence=threshold
                )
                ids = {m.entity.id for m in result.matches}
                tallies["entities"][mode.value].add(
                    q.shape, bool(q.targets), not ids, bool(ids & q.targets)
                )
    for name, path in CONFIDENCE_SETS.items():
        passages = load_passage_set(path)
        queries_p = [
            q for q in passages.queries + generated_passage_queries() if q.split == "holdout"
        ]
        recorded = {**graded[f"passages/{name}"], **no_match[f"passages/{name}"]}
        chunks = RecordedChunks(
            {q.text: [(str(s), int(i), float(v)) for s, i, v in recorded[q.id]] for q in queries_p}
        )
        await index_documents(passages.documents, chunks=chunks, tenant_id=TENANT)
        chunk_retriever = ChunkRetriever(embeddings=chunks, chunks=chunks)
        for mode in modes:
            for q in queries_p:
                found = await chunk_retriever.retrieve_chunks(
                    q.text, TENANT, k=CHUNK_DEPTH, mode=mode, min_confidence=threshold
                )
                documents = list(dict.fromkeys(m.chunk.source_id for m in found.matches))[:DEPTH]
                tallies["passages"][mode.value].add(
                    q.shape, bool(q.targets), not documents, bool(set(documents) & q.targets)
                )
    return {
        side: {mode: tally.figures() for mode, tally in by_mode.items()}
        for side, by_mode in tallies.items()
    }


def table(reports: dict[str, Report], baseline: Report) -> str:
    """Markdown rows per side, mode and threshold: no-match emptied against graded emptied."""
    lines = [
        "| side | mode | min_confidence | no-match answered empty | graded answered empty "
        "| hit@10 (lost) | no-match empty per family |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for side in SIDES:
        for mode in (m.value for m in MODES):
            for label, report in reports.items():
                row = report[side][mode]
                change = row["hit@10"] - baseline[side][mode]["hit@10"]
                families = ", ".join(f"{f} {v:.2f}" for f, v in row["families"].items())
                lines.append(
                    f"| {side} | {mode} | {label} | {row['no_match_emptied']:.3f} "
                    f"(n={row['no_match']}) | {row['graded_emptied']:.3f} (n={row['graded']}) "
                    f"| {row['hit@10']:.3f} ({change:+.3f}) | {families} |"
                )
    return "\n".join(lines)
