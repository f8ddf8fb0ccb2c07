"""The one evaluation harness: corpora in, per-query rankings, metrics and report tables out.

Shared by the report (`scripts.evaluate_retrieval`), the CI floors
(`tests/quality/`) and the benchmarks, so all measure the same thing the
same way. It builds real stores (`InMemoryGraphStore`, `InMemoryVectorStore`)
from a committed entity corpus and asks a real `Retriever`; nothing here
scores a query itself. Entities are embedded by the write path's own rule
(`redstring.projections.vectors.embed_entities`: name, type, description).

Grading: a query hits at rank r when the r-th match carries any of the
query's acceptable `targets`. hit@1, hit@10 and MRR (reciprocal rank of the
first hit within the top 10, else 0) are over queries that have targets;
`empty` is the share of queries answered with no match at all. For a
`no_match` query (no targets) the figure that matters is `non_empty`, the
share answered with something. Halves: each query carries its `split`
(`fit` or `holdout`, `quality.common.split_of` of its id); fit constants on
`fit`, believe `holdout`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from uuid import UUID, uuid5

from redstring import Entity, EntityId, RetrievalMode, Retriever, TenantId
from redstring.ports import EmbeddingProvider
from redstring.projections.vectors import embed_entities
from redstring.stores import InMemoryGraphStore, InMemoryVectorStore

from .common import DATA_DIR

#: The entity corpora, by the name reports use for them.
ENTITY_CORPORA = {
    "names": DATA_DIR / "entity_corpus.json",
    "world": DATA_DIR / "world_corpus.json",
    "bio": DATA_DIR / "bio_corpus.json",
    "icd": DATA_DIR / "icd_corpus.json",
}
#: The entity corpora the "nothing matches" confidence is fitted and held on (ADR 0170).
CONFIDENCE_CORPORA = {name: ENTITY_CORPORA[name] for name in ("names", "world")}
ENTITY_CORPUS = ENTITY_CORPORA["names"]
PASSAGES = DATA_DIR / "passages.json"

TENANT = TenantId(UUID("5a1e0000-0000-4000-8000-00000000c0de"))
#: Namespace of the evaluation's entity ids (one per corpus key).
_ID_NAMESPACE = UUID("b6f3a0f2-6b7c-4c1e-9d55-3f0e3c1b7a01")
DEPTH = 10
NO_MATCH = "no_match"
#: Every mode a report measures, in report order.
MODES = (RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL, RetrievalMode.HYBRID)


@dataclass(frozen=True)
class QualityQuery:
    """One graded query: its text, its shape (family), its half, and every acceptable entity."""

    id: str
    shape: str
    split: str
    text: str
    targets: frozenset[EntityId]
    #: Where the query came from within its shape (`iso_4217_code`, `febrl_swap`, ...).
    source: str = ""


@dataclass(frozen=True)
class EntityCorpus:
    """The entities of one tenant and the queries graded against them."""

    entities: list[Entity]
    queries: list[QualityQuery]

    @property
    def shapes(self) -> tuple[str, ...]:
        """The corpus's query shapes, in the order the corpus lists them."""
        return tuple(dict.fromkeys(query.shape for query in self.queries))


def entity_id_of(key: str) -> EntityId:
    """The evaluation's id for a corpus key.

    The corpus holds a few different people sharing one name; derived ids
    would merge them, so each corpus record gets its own id.
    """
    return EntityId(uuid5(_ID_NAMESPACE, key))


def load_entity_corpus(path: Path = ENTITY_CORPUS) -> EntityCorpus:
    """Read a committed entity corpus into entities of `TENANT` and graded queries."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    entities = [
        Entity(
            tenant_id=TENANT,
            id=entity_id_of(row["key"]),
            entity_type=row["entity_type"],
            name=row["name"],
            description=row.get("description", ""),
            aliases=list(row["aliases"]),
            properties=dict(row["properties"]),
        )
        for row in raw["entities"]
    ]
    queries = [
        QualityQuery(
            id=row["id"],
            shape=row["shape"],
            split=row["split"],
            text=row["query"],
            targets=frozenset(entity_id_of(key) for key in row["targets"]),
            source=row.get("source", ""),
        )
        for row in raw["queries"]
    ]
    return EntityCorpus(entities=entities, queries=queries)


async def build_graph(corpus: EntityCorpus) -> InMemoryGraphStore:
    """A graph store holding every corpus entity."""
    graph = InMemoryGraphStore()
    await graph.upsert(corpus.entities)
    return graph


async def build_vectors(
    corpus: EntityCorpus, provider: EmbeddingProvider, batch: int = 256
) -> InMemoryVectorStore:
    """A vector store holding each entity embedded exactly as the write path embeds it."""
    vectors = InMemoryVectorStore(dimension=provider.dimension)
    for start in range(0, len(corpus.entities), batch):
        await vectors.upsert(await embed_entities(provider, corpus.entities[start : start + batch]))
    return vectors


@dataclass(frozen=True)
class Ranked:
    """One mode's answer to one query: ids best first with both channel scores."""

    ids: list[EntityId]
    semantic: dict[EntityId, float]
    lexical: dict[EntityId, float]


