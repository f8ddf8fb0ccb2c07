"""Exact cosine top-k over a matrix of unit rows, shared by the numpy-backed stores.

Pure math (numpy, no I/O), so it lives in the domain where every sibling
adapter family (vectors, chunks) may use it without importing another.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]

from redstring.domain.errors import (
    DimensionMismatchError,
    InvalidArgumentError,
    InvalidVectorError,
)
from redstring.domain.validation import real_number, require_k

FloatMatrix = npt.NDArray[np.float32]


def unit_vector(vector: Sequence[float], *, dimension: int, context: str) -> FloatMatrix:
    """`vector` as a float32 unit vector, checked for length and direction."""
    array = np.asarray(vector, dtype=np.float64)
    if array.ndim != 1 or array.shape[0] != dimension:
        actual = int(array.shape[0]) if array.ndim == 1 else int(array.size)
        raise DimensionMismatchError(expected=dimension, actual=actual, context=context)
    norm = float(np.linalg.norm(array))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidVectorError(context=context)
    return (array / norm).astype(np.float32)


@functools.cache
def _blas_controller() -> ThreadpoolController:
    return ThreadpoolController()


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Run the body with the BLAS libraries numpy loaded limited to one thread.

    The previous limits are restored on exit. Used around the matrix-vector
    product of `top_k`, where a threaded BLAS was measured far slower (ADR 0100).
    """
    with _blas_controller().limit(limits=1, user_api="blas"):
        yield


def blas_products(matrix: FloatMatrix, query: FloatMatrix) -> FloatMatrix:
    """`matrix @ query` on one BLAS thread: every row's cosine, to within BLAS rounding."""
    with single_threaded_blas():
        products: FloatMatrix = matrix @ query
    return products


class ProductMemo:
    """One matrix's products with the query it was last asked, kept for the next ask.

    A hybrid query searches the same matrix twice with one vector (the
    semantic ranking, then the ranks of the lexical candidates); the second
    reuses the first's product. The memo belongs to one matrix that is never
    changed in place; thread-safe, since the query and its products are
    swapped as one tuple.
    """

    def __init__(self) -> None:
        self._last: tuple[bytes, FloatMatrix] | None = None

    def products(self, matrix: FloatMatrix, query: FloatMatrix) -> FloatMatrix:
        """`blas_products(matrix, query)`, computed once for consecutive asks of one query."""
        key, last = query.tobytes(), self._last
        if last is not None and last[0] == key:
            return last[1]
        products = blas_products(matrix, query)
        self._last = (key, products)
        return products


def validate_search_args(k: object, min_score: object) -> tuple[int, float | None]:
    """`k` and `min_score` as an `int` and a `float` (or `None`): refuse a `k` that is not a
    whole number of zero or more, and a `min_score` not a number in 0..1.

    Each raises `InvalidArgumentError` (a `ValueError`) naming the argument.
    """
    count = require_k(k)
    if min_score is None:
        return count, None
    score = real_number(min_score)
    if score is None:
        raise InvalidArgumentError(
            name="min_score",
            value=min_score,
            requirement=f"a number from 0 to 1 or None, not {type(min_score).__name__}; "
            "pass e.g. min_score=0.5",
        )
    if not 0.0 <= score <= 1.0:
        raise InvalidArgumentError(
            name="min_score", value=min_score, requirement="on the 0..1 match scale"
        )
    return count, score


