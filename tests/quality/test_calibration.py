"""The calibration error the quality report states, checked on hand-made cases."""

from __future__ import annotations

import math

import pytest

from scripts.quality.calibration import calibration


def test_a_confidence_that_matches_the_share_right_has_no_error() -> None:
    pairs = [(0.25, True), (0.25, False), (0.25, False), (0.25, False)] * 4
    measured = calibration([(c, r) for c, r in pairs if c == 0.25])
    assert measured.ece == pytest.approx(0.0)
    assert measured.share_right == pytest.approx(0.25)


def test_a_sure_wrong_answer_counts_its_whole_confidence() -> None:
    measured = calibration([(0.99, False), (0.99, True)])
    assert measured.ece == pytest.approx(0.49)  # one bin: |0.99 - 0.5|
    assert measured.mean_confidence == pytest.approx(0.99)


def test_bins_are_weighted_by_their_share_of_the_pairs() -> None:
    # bin 0.1: three wrong at 0.1 -> 0.1 on 3/4; bin 0.9: one wrong at 0.9 -> 0.9 on 1/4
    measured = calibration([(0.1, False), (0.1, False), (0.1, False), (0.9, False)])
    assert measured.ece == pytest.approx(0.3)


def test_a_confidence_of_one_falls_in_the_top_bin() -> None:
    # one bin: mean confidence 0.95, half right; apart, 1.0 wrong would weigh on its own
    assert calibration([(1.0, False), (0.9, True)]).ece == pytest.approx(0.45)


def test_no_pairs_are_nan_not_zero() -> None:
    assert math.isnan(calibration([]).ece)
