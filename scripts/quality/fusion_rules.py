"""Fusion rules with few numbers, each chosen without the family it is graded on (ADR 0365).

Run through `scripts.fit_fusion --recorded --leave-one-out` (entities).

For every left-out group (a family, or a big source of a family that mixes
sources: `left_out_groups`, ADR 0280), a rule's numbers are chosen on the
fit half of every *other* family, by the worst of them: the grid point whose
worst group (family, or a source of at least `MIN_GROUP` fit queries in a
mixed family) falls least below the bar `max(SEMANTIC, LEXICAL, RRF)` over
hit@10 and MRR, the mean MRR over families breaking ties. The choice is then
graded on the left-out group's holdout, which it never saw. A rule is judged
by its worst left-out family, never by its mean: the unseen sets this
library is judged on are families, not more queries of ours. Rules with no
number are graded as they are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from redstring.domain.fusion import (
    EvidenceFusion,
    FusionStrategy,
    PooledEvidenceFusion,
    ReciprocalRankFusion,
    reciprocal_rank_fusion,
)
from redstring.domain.query import NormalizedQuery

from .fusion_fit import Case, fused_order, groups_of
from .harness import NO_MATCH

METRICS = ("hit10", "mrr")
#: Lexical weights a one-weight rule is chosen among.
WEIGHTS = tuple(round(float(w), 3) for w in np.linspace(0.0, 1.0, 21))
#: Lexical floors `PooledEvidenceFusion` is chosen among.
FLOORS = (0.0, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
#: The bias and slope of a weight read from the lexical top score.
BIASES = tuple(float(b) for b in np.linspace(-6.0, 6.0, 13))
SLOPES = tuple(float(s) for s in np.linspace(-20.0, 20.0, 11))
Params = tuple[float, ...]
#: Fewest holdout queries a source needs to be left out on its own (ADR 0280).
MIN_LEFT_OUT = 15
Member = Callable[[Case], bool]


def left_out_groups(cases: Sequence[Case]) -> dict[str, Member]:
    """Every family, and `family|source` for each source of a family that mixes two or more
    sources of at least `MIN_LEFT_OUT` holdout queries each."""
    groups: dict[str, Member] = {}
    held: dict[str, dict[str, int]] = {}
    for case in cases:
        if case.family.endswith(f"/{NO_MATCH}"):
            continue  # graded by nothing a fusion can move
        groups.setdefault(case.family, lambda c, f=case.family: c.family == f)
        if case.split == "holdout":
            by_source = held.setdefault(case.family, {})
            by_source[case.source] = by_source.get(case.source, 0) + 1
    for family, by_source in sorted(held.items()):
        big = sorted(s for s, n in by_source.items() if n >= MIN_LEFT_OUT)
        if len(big) >= 2:
            for source in big:
                groups[f"{family}|{source}"] = lambda c, f=family, s=source: (
                    c.family == f and c.source == s
                )
    return dict(sorted(groups.items()))


@dataclass(frozen=True)
class Channel:
    """One channel's own order, as a fusion (what switching the other off gives)."""

    name: str

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        return list(semantic if self.name == "semantic" else lexical)


@dataclass(frozen=True)
class ConvexCombination:
    """`(1 - w) * semantic + w * lexical` on the channels' stated 0..1 scales (their
    theoretical minimum and maximum: TM2C2 of Bruch, Gai and Ingber, TOIS 2023), a
    channel that did not rank an id giving 0; `w` fixed, or the logistic of
    `bias + slope * (lexical top score)` when `slope` is set. Ties by rank fusion."""

    weight: float = 0.5
    bias: float = 0.0
    slope: float | None = None

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        w = self.weight
        if self.slope is not None:
            top = lexical[0][1] if lexical else 0.0
            w = 0.5 * (1.0 + math.tanh(0.5 * (self.bias + self.slope * top)))
        sem, lex = dict(semantic), dict(lexical)
        rank = dict(reciprocal_rank_fusion([list(sem), list(lex)]))
        score = {i: (1 - w) * sem.get(i, 0.0) + w * lex.get(i, 0.0) for i in rank}
        return sorted(score.items(), key=lambda p: (-p[1], -rank[p[0]], str(p[0])))


@dataclass(frozen=True)
class Rule:
    """A fusion with `fitted` numbers, one strategy per point of its grid."""

    name: str
    fitted: int
    grid: tuple[Params, ...]
    make: Callable[[Params], FusionStrategy] = field(compare=False)


def rules() -> list[Rule]:
    """The channels, plain RRF, the fixed fusions and the candidates of ADR 0365."""
    return [
        Rule("SEMANTIC", 0, ((),), lambda p: Channel("semantic")),
        Rule("LEXICAL", 0, ((),), lambda p: Channel("lexical")),
        Rule("RRF", 0, ((),), lambda p: ReciprocalRankFusion()),
        Rule("EvidenceFusion", 2, ((),), lambda p: EvidenceFusion()),
        Rule(
            "convex (one weight)",
            1,
            tuple((w,) for w in WEIGHTS),
            lambda p: ConvexCombination(weight=p[0]),
        ),
        Rule(
            "convex, weight from the lexical top",
            2,
            tuple((b, s) for b in BIASES for s in SLOPES),
            lambda p: ConvexCombination(bias=p[0], slope=p[1]),
        ),
        Rule(
            "PooledEvidenceFusion",
            2,
            tuple((f, w) for f in FLOORS for w in WEIGHTS),
            lambda p: PooledEvidenceFusion(lexical_floor=p[0], lexical_weight=p[1]),
        ),
    ]


