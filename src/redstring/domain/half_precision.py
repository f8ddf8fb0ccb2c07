"""How far a float16 ranking can stray from the exact one, and when it provably cannot matter.

Exact search in PostgreSQL ranks a pool of rows by a float16 inner product,
re-scores the pool from the float32 vectors, and needs the whole scan only
when the error bound cannot rule out a row left outside the pool (ADR 0270).
Distances here are cosine distances (`1 - cos`), smaller is better.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

#: float16 keeps 11 significant bits: rounding moves a value by at most 2^-11 of itself...
_HALF_RELATIVE = 2.0**-11
#: ...or, below 2^-14 where float16 is subnormal, by at most half its spacing, 2^-25.
_HALF_ABSOLUTE = 2.0**-25
#: float32's unit roundoff: each float32 rounding moves a value by at most this share.
_SINGLE = 2.0**-24
#: Room for the float8 arithmetic around the inner products (`1 + ...`, the inverse norm).
_SLACK = 1e-9


def half_precision_error(dimension: int) -> float:
    """A bound on |float16 cosine - exact cosine| for any stored row and unit query.

    The float16 cosine is the inner product of the row's unit vector (pgvector's
    `l2_normalize`, a float32 rounding, then a float16 one) and the query
    rounded to float16, summed in float32; the exact one is the float32 inner
    product times the row's stored inverse norm (ADR 0190). The bound adds the
    two float16 roundings of every coordinate (relative, or absolute below the
    normal range) to a float32 summation error for each of the two sums, in
    any order of summation.
    """
    if dimension <= 0:
        raise ValueError(f"dimension must be positive, got {dimension}")
    n = float(dimension)
    row = (1.0 + _HALF_RELATIVE) * (1.0 + 2.0 * _SINGLE) - 1.0
    query = (1.0 + _HALF_RELATIVE) * (1.0 + _SINGLE) - 1.0
    relative = (1.0 + row) * (1.0 + query) - 1.0
    rounding = (
        relative * (1.0 + _SINGLE)
        + 2.0 * (1.0 + relative) * _HALF_ABSOLUTE * math.sqrt(n)
        + n * _HALF_ABSOLUTE**2
    )
    summation = n * _SINGLE / (1.0 - n * _SINGLE)
    return rounding + 2.0 * summation * 1.01 + _SLACK


def pool_size(k: int) -> int:
    """How many rows the float16 ranking hands to the float32 re-score for top `k`."""
    return 2 * k + 20


def rescan_ceiling(
    *,
    pool_full: bool,
    last_approximate: float,
    kept: Sequence[float],
    k: int,
    min_score: float | None,
    error: float,
) -> float | None:
    """`None` when the pool provably holds the exact top `k`; else the scan's cut.

    `kept` are the exact distances, ascending, of the pooled rows passing
    `min_score`; `last_approximate` is the largest float16 distance in the
    pool, and every row outside it has one at least as large. A row outside
    is then at exact distance `>= last_approximate - error`: when that is
    beyond the k-th kept distance (or, with fewer than `k` kept, beyond what
    `min_score` allows), nothing outside can enter the top `k`, ties included.
    Otherwise the returned value is the float16 distance up to which a full
    scan must re-score rows: every row of the exact top `k` lies within it.
    """
    if not pool_full:
        return None  # every row passing the filters was pooled
    if len(kept) >= k:
        ceiling = kept[k - 1]
    elif min_score is not None and min_score > 0.0:
        ceiling = 2.0 - 2.0 * min_score  # score = 1 - distance / 2 must reach min_score
    else:
        raise ValueError("a full pool keeps at least k rows when min_score keeps every row")
    if last_approximate - error > ceiling:
        return None
    return ceiling + error
