"""Graded passage sets: load, index with the library's own chunking, rank, measure.

A passage set file (`element_passages.json`, `python_passages.json`) holds `documents[]` (`id`,
`title`, `text`) and `queries[]` in the entity corpus's query format plus
`grades` (document id -> 2 for the passage a query was written for, 1 for
another acceptable one). Chunks are mapped back to their document; a query
hits when any graded document is in the top 10; nDCG@10 uses the grades.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from redstring import ChunkRetriever, RetrievalMode, SourceDocument, index_documents
from redstring.ports import EmbeddingProvider
from redstring.stores import InMemoryChunkStore

from .common import DATA_DIR, SPLITS
from .harness import DEPTH, NO_MATCH, PASSAGES, TENANT, fmt, measure_by_shape, ndcg_at

PASSAGE_SETS = {
    "elements": DATA_DIR / "element_passages.json",
    "python": DATA_DIR / "python_passages.json",
}
#: The sets the "nothing matches" confidence is fitted on and held to (ADR 0170); the Python
#: reference set (ADR 0285) joins them when the confidence is next refitted (BACKLOG B112).
CONFIDENCE_SETS = {name: PASSAGE_SETS[name] for name in ("elements",)}
#: Chunks asked for per query, so that DEPTH distinct documents survive de-duplication.
CHUNK_DEPTH = 5 * DEPTH
#: Chunks asked for per Lee query (50 documents, several chunks each: all of them).
LEE_DEPTH = 200


@dataclass(frozen=True)
class PassageQuery:
    """One graded passage query: acceptable document ids and their grades."""

    id: str
    shape: str
    split: str
    text: str
    grades: dict[str, float]
    source: str = ""

    @property
    def targets(self) -> frozenset[str]:
        return frozenset(self.grades)


@dataclass(frozen=True)
class PassageSet:
    documents: list[SourceDocument]
    queries: list[PassageQuery]

    @property
    def shapes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(query.shape for query in self.queries))


@dataclass(frozen=True)
class RankedDocuments:
    """One mode's answer: document ids best first, each with its best chunk's channel scores."""

    ids: list[str]
    semantic: dict[str, float]
    bm25: dict[str, float]


def load_passage_set(path: Path) -> PassageSet:
    raw = json.loads(path.read_text(encoding="utf-8"))
    return PassageSet(
        documents=[
            SourceDocument(id=d["id"], title=d["title"], text=d["text"]) for d in raw["documents"]
        ],
        queries=[
            PassageQuery(
                id=q["id"],
                shape=q["shape"],
                split=q["split"],
                text=q["query"],
                grades={k: float(v) for k, v in q["grades"].items()},
                source=q.get("source", ""),
            )
            for q in raw["queries"]
        ],
    )


async def passage_retriever(passages: PassageSet, provider: EmbeddingProvider) -> ChunkRetriever:
    """The documents indexed the library's way (default chunker, `provider` embeddings)."""
    store = InMemoryChunkStore(dimension=provider.dimension)
    await index_documents(passages.documents, chunks=store, tenant_id=TENANT, embeddings=provider)
    return ChunkRetriever(embeddings=provider, chunks=store)


async def rank_documents(
    retriever: ChunkRetriever, queries: Sequence[PassageQuery], mode: RetrievalMode
) -> list[RankedDocuments]:
    """Each query's top `DEPTH` distinct documents in `mode`, each ranked by its best chunk."""
    answers = []
    for query in queries:
        result = await retriever.retrieve_chunks(query.text, TENANT, k=CHUNK_DEPTH, mode=mode)
        ids: list[str] = []
        semantic: dict[str, float] = {}
        bm25: dict[str, float] = {}
        for match in result.matches:
            doc = match.chunk.source_id
            if doc in ids:
                continue
            ids.append(doc)
            if match.semantic is not None:
                semantic[doc] = match.semantic
            if match.bm25 is not None:
                bm25[doc] = match.bm25
        answers.append(RankedDocuments(ids=ids[:DEPTH], semantic=semantic, bm25=bm25))
    return answers


def passage_report(
    queries: Sequence[PassageQuery], rankings: dict[str, list[RankedDocuments]]
) -> dict[str, Any]:
    """split -> mode -> shape (and `all`) -> hit@1, hit@10, MRR, empty, nDCG@10."""
    report: dict[str, Any] = {}
    for split in SPLITS:
        report[split] = {}
        for mode, ranked in rankings.items():
            ids = [r.ids for r in ranked]
            rows = {s: m.as_dict() for s, m in measure_by_shape(queries, ids, split).items()}
            for shape, row in rows.items():
                chosen = [
                    ndcg_at(r, q.grades)
                    for q, r in zip(queries, ids, strict=True)
                    if q.split == split and q.targets and shape in ("all", q.shape)
                ]
                row["ndcg@10"] = sum(chosen) / len(chosen) if chosen else float("nan")
            report[split][mode] = rows
    return report


def passage_table(report: dict[str, dict[str, dict[str, float]]], shapes: Sequence[str]) -> str:
    """One half: rows shapes then `all`; columns hit@10 / MRR / nDCG@10 per mode."""
    modes = list(report)
    lines = [
        "| family | n |" + "".join(f" {m} h@10 | {m} MRR | {m} nDCG@10 |" for m in modes),
        "|" + " --- |" * (2 + 3 * len(modes)),
    ]
    for shape in (*shapes, "all"):
        cells = [shape, str(report[modes[0]][shape]["n"])]
        for mode in modes:
            row = report[mode][shape]
            if shape == NO_MATCH:
                cells += ["—", "—", f"non-empty {fmt(1 - row['empty'])}"]
            else:
                cells += [fmt(row["hit@10"]), fmt(row["mrr"]), fmt(row["ndcg@10"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def lee_documents() -> list[SourceDocument]:
    """The Lee documents under their own ids; each one's first sentence is its query."""
    raw = json.loads(PASSAGES.read_text(encoding="utf-8"))
    return [SourceDocument(id=d["id"], text=d["text"]) for d in raw["documents"]]


def lee_query(document: SourceDocument) -> str:
    """A Lee document's query: its first sentence."""
    return document.text.split(". ")[0]


def lee_grades(document_id: str) -> dict[str, float]:
    """Every other Lee document's human similarity to `document_id`: the nDCG gains."""
    raw = json.loads(PASSAGES.read_text(encoding="utf-8"))
    ids = [d["id"] for d in raw["documents"]]
    row = raw["similarity"][ids.index(document_id)]
    return {
        other: float(gain) for other, gain in zip(ids, row, strict=True) if other != document_id
    }