async def rank_all(
    retriever: Retriever,
    queries: Sequence[QualityQuery],
    mode: RetrievalMode,
    k: int = DEPTH,
) -> list[Ranked]:
    """`retriever`'s answer in `mode` to each query, in query order."""
    answers = []
    for query in queries:
        result = await retriever.retrieve(query.text, TENANT, k=k, mode=mode)
        answers.append(
            Ranked(
                ids=[match.entity.id for match in result.matches],
                semantic={
                    m.entity.id: m.semantic for m in result.matches if m.semantic is not None
                },
                lexical={m.entity.id: m.lexical for m in result.matches if m.lexical is not None},
            )
        )
    return answers


def first_hit[T](ids: Sequence[T], targets: frozenset[T], k: int = DEPTH) -> int | None:
    """One-based rank of the first acceptable id within the top `k`, or None."""
    for rank, item in enumerate(ids[:k], start=1):
        if item in targets:
            return rank
    return None


@dataclass(frozen=True)
class Metrics:
    """Quality of one group of queries (see the module docstring for each figure)."""

    n: int
    hit1: float
    hit10: float
    mrr: float
    empty: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "n": self.n,
            "hit@1": self.hit1,
            "hit@10": self.hit10,
            "mrr": self.mrr,
            "empty": self.empty,
        }


class Graded[T](Protocol):
    """A query graded by its acceptable ids, in a family and a half (entity or passage)."""

    @property
    def shape(self) -> str: ...

    @property
    def split(self) -> str: ...

    @property
    def targets(self) -> frozenset[T]: ...


def measure[T](pairs: Iterable[tuple[Graded[T], Sequence[T]]]) -> Metrics:
    """Metrics of `(query, ranked ids)` pairs.

    hit@1, hit@10 and MRR average over the queries that have targets (NaN if
    none do); `empty` averages over every query (NaN if there are none).
    """
    n = graded = hits1 = hits10 = empties = 0
    reciprocal = 0.0
    for query, ids in pairs:
        n += 1
        empties += not ids
        if not query.targets:
            continue
        graded += 1
        rank = first_hit(ids, query.targets)
        if rank is not None:
            hits10 += 1
            hits1 += rank == 1
            reciprocal += 1.0 / rank
    if graded == 0:
        return Metrics(n=n, hit1=math.nan, hit10=math.nan, mrr=math.nan, empty=_share(empties, n))
    return Metrics(
        n=n,
        hit1=hits1 / graded,
        hit10=hits10 / graded,
        mrr=reciprocal / graded,
        empty=empties / n,
    )


def _share(count: int, total: int) -> float:
    return count / total if total else math.nan


def measure_by_shape[T](
    queries: Sequence[Graded[T]],
    rankings: Sequence[Sequence[T]],
    split: str | None = None,
) -> dict[str, Metrics]:
    """`measure` per shape (and `all` over the graded queries), for one split or both."""
    pairs = [
        (query, ids)
        for query, ids in zip(queries, rankings, strict=True)
        if split is None or query.split == split
    ]
    shapes = dict.fromkeys(query.shape for query in queries)
    report = {shape: measure(p for p in pairs if p[0].shape == shape) for shape in shapes}
    report["all"] = measure(p for p in pairs if p[0].targets)
    return report


def ndcg_at[T](ranked: Sequence[T], gains: Mapping[T, float], k: int = DEPTH) -> float:
    """nDCG@k of the `ranked` ids under graded `gains` (id -> gain >= 0; absent ids gain 0).

    DCG = sum of gain / log2(rank + 1) over the top k; the ideal orders all
    gains. Returns 0.0 when every gain is zero.
    """
    dcg = sum(
        gains.get(item, 0.0) / math.log2(rank + 1) for rank, item in enumerate(ranked[:k], start=1)
    )
    ideal = sorted(gains.values(), reverse=True)[:k]
    best = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal, start=1))
    return dcg / best if best > 0 else 0.0


def fmt(value: float) -> str:
    """A figure for a report table: three decimals, or a dash for "not applicable"."""
    return "—" if math.isnan(value) else f"{value:.3f}"


def quality_table(report: dict[str, dict[str, dict[str, float]]], shapes: Sequence[str]) -> str:
    """One half's table. `report`: mode -> shape (or `all`) -> `Metrics.as_dict()`.

    Rows: shapes, then `all`; columns: hit@1 / hit@10 / MRR / empty per mode.
    For `no_match` the only figure is the share answered with something.
    """
    modes = list(report)
    head = "| shape | n |" + "".join(f" {m} h@1 | {m} h@10 | {m} MRR | {m} empty |" for m in modes)
    lines = [head, "|" + " --- |" * (2 + 4 * len(modes))]
    for shape in (*shapes, "all"):
        cells = [shape, str(report[modes[0]][shape]["n"])]
        for mode in modes:
            row = report[mode][shape]
            if shape == NO_MATCH:
                cells += ["—", "—", "—", f"non-empty {fmt(1 - row['empty'])}"]
            else:
                cells += [fmt(row["hit@1"]), fmt(row["hit@10"]), fmt(row["mrr"]), fmt(row["empty"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
