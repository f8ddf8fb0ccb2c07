"""Batches checked as one matrix equal their one-row functions row by row, errors included.

`stored_vectors` / `stored_vector` (ADR 0192) and `unit_vectors` / `unit_vector` (B101).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import RedstringError
from redstring.domain.exact_search import stored_vector, stored_vectors, unit_vector, unit_vectors

DIMENSION = 3
#: Values that break a check: zero rows, NaN, infinities, a float32 overflow, a tiny float.
ODD = st.sampled_from([0.0, math.nan, math.inf, -math.inf, 1e39, 1e-46, -2.5, 7.0])
ROW = st.one_of(
    st.lists(st.floats(-1e3, 1e3) | ODD, min_size=DIMENSION, max_size=DIMENSION),
    st.lists(st.floats(-1e3, 1e3), min_size=0, max_size=5),  # sometimes the wrong length
)


PAIRS = pytest.mark.parametrize(
    ("batch", "single"),
    [(stored_vectors, stored_vector), (unit_vectors, unit_vector)],
    ids=["stored", "unit"],
)


def one_at_a_time(
    single: Callable[..., np.ndarray], vectors: list[list[float]]
) -> list[np.ndarray] | tuple[type, str]:
    try:
        return [single(v, dimension=DIMENSION, context=f"row {i}") for i, v in enumerate(vectors)]
    except RedstringError as error:
        return type(error), str(error)


@PAIRS
@given(vectors=st.lists(ROW, max_size=8))
def test_a_batch_stores_and_refuses_exactly_as_one_row_at_a_time(
    batch: Callable[..., list[np.ndarray]],
    single: Callable[..., np.ndarray],
    vectors: list[list[float]],
) -> None:
    expected = one_at_a_time(single, vectors)
    try:
        got: list[np.ndarray] | tuple[type, str] = batch(
            vectors, dimension=DIMENSION, context_of=lambda i: f"row {i}"
        )
    except RedstringError as error:
        got = type(error), str(error)
    if isinstance(expected, tuple):
        assert got == expected
    else:
        assert isinstance(got, list)
        assert len(got) == len(expected)
        for row, want in zip(got, expected, strict=True):
            assert row.dtype == np.float32
            assert row.tobytes() == want.tobytes()


@PAIRS
def test_the_first_bad_row_is_named_even_after_good_ones(
    batch: Callable[..., list[np.ndarray]], single: Callable[..., np.ndarray]
) -> None:
    with pytest.raises(RedstringError, match="row 2"):
        batch(
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1e39, 0.0, 0.0]],
            dimension=DIMENSION,
            context_of=lambda i: f"row {i}",
        )


def test_unit_rows_of_a_wide_batch_round_exactly_as_each_row_alone() -> None:
    # 384 columns: a norm summed in another order than one row's dot product
    # differs in the last bit for some rows, and so would some stored floats.
    rows = np.random.default_rng(5).standard_normal((300, 384)) * 3.7
    batch = unit_vectors(rows.tolist(), dimension=384, context_of=str)
    for got, row in zip(batch, rows.tolist(), strict=True):
        assert got.tobytes() == unit_vector(row, dimension=384, context="row").tobytes()
