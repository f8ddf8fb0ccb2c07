"""The fusion study (ADR 0060/0071) and the PROPERTY_WEIGHT grid (ADR 0061), on any entity corpus.

Offline: every candidate fusion re-ranks the SEMANTIC and LEXICAL channels'
own top-10 lists; the choice is made on `fit` alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import redstring.domain.lexical as lexical_module
from redstring import EntityId, RetrievalMode, Retriever
from redstring.domain.fusion import DEFAULT_FUSION
from redstring.fusion import (
    EvidenceFusion,
    FusionStrategy,
    PooledEvidenceFusion,
    ReciprocalRankFusion,
)

from .common import SPLITS
from .harness import NO_MATCH, Metrics, QualityQuery, Ranked, fmt, measure_by_shape, rank_all

PROPERTY_WEIGHTS = (0.0, 0.4, 0.6, 0.8, 1.0)
FLOORS = (0.6, 0.7, 0.75, 0.8, 0.85, 0.9)
POWERS = (1.0, 2.0, 3.0, 4.0, 6.0, 8.0)
RRF_CONSTANTS = (1, 10, 60)
Rankings = dict[RetrievalMode, list[Ranked]]


def graded_shapes(queries: Sequence[QualityQuery]) -> tuple[str, ...]:
    """The shapes that have targets, in corpus order."""
    return tuple(s for s in dict.fromkeys(q.shape for q in queries) if s != NO_MATCH)


def channel_lists(
    rankings: Rankings,
) -> list[tuple[list[tuple[EntityId, float]], list[tuple[EntityId, float]]]]:
    """Per query, the semantic and lexical channels' own top-10 with their scores."""
    semantic = rankings[RetrievalMode.SEMANTIC]
    lexical = rankings[RetrievalMode.LEXICAL]
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
    fused: dict[str, Metrics],
    semantic: dict[str, Metrics],
    lexical: dict[str, Metrics],
    shapes: Sequence[str],
) -> dict[str, float]:
    """Per graded shape (and all): fused MRR minus the better single channel's MRR."""
    return {
        shape: fused[shape].mrr - max(semantic[shape].mrr, lexical[shape].mrr)
        for shape in (*shapes, "all")
    }


def candidates() -> dict[str, FusionStrategy]:
    found: dict[str, FusionStrategy] = {
        "rrf k=60 (seeds)": ReciprocalRankFusion(),
        "pooled evidence (ADR 0365)": PooledEvidenceFusion(),
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


def fusion_study(rankings: Rankings, queries: Sequence[QualityQuery]) -> dict[str, Any]:
    """Every candidate on both halves; the choice is made on `fit` alone.

    Choice rule: the smallest worst per-shape shortfall against the better
    single channel (MRR) on fit, then the highest overall fit MRR.
    """
    shapes = graded_shapes(queries)
    lists = channel_lists(rankings)
    single = {
        split: (
            measure_by_shape(queries, [r.ids for r in rankings[RetrievalMode.SEMANTIC]], split),
            measure_by_shape(queries, [r.ids for r in rankings[RetrievalMode.LEXICAL]], split),
        )
        for split in SPLITS
    }
    rows = {}
    for name, strategy in candidates().items():
        ranked = fused_rankings(strategy, lists, queries)
        row = {}
        for split in SPLITS:
            fused = measure_by_shape(queries, ranked, split)
            gaps = shortfalls(fused, *single[split], shapes)
            row[split] = {
                "mrr": {shape: fused[shape].mrr for shape in (*shapes, "all")},
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
    hybrid_ids = [r.ids for r in rankings[RetrievalMode.HYBRID]]
    return {
        "shapes": list(shapes),
        "channels": {
            split: {
                "semantic": {s: single[split][0][s].mrr for s in (*shapes, "all")},
                "lexical": {s: single[split][1][s].mrr for s in (*shapes, "all")},
            }
            for split in SPLITS
        },
        "candidates": rows,
        "chosen_on_fit": chosen,
        "hybrid_equals_default_fusion_offline": default_ids == hybrid_ids,
    }


def study_table(study: dict[str, Any], names: Sequence[str]) -> str:
    """MRR per graded shape of each named candidate and of each channel alone."""
    shapes = study["shapes"]
    lines = [
        "| fusion | split | " + " | ".join(shapes) + " | all | shapes below the better channel |",
        "|" + " --- |" * (4 + len(shapes)),
    ]
    for split in SPLITS:
        for channel in ("semantic", "lexical"):
            mrr = study["channels"][split][channel]
            lines.append(
                f"| {channel} alone | {split} | "
                + " | ".join(fmt(mrr[s]) for s in (*shapes, "all"))
                + " | |"
            )
        for name in names:
            row = study["candidates"][name][split]
            lines.append(
                f"| {name} | {split} | "
                + " | ".join(fmt(row["mrr"][s]) for s in (*shapes, "all"))
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
