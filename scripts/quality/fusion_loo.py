"""Leave one family (or source) out of the fit and grade the refit where it never looked.

Run through `scripts.fit_fusion --leave-one-out` (ADR 0280).

The default fusion is fitted on every family's fit half, so the holdout
tells how it does on more queries *of families it was fitted on*. The
project is also judged on query distributions it never sees; this
estimates that. For each left-out group (a family, or one source of a
family that mixes sources), the coefficients are searched again exactly as
`fusion_fit.fit` searches them, on the fit half without that group's
queries, at the default fusion's evidence constants (floors and power: the
coefficients are the part a left-out distribution can pull; the grid
search over constants is kept out to keep the run minutes long). The refit
is then run exactly through `AdaptiveFusion.fuse` on the left-out group's
queries: both halves of the group are unseen by the refit, the holdout is
the figure reported, the fit half is the one a choice may read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from redstring.domain.fusion import PASSAGE_ADAPTIVE_FUSION, AdaptiveFusion

from .common import SPLITS
from .fusion_fit import (
    CENTRE,
    RIDGE,
    SEARCH_SPACE,
    TOLERANCE,
    Case,
    constants_of,
    fused_order,
    fusion_of,
    mean_grades,
    problem_of,
    search,
    tabulate,
)
from .harness import NO_MATCH

#: Fewest holdout queries a source needs to be left out on its own.
MIN_LEFT_OUT = 15
#: The fusion each side's refits are compared with (and whose constants they keep).
DEFAULTS: dict[str, AdaptiveFusion] = {
    "entities": AdaptiveFusion(),  # no longer the default (ADR 0365)
    "passages": PASSAGE_ADAPTIVE_FUSION,
}

Member = Callable[[Case], bool]
#: who ("semantic", "lexical", "default", "refit", "left out") -> metric -> mean grade.
Figures = dict[str, dict[str, float]]


@dataclass(frozen=True)
class Variant:
    """How the coefficients are searched: which may move (`None`: the side's) and the L2 price."""

    mask: tuple[bool, ...] | None = None
    ridge: float = RIDGE
    centre: float = CENTRE


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
class LeftOut:
    """One left-out group: per split, the channels, the default and the refit without it."""

    group: str
    counts: dict[str, int]  # split -> queries of the group
    figures: dict[str, Figures]  # split -> Figures

    def shortfall(self, split: str, who: str = "left out") -> float:
        """`who`'s worst metric minus the better channel's on `split` (negative: below it)."""
        row = self.figures[split]
        return min(
            row[who][m] - max(row["semantic"][m], row["lexical"][m]) for m in row["semantic"]
        )

    def holds(self, split: str = "holdout", who: str = "left out") -> bool:
        return self.shortfall(split, who) >= -TOLERANCE - 1e-9


def leave_one_out(
    side: str, cases: Sequence[Case], variant: Variant = Variant(), *, progress: bool = True
) -> list[LeftOut]:
    """Refit without each of `left_out_groups(cases)` in turn; grade each where it was left out.

    "default" is the library's fusion, "refit" the search on the whole fit half
    (with `variant`), "left out" the search without the group.
    """
    default = DEFAULTS[side]
    constants = constants_of(default)
    mask = SEARCH_SPACE[side][1] if variant.mask is None else variant.mask
    fit_cases = [c for c in cases if c.split == "fit"]
    tables = tabulate(fit_cases, constants)

    def refit_without(member: Member) -> AdaptiveFusion:
        keep = [i for i, c in enumerate(fit_cases) if not member(c)]
        problem = problem_of([fit_cases[i] for i in keep], mask, variant.ridge, variant.centre)
        return fusion_of(search(problem, tables.rows(keep))[0], constants)

    whole = refit_without(lambda _: False)
    if progress:
        print(f"  refit on the whole fit half: {whole.coefficients}", flush=True)
    rows = []
    for group, member in left_out_groups(cases).items():
        refit = refit_without(member)
        counts, figures = {}, {}
        for split in SPLITS:
            chosen = [c for c in cases if c.split == split and member(c)]
            counts[split] = len(chosen)
            figures[split] = {
                "semantic": mean_grades(chosen, [[i for i, _ in c.semantic] for c in chosen]),
                "lexical": mean_grades(chosen, [[i for i, _ in c.lexical] for c in chosen]),
                "default": mean_grades(chosen, [fused_order(c, default) for c in chosen]),
                "refit": mean_grades(chosen, [fused_order(c, whole) for c in chosen]),
                "left out": mean_grades(chosen, [fused_order(c, refit) for c in chosen]),
            }
        row = LeftOut(group, counts, figures)
        rows.append(row)
        if progress:
            print(f"  {group}: holdout {row.shortfall('holdout'):+.3f}", flush=True)
    return rows


def _cells(figures: dict[str, float]) -> str:
    return " / ".join(f"{figures[m]:.3f}" for m in ("hit10", "mrr", "ndcg10") if m in figures)


def loo_table(rows: Sequence[LeftOut]) -> str:
    """Markdown: per left-out group (`family: source` for a source), the holdout figures
    (hit@10 / MRR / nDCG@10, those the group has) and both halves' shortfalls."""
    lines = [
        "| left out | n (holdout) | better channel | HYBRID, default | HYBRID, refit without it "
        "| shortfall: default | shortfall: refit without it | same, on its fit half "
        "(also unseen) | holds |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        held = row.figures["holdout"]
        better = max(("semantic", "lexical"), key=lambda who: sum(held[who].values()))
        label = row.group.replace("|", ": ")
        lines.append(
            f"| {label} | {row.counts['holdout']} | {better.upper()} {_cells(held[better])} "
            f"| {_cells(held['default'])} | {_cells(held['left out'])} "
            f"| {row.shortfall('holdout', 'default'):+.3f} "
            f"| {row.shortfall('holdout'):+.3f} | {row.shortfall('fit'):+.3f} "
            f"| {'yes' if row.holds() else '**no**'} |"
        )
    return "\n".join(lines)
