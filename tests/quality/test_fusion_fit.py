"""The fit's weight tables grade a weight near 0 or 1 at about that weight (ADR 0205)."""

from __future__ import annotations

import numpy as np

from scripts.quality.fusion_fit import W_GRID, nearest_column


def test_the_grid_holds_both_ends_and_is_sorted() -> None:
    assert W_GRID[0] == 0.0
    assert W_GRID[-1] == 1.0
    assert np.all(np.diff(W_GRID) > 0)


def test_a_weight_near_an_end_is_graded_near_it_not_at_the_end() -> None:
    # A fitted bias of 4 alone is w = 0.982: graded at 1.0, the semantic channel
    # would count for nothing in the table while the real fusion still reads it.
    weights = np.array([0.0, 0.5, 0.982, 0.9999, 1.0, 0.018])
    graded = W_GRID[nearest_column(weights)]
    assert graded[0] == 0.0
    assert graded[1] == 0.5
    assert graded[4] == 1.0
    assert abs(graded[2] - 0.982) < 0.005
    assert 0.0 < 1.0 - graded[3] < 1e-3
    assert abs(graded[5] - 0.018) < 0.005


def test_each_weight_takes_the_nearest_grid_weight() -> None:
    weights = np.linspace(0.0, 1.0, 997)
    graded = W_GRID[nearest_column(weights)]
    nearest = W_GRID[np.abs(W_GRID[None, :] - weights[:, None]).argmin(axis=1)]
    assert np.allclose(np.abs(graded - weights), np.abs(nearest - weights))
