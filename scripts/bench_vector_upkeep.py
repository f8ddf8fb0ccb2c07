"""The IVF vector search of the SQLite and in-memory stores at scale, and its upkeep (ADR 0265).

Over N clustered unit rows (ADR 0191's recipe, `bench_retrieval.clustered_rows`)
in one tenant, beside a second tenant holding the same entity ids with other
rows, it measures through the store's own `search`:

- ingest, and the first search (SQLite: loading the rows, then training the
  index; in memory: training the index);
- the exact floor (the same store searched with `ExactSearch`) beside the
  index at each `probes`, with and without a type filter 20% of rows pass:
  recall@10 against numpy's exact top 10, p50 / p90 ms;
- a write of `--write` rows (half overwriting stored entities with new rows,
  half new entities) followed by one search, twice in one run: kept up to
  date in place (this store), and as before ADR 0265 (the tenant's cached
  rows and index dropped, so the search loads and trains again); then recall
  after the in-place write against the rows as they now are.

    nice -n 10 uv run python -m scripts.bench_vector_upkeep --store sqlite --n 1000000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from redstring.domain.ids import EntityId, TenantId
from redstring.ports import VectorRecord
from redstring.vector.rows import ExactSearch, TenantRows
from scripts.bench_corpus import clustered_rows
from scripts.bench_measure import percentile

K = 10
BATCH = 10_000
KINDS = ("person", "person", "person", "person", "organization")  # 20% organisations
PROBES = (16, 32, 64)


def entity(number: int) -> EntityId:
    return EntityId(uuid.UUID(int=number + 1))


def records(tenant: TenantId, rows: np.ndarray, first: int) -> list[VectorRecord]:
    return [
        VectorRecord(
            tenant_id=tenant,
            entity_id=entity(first + at),
            entity_type=KINDS[(first + at) % len(KINDS)],
            vector=row,
        )
        for at, row in enumerate(rows.tolist())
    ]


def truth(matrix: np.ndarray, keep: np.ndarray | None, query: np.ndarray) -> set[int]:
    scores = matrix @ query
    if keep is not None:
        scores = np.where(keep, scores, -np.inf)
    return set(np.argpartition(-scores, K)[:K].tolist())


def summary(times: list[float]) -> str:
    return f"{percentile(times, 50):.2f} / {percentile(times, 90):.2f}"


async def search_pass(
    store: Any, tenant: TenantId, queries: np.ndarray, wanted: list[set[int]], **filters: Any
) -> tuple[float, str]:
    times, recalls = [], []
    for query, want in zip(queries, wanted, strict=True):
        started = time.perf_counter()
        found = await store.search(query.tolist(), tenant, k=K, **filters)
        times.append((time.perf_counter() - started) * 1000)
        got = {m.entity_id.int - 1 for m in found}
        recalls.append(len(got & want) / K)
    return float(np.mean(recalls)), summary(times)


def open_store(kind: str, dim: int, folder: Path) -> Any:
    if kind == "sqlite":
        from redstring.storage.sqlite import SqliteDatabase  # noqa: PLC0415
        from redstring.vector.sqlite import SqliteVectorStore  # noqa: PLC0415

        return SqliteVectorStore(
            SqliteDatabase(folder / "bench.db"),
            dimension=dim,
            search_mode="ivf",
            cache_bytes=16 * 2**30,
        )
    from redstring.stores import ApproximateVectorStore  # noqa: PLC0415

    return ApproximateVectorStore(dimension=dim)


def cached_rows(store: Any, tenant: TenantId) -> TenantRows:
    if hasattr(store, "_cache"):
        return store._cache._entries[str(tenant)].value  # type: ignore[no-any-return]
    return store._tenants[tenant].rows  # type: ignore[no-any-return]


def forget(store: Any, tenant: TenantId) -> None:
    """What a write did before ADR 0265: the next search loads (SQLite) and trains again."""
    if hasattr(store, "_cache"):
        store._cache._entries.pop(str(tenant))
    else:
        store._tenants[tenant].rows.index = None


async def run(args: argparse.Namespace) -> None:
    rng = np.random.default_rng(args.n)
    tenant, other = TenantId(uuid.UUID(int=1)), TenantId(uuid.UUID(int=2))
    matrix = clustered_rows(args.n, args.dim, rng)
    folder = Path(tempfile.mkdtemp(prefix="redstring-upkeep-"))
    store = open_store(args.store, args.dim, folder)
    print(f"store {args.store}, {args.n:,} x {args.dim}, load {os.getloadavg()}", flush=True)
    started = time.perf_counter()
    for start in range(0, args.n, BATCH):
        await store.upsert(records(tenant, matrix[start : start + BATCH], start))
    await store.upsert(records(other, clustered_rows(args.other, args.dim, rng), 0))
    print(f"ingest {time.perf_counter() - started:.1f} s", flush=True)

    noise = rng.standard_normal((args.queries, args.dim)).astype(np.float32)
    picked = matrix[rng.integers(args.n, size=args.queries)] + 0.3 * noise / np.sqrt(args.dim)
    queries = (picked / np.linalg.norm(picked, axis=1, keepdims=True)).astype(np.float32)
    organisations = np.array([KINDS[i % len(KINDS)] == "organization" for i in range(args.n)])
    want = [truth(matrix, None, q) for q in queries]
    want_kept = [truth(matrix, organisations, q) for q in queries]

    started, cpu = time.perf_counter(), time.process_time()
    await store.search(queries[0].tolist(), tenant, k=K)
    print(
        f"first search (load and train) {time.perf_counter() - started:.1f} s"
        f" (CPU {time.process_time() - cpu:.1f} s)",
        flush=True,
    )
    ivf = store._search
    store._search = ExactSearch()
    for name, wanted, filters in (
        ("none", want, {}),
        ("20% type", want_kept, {"entity_types": ["organization"]}),
    ):
        recall, times = await search_pass(store, tenant, queries, wanted, **filters)
        print(f"exact floor, filter {name}: recall@10 {recall:.3f}, p50 / p90 {times} ms")
    store._search = ivf
    for probes in PROBES:
        ivf.probes = probes
        for name, wanted, filters in (
            ("none", want, {}),
            ("20% type", want_kept, {"entity_types": ["organization"]}),
        ):
            recall, times = await search_pass(store, tenant, queries, wanted, **filters)
            print(f"ivf probes {probes}, filter {name}: recall@10 {recall:.3f}, p50/p90 {times} ms")
    ivf.probes = 32
    print(f"load {os.getloadavg()}", flush=True)

    index_before = cached_rows(store, tenant).index
    for label, drop in (("in place", False), ("full retrain (before ADR 0265)", True)):
        half = args.write // 2
        overwritten = rng.choice(args.n, size=half, replace=False)
        new_rows = clustered_rows(args.write, args.dim, rng)
        matrix[overwritten] = new_rows[:half]
        grown = np.vstack([matrix, new_rows[half:]])
        batch = [
            *(
                VectorRecord(
                    tenant_id=tenant,
                    entity_id=entity(int(row)),
                    entity_type=KINDS[int(row) % len(KINDS)],
                    vector=new_rows[at].tolist(),
                )
                for at, row in enumerate(overwritten)
            ),
            *records(tenant, new_rows[half:], len(matrix)),
        ]
        matrix = grown
        started = time.perf_counter()
        await store.upsert(batch)
        wrote = time.perf_counter() - started
        if drop:
            forget(store, tenant)
        started, cpu = time.perf_counter(), time.process_time()
        await store.search(queries[0].tolist(), tenant, k=K)
        searched, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"write {args.write} rows then search, {label}: write {wrote * 1000:.1f} ms,"
            f" search {searched * 1000:.1f} ms (CPU {cpu * 1000:.1f} ms)",
            flush=True,
        )
        if not drop:
            assert cached_rows(store, tenant).index is index_before, "the index was retrained"
            want = [truth(matrix, None, q) for q in queries]
            recall, times = await search_pass(store, tenant, queries, want)
            print(f"after the in-place write: recall@10 {recall:.3f}, p50 / p90 {times} ms")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:,.0f} MB; load {os.getloadavg()}", flush=True)
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", choices=["sqlite", "memory"], default="sqlite")
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--other", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--write", type=int, default=1000)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
