"""Exact top-k runs its product with BLAS at one thread and restores the caller's limit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from threadpoolctl import threadpool_info, threadpool_limits

from redstring.domain import exact_search
from redstring.domain.exact_search import ranks_of, single_threaded_blas, top_k


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


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    size=st.integers(1, 300),
    asked=st.integers(1, 40),
    filtered=st.booleans(),
)
def test_ranks_of_gives_each_row_its_place_in_top_ks_whole_ranking(
    seed: int, size: int, asked: int, filtered: bool
) -> None:
    """Counted (a few rows asked) or read off a sort (more), each asked row's
    place is where `top_k` over every eligible row puts it. Rows repeat, so
    ties broken by id are common, and most scores lie within the rescoring
    margin of another's."""
    rng = np.random.default_rng(seed)
    distinct = rng.standard_normal((max(1, size // 3), 8)).astype(np.float32)
    matrix = distinct[rng.integers(len(distinct), size=size)]
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = rng.standard_normal(8).astype(np.float32)
    query /= np.linalg.norm(query)
    ids = [f"c{n:04d}" for n in rng.permutation(size)]
    eligible = rng.random(size) < 0.7 if filtered else None
    whole = top_k(matrix, query, ids, k=size, eligible=eligible, min_score=None)
    place = {row: (n, score) for n, (row, score) in enumerate(whole, start=1)}
    wanted = rng.integers(size, size=asked).tolist()
    got = ranks_of(matrix, query, ids, wanted=wanted, eligible=eligible)
    assert got == [place.get(row) for row in wanted]


def test_a_memo_takes_one_product_for_a_search_and_the_ranks_after_it(monkeypatch) -> None:
    """The ranks asked after a search of the same query reuse its product;
    another query takes its own, and every answer is the memo-less one."""
    products: list[bytes] = []
    real = exact_search.blas_products

    def counted(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
        products.append(query.tobytes())
        return real(matrix, query)

    monkeypatch.setattr(exact_search, "blas_products", counted)
    rng = np.random.default_rng(4)
    matrix = rng.standard_normal((400, 16)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    ids = [f"c{n:03d}" for n in range(400)]
    memo = exact_search.ProductMemo()
    for query in (matrix[5], matrix[5], matrix[9]):
        plain = top_k(matrix, query, ids, k=10, eligible=None, min_score=None)
        kept = top_k(matrix, query, ids, k=10, eligible=None, min_score=None, memo=memo)
        wanted = [3, 5, 9, 200, 399]
        assert kept == plain
        assert ranks_of(matrix, query, ids, wanted=wanted, eligible=None, memo=memo) == ranks_of(
            matrix, query, ids, wanted=wanted, eligible=None
        )
    # Without a memo: a product per call (6); with it: one for row 5, one for row 9.
    assert len(products) == 6 + 2
    assert products.count(matrix[9].tobytes()) == 2 + 1


def test_exact_scores_are_the_same_bits_whatever_block_a_row_is_summed_in(monkeypatch) -> None:
    rng = np.random.default_rng(5)
    matrix = rng.standard_normal((37, 384)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    query = matrix[0]
    rows = rng.permutation(37)
    whole = exact_search._row_scores(matrix, rows, query)
    monkeypatch.setattr(exact_search, "SCORED_BLOCK", 5)
    assert np.array_equal(exact_search._row_scores(matrix, rows, query), whole)
    one_by_one = [exact_search._row_scores(matrix, rows[n : n + 1], query)[0] for n in range(37)]
    assert np.array_equal(np.array(one_by_one), whole)
