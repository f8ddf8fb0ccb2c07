"""Fit `AdaptiveFusion`'s constants on the fit half; report every family on both halves.

    uv run python scripts/fit_fusion.py                    # entities and passages
    uv run python scripts/fit_fusion.py --cache /tmp/fuse  # reuse the channel answers

Each graded query is asked of the two channels alone (SEMANTIC, LEXICAL; the
local MiniLM model), through the real retrievers, once. A fused order then
depends only on the lexical weight `w` and the evidence constants, so the
script tabulates every query's grade at `W_GRID` weights for each
(lexical floor, semantic floor, power) of the grid, and searches the
logistic coefficients that map `fusion_features` to `w` against those tables:
on the `fit` half only. The winner is then re-run exactly through
`AdaptiveFusion.fuse` on both halves (the table is a grid; this is the real
function) and printed beside the single channels, `EvidenceFusion` and plain
RRF, with the constants to paste into `domain/fusion.py`.

Choice rule, on fit: maximise `mean family MRR (or nDCG) + PENALTY * sum of
each family's shortfall below the better channel minus TOLERANCE` (hit@10
and MRR both count), minus a small L2 price on the coefficients.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from redstring import EvidenceFusion, FusionStrategy, ReciprocalRankFusion
from redstring.domain.fusion import AdaptiveFusion, weighted_evidence
from redstring.domain.query_reading import FEATURE_NAMES, fusion_features

#: Lexical weights the tables are built at.
W_GRID = np.linspace(0.0, 1.0, 41)
#: Allowed shortfall of HYBRID below the better channel per family (the issue's target).
TOLERANCE = 0.01
#: What a unit of shortfall beyond the tolerance costs against a unit of mean quality.
PENALTY = 4.0
#: L2 price per unit of squared coefficient (not on the bias).
RIDGE = 1e-4
SEARCH_STEPS = 4000


@dataclass(frozen=True)
class Case:
    """One graded query: its two channel answers and how to grade an order of ids.

    Entity-like cases have `targets` (MRR, hit@10 over ids); Lee passage cases
    have `doc_of` (chunk id -> document) and `gains` (nDCG@10 over documents).
    """

    family: str
    split: str
    query: str
    semantic: tuple[tuple[str, float], ...]
    lexical: tuple[tuple[str, float], ...]
    targets: frozenset[str] = frozenset()
    doc_of: tuple[tuple[str, int], ...] = ()
    gains: tuple[float, ...] = ()
    own_doc: int = -1

    def grade(self, order: Sequence[str]) -> dict[str, float]:
        """The metrics of `order` (best first): mrr and hit10, or ndcg10."""
        if self.gains:
            return {"ndcg10": self._ndcg(order)}
        for rank, item in enumerate(order[:10], start=1):
            if item in self.targets:
                return {"mrr": 1.0 / rank, "hit10": 1.0}
        return {"mrr": 0.0, "hit10": 0.0}

    def _ndcg(self, order: Sequence[str]) -> float:
        doc_of = dict(self.doc_of)
        docs: list[int] = []
        for item in order:
            doc = doc_of[item]
            if doc != self.own_doc and doc not in docs:
                docs.append(doc)
        dcg = sum(self.gains[d] / math.log2(r + 1) for r, d in enumerate(docs[:10], start=1))
        ideal = sorted(self.gains, reverse=True)[:10]
        best = sum(g / math.log2(r + 1) for r, g in enumerate(ideal, start=1))
        return dcg / best if best > 0 else 0.0

    @property
    def metrics(self) -> tuple[str, ...]:
        return ("ndcg10",) if self.gains else ("mrr", "hit10")


def fused_order(case: Case, strategy: FusionStrategy) -> list[str]:
    return [i for i, _ in strategy.fuse(case.semantic, case.lexical, query=case.query)]


# ----------------------------------------------------------------- tables


@dataclass
class Tables:
    """Per evidence constants: each case's grade at every weight of `W_GRID`."""

    constants: tuple[float, float, float]  # lexical floor, semantic floor, power
    grades: dict[str, np.ndarray]  # metric -> (cases, weights)


