"""Fit `AdaptiveFusion`'s constants on the fit half; report every family on both halves.

Run through `scripts.fit_fusion` (see there for the command line).

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
and MRR both count), minus a small L2 price on the coefficients. The
shortfall is counted for each family and, within a family that mixes
sources (currency codes, element symbols and unit symbols are all
"abbreviation"), for each source with at least `MIN_GROUP` fit queries: a
loss on one source hidden behind a gain on another does not generalise,
because the two halves mix the sources differently (ADR 0122).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from redstring.domain.fusion import AdaptiveFusion, weighted_evidence
from redstring.domain.query import NormalizedQuery
from redstring.domain.query_reading import FEATURE_NAMES, fusion_features
from redstring.fusion import EvidenceFusion, FusionStrategy, ReciprocalRankFusion

from .harness import DEPTH, ndcg_at

#: Lexical weights the tables are built at: even steps of 0.025, and even steps
#: of the logit from -10 to 10, so a weight near 0 or 1 (a fitted bias of 4 is
#: w = 0.98) is graded at about that weight, not at 0 or 1 (ADR 0205).
W_GRID = np.unique(
    np.concatenate([np.linspace(0.0, 1.0, 41), 1.0 / (1.0 + np.exp(-np.linspace(-10.0, 10.0, 41)))])
)
#: Allowed shortfall of HYBRID below the better channel per family (the issue's target).
TOLERANCE = 0.01
#: What a unit of shortfall beyond the tolerance costs against a unit of mean quality.
PENALTY = 4.0
#: L2 price per unit of squared coefficient (not on the bias).
RIDGE = 1e-4
#: Price per unit of mean squared logit of `w` over the fit queries: among fits
#: that grade alike, the one leaving both channels a say (ADR 0280).
CENTRE = 0.0
SEARCH_STEPS = 4000
#: Fewest fit queries a source needs to have its own shortfall counted.
MIN_GROUP = 30


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
    return [i for i, _ in strategy.fuse(case.semantic, case.lexical, query=case.query)]


# ----------------------------------------------------------------- tables


#: Lexical floor, semantic floor, power, and the lexical floor for a code (ADR 0205).
Constants = tuple[float, float, float, float]


@dataclass
class Tables:
    """Per evidence constants: each case's grade at every weight of `W_GRID`."""

    constants: Constants
    grades: dict[str, np.ndarray]  # metric -> (cases, weights)

    def rows(self, index: Sequence[int]) -> Tables:
        """The tables of the cases at `index` only, in that order."""
        return Tables(self.constants, {m: g[list(index)] for m, g in self.grades.items()})


ALL_METRICS = ("mrr", "hit10", "ndcg10")


def tabulate(cases: Sequence[Case], constants: Constants) -> Tables:
    """Every case's grade at every weight of `W_GRID` (NaN for a metric it lacks)."""
    ordinary_floor, semantic_floor, power, code_floor = constants
    grades = {m: np.full((len(cases), len(W_GRID)), np.nan) for m in ALL_METRICS}
    for row, case in enumerate(cases):
        lexical_floor = code_floor if NormalizedQuery.of(case.query).short else ordinary_floor
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
            for metric, value in graded.items():
                grades[metric][row, column] = value
    return Tables(constants, grades)


# ----------------------------------------------------------------- search


@dataclass(frozen=True)
class Problem:
    """The fit half as arrays: features, each family's cases and metrics, the better channel."""

    features: np.ndarray  # (cases, features)
    members: dict[str, np.ndarray]  # family -> case indices
    #: The groups whose shortfall counts (every family, and the sources of a mixed family).
    groups: dict[str, np.ndarray]  # group -> case indices
    metrics: dict[str, tuple[str, ...]]  # group -> the metrics its cases have
    best_single: dict[str, dict[str, float]]  # group -> metric -> better channel's mean
    mask: np.ndarray  # which coefficients may move
    #: L2 price per unit of squared coefficient (not on the bias).
    ridge: float = RIDGE
    #: Price per unit of the mean squared logit of the weight over the cases.
    centre: float = CENTRE


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


def problem_of(
    cases: Sequence[Case],
    mask: Sequence[bool],
    ridge: float = RIDGE,
    centre: float = CENTRE,
) -> Problem:
    features = np.array([fusion_features(c.query, c.semantic, c.lexical) for c in cases])
    families = sorted({c.family for c in cases})
    members = {f: np.array([i for i, c in enumerate(cases) if c.family == f]) for f in families}
    groups = groups_of(cases)
    metrics = {g: cases[int(idx[0])].metrics for g, idx in groups.items()}
    best = {}
    for group, idx in groups.items():
        chosen = [cases[int(i)] for i in idx]
        sem = mean_grades(chosen, [[i for i, _ in c.semantic] for c in chosen])
        lex = mean_grades(chosen, [[i for i, _ in c.lexical] for c in chosen])
        best[group] = {m: max(sem[m], lex[m]) for m in metrics[group]}
    return Problem(
        features, members, groups, metrics, best, np.array(mask, dtype=bool), ridge, centre
    )


