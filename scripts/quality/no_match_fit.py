"""Fit each channel's confidence on the fit half, and the fit half's figures at a threshold.

Per side (entities, passages) and channel, a one-variable logistic
regression of "this query has a match" (graded: 1, no-match: 0) on the
channel's best score for the query, each class weighted to half the total
(equal priors), with a small L2 price on the slope so that a separable
channel keeps a finite one. Queries the channel answered with nothing are
left out of its fit (nothing to read). Only `split == "fit"` rows are used.

An answer is empty exactly when every candidate is below the threshold, and
a candidate's confidence is its surer channel's, so whether a mode empties a
query follows from the channels' best scores alone: `emptied` computes the
fit half's figures without asking the retrievers again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from redstring import RetrievalMode
from redstring.domain.confidence import ChannelCalibration, ConfidenceCalibration

from .no_match_answers import Asked

#: The L2 price on the slope (in units of the weighted log-likelihood).
SLOPE_PRICE = 1e-4


def fit_channel(scores: Sequence[float], labels: Sequence[bool]) -> ChannelCalibration:
    """The balanced logistic `sigma(slope * (score - midpoint))` of `labels` on `scores`."""
    x = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=float)
    positives = y.sum()
    negatives = len(y) - positives
    if positives == 0 or negatives == 0:
        raise ValueError("a channel needs queries with and without a match to be fitted")
    weight = np.where(y == 1.0, 0.5 / positives, 0.5 / negatives)
    design = np.column_stack([np.ones_like(x), x])
    theta = np.zeros(2)
    for _ in range(100):  # Newton's method on the weighted, slope-priced log-likelihood
        p = 1.0 / (1.0 + np.exp(-(design @ theta)))
        gradient = design.T @ (weight * (p - y)) + np.array([0.0, SLOPE_PRICE * theta[1]])
        hessian = (design * (weight * p * (1 - p))[:, None]).T @ design + np.diag(
            [1e-12, SLOPE_PRICE]
        )
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if float(np.abs(step).max()) < 1e-10:
            break
    intercept, slope = float(theta[0]), float(theta[1])
    if not slope > 0:
        raise ValueError(f"the fitted slope {slope} does not rise with the score")
    return ChannelCalibration(midpoint=round(-intercept / slope, 3), slope=round(slope, 1))


def fit(rows: Sequence[Asked], side: str) -> ConfidenceCalibration:
    """The side's calibration from its fit-half rows."""
    kept = [r for r in rows if r.side == side and r.split == "fit"]
    channels = {}
    for channel in ("semantic_top", "lexical_top"):
        pairs = [(getattr(r, channel), r.graded) for r in kept if getattr(r, channel) is not None]
        channels[channel] = fit_channel([s for s, _ in pairs], [g for _, g in pairs])
    return ConfidenceCalibration(semantic=channels["semantic_top"], lexical=channels["lexical_top"])


def best_confidence(row: Asked, calibration: ConfidenceCalibration, mode: RetrievalMode) -> float:
    """The highest confidence of any candidate `mode` considers for this query."""
    semantic = row.semantic_top if mode is not RetrievalMode.LEXICAL else None
    lexical = row.lexical_top if mode is not RetrievalMode.SEMANTIC else None
    return calibration.confidence(semantic=semantic, lexical=lexical)


def emptied(
    rows: Sequence[Asked],
    calibration: ConfidenceCalibration,
    mode: RetrievalMode,
    threshold: float,
) -> tuple[float, float]:
    """(share of no-match queries answered empty, share of graded queries answered empty)."""

    def share(group: list[Asked]) -> float:
        if not group:
            return math.nan
        return sum(best_confidence(r, calibration, mode) < threshold for r in group) / len(group)

    return share([r for r in rows if not r.graded]), share([r for r in rows if r.graded])
