"""Passage rules tried after `ConvexFusion` (ADR 0440), graded as `passage_rules` grades.

    nice -n 10 uv run python -m scripts.quality.passage_trials [--data DIR ...]

Each is a convex combination of the two channels' scores that changes one
thing of `ConvexFusion` (semantic weight `a`, the semantic score stretched
between the query's first and 50th, the lexical one BM25 over the query's
ceiling): how a channel's scores are put on 0..1 (BM25 over the lexical
first's among them, ADR 0440's default), which score anchors the top, or a
lexical weight read from the query's BM25 coverage or from how far the
semantic channel agrees with the lexical first few, or a chunk's score
lowered by how far its two channels disagree on it. None held better than
`ConvexFusion` left out (BACKLOG B355).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .passage_rules import Case, Params, Rule, main, order_documents

Scale = Callable[[Sequence[float]], np.ndarray]
#: Semantic weights the trials are chosen among.
WEIGHTS = tuple(float(a) for a in np.round(np.linspace(0.15, 0.7, 12), 2))
#: What the lexical part is multiplied by below a coverage step.
STEPS = (0.25, 0.5, 0.75)


def stretched(depth: int, anchor: int = 1) -> Scale:
    """Scores stretched between the `anchor`-th (1) and the `depth`-th (0), clamped at 0."""

    def scale(scores: Sequence[float]) -> np.ndarray:
        values = np.asarray(scores, dtype=float)
        floor = values[min(depth, len(values)) - 1]
        span = values[min(anchor, len(values)) - 1] - floor
        return np.clip((values - floor) / span, 0.0, None) if span > 0 else np.ones_like(values)

    return scale


def as_given(scores: Sequence[float]) -> np.ndarray:
    """The scores unchanged (`ConvexFusion`'s lexical scale: BM25 over the query's ceiling)."""
    return np.asarray(scores, dtype=float)


def over_anchor(anchor: int = 1) -> Scale:
    """Scores over the `anchor`-th (the lexical scale of `ConvexFusion` at 1)."""

    def scale(scores: Sequence[float]) -> np.ndarray:
        values = np.asarray(scores, dtype=float)
        top = values[min(anchor, len(values)) - 1]
        return values / top if top > 0 else values

    return scale


def z_scored(depth: int) -> Scale:
    """Scores mapped from mean - 3 sd .. mean + 3 sd of the first `depth` onto 0..1."""

    def scale(scores: Sequence[float]) -> np.ndarray:
        values = np.asarray(scores, dtype=float)
        head = values[:depth]
        if len(head) < 2 or head.std() == 0:
            return np.ones_like(values)
        low = head.mean() - 3 * head.std()
        return np.clip((values - low) / (6 * head.std()), 0.0, 1.0)

    return scale


def convex_documents(
    case: Case,
    weight: float,
    semantic: Scale | None = None,
    lexical: Scale | None = None,
    *,
    lexical_factor: float = 1.0,
    past_depth: float = 1.0,
    disagreement: float = 0.0,
) -> list[str]:
    """Documents by `weight * semantic + (1 - weight) * lexical_factor * lexical`, the
    scales `ConvexFusion`'s unless given; a lexical-only chunk past the semantic 50 has its
    lexical part times `past_depth`; each chunk's score less `disagreement` times how far
    its two scaled scores differ."""
    semantic = semantic or stretched(50)
    lexical = lexical or as_given
    scores = {
        chunk: weight * value
        for chunk, value in zip(case.semantic, semantic(case.semantic_scores), strict=True)
        if value > 0
    }
    within = set(case.semantic[:50])
    if case.coverages:
        for chunk, value in zip(case.lexical, lexical(case.coverages), strict=True):
            if value > 0:
                part = (1 - weight) * lexical_factor * value
                scores[chunk] = scores.get(chunk, 0.0) + part * (
                    1.0 if chunk in within else past_depth
                )
    if disagreement:
        scaled = [
            dict(zip(case.semantic, semantic(case.semantic_scores), strict=True)),
            dict(zip(case.lexical, lexical(case.coverages), strict=True)) if case.coverages else {},
        ]
        scores = {
            chunk: value - disagreement * abs(scaled[0].get(chunk, 0.0) - scaled[1].get(chunk, 0.0))
            for chunk, value in scores.items()
        }
    ordered = [c for c, _ in sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))]
    placed = set(ordered)
    return order_documents(case, [*ordered, *(c for c in case.semantic if c not in placed)])


def agreement(case: Case, first: int) -> float:
    """The mean stretched semantic score (`ConvexFusion`'s) of the lexical first `first`
    chunks, 0 for a chunk past the semantic 50: how far the model agrees with BM25's top."""
    if not case.lexical:
        return 0.0
    semantic = dict(zip(case.semantic, stretched(50)(case.semantic_scores), strict=True))
    return float(np.mean([semantic.get(chunk, 0.0) for chunk in case.lexical[:first]]))


def _rule(name: str, grid: Sequence[Params], order: Callable[[Case, Params], list[str]]) -> Rule:
    return Rule(name, lambda c, p: (1.0, 1.0), tuple(grid), order=order)


def trials() -> list[Rule]:
    coverages = (0.1, 0.2, 0.3, 0.4, 0.5, 0.7)
    return [
        _rule(
            "the default's weight alone (depth 50, nothing else changed)",
            [(a,) for a in WEIGHTS],
            lambda case, p: convex_documents(case, p[0]),
        ),
        _rule(
            "lexical over the lexical first's (ADR 0440)",
            [(a,) for a in WEIGHTS],
            lambda case, p: convex_documents(case, p[0], lexical=over_anchor()),
        ),
        _rule(
            "lexical part times min(1, coverage / c)",
            [(a, c) for a in WEIGHTS for c in coverages],
            lambda case, p: convex_documents(
                case, p[0], lexical_factor=min(1.0, case.coverage / p[1])
            ),
        ),
        _rule(
            "lexical part times m below coverage c",
            [(a, c, m) for a in WEIGHTS for c in (0.15, 0.25, 0.35, 0.5) for m in STEPS],
            lambda case, p: convex_documents(
                case, p[0], lexical_factor=1.0 if case.coverage >= p[1] else p[2]
            ),
        ),
        _rule(
            "lexical-only chunks past the semantic 50 times m",
            [(a, m) for a in WEIGHTS for m in (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)],
            lambda case, p: convex_documents(case, p[0], past_depth=p[1]),
        ),
        _rule(
            "both channels z-scored over their first n",
            [(n, a) for n in (20, 50) for a in WEIGHTS],
            lambda case, p: convex_documents(case, p[1], z_scored(int(p[0])), z_scored(int(p[0]))),
        ),
        _rule(
            "lexical stretched to its Lth as well",
            [(depth, a) for depth in (10, 50, 200, 1000) for a in WEIGHTS],
            lambda case, p: convex_documents(case, p[1], lexical=stretched(int(p[0]))),
        ),
        *(
            _rule(
                f"both channels anchored at their score at place {anchor}",
                [(a,) for a in WEIGHTS],
                lambda case, p, anchor=anchor: convex_documents(
                    case, p[0], stretched(50, anchor), over_anchor(anchor)
                ),
            )
            for anchor in (2, 3)
        ),
        _rule(
            "lexical part times the model's agreement with the lexical first m, to the power p",
            [(a, m, power) for a in WEIGHTS for m in (3, 10) for power in (0.25, 0.5, 1.0)],
            lambda case, p: convex_documents(
                case, p[0], lexical_factor=agreement(case, int(p[1])) ** p[2]
            ),
        ),
        _rule(
            "the combination less g times the chunk's two scores' difference",
            [(a, g) for a in WEIGHTS for g in (0.02, 0.05, 0.1, 0.15)],
            lambda case, p: convex_documents(case, p[0], disagreement=p[1]),
        ),
    ]


if __name__ == "__main__":
    main(trials, __doc__)
