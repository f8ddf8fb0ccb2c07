"""The benchmarks' shared measures: memory, timers, the numpy floor, percentiles."""

from __future__ import annotations

import os
import resource
import time
from collections.abc import Awaitable, Callable

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
