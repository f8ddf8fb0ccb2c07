"""The float16 error bound holds for pgvector's arithmetic, and the pool check uses it strictly."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.domain.half_precision import half_precision_error, pool_size, rescan_ceiling


def _float32_sum(products: np.ndarray) -> float:
    total = np.float32(0.0)
    for value in products.astype(np.float32):
        total = np.float32(total + value)
    return float(total)


def exact_cosine(row: np.ndarray, query: np.ndarray) -> float:
    """pgvector's float32 inner product times the float8 inverse norm (ADR 0190)."""
    products = (row.astype(np.float32) * query.astype(np.float32)).astype(np.float32)
    return _float32_sum(products) / float(np.linalg.norm(row.astype(np.float64)))


def half_cosine(row: np.ndarray, query: np.ndarray) -> float:
    """`l2_normalize(row)::halfvec <#> query::halfvec`, negated: float16 values, float32 sum."""
    unit = (row.astype(np.float64) / np.linalg.norm(row.astype(np.float64))).astype(np.float32)
    products = unit.astype(np.float16).astype(np.float32) * query.astype(np.float16).astype(
        np.float32
    )
    return _float32_sum(products)


def _unit(values: list[float]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    return (array / np.linalg.norm(array)).astype(np.float32)


coordinates = st.floats(min_value=-1.0, max_value=1.0, allow_nan=False).map(
    lambda x: x * 10.0 ** -(abs(x) * 9)  # reaches float16's subnormal range too
)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(min_value=1, max_value=96).flatmap(
        lambda n: st.tuples(
            st.lists(coordinates, min_size=n, max_size=n),
            st.lists(coordinates, min_size=n, max_size=n),
            st.floats(min_value=1e-3, max_value=1e3),
        )
    )
)
def test_the_float16_cosine_stays_within_the_bound(
    drawn: tuple[list[float], list[float], float],
) -> None:
    row_values, query_values, scale = drawn
    if not any(row_values) or not np.linalg.norm(query_values):
        return  # a query whose length underflows to 0 has no direction to compare
    row = (np.asarray(row_values) * scale).astype(np.float32)
    if not np.any(row):
        return
    query = _unit(query_values)
    gap = abs(half_cosine(row, query) - exact_cosine(row, query))
    assert gap <= half_precision_error(len(row_values))


def test_aligned_roundings_come_close_to_the_bound() -> None:
    """Each coordinate just under a rounding midpoint: the bound nearly reached, never passed."""
    just_above_a_quarter = (
        0.25 + 2.0**-13 * 0.99
    )  # float16 rounds it down by almost 2^-11 of itself
    first = [just_above_a_quarter] * 15
    row = np.asarray([*first, math.sqrt(1.0 - sum(x * x for x in first))], dtype=np.float32)
    gap = abs(half_cosine(row, row) - exact_cosine(row, row))
    bound = half_precision_error(16)
    assert 0.9 * bound < gap <= bound


def test_the_bound_grows_with_the_dimension_and_refuses_none() -> None:
    assert (
        2.0**-10 < half_precision_error(1) < half_precision_error(384) < half_precision_error(768)
    )
    assert half_precision_error(16000) < 4e-3
    with pytest.raises(ValueError, match="dimension"):
        half_precision_error(0)


def test_a_pool_not_full_holds_every_passing_row() -> None:
    assert (
        rescan_ceiling(
            pool_full=False, last_approximate=0.0, kept=[], k=5, min_score=None, error=1.0
        )
        is None
    )


def test_a_full_pool_is_complete_only_when_the_bound_clears_the_kth_distance_strictly() -> None:
    kept = [0.125, 0.25, 0.375]  # exact in binary: the edge below is an exact tie
    error = 0.0625
    cleared = rescan_ceiling(
        pool_full=True,
        last_approximate=0.3125 + 2.0**-20,
        kept=kept,
        k=2,
        min_score=None,
        error=error,
    )
    assert cleared is None
    at_the_edge = rescan_ceiling(
        pool_full=True, last_approximate=0.3125, kept=kept, k=2, min_score=None, error=error
    )
    assert at_the_edge == 0.3125  # an outside row could tie the k-th and win by its id


def test_with_fewer_than_k_kept_the_min_score_sets_the_cut() -> None:
    # min_score 0.9 keeps distances up to 0.2; outside rows start at 0.25 - 0.01.
    assert (
        rescan_ceiling(
            pool_full=True, last_approximate=0.25, kept=[0.1], k=3, min_score=0.9, error=0.01
        )
        is None
    )
    cut = rescan_ceiling(
        pool_full=True, last_approximate=0.205, kept=[0.1], k=3, min_score=0.9, error=0.01
    )
    assert cut == pytest.approx(0.21)
    with pytest.raises(ValueError, match="at least k"):
        rescan_ceiling(
            pool_full=True, last_approximate=0.3, kept=[0.1], k=3, min_score=0.0, error=0.01
        )


def test_the_pool_is_larger_than_k() -> None:
    assert [pool_size(k) for k in (1, 10, 100)] == [22, 40, 220]