def top_k(
    matrix: FloatMatrix,
    query: FloatMatrix,
    ids: Sequence[str],
    *,
    k: int,
    eligible: npt.NDArray[np.bool_] | None,
    min_score: float | None,
    memo: ProductMemo | None = None,
) -> list[tuple[int, float]]:
    """`(row, score)` of the `k` best rows, best first, ties by ascending `ids[row]`.

    `eligible` masks rows before `k` applies; so does `min_score`. Scores are
    on the 0..1 match scale. Rows tied with the k-th score are all considered
    before cutting, so the cut never depends on the order rows were stored in.
    `memo`, the matrix's own, keeps the product for a second search.
    """
    if k == 0 or matrix.shape[0] == 0:
        return []
    products = blas_products(matrix, query) if memo is None else memo.products(matrix, query)
    scores = np.clip((1.0 + products) / 2.0, 0.0, 1.0)
    keep = np.ones(scores.shape[0], dtype=bool) if eligible is None else eligible.copy()
    if min_score is not None:
        keep &= scores >= min_score - RESCORE_MARGIN
    rows = np.flatnonzero(keep)
    if rows.size == 0:
        return []
    candidate_scores = scores[rows]
    if rows.size > k:
        threshold = np.partition(candidate_scores, rows.size - k)[rows.size - k]
        chosen = candidate_scores >= threshold - RESCORE_MARGIN
        rows = rows[chosen]
    exact = _row_scores(matrix, rows, query)
    if min_score is not None:
        rows, exact = rows[exact >= min_score], exact[exact >= min_score]
    ranked = sorted(
        zip(rows.tolist(), exact.tolist(), strict=True),
        key=lambda pair: (-pair[1], ids[pair[0]]),
    )
    return ranked[:k]


def ranks_of(
    matrix: FloatMatrix,
    query: FloatMatrix,
    ids: Sequence[str],
    *,
    wanted: Sequence[int],
    eligible: npt.NDArray[np.bool_] | None,
    memo: ProductMemo | None = None,
) -> list[tuple[int, float] | None]:
    """`(rank, score)` `top_k` would give each `wanted` row, or `None` for an ineligible one.

    The rank is one-based among the eligible rows, by the same exact score
    and the same tie-break (ascending `ids[row]`) as `top_k`; every row whose
    BLAS score lies within `RESCORE_MARGIN` of a wanted row's is scored
    exactly, so no BLAS rounding enters. `memo` as in `top_k`.
    """
    rows = np.arange(matrix.shape[0]) if eligible is None else np.flatnonzero(eligible)
    answers: list[tuple[int, float] | None] = [None] * len(wanted)
    if rows.size == 0 or not wanted:
        return answers
    products = blas_products(matrix, query) if memo is None else memo.products(matrix, query)
    if eligible is not None:
        products = products[rows]
    blas = np.clip((1.0 + products) / 2.0, 0.0, 1.0)
    asked = np.asarray(wanted, dtype=np.int64)
    at = np.minimum(np.searchsorted(rows, asked), rows.size - 1)
    present = np.flatnonzero(rows[at] == asked)
    score = _row_scores(matrix, asked[present], query)
    mine = _Asked(matrix, query, ids, rows, blas, score, asked[present])
    ranks = _counted_places(mine) if len(present) <= FEW_ASKED else _sorted_places(mine)
    for n, i in enumerate(present.tolist()):
        answers[i] = (int(ranks[n]), float(score[n]))
    return answers


def scores_of(
    matrix: FloatMatrix,
    query: FloatMatrix,
    *,
    wanted: Sequence[int],
    eligible: npt.NDArray[np.bool_] | None,
) -> list[float | None]:
    """The exact score `top_k` gives each `wanted` row, or `None` for an ineligible one."""
    if not wanted:
        return []
    asked = np.asarray(wanted, dtype=np.int64)
    scores: list[float | None] = _row_scores(matrix, asked, query).tolist()
    if eligible is None:
        return scores
    return [s if ok else None for s, ok in zip(scores, eligible[asked].tolist(), strict=True)]


#: Up to this many asked rows, `ranks_of` counts the rows above each one instead of sorting.
FEW_ASKED = 8


class _Asked(NamedTuple):
    """What `ranks_of` places: `blas` holds the eligible `rows`' BLAS scores,
    `score` and `own` each asked row's exact score and row."""

    matrix: FloatMatrix
    query: FloatMatrix
    ids: Sequence[str]
    rows: npt.NDArray[np.int64]
    blas: npt.NDArray[np.floating]
    score: npt.NDArray[np.float64]
    own: npt.NDArray[np.int64]