def mean_grades(cases: Sequence[Case], orders: Sequence[Sequence[str]]) -> dict[str, float]:
    """metric -> mean grade of `orders` (one per case) over all `cases`."""
    graded = [case.grade(order) for case, order in zip(cases, orders, strict=True)]
    return {m: float(np.mean([g[m] for g in graded])) for m in graded[0]}


def nearest_column(weight: np.ndarray) -> np.ndarray:
    """The index of the `W_GRID` weight nearest each of `weight` (on 0..1)."""
    right = np.clip(np.searchsorted(W_GRID, weight), 1, len(W_GRID) - 1)
    left = right - 1
    return np.where(weight - W_GRID[left] <= W_GRID[right] - weight, left, right)


def objective(problem: Problem, tables: Tables, theta: np.ndarray) -> float:
    """Mean family quality (MRR, else nDCG) + PENALTY * group shortfalls past TOLERANCE - ridge."""
    z = problem.features @ theta
    column = nearest_column(0.5 * (1.0 + np.tanh(0.5 * z)))
    rows = np.arange(len(column))
    picked = {m: tables.grades[m][rows, column] for m in ALL_METRICS}
    quality = 0.0
    for family, index in problem.members.items():
        quality += float(picked[problem.metrics[family][0]][index].mean()) / len(problem.members)
    shortfall = 0.0
    for group, index in problem.groups.items():
        for metric in problem.metrics[group]:
            mean = float(picked[metric][index].mean())
            shortfall += min(0.0, mean - problem.best_single[group][metric] + TOLERANCE)
    ridge = problem.ridge * float(np.sum(theta[1:] ** 2))
    return quality + PENALTY * shortfall - ridge - problem.centre * float(np.mean(z**2))


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


def fit(cases: Sequence[Case], grid: Sequence[Constants], mask: Sequence[bool]) -> AdaptiveFusion:
    fit_cases = [c for c in cases if c.split == "fit"]
    problem = problem_of(fit_cases, mask)
    best: tuple[float, np.ndarray, Constants] | None = None
    for constants in grid:
        tables = tabulate(fit_cases, constants)
        theta, value = search(problem, tables)
        print(f"  {constants}: objective {value:.4f}", flush=True)
        if best is None or value > best[0]:
            best = (value, theta, constants)
    assert best is not None
    return fusion_of(best[1], best[2])


def fusion_of(theta: np.ndarray, constants: Constants) -> AdaptiveFusion:
    """The `AdaptiveFusion` of searched `theta` (rounded to 3 places) at `constants`."""
    lexical_floor, semantic_floor, power, code_floor = constants
    return AdaptiveFusion(
        coefficients=tuple(round(float(t), 3) for t in theta),
        lexical_floor=lexical_floor,
        semantic_floor=semantic_floor,
        power=power,
        code_lexical_floor=None if code_floor == lexical_floor else code_floor,
    )


def constants_of(fusion: AdaptiveFusion) -> Constants:
    """The grid point `fusion` sits at: lexical floor, semantic floor, power, code floor."""
    code_floor = (
        fusion.lexical_floor if fusion.code_lexical_floor is None else fusion.code_lexical_floor
    )
    return (fusion.lexical_floor, fusion.semantic_floor, fusion.power, code_floor)


def describe(fusion: AdaptiveFusion) -> str:
    pairs = ", ".join(
        f"{n}={c:+.3f}" for n, c in zip(FEATURE_NAMES, fusion.coefficients, strict=True)
    )
    return (
        f"AdaptiveFusion(lexical_floor={fusion.lexical_floor}, semantic_floor="
        f"{fusion.semantic_floor}, power={fusion.power}, code_lexical_floor="
        f"{fusion.code_lexical_floor}); coefficients: {pairs}\n"
        f"coefficients=({', '.join(repr(c) for c in fusion.coefficients)})"
    )


def run(side: str, cases: Sequence[Case]) -> AdaptiveFusion:
    """Fit one side on its fit half, print the constants and both halves' report."""
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
    return chosen


#: Per side: the `Constants` grid and which coefficients may move. Passages
#: have no floor of their own for a code (it is their lexical floor).
SEARCH_SPACE: dict[str, tuple[list[Constants], list[bool]]] = {
    "entities": (
        [
            (lf, 0.0, p, cf)
            for lf in (0.5, 0.6)
            for p in (1.0, 2.0, 3.0, 4.0)
            for cf in (0.2, 0.3, 0.4, 0.5)
        ],
        [True] * len(FEATURE_NAMES),
    ),
    "passages": (
        [(lf, sf, p, lf) for lf in (0.0, 0.3) for sf in (0.0, 0.2, 0.4) for p in (1.0, 2.0, 3.0)],
        [
            name
            in ("bias", "function_share", "length", "lexical_gap", "semantic_top", "semantic_gap")
            for name in FEATURE_NAMES
        ],
    ),
}
