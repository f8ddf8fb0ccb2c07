"""The fusion's graded cases: each query's two channel answers, graded; reports per family.

Each graded query is asked of the two channels alone (SEMANTIC, LEXICAL; the
local MiniLM model or its recorded answers), through the real retrievers,
once (`fusion_cases`). A `Case` grades any fused order of its ids; `report`
prints every family on both halves beside the single channels, and
`fusion_rules` chooses a rule's few numbers family by family (ADR 0365).
`AdaptiveFusion`'s logistic search lived here until ADR 0365.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from redstring.domain.fusion_dispatch import fuse_entities
from redstring.domain.lexical import WordCover
from redstring.fusion import FusionStrategy

from .harness import DEPTH, ndcg_at

#: Allowed shortfall of HYBRID below the better channel per family (the issue's target).
TOLERANCE = 0.01
#: Fewest fit queries a source needs to count as a group of its own.
MIN_GROUP = 30
#: Every metric a case may have.
ALL_METRICS = ("mrr", "hit10", "ndcg10")


@dataclass(frozen=True)
class Case:
    """One graded query: its two channel answers and how to grade an order of ids.

    Entity cases grade ids against `targets` (MRR, hit@10). Passage cases map
    each chunk id to its document (`doc_of`), keep each document's first
    place (leaving out `own_doc`, Lee's query document) and grade the top 10
    documents: MRR and hit@10 against `targets` when the set has them, and
    nDCG@10 under `grades` (document -> gain).
    """

    family: str
    split: str
    query: str
    semantic: tuple[tuple[str, float], ...]
    lexical: tuple[tuple[str, float], ...]
    targets: frozenset[str] = frozenset()
    doc_of: tuple[tuple[str, str], ...] = ()
    grades: tuple[tuple[str, float], ...] = ()
    own_doc: str = ""
    #: Where the query came from within its family (the corpus's `source`).
    source: str = ""
    #: The lexical first's `WordCover` (entities; ADR 0540), as `Retriever` hands it over.
    cover: WordCover | None = None

    @property
    def metrics(self) -> tuple[str, ...]:
        ranked = ("mrr", "hit10") if self.targets else ()
        return (*ranked, "ndcg10") if self.doc_of else ranked

    def grade(self, order: Sequence[str]) -> dict[str, float]:
        """The metrics of `order` (ids best first), named by `metrics`."""
        items = self._documents(order) if self.doc_of else list(order[:DEPTH])
        graded: dict[str, float] = {}
        if self.targets:
            rank = next((r for r, i in enumerate(items, start=1) if i in self.targets), None)
            graded["mrr"] = 0.0 if rank is None else 1.0 / rank
            graded["hit10"] = 0.0 if rank is None else 1.0
        if self.doc_of:
            graded["ndcg10"] = ndcg_at(items, dict(self.grades))
        return graded

    def _documents(self, order: Sequence[str]) -> list[str]:
        doc_of = dict(self.doc_of)
        docs: list[str] = []
        for item in order:
            doc = doc_of[item]
            if doc != self.own_doc and doc not in docs:
                docs.append(doc)
        return docs[:DEPTH]


def fused_order(case: Case, strategy: FusionStrategy) -> list[str]:
    fused = fuse_entities(strategy, case.semantic, case.lexical, query=case.query, cover=case.cover)
    return [i for i, _ in fused]


def groups_of(cases: Sequence[Case]) -> dict[str, np.ndarray]:
    """Each family's case indices, and `family|source` for every source of at least
    `MIN_GROUP` cases in a family that holds two or more such sources."""
    groups: dict[str, list[int]] = {}
    sources: dict[str, dict[str, list[int]]] = {}
    for i, case in enumerate(cases):
        groups.setdefault(case.family, []).append(i)
        sources.setdefault(case.family, {}).setdefault(case.source, []).append(i)
    for family, by_source in sources.items():
        big = {s: idx for s, idx in by_source.items() if len(idx) >= MIN_GROUP}
        if len(big) >= 2:
            groups.update({f"{family}|{s}": idx for s, idx in big.items()})
    return {g: np.array(idx) for g, idx in sorted(groups.items())}


def mean_grades(cases: Sequence[Case], orders: Sequence[Sequence[str]]) -> dict[str, float]:
    """metric -> mean grade of `orders` (one per case) over all `cases`."""
    graded = [case.grade(order) for case, order in zip(cases, orders, strict=True)]
    return {m: float(np.mean([g[m] for g in graded])) for m in graded[0]}


def family_means(
    cases: Sequence[Case], orders: Sequence[Sequence[str]]
) -> dict[str, dict[str, float]]:
    """family -> metric -> mean grade of `orders` (one per case)."""
    by: dict[str, list[dict[str, float]]] = {}
    for case, order in zip(cases, orders, strict=True):
        by.setdefault(case.family, []).append(case.grade(order))
    return {
        family: {m: float(np.mean([g[m] for g in graded])) for m in graded[0]}
        for family, graded in sorted(by.items())
    }


def report(cases: Sequence[Case], strategies: dict[str, FusionStrategy]) -> str:
    """Per split and family: each single channel and each strategy, and the first's shortfall."""
    lines = []
    whos = ("semantic", "lexical", *strategies)
    for split in ("fit", "holdout"):
        chosen = [c for c in cases if c.split == split]
        tables = {
            "semantic": family_means(chosen, [[i for i, _ in c.semantic] for c in chosen]),
            "lexical": family_means(chosen, [[i for i, _ in c.lexical] for c in chosen]),
        }
        for name, strategy in strategies.items():
            tables[name] = family_means(chosen, [fused_order(c, strategy) for c in chosen])
        head = " | ".join(f"{who} {m}" for who in whos for m in ALL_METRICS)
        lines += [f"\n### {split}\n", f"| family | n | {head} | worst shortfall |"]
        lines.append("|" + " --- |" * (3 + len(ALL_METRICS) * len(whos)))
        first = next(iter(strategies))
        for family, sem in tables["semantic"].items():
            n = sum(c.family == family for c in chosen)
            cells = [family, str(n)]
            for who in whos:
                row = tables[who][family]
                cells += [f"{row[m]:.3f}" if m in row else "—" for m in ALL_METRICS]
            lex, fused = tables["lexical"][family], tables[first][family]
            worst = min(fused[m] - max(sem[m], lex[m]) for m in sem)
            lines.append("| " + " | ".join(cells) + f" | {worst:+.3f} |")
    return "\n".join(lines)
