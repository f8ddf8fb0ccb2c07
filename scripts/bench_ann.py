"""Compare approximate-index libraries for the in-memory and SQLite vector stores (ADR 0191).

For usearch, hnswlib and faiss (HNSW in each, cosine on unit float32 rows)
it measures, over the same N unit vectors (`--rows random`, HNSW's worst
case, or `--rows clustered`: 100 centres plus noise, closer to embeddings of
real text) and the same queries (a stored row plus noise, as
`scripts.bench_retrieval` makes them):

- the build time (2 threads, the machine's cores);
- recall@10 against exact numpy top-k, and the p50 / p90 per query (one
  thread, one query at a time), unfiltered and with a type filter that 20% of
  the rows pass, applied before `k` (hnswlib: its filter callback; faiss: an
  `IDSelectorBitmap`; usearch has no filter in its Python API, so it
  over-fetches `k / 0.2 * 2` and filters after, falling back to exact when
  that leaves fewer than `k`);
- the numpy floor of the same run (exact top-k, one thread) beside them.

    uv run --with usearch==2.26.* --with hnswlib==0.8.* --with faiss-cpu==1.15.* \\
        python -m scripts.bench_ann --n 100000 --dim 384
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

K = 10
SELECTIVITY = 0.2
CLUSTERS = 100


def unit_rows(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def clustered_rows(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Unit rows around 100 random centres (noise of the same norm as a centre)."""
    centres = unit_rows(CLUSTERS, dim, rng)
    matrix = centres[rng.integers(CLUSTERS, size=rows)] + unit_rows(rows, dim, rng)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def exact(matrix: np.ndarray, query: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    scores = matrix @ query
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    best = np.argpartition(-scores, K)[:K]
    return best[np.argsort(-scores[best])]


def measure(
    search: Callable[[np.ndarray], np.ndarray], queries: np.ndarray, truth: list[np.ndarray]
) -> tuple[float, float, float]:
    """(recall@10, p50 ms, p90 ms)."""
    times, hits = [], 0
    for query, expected in zip(queries, truth, strict=True):
        started = time.perf_counter()
        found = search(query)
        times.append((time.perf_counter() - started) * 1000)
        hits += len(set(found[:K].tolist()) & set(expected.tolist()))
    p50, p90 = np.percentile(times, [50, 90])
    return hits / (K * len(queries)), float(p50), float(p90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--efs", type=int, nargs="+", default=[32, 64, 128, 256])
    parser.add_argument("--rows", choices=["random", "clustered"], default="random")
    parser.add_argument("--libs", nargs="+", default=["hnswlib", "faiss", "usearch"])
    args = parser.parse_args()
    rng = np.random.default_rng(args.n + args.dim)
    make = clustered_rows if args.rows == "clustered" else unit_rows
    matrix = make(args.n, args.dim, rng)
    mask = rng.random(args.n) < SELECTIVITY
    rows = rng.integers(args.n, size=args.queries)
    queries = matrix[rows] + 0.5 * unit_rows(args.queries, args.dim, rng)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    controller = ThreadpoolController()
    with controller.limit(limits=1, user_api="blas"):
        truth = [exact(matrix, q, None) for q in queries]
        truth_f = [exact(matrix, q, mask) for q in queries]
        _, floor, floor90 = measure(lambda q: exact(matrix, q, None), queries, truth)
        _, floor_f, _ = measure(lambda q: exact(matrix, q, mask), queries, truth_f)
    print(f"load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(
        f"{args.rows} rows N={args.n:,} dim={args.dim} queries={args.queries}"
        f" filter passes {mask.mean():.1%}"
    )
    print(f"numpy floor p50/p90 {floor:.2f}/{floor90:.2f} ms; filtered p50 {floor_f:.2f} ms\n")
    print(
        "| library | build s | ef | recall@10 | p50 / p90 ms | filtered recall@10"
        " | filtered p50 / p90 ms |"
    )
    print("| --- | ---: | ---: | ---: | --- | ---: | --- |")
    ids = np.arange(args.n)
    allowed = set(np.flatnonzero(mask).tolist())
    for lib in args.libs:
        started = time.perf_counter()
        if lib == "hnswlib":
            import hnswlib  # noqa: PLC0415 (each library is optional)

            index = hnswlib.Index(space="ip", dim=args.dim)
            index.init_index(max_elements=args.n, M=16, ef_construction=200, random_seed=1)
            index.set_num_threads(2)
            index.add_items(matrix, ids)
            index.set_num_threads(1)
        elif lib == "faiss":
            import faiss  # noqa: PLC0415

            faiss.omp_set_num_threads(2)
            index = faiss.IndexHNSWFlat(args.dim, 16, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = 200
            index.add(matrix)
            faiss.omp_set_num_threads(1)
            bitmap = np.packbits(mask, bitorder="little")
            selector = faiss.IDSelectorBitmap(args.n, faiss.swig_ptr(bitmap))
        else:
            from usearch.index import Index  # noqa: PLC0415

            index = Index(
                ndim=args.dim, metric="ip", dtype="f32", connectivity=16, expansion_add=200
            )
            index.add(ids, matrix, threads=2)
        build = time.perf_counter() - started
        for ef in args.efs:
            if lib == "hnswlib":
                index.set_ef(ef)

                def plain(q: np.ndarray, index: Any = index) -> np.ndarray:
                    return index.knn_query(q, k=K, num_threads=1)[0][0]

                def filtered(q: np.ndarray, index: Any = index) -> np.ndarray:
                    return index.knn_query(q, k=K, num_threads=1, filter=lambda i: mask[i])[0][0]

            elif lib == "faiss":
                params = faiss.SearchParametersHNSW(efSearch=ef)
                params_f = faiss.SearchParametersHNSW(efSearch=ef, sel=selector)

                def plain(q: np.ndarray, index: Any = index, params: Any = params) -> np.ndarray:
                    return index.search(q[None, :], K, params=params)[1][0]

                def filtered(
                    q: np.ndarray, index: Any = index, params: Any = params_f
                ) -> np.ndarray:
                    return index.search(q[None, :], K, params=params)[1][0]

            else:
                index.expansion_search = ef
                fetch = int(K / SELECTIVITY * 2)

                def plain(q: np.ndarray, index: Any = index) -> np.ndarray:
                    return index.search(q, K, threads=1).keys

                def filtered(q: np.ndarray, index: Any = index, fetch: int = fetch) -> np.ndarray:
                    found = index.search(q, fetch, threads=1).keys.tolist()
                    keys = [key for key in found if key in allowed]
                    if len(keys) < K:
                        return exact(matrix, q, mask)
                    return np.asarray(keys[:K])

            recall, p50, p90 = measure(plain, queries, truth)
            recall_f, p50_f, p90_f = measure(filtered, queries, truth_f)
            print(
                f"| {lib} | {build:.1f} | {ef} | {recall:.3f} | {p50:.2f} / {p90:.2f}"
                f" | {recall_f:.3f} | {p50_f:.2f} / {p90_f:.2f} |",
                flush=True,
            )
    print(f"\nload average at the end {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
