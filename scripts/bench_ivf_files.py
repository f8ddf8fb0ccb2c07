"""Where an IVF index should live (ADR 0265): trained again from a tenant's rows, or read back.

Over N clustered unit rows (`bench_retrieval.clustered_rows`) it times, in one
process: loading the rows into a `TenantRows` in bulk (`of`, as the SQLite
store loads a tenant) and row by row (`put`), training and filling the
`IvfIndex` the stores build, `faiss.write_index` of it, and `faiss.read_index`
of the file (read once first, so from the page cache).

    nice -n 10 uv run python -m scripts.bench_ivf_files 1000000
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import faiss
import numpy as np

from redstring.vector.ivf import IvfIndex
from redstring.vector.rows import TenantRows
from scripts.bench_corpus import clustered_rows


def main(rows: int, dim: int = 384) -> None:
    matrix = clustered_rows(rows, dim, np.random.default_rng(rows))
    ids = [f"{i:036d}" for i in range(rows)]
    types = ["person"] * rows
    started, cpu = time.perf_counter(), time.process_time()
    TenantRows.of(ids, types, types, matrix.copy())
    print(
        f"rows loaded (of) {time.perf_counter() - started:.1f} s"
        f" (CPU {time.process_time() - cpu:.2f} s)"
    )
    started, cpu = time.perf_counter(), time.process_time()
    part = TenantRows(dim)
    part.put(ids, types, types, matrix)
    print(f"rows put {time.perf_counter() - started:.1f} s (CPU {time.process_time() - cpu:.2f} s)")
    started = time.perf_counter()
    index = IvfIndex.train(part)
    print(f"train + add {time.perf_counter() - started:.1f} s", flush=True)
    path = Path(tempfile.mkdtemp()) / "ivf.index"
    started = time.perf_counter()
    faiss.write_index(index._index, str(path))
    os.sync()
    size = path.stat().st_size / 2**20
    print(f"write_index {time.perf_counter() - started:.1f} s, {size:,.0f} MiB", flush=True)
    path.read_bytes()  # into the page cache
    started = time.perf_counter()
    faiss.read_index(str(path))
    print(f"read_index (file in page cache) {time.perf_counter() - started:.1f} s", flush=True)
    path.unlink()
    print("load", os.getloadavg())


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
