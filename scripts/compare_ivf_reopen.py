"""A SQLite file's first IVF search after a reopen: its time, and its answers (ADR 0320).

Writes N clustered unit rows (`bench_corpus.clustered_rows`, seeded) into a
new file through `SqliteVectorStore(search_mode="ivf")`, searches once (the
index is trained there), then opens the file again in a new store and times
its first search, and answers `--queries` queries through it. The answers
(ids and scores, in order) go to `--out` as JSON, so the runs of two trees
can be compared byte for byte. Run it against another tree's library with
that tree's `src` first on `PYTHONPATH`:

    PYTHONPATH=/path/to/old/src nice -n 19 uv run python -m scripts.compare_ivf_reopen \
        --n 200000 --out old.json
    nice -n 19 uv run python -m scripts.compare_ivf_reopen --n 200000 --out new.json
    cmp old.json new.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

import redstring
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorRecord
from redstring.storage.sqlite import SqliteDatabase
from redstring.vector.sqlite import SqliteVectorStore
from scripts.bench_corpus import clustered_rows

DIMENSION = 384
CACHE_BYTES = 8 * 2**30


def opened(path: Path) -> SqliteVectorStore:
    return SqliteVectorStore(
        SqliteDatabase(path),
        dimension=DIMENSION,
        search_mode="ivf",
        cache_bytes=CACHE_BYTES,
    )


async def timed_search(store: SqliteVectorStore, tenant: TenantId, query: list[float]) -> float:
    started, cpu = time.perf_counter(), time.process_time()
    await store.search(query, tenant, k=10)
    wall = time.perf_counter() - started
    print(f"  wall {wall:.2f} s, CPU {time.process_time() - cpu:.2f} s", flush=True)
    return wall


async def run(args: argparse.Namespace, path: Path) -> tuple[list[object], dict[str, object]]:
    rng = np.random.default_rng(args.n)
    matrix = clustered_rows(args.n + args.queries, DIMENSION, rng)
    rows, queries = matrix[: args.n], matrix[args.n :]
    tenant = TenantId(uuid.UUID(int=1))
    store = opened(path)
    for start in range(0, args.n, 10_000):
        await store.upsert(
            [
                VectorRecord(
                    tenant_id=tenant,
                    entity_id=EntityId(uuid.UUID(int=n + 1)),
                    entity_type="person" if n % 4 else "place",
                    vector=rows[n].tolist(),
                )
                for n in range(start, min(args.n, start + 10_000))
            ]
        )
    print(f"library {redstring.__file__}; load {os.getloadavg()}", flush=True)
    print("first search after writing (trains):", flush=True)
    saved: dict[str, object] = {"first_s": await timed_search(store, tenant, queries[0].tolist())}
    store._db.close()
    print("first search after reopening:", flush=True)
    again = opened(path)
    saved["reopened_s"] = await timed_search(again, tenant, queries[0].tolist())
    answers: list[object] = []
    for number, query in enumerate(queries):
        types = ["place"] if number % 2 else None
        found = await again.search(query.tolist(), tenant, k=10, entity_types=types)
        answers.append([[str(m.entity_id), m.entity_type, m.score] for m in found])
    print(f"load {os.getloadavg()}", flush=True)
    return answers, saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--out", required=True, help="the answers, as JSON")
    args = parser.parse_args()
    path = Path(tempfile.mkdtemp(prefix="redstring-reopen-")) / "reopen.db"
    answers, times = asyncio.run(run(args, path))
    Path(args.out).write_text(json.dumps(answers))
    Path(args.out + ".times").write_text(json.dumps(times))
    path.unlink()


if __name__ == "__main__":
    main()
