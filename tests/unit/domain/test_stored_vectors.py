"""`stored_vectors` checks a batch as one matrix, equal to `stored_vector` per row (ADR 0192)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import RedstringError
from redstring.domain.exact_search import stored_vector, stored_vectors

DIMENSION = 3
#: Values that break a check: zero rows, NaN, infinities, a float32 overflow, a tiny float.
ODD = st.sampled_from([0.0, math.nan, math.inf, -math.inf, 1e39, 1e-46, -2.5, 7.0])
ROW = st.one_of(
    st.lists(st.floats(-1e3, 1e3) | ODD, min_size=DIMENSION, max_size=DIMENSION),
    st.lists(st.floats(-1e3, 1e3), min_size=0, max_size=5),  # sometimes the wrong length
)


def one_at_a_time(vectors: list[list[float]]) -> list[np.ndarray] | tuple[type, str]:
    try:
        return [
            stored_vector(v, dimension=DIMENSION, context=f"row {i}") for i, v in enumerate(vectors)
        ]
    except RedstringError as error:
        return type(error), str(error)


@given(st.lists(ROW, max_size=8))
def test_a_batch_stores_and_refuses_exactly_as_one_row_at_a_time(
    vectors: list[list[float]],
) -> None:
    expected = one_at_a_time(vectors)
    try:
        got: list[np.ndarray] | tuple[type, str] = stored_vectors(
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


def test_the_first_bad_row_is_named_even_after_good_ones() -> None:
    with pytest.raises(RedstringError, match="row 2"):
        stored_vectors(
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1e39, 0.0, 0.0]],
            dimension=DIMENSION,
            context_of=lambda i: f"row {i}",
        )
