"""How well `confidence` reads as the chance that the first result is right (holdout half).

    uv run python -m scripts.calibration                  # HYBRID, every family
    uv run python -m scripts.calibration --mode lexical
    uv run python -m scripts.calibration --fit            # fit intercept and scale
    uv run python -m scripts.calibration --leave-one-out  # each family left out of the fit

Replays the recorded semantic answers (no model needed) through the real
retrievers. The default prints, per family of the entity corpora and passage
sets, the expected calibration error of the first result's confidence beside
its mean and the share of first results that are right (`quality.calibration`).
`--fit` prints each side's `intercept` and `scale` fitted on the fit half and
the holdout's reliability table; `--leave-one-out` fits every form of
`quality.calibration_fit.FORMS` without each family in turn and prints, on
that family's holdout, the ECE of the channel maps alone (intercept 0, scale
1: the confidence before ADR 0390) and of the refit.
"""

from __future__ import annotations

import argparse
import dataclasses

from redstring import RetrievalMode
from redstring.domain.confidence import ENTITY_CONFIDENCE, PASSAGE_CONFIDENCE
from scripts.quality.calibration import calibration_table, first_results
from scripts.quality.calibration_fit import (
    FORMS,
    first_rows,
    fit,
    leave_one_out,
    predict,
    reliability,
)

COMMITTED = {"entities": ENTITY_CONFIDENCE, "passages": PASSAGE_CONFIDENCE}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=[m.value for m in RetrievalMode], default="hybrid")
    parser.add_argument("--fit", action="store_true", help="fit intercept and scale per side")
    parser.add_argument("--leave-one-out", action="store_true", help="each family left out")
    args = parser.parse_args()
    if not (args.fit or args.leave_one_out):
        print(calibration_table(first_results(RetrievalMode(args.mode))))
    rows = first_rows() if args.fit or args.leave_one_out else []
    for side, committed in COMMITTED.items() if args.fit else ():
        theta = fit(rows, side, "z", committed)
        print(f"## {side}: intercept={theta[0]:.3f} scale={theta[1]:.3f} (fit half)")
        held = [r for r in rows if r.side == side and r.split == "holdout"]
        pairs = [(predict(theta, FORMS["z"](r, committed)), r.right) for r in held]
        print(reliability(pairs))
    for side, committed in COMMITTED.items() if args.leave_one_out else ():
        for form in FORMS:
            before = dataclasses.replace(committed, intercept=0.0, scale=1.0)
            table = leave_one_out(rows, side, form, committed, before)
            worst = max(table.items(), key=lambda item: item[1][2])
            print(f"## {side}, {form}: worst left out {worst[0]} ECE {worst[1][2]:.3f}")
            print("| family | holdout queries | ECE, channel maps alone | ECE, fitted without it |")
            print("| --- | --- | --- | --- |")
            for family, (n, before, after) in table.items():
                print(f"| {family} | {n} | {before:.3f} | {after:.3f} |")
