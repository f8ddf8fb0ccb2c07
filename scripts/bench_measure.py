"""The benchmarks' shared measures: memory, timers, the numpy floor, percentiles, and
the two-tree comparisons' command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

K = 10


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def time_async(call: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000.0


def time_sync(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000.0


def numpy_top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    scores = matrix @ query
    best = np.argpartition(-scores, k)[:k]
    return best[np.argsort(-scores[best])]


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q))


def summary(values: list[float]) -> dict[str, float]:
    return {"p50": percentile(values, 50), "p90": percentile(values, 90), "n": len(values)}


def compare_trees(
    parser: argparse.ArgumentParser,
    run: Callable[[argparse.Namespace], Awaitable[list[str]]],
) -> None:
    """Add `--queries` and `--out` to a two-tree comparison's own arguments,
    run it, and write its answers to `--out` as JSON (for `cmp` against the
    other tree's)."""
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--out", type=Path, help="the answers, as JSON")
    args = parser.parse_args()
    answers = asyncio.run(run(args))
    if args.out is not None:
        args.out.write_text(json.dumps(answers))
