"""Exact top-k runs its product with BLAS at one thread and restores the caller's limit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from redstring.domain import exact_search
from redstring.domain.exact_search import single_threaded_blas, top_k


def _blas_threads() -> list[int]:
    """Thread limits of numpy's own BLAS (its wheel's `numpy.libs` folder).

    Another package's BLAS (faiss bundles one) may be loaded later in the session; the
    contract covers the BLAS numpy's product runs on, so such libraries are not counted.
    """
    return [
        int(info["num_threads"])
        for info in threadpool_info()
        if info["user_api"] == "blas" and Path(info["filepath"]).parent.name == "numpy.libs"
    ]


def test_single_threaded_blas_limits_inside_and_restores_after() -> None:
    assert _blas_threads(), "numpy should have loaded a BLAS library"
    with threadpool_limits(limits=2, user_api="blas"):
        before = _blas_threads()
        with single_threaded_blas():
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == before


def test_top_k_computes_its_product_under_the_one_thread_limit(monkeypatch) -> None:
    seen: list[list[int]] = []
    real = exact_search.single_threaded_blas

    class Spy:
        def __enter__(self) -> None:
            self._inner = real()
            self._inner.__enter__()
            seen.append(_blas_threads())

        def __exit__(self, *exc: object) -> None:
            self._inner.__exit__(None, None, None)

    monkeypatch.setattr(exact_search, "single_threaded_blas", Spy)
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((50, 8)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    hits = top_k(
        matrix, matrix[3], [f"{i:03d}" for i in range(50)], k=3, eligible=None, min_score=None
    )
    assert hits[0][0] == 3
    assert seen
    assert all(threads == [1] * len(threads) for threads in seen)


def test_the_scores_are_those_of_the_row_products_in_float64() -> None:
    rng = np.random.default_rng(1)
    matrix = rng.standard_normal((200, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[7]
    hits = top_k(
        matrix, query, [f"{i:03d}" for i in range(200)], k=5, eligible=None, min_score=None
    )
    products = matrix.astype(np.float64) @ query.astype(np.float64)
    expected = np.clip((1.0 + products) / 2.0, 0.0, 1.0).astype(np.float32)
    for row, score in hits:
        assert score == float(expected[row])
    assert [row for row, _ in hits] == list(np.argsort(-expected, kind="stable")[:5])


def test_unit_rows_scales_every_row_across_block_boundaries(monkeypatch) -> None:
    monkeypatch.setattr(exact_search, "UNIT_ROWS_BLOCK", 4)
    rng = np.random.default_rng(2)
    matrix = (rng.standard_normal((11, 6)) * 3).astype(np.float32)
    scaled = exact_search.unit_rows(matrix)
    direct = matrix.astype(np.float64) / np.linalg.norm(
        matrix.astype(np.float64), axis=1, keepdims=True
    )
    assert scaled.dtype == np.float32
    assert np.array_equal(scaled, direct.astype(np.float32))


def test_equal_rows_tie_by_id_wherever_they_are_stored() -> None:
    """BLAS rounds a row's product by its position; equal rows must still tie and go by id."""
    rng = np.random.default_rng(3)
    differing = 0
    for _ in range(60):
        base = rng.standard_normal((301, 384)).astype(np.float32)
        base /= np.linalg.norm(base, axis=1, keepdims=True)
        matrix = np.concatenate([base, base])  # every row twice, 301 rows apart
        ids = [f"{row:05d}" for row in range(matrix.shape[0])]
        query = rng.standard_normal(384).astype(np.float32)
        query /= np.linalg.norm(query)
        stored = [ids[row] for row, _ in top_k(matrix, query, ids, k=50, eligible=None,
                                               min_score=None)]  # fmt: skip
        order = rng.permutation(matrix.shape[0])
        moved_ids = [ids[row] for row in order]
        moved = top_k(matrix[order], query, moved_ids, k=50, eligible=None, min_score=None)
        differing += stored != [moved_ids[row] for row, _ in moved]
        for first, second in zip(stored[::2], stored[1::2], strict=True):
            assert int(first) % 301 == int(second) % 301  # each pair of equal rows together
            assert first < second  # by ascending id
    assert differing == 0