def _counted_places(asked: _Asked) -> npt.NDArray[np.int64]:
    """Each asked row's place, the rows above it and in its band counted
    over the whole of `blas`."""
    matrix, query, _, rows, blas, score, _ = asked
    above = np.array([np.count_nonzero(blas > mine + RESCORE_MARGIN) for mine in score])
    bands = [
        rows[np.flatnonzero((blas >= mine - RESCORE_MARGIN) & (blas <= mine + RESCORE_MARGIN))]
        for mine in score
    ]
    segment = np.repeat(np.arange(len(bands)), [len(band) for band in bands])
    members = np.concatenate(bands) if bands else np.zeros(0, dtype=np.int64)
    values = _row_scores(matrix, members, query)
    return above + 1 + _ahead(segment, values, members, asked, count=len(bands))


def _sorted_places(asked: _Asked) -> npt.NDArray[np.int64]:
    """Each asked row's place, read off the eligible rows sorted by BLAS score."""
    matrix, query, _, rows, blas, score, _ = asked
    order = np.argsort(-blas)  # a band is a range of values: equal ones in any order
    descending = -blas[order]  # ascending negatives
    # A row whose BLAS score is beyond the margin is beyond the exact score too;
    # only the rows inside the band around it are scored exactly, each once.
    above = np.searchsorted(descending, -(score + RESCORE_MARGIN), side="left")
    upto = np.searchsorted(descending, -(score - RESCORE_MARGIN), side="right")
    lengths = upto - above
    banded = np.flatnonzero(lengths > 1)
    edges = np.zeros(rows.size + 1, dtype=np.int64)  # +1 where a band opens, -1 past its end
    np.add.at(edges, above[banded], 1)
    np.add.at(edges, upto[banded], -1)
    inside = np.flatnonzero(np.cumsum(edges[:-1]) > 0)
    placed = rows[order]
    exact = np.zeros(rows.size, dtype=np.float64)
    exact[inside] = _row_scores(matrix, placed[inside], query)
    ranks = above + 1
    for part in np.array_split(banded, max(1, int(lengths[banded].sum()) >> 20)):
        # Band n of the part: the sorted positions above[n] to upto[n].
        segment = np.repeat(np.arange(len(part)), lengths[part])
        positions = np.arange(len(segment)) + np.repeat(
            above[part] - (np.cumsum(lengths[part]) - lengths[part]), lengths[part]
        )
        ranks[part] += _ahead(
            segment,
            exact[positions],
            placed[positions],
            asked._replace(score=score[part], own=asked.own[part]),
            count=len(part),
        )
    return ranks


def _ahead(
    segment: npt.NDArray[np.int64],
    values: npt.NDArray[np.float64],
    members: npt.NDArray[np.int64],
    asked: _Asked,
    *,
    count: int,
) -> npt.NDArray[np.int64]:
    """How many rows of each asked row's band come before it: a higher exact
    score, or the same and an id that sorts first (`top_k`'s order).

    Member `i` (row `members[i]`, exact score `values[i]`) is in the band of
    asked row `segment[i]`, of `count`; an asked row may be in its own band.
    """
    ids, mine, own = asked.ids, asked.score[segment], asked.own[segment]
    first = np.bincount(segment, weights=values > mine, minlength=count).astype(np.int64)
    for at in np.flatnonzero((values == mine) & (members != own)).tolist():
        if ids[int(members[at])] < ids[int(own[at])]:
            first[segment[at]] += 1
    return first


#: How far below the k-th BLAS score a row may be and still be rescored: far above the
#: float32 rounding of a unit-vector dot product, which depends on the row's position.
RESCORE_MARGIN = 1e-5


#: Rows `_row_scores` widens to float64 at a time, so each block stays in the CPU's cache.
SCORED_BLOCK = 128


def _row_scores(
    matrix: FloatMatrix, rows: npt.NDArray[np.int64], query: FloatMatrix
) -> npt.NDArray[np.float64]:
    """Match scores of `matrix[rows]`, each computed alike wherever it sits in the matrix.

    BLAS rounds a row's product differently by its position in the block it
    is computed in, so two equal rows could score apart and break their tie
    by position; a float64 row-wise sum does not, and gives each row the
    same bits whatever block it is summed in.
    """
    wide = query.astype(np.float64)
    products = np.empty(len(rows), dtype=np.float64)
    for start in range(0, len(rows), SCORED_BLOCK):
        block = matrix[rows[start : start + SCORED_BLOCK]].astype(np.float64)
        products[start : start + SCORED_BLOCK] = (block * wide).sum(axis=1)
    return np.asarray(np.clip((1.0 + products) / 2.0, 0.0, 1.0), dtype=np.float32).astype(
        np.float64
    )


