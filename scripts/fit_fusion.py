"""Report the fusions per family, choose their numbers family by family, keep the CI floors.

    uv run python -m scripts.fit_fusion                      # entities and passages, per family
    uv run python -m scripts.fit_fusion --only passages      # one side
    uv run python -m scripts.fit_fusion --cache /tmp/fusion  # keep the channel answers
    uv run python -m scripts.fit_fusion --recorded           # no model: replay the recording
    uv run python -m scripts.fit_fusion --recorded --leave-one-out  # each rule, families left out
    uv run python -m scripts.fit_fusion --recorded --leave-one-out --trials  # rules not adopted
    uv run python -m scripts.fit_fusion --record             # re-record the CI floors' input
    uv run python -m scripts.fit_fusion --record passages/python  # that source only
    uv run python -m scripts.fit_fusion --floors             # replay it, write the HYBRID floors
    uv run python -m scripts.fit_fusion --table              # the floors as a markdown table
    uv run python -m scripts.fit_fusion --plot docs/img      # the floors as a plot per family

Asks every graded query of every committed corpus of each channel alone
(local MiniLM model, or its recorded answers with `--recorded`) and prints
every family on both halves: the single channels, the default fusion,
`EvidenceFusion` and plain RRF. `--leave-one-out` (entities) chooses each
candidate rule's few numbers without each family (and each big source of a
mixed family) in turn and grades the choice on what it left out, the rules
judged by their worst left-out family (ADR 0365; the default's two numbers
came from it). The machinery is `quality.fusion_fit`, `quality.fusion_rules`
and `quality.fusion_cases`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from redstring.domain.fusion import DEFAULT_FUSION, DEFAULT_PASSAGE_FUSION
from redstring.fusion import EvidenceFusion, ReciprocalRankFusion
from scripts.quality.floors import FLOORS, floors_table, load_floors, plot_floors, write_floors
from scripts.quality.fusion_cases import entity_cases, passage_cases
from scripts.quality.fusion_fit import report
from scripts.quality.fusion_rules import leave_one_out, rules, rules_table
from scripts.quality.fusion_trials import trial_rules
from scripts.quality.recorded import RECORDED, record

DEFAULTS = {"entities": DEFAULT_FUSION, "passages": DEFAULT_PASSAGE_FUSION}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="directory to keep the channel answers in")
    parser.add_argument(
        "--recorded",
        action="store_true",
        help=f"replay the semantic answers in {RECORDED} instead of running the model",
    )
    parser.add_argument("--only", choices=["entities", "passages"], help="one side only")
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
        help="entities: choose each rule's numbers without each family in turn, grade it there",
    )
    parser.add_argument(
        "--trials",
        action="store_true",
        help="with --leave-one-out: the rules tried after ADR 0365 instead of its candidates",
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
    if args.leave_one_out:
        print("## entities: each rule, each family left out (ADR 0365)\n", flush=True)
        chosen = [*rules()[:3], *trial_rules()] if args.trials else rules()
        print(rules_table(leave_one_out(entity_cases(args.cache, args.recorded), chosen)))
        sys.exit(0)
    for side, collect in (("entities", entity_cases), ("passages", passage_cases)):
        if args.only in (None, side):
            cases = collect(args.cache, args.recorded)
            print(f"## {side}: {len(cases)} graded queries", flush=True)
            fusions = {
                "default": DEFAULTS[side],
                "evidence": EvidenceFusion(),
                "rrf": ReciprocalRankFusion(),
            }
            print(report(cases, fusions), flush=True)