def tabulate(cases: Sequence[Case], constants: tuple[float, float, float]) -> Tables:
    lexical_floor, semantic_floor, power = constants
    metrics = cases[0].metrics
    grades = {m: np.zeros((len(cases), len(W_GRID))) for m in metrics}
    for row, case in enumerate(cases):
        previous: list[str] | None = None
        graded: dict[str, float] = {}
        for column, weight in enumerate(W_GRID):
            order = [
                i
                for i, _ in weighted_evidence(
                    case.semantic,
                    case.lexical,
                    lexical_weight=float(weight),
                    lexical_floor=lexical_floor,
                    semantic_floor=semantic_floor,
                    power=power,
                )
            ]
            if order != previous:
                graded, previous = case.grade(order), order
            for metric in metrics:
                grades[metric][row, column] = graded[metric]
    return Tables(constants, grades)


# ----------------------------------------------------------------- search


@dataclass(frozen=True)
class Problem:
    """The fit half as arrays: features, family of each case, single-channel grades."""

    features: np.ndarray  # (cases, features)
    families: list[str]
    members: dict[str, np.ndarray]  # family -> case indices
    best_single: dict[str, dict[str, float]]  # family -> metric -> better channel's mean
    metrics: tuple[str, ...]
    mask: np.ndarray  # which coefficients may move


def problem_of(cases: Sequence[Case], mask: Sequence[bool]) -> Problem:
    features = np.array([fusion_features(c.query, c.semantic, c.lexical) for c in cases])
    families = sorted({c.family for c in cases})
    members = {f: np.array([i for i, c in enumerate(cases) if c.family == f]) for f in families}
    metrics = cases[0].metrics
    best: dict[str, dict[str, float]] = {}
    for family in families:
        chosen = [cases[i] for i in members[family]]
        best[family] = {
            m: max(
                float(np.mean([c.grade([i for i, _ in c.semantic])[m] for c in chosen])),
                float(np.mean([c.grade([i for i, _ in c.lexical])[m] for c in chosen])),
            )
            for m in metrics
        }
    return Problem(features, families, members, best, metrics, np.array(mask, dtype=bool))


def objective(problem: Problem, tables: Tables, theta: np.ndarray) -> float:
    z = problem.features @ theta
    weight = 0.5 * (1.0 + np.tanh(0.5 * z))
    column = np.rint(weight * (len(W_GRID) - 1)).astype(int)
    rows = np.arange(len(column))
    picked = {m: tables.grades[m][rows, column] for m in problem.metrics}
    quality = 0.0
    shortfall = 0.0
    for family in problem.families:
        index = problem.members[family]
        for metric in problem.metrics:
            mean = float(picked[metric][index].mean())
            if metric != "hit10":
                quality += mean / len(problem.families)
            shortfall += min(0.0, mean - problem.best_single[family][metric] + TOLERANCE)
    return quality + PENALTY * shortfall - RIDGE * float(np.sum(theta[1:] ** 2))


def search(problem: Problem, tables: Tables, seed: int = 0) -> tuple[np.ndarray, float]:
    """A (1+1) evolution strategy from the best constant weight, over the masked coefficients."""
    rng = np.random.default_rng(seed)
    theta = np.zeros(len(FEATURE_NAMES))
    best = -math.inf
    for weight in W_GRID[1:-1]:
        trial = np.zeros(len(FEATURE_NAMES))
        trial[0] = math.log(weight / (1 - weight))
        value = objective(problem, tables, trial)
        if value > best:
            theta, best = trial, value
    step = 2.0
    for _ in range(SEARCH_STEPS):
        trial = theta + rng.normal(0.0, step, len(theta)) * problem.mask
        value = objective(problem, tables, trial)
        if value >= best:
            theta, best = trial, value
            step = min(step * 1.5, 8.0)
        else:
            step = max(step * 0.97, 0.05)
    return theta, best


# ----------------------------------------------------------------- report


def family_means(
    cases: Sequence[Case], orders: Sequence[Sequence[str]]
) -> dict[str, dict[str, float]]:
    by: dict[str, list[dict[str, float]]] = {}
    for case, order in zip(cases, orders, strict=True):
        by.setdefault(case.family, []).append(case.grade(order))
    return {
        family: {m: float(np.mean([g[m] for g in graded])) for m in graded[0]}
        for family, graded in sorted(by.items())
    }