def stored_vector(vector: Sequence[float], *, dimension: int, context: str) -> FloatMatrix:
    """`vector` as the float32 array a persistent store keeps, checked like `unit_vector`.

    Also refuses a vector whose float32 form overflows or vanishes, since that
    is what would be stored and searched.
    """
    unit_vector(vector, dimension=dimension, context=context)
    with np.errstate(over="ignore"):  # an overflow becomes inf, refused just below
        array = np.asarray(vector, dtype=np.float32)
    norm = float(np.linalg.norm(array.astype(np.float64)))
    if not np.isfinite(norm) or norm == 0.0:
        raise InvalidVectorError(context=f"{context} (as float32)")
    return array


def stored_vectors(
    vectors: Sequence[Sequence[float]], *, dimension: int, context_of: Callable[[int], str]
) -> list[FloatMatrix]:
    """`stored_vector` of each of `vectors`, checked as one matrix (ADR 0192).

    Equal to calling `stored_vector` on each in turn, errors included: when any
    row fails a check, the rows are checked one at a time, so the first bad one
    raises exactly what it would alone (`context_of(i)` names row `i`).
    """
    try:
        matrix = np.asarray(vectors, dtype=np.float64)
    except (ValueError, TypeError):  # ragged rows, or values that are not numbers
        matrix = np.zeros((0, 0))
    if matrix.ndim == 2 and matrix.shape == (len(vectors), dimension):
        with np.errstate(over="ignore"):  # an overflow becomes inf, refused below
            rows = matrix.astype(np.float32)
        exact = np.linalg.norm(matrix, axis=1)
        rounded = np.linalg.norm(rows.astype(np.float64), axis=1)
        if (np.isfinite(exact) & (exact > 0) & np.isfinite(rounded) & (rounded > 0)).all():
            return list(rows)  # views of one buffer per batch
    return [
        stored_vector(vector, dimension=dimension, context=context_of(i))
        for i, vector in enumerate(vectors)
    ]


def unit_vectors(
    vectors: Sequence[Sequence[float]], *, dimension: int, context_of: Callable[[int], str]
) -> list[FloatMatrix]:
    """`unit_vector` of each of `vectors`, computed as one matrix: the same bytes, the same errors.

    Each row's norm is the square root of its own dot product, as in
    `unit_vector` (numpy's `norm` of one vector), so every row rounds exactly
    as it would alone; the rows are views of one float32 buffer. When any row
    fails a check, the rows are checked one at a time, so the first bad one
    raises what it would alone (`context_of(i)` names row `i`).
    """
    try:
        matrix = np.asarray(vectors, dtype=np.float64)
    except (ValueError, TypeError):  # ragged rows, or values that are not numbers
        matrix = np.zeros((0, 0))
    if matrix.ndim == 2 and matrix.shape == (len(vectors), dimension):
        norms = np.sqrt(np.array([row.dot(row) for row in matrix], dtype=np.float64))
        if (np.isfinite(norms) & (norms > 0)).all():
            return list((matrix / norms[:, None]).astype(np.float32))
    return [
        unit_vector(vector, dimension=dimension, context=context_of(i))
        for i, vector in enumerate(vectors)
    ]


#: Rows scaled per block by `unit_rows`, bounding its float64 temporaries.
UNIT_ROWS_BLOCK = 8192


def unit_rows(matrix: FloatMatrix) -> FloatMatrix:
    """Each row of `matrix` scaled to length one (rows are known to be non-zero).

    Computed in float64 a block of rows at a time, so the temporaries stay
    small however tall the matrix is; the result is float32.
    """
    out = np.empty(matrix.shape, dtype=np.float32)
    for start in range(0, matrix.shape[0], UNIT_ROWS_BLOCK):
        block = matrix[start : start + UNIT_ROWS_BLOCK].astype(np.float64)
        out[start : start + UNIT_ROWS_BLOCK] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out