def grade_table(cases: Sequence[Case], rule: Rule) -> dict[str, np.ndarray]:
    """metric -> (cases, grid points): each case's grade under each point."""
    table = {m: np.zeros((len(cases), len(rule.grid))) for m in METRICS}
    for column, params in enumerate(rule.grid):
        strategy = rule.make(params)
        for row, case in enumerate(cases):
            graded = case.grade(fused_order(case, strategy))
            for m in METRICS:
                table[m][row, column] = graded[m]
    return table


@dataclass(frozen=True)
class Graded:
    """One rule graded on one left-out group's holdout, at the numbers chosen without it."""

    rule: str
    group: str
    n: int
    figures: dict[str, float]
    below_better: float  # worst metric minus the better channel's
    below_rrf: float  # worst metric minus RRF's
    chosen: Params

    @property
    def shortfall(self) -> float:
        return min(self.below_better, self.below_rrf)


def choose(
    table: dict[str, np.ndarray],
    bars: dict[str, dict[str, np.ndarray]],
    groups: dict[str, np.ndarray],
) -> int:
    """The grid column whose worst group falls least below its bar (mean MRR breaks ties).

    A group's bar is the best of `bars`' rules' means on it (the channels and RRF)."""
    worst = np.full(table["mrr"].shape[1], np.inf)
    mean = np.zeros(table["mrr"].shape[1])
    families = [g for g in groups if "|" not in g]
    for group, rows in groups.items():
        for m in METRICS:
            bar = max(float(bars[name][m][rows, 0].mean()) for name in bars)
            worst = np.minimum(worst, table[m][rows].mean(axis=0) - bar)
        if group in families:
            mean += table["mrr"][rows].mean(axis=0) / len(families)
    return int(np.lexsort((mean, np.round(worst, 6)))[-1])


def leave_one_out(cases: Sequence[Case], chosen_rules: Sequence[Rule]) -> list[Graded]:
    """Every rule on every left-out group's holdout, its numbers chosen on the others' fit half."""
    graded_cases = [c for c in cases if c.targets]
    tables = {rule.name: grade_table(graded_cases, rule) for rule in chosen_rules}
    base = {r.name: grade_table(graded_cases, r) for r in rules()[:3]}
    split = np.array([c.split for c in graded_cases])
    rows: list[Graded] = []
    for group, member in left_out_groups(graded_cases).items():
        inside = np.array([member(c) for c in graded_cases])
        train = np.flatnonzero((split == "fit") & ~inside)
        train_groups = {
            g: train[idx] for g, idx in groups_of([graded_cases[i] for i in train]).items()
        }
        held = (split == "holdout") & inside
        per_metric = {n: {m: float(base[n][m][held, 0].mean()) for m in METRICS} for n in base}
        for rule in chosen_rules:
            table = tables[rule.name]
            column = choose(table, base, train_groups) if len(rule.grid) > 1 else 0
            figures = {m: float(table[m][held, column].mean()) for m in METRICS}
            better = {m: max(per_metric["SEMANTIC"][m], per_metric["LEXICAL"][m]) for m in METRICS}
            rows.append(
                Graded(
                    rule=rule.name,
                    group=group,
                    n=int(held.sum()),
                    figures=figures,
                    below_better=min(figures[m] - better[m] for m in METRICS),
                    below_rrf=min(figures[m] - per_metric["RRF"][m] for m in METRICS),
                    chosen=rule.grid[column],
                )
            )
    return rows


def rules_table(rows: Sequence[Graded], tolerance: float = 0.01) -> str:
    """Markdown: per left-out group each rule's hit@10 / MRR, then each rule's worst family."""
    names = list(dict.fromkeys(r.rule for r in rows))
    groups = list(dict.fromkeys(r.group for r in rows))
    cell = {(r.group, r.rule): r for r in rows}
    lines = [
        "| left out | n | " + " | ".join(names) + " |",
        "| --- | --- |" + " --- |" * len(names),
    ]
    for group in groups:
        n = cell[(group, names[0])].n
        cells = [
            f"{cell[(group, name)].figures['hit10']:.3f} / {cell[(group, name)].figures['mrr']:.3f}"
            for name in names
        ]
        lines.append(f"| {group.replace('|', ': ')} | {n} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| rule | worst left-out family | its shortfall (below the better channel or RRF) "
        "| families more than 0.01 below | the same, sources too | numbers chosen, per fold |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for name in names:
        mine = [r for r in rows if r.rule == name]
        families = [r for r in mine if "|" not in r.group]
        worst = min(families, key=lambda r: r.shortfall)
        below = sum(r.shortfall < -tolerance - 1e-9 for r in families)
        below_all = sum(r.shortfall < -tolerance - 1e-9 for r in mine)
        chosen = sorted({r.chosen for r in mine})
        shown = (
            ", ".join(str(tuple(round(x, 3) for x in c)) for c in chosen) if chosen != [()] else "—"
        )
        lines.append(
            f"| {name} | {worst.group} | {worst.shortfall:+.3f} | {below} of {len(families)} "
            f"| {below_all} of {len(mine)} | {shown} |"
        )
    return "\n".join(lines)
