"""Fit the "nothing matches" confidence on the fit half and report the holdout (ADR 0170).

    uv run python -m scripts.fit_confidence --generate            # rewrite no_match_queries.json
    uv run python -m scripts.fit_confidence --cache /tmp/nomatch  # fit; print constants, fit half
    uv run python -m scripts.fit_confidence --cache /tmp/nomatch --record  # no-match recording
    uv run python -m scripts.fit_confidence --report              # holdout table (no model)
    uv run python -m scripts.fit_confidence --floors              # write the CI floors

Fitting asks the local MiniLM model (every query of the entity corpora and
the element passages, each channel alone) and prints the calibrations to
record in `redstring/domain/confidence.py` with the fit half's figures at
several thresholds; `--report` and `--floors` replay the recorded semantic
answers through the real retrievers with the committed constants.
"""

from __future__ import annotations

import argparse
import sys

from redstring import RetrievalMode
from scripts.quality.no_match_answers import collect, record
from scripts.quality.no_match_fit import emptied, fit
from scripts.quality.no_match_floors import write_floors
from scripts.quality.no_match_queries import build
from scripts.quality.no_match_replay import replay, table

THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="directory to keep the channel answers in")
    parser.add_argument("--generate", action="store_true", help="only write the no-match queries")
    parser.add_argument("--record", action="store_true", help="also write the no-match recording")
    parser.add_argument("--report", action="store_true", help="only print the holdout table")
    parser.add_argument("--floors", action="store_true", help="only write the CI floors")
    args = parser.parse_args()
    if args.generate:
        build()
        sys.exit(0)
    if args.report:
        baseline = replay(None)
        reports = {"none": baseline, **{str(t): replay(t) for t in (0.3, 0.5, 0.7)}}
        print(table(reports, baseline))
        sys.exit(0)
    if args.floors:
        print(write_floors())
        sys.exit(0)
    rows, recording = collect(args.cache)
    if args.record:
        record(recording)
    for side in ("entities", "passages"):
        calibration = fit(rows, side)
        print(side, calibration)
        fitted = [r for r in rows if r.side == side and r.split == "fit"]
        for mode in RetrievalMode:
            cells = []
            for t in THRESHOLDS:
                no_match, graded = emptied(fitted, calibration, mode, t)
                cells.append(f"{t}: {no_match:.2f}/{graded:.3f}")
            print(f"  fit {mode.value:8} no-match emptied / graded emptied  " + "  ".join(cells))