def report(cases: Sequence[Case], strategies: dict[str, FusionStrategy]) -> str:
    """Per split and family: each single channel and each strategy, with the shortfall."""
    lines = []
    for split in ("fit", "holdout"):
        chosen = [c for c in cases if c.split == split]
        sem = family_means(chosen, [[i for i, _ in c.semantic] for c in chosen])
        lex = family_means(chosen, [[i for i, _ in c.lexical] for c in chosen])
        fused = {
            n: family_means(chosen, [fused_order(c, s) for c in chosen])
            for n, s in strategies.items()
        }
        metrics = chosen[0].metrics
        head = "| family | n | " + " | ".join(
            f"{who} {m}" for who in ("semantic", "lexical", *strategies) for m in metrics
        )
        lines += [f"\n### {split}\n", head + " | worst shortfall (first strategy) |"]
        lines.append("|" + " --- |" * (3 + len(metrics) * (2 + len(strategies))))
        for family in sem:
            n = sum(c.family == family for c in chosen)
            cells = [family, str(n)]
            for table in (sem, lex, *fused.values()):
                cells += [f"{table[family][m]:.3f}" for m in metrics]
            first = next(iter(fused.values()))[family]
            worst = min(first[m] - max(sem[family][m], lex[family][m]) for m in metrics)
            lines.append("| " + " | ".join(cells) + f" | {worst:+.3f} |")
    return "\n".join(lines)


def fit(
    cases: Sequence[Case], grid: Sequence[tuple[float, float, float]], mask: Sequence[bool]
) -> AdaptiveFusion:
    fit_cases = [c for c in cases if c.split == "fit"]
    problem = problem_of(fit_cases, mask)
    best: tuple[float, np.ndarray, tuple[float, float, float]] | None = None
    for constants in grid:
        tables = tabulate(fit_cases, constants)
        theta, value = search(problem, tables)
        print(f"  {constants}: objective {value:.4f}", flush=True)
        if best is None or value > best[0]:
            best = (value, theta, constants)
    assert best is not None
    _, theta, (lexical_floor, semantic_floor, power) = best
    return AdaptiveFusion(
        coefficients=tuple(round(float(t), 3) for t in theta),
        lexical_floor=lexical_floor,
        semantic_floor=semantic_floor,
        power=power,
    )


def describe(fusion: AdaptiveFusion) -> str:
    pairs = ", ".join(
        f"{n}={c:+.3f}" for n, c in zip(FEATURE_NAMES, fusion.coefficients, strict=True)
    )
    return (
        f"AdaptiveFusion(lexical_floor={fusion.lexical_floor}, semantic_floor="
        f"{fusion.semantic_floor}, power={fusion.power}); coefficients: {pairs}\n"
        f"coefficients=({', '.join(repr(c) for c in fusion.coefficients)})"
    )


def main() -> None:
    from fusion_cases import entity_cases, passage_cases  # noqa: PLC0415 (needs the model)

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="directory to keep the channel answers in")
    parser.add_argument("--only", choices=["entities", "passages"], help="fit one side only")
    args = parser.parse_args()
    sides = {"entities": entity_cases, "passages": passage_cases}
    for side, collect in sides.items():
        if args.only and side != args.only:
            continue
        cases = collect(args.cache)
        grid, mask = SEARCH_SPACE[side]
        print(f"## {side}: {len(cases)} graded queries; fitting on fit", flush=True)
        chosen = fit(cases, grid, mask)
        print(describe(chosen))
        print(
            report(
                cases,
                {"adaptive": chosen, "evidence": EvidenceFusion(), "rrf": ReciprocalRankFusion()},
            )
        )


#: Per side: the (lexical floor, semantic floor, power) grid and which coefficients may move.
SEARCH_SPACE: dict[str, tuple[list[tuple[float, float, float]], list[bool]]] = {
    "entities": (
        [(lf, 0.0, p) for lf in (0.5, 0.6, 0.7, 0.8) for p in (1.0, 2.0, 3.0, 4.0)],
        [True] * len(FEATURE_NAMES),
    ),
    "passages": (
        [(lf, sf, p) for lf in (0.0, 0.3) for sf in (0.0, 0.2, 0.4) for p in (1.0, 2.0, 3.0)],
        [
            name
            in ("bias", "function_share", "length", "lexical_gap", "semantic_top", "semantic_gap")
            for name in FEATURE_NAMES
        ],
    ),
}


if __name__ == "__main__":
    main()
