"""What this machine charges to touch memory for the first time: the baseline beside ingest.

On the benchmark VMs a page the guest has not touched before is backed by the host on its
first write, and that wait is wall time the ingest's own CPU-seconds do not show. An ingest
row that grew by N MB is printed beside the time a plain numpy block of N MB takes to be
touched once, page by page, in the same worker right after it.
"""

from __future__ import annotations

import mmap
import time

import numpy as np

#: Bytes per page written to fault a block in (the x86-64 and arm64 base page).
PAGE = mmap.PAGESIZE


def first_touch(megabytes: float) -> dict[str, float]:
    """Map `megabytes` the process has never used, write one byte a page, unmap it.

    Returns ``{"mb", "wall_s", "cpu_s"}``: the wall and CPU seconds of the writes. The block
    is an anonymous mapping (numpy asks the allocator, which maps a block this large fresh),
    so every page is faulted in by the writes, as an ingest's new objects are.
    """
    size = max(int(megabytes * 2**20), PAGE)
    wall, cpu = time.perf_counter(), time.process_time()
    block = np.empty(size, dtype=np.uint8)
    block[::PAGE] = 1
    result = {
        "mb": size / 2**20,
        "wall_s": time.perf_counter() - wall,
        "cpu_s": time.process_time() - cpu,
    }
    del block
    return result
