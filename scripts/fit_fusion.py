"""Fit the default fusions' constants on the fit half and report every family on both halves.

    uv run python -m scripts.fit_fusion                      # entities and passages
    uv run python -m scripts.fit_fusion --only passages      # one side
    uv run python -m scripts.fit_fusion --cache /tmp/fusion  # keep the channel answers
    uv run python -m scripts.fit_fusion --recorded           # no model: replay the recording
    uv run python -m scripts.fit_fusion --recorded --leave-one-out  # each rule, families left out
    uv run python -m scripts.fit_fusion --recorded --leave-one-out --adaptive  # ADR 0280's refit
    uv run python -m scripts.fit_fusion --record             # re-record the CI floors' input
    uv run python -m scripts.fit_fusion --record passages/python  # that source only
    uv run python -m scripts.fit_fusion --floors             # replay it, write the HYBRID floors
    uv run python -m scripts.fit_fusion --table              # the floors as a markdown table
    uv run python -m scripts.fit_fusion --plot docs/img      # the floors as a plot per family

Asks every graded query of every committed corpus of each channel alone
(local MiniLM model), fits `AdaptiveFusion` on `fit` only and prints the
constants to record in `redstring/domain/fusion.py` with both halves'
figures beside the single channels, `EvidenceFusion` and plain RRF
(ADR 0120). `--leave-one-out` instead chooses each fusion rule's few numbers
without each family (and each source of a mixed family) in turn and grades
the choice on what it left out, the rules judged by their worst left-out
family (ADR 0365; `--adaptive`: ADR 0280's refit of `AdaptiveFusion`'s
coefficients, and the passages). The machinery is `quality.fusion_fit`, `quality.fusion_rules`,
`quality.fusion_loo` and `quality.fusion_cases`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scripts.quality.floors import FLOORS, floors_table, load_floors, plot_floors, write_floors
from scripts.quality.fusion_cases import entity_cases, passage_cases
from scripts.quality.fusion_fit import CENTRE, RIDGE, run
from scripts.quality.fusion_loo import Variant, leave_one_out, loo_table
from scripts.quality.fusion_rules import leave_one_out as rules_loo
from scripts.quality.fusion_rules import rules, rules_table
from scripts.quality.recorded import RECORDED, record

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="directory to keep the channel answers in")
    parser.add_argument(
        "--recorded",
        action="store_true",
        help=f"replay the semantic answers in {RECORDED} instead of running the model",
    )
    parser.add_argument("--only", choices=["entities", "passages"], help="fit one side only")
    parser.add_argument(
        "--record",
        nargs="*",
        metavar="SOURCE",
        help=f"only record the semantic answers into {RECORDED} (of SOURCE only, if named)",
    )
    parser.add_argument(
        "--floors", action="store_true", help=f"only replay the recording into {FLOORS}"
    )
    parser.add_argument(
        "--table", action="store_true", help=f"only print {FLOORS.name} as a markdown table"
    )
    parser.add_argument(
        "--leave-one-out",
        action="store_true",
        help="refit without each family or source in turn and grade it where it was left out",
    )
    parser.add_argument(
        "--centre",
        type=float,
        default=CENTRE,
        help=f"with --leave-one-out: price of the weight's mean squared logit (default {CENTRE})",
    )
    parser.add_argument(
        "--ridge",
        type=float,
        default=RIDGE,
        help=f"with --leave-one-out: L2 price of the coefficients (default {RIDGE})",
    )
    parser.add_argument(
        "--adaptive",
        action="store_true",
        help="with --leave-one-out: refit AdaptiveFusion's coefficients instead (ADR 0280)",
    )
    parser.add_argument("--plot", metavar="DIR", help=f"only plot {FLOORS.name} into DIR")
    args = parser.parse_args()
    if args.plot:
        print(f"plot written: {plot_floors(load_floors(), Path(args.plot))}")
        sys.exit(0)
    if args.table:
        print(floors_table(load_floors()))
        sys.exit(0)
    if args.record is not None:
        record(only=args.record or None)
        sys.exit(0)
    if args.floors:
        for family, row in write_floors().items():
            print(family, {mode: {k: round(v, 3) for k, v in r.items()} for mode, r in row.items()})
        sys.exit(0)
    for side, collect in (("entities", entity_cases), ("passages", passage_cases)):
        if args.only in (None, side):
            cases = collect(args.cache, args.recorded)
            if args.leave_one_out and side == "entities" and not args.adaptive:
                print("## entities: each rule, each family left out (ADR 0365)\n", flush=True)
                print(rules_table(rules_loo(cases, rules())), flush=True)
            elif args.leave_one_out:
                print(f"## {side}: leave one out\n", flush=True)
                variant = Variant(ridge=args.ridge, centre=args.centre)
                print(loo_table(leave_one_out(side, cases, variant)), flush=True)
            else:
                run(side, cases)
