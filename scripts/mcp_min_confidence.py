"""Which `min_confidence` the MCP search tools default to: the rule on the fit half, the holdout.

    uv run python -m scripts.mcp_min_confidence --cache /tmp/nomatch   # the fit half's channel
                                                                      # tops (asks the local model
                                                                      # unless cached), then the
                                                                      # holdout replay (no model)

The rule (ADR 0212): per side, the largest threshold of 0.01, 0.02, ..., 0.50
whose HYBRID answer empties at most `MAX_GRADED_EMPTIED` of the fit half's
graded queries (queries with a match), read with the committed calibrations.
It prints the fit half's no-match / graded emptied shares at every threshold,
the graded families the candidates empty, and the holdout figures
(`scripts.quality.no_match_replay`) at the chosen threshold and at 0.5.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from redstring import RetrievalMode
from redstring.fusion import ENTITY_CONFIDENCE, PASSAGE_CONFIDENCE, ConfidenceCalibration
from scripts.quality.no_match_answers import Asked, collect
from scripts.quality.no_match_fit import best_confidence
from scripts.quality.no_match_replay import replay

#: The most of the fit half's graded queries a tool's default may answer with nothing.
MAX_GRADED_EMPTIED = 0.05
#: Steps of 0.01 since confidence is the chance of being right (ADR 0390): 0.1 and 0.2 differ a
#: lot. The printed table shows every fifth and the chosen one.
THRESHOLDS = tuple(round(0.01 * i, 2) for i in range(1, 51))
CALIBRATIONS: dict[str, ConfidenceCalibration] = {
    "entities": ENTITY_CONFIDENCE,
    "passages": PASSAGE_CONFIDENCE,
}


def _emptied(rows: list[Asked], side: str, threshold: float) -> dict[str, list[int]]:
    """`[queries, answered empty]` on the fit half, HYBRID: `graded`, `no-match`, per family."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if row.side != side or row.split != "fit":
            continue
        empty = best_confidence(row, CALIBRATIONS[side], RetrievalMode.HYBRID) < threshold
        kind = "graded" if row.graded else "no-match"
        for key in (kind, f"{kind}/{row.family}"):
            counts[key][0] += 1
            counts[key][1] += empty
    return counts


def choose(rows: list[Asked], side: str) -> float:
    """The largest threshold of `THRESHOLDS` within `MAX_GRADED_EMPTIED` on the fit half."""
    chosen = THRESHOLDS[0]
    for threshold in THRESHOLDS:
        graded, empty = _emptied(rows, side, threshold)["graded"]
        if empty / graded <= MAX_GRADED_EMPTIED:
            chosen = threshold
    return chosen


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", help="directory the channel tops are kept in")
    args = parser.parse_args()
    rows, _ = collect(args.cache)
    chosen = {}
    for side in CALIBRATIONS:
        print(f"## {side}, fit half, HYBRID: share answered empty")
        chosen[side] = choose(rows, side)
        for threshold in THRESHOLDS:
            if round(threshold * 100) % 5 and threshold != chosen[side]:
                continue
            counts = _emptied(rows, side, threshold)
            cells = ", ".join(f"{k} {e / n:.3f} (n={n})" for k, (n, e) in sorted(counts.items()))
            print(f"{threshold}: {cells}")
        print(f"chosen: {chosen[side]}")
    print("## holdout, HYBRID: no-match emptied, graded emptied, hit@10 (change)")
    baseline = replay(None, [RetrievalMode.HYBRID])
    for threshold in sorted({*chosen.values(), 0.5}):
        report = replay(threshold, [RetrievalMode.HYBRID])
        for side in CALIBRATIONS:
            row, plain = report[side]["hybrid"], baseline[side]["hybrid"]
            print(
                f"{side} {threshold}: {row['no_match_emptied']:.3f} (n={row['no_match']}), "
                f"{row['graded_emptied']:.3f} (n={row['graded']}), {row['hit@10']:.3f} "
                f"({row['hit@10'] - plain['hit@10']:+.3f}); per family: {row['families']}"
            )
