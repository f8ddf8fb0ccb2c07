"""Tune PostgreSQL HNSW search: recall@10 and latency per `hnsw.ef_search` (B192, ADR 0196).

Builds N clustered 384-dimension vectors in one tenant (plus N/10 in a second,
so the tenant filter matters) through `PgVectorStore.upsert`, times the HNSW
index build, then for each `ef_search` times `PgVectorStore.search` (k=10)
with no type filter, a filter keeping about a quarter of the rows and one
keeping about 2%, and its recall@10 against exact numpy top-k over the same
float32 rows after the same filters. The same run times the numpy floor
(one BLAS thread) and the store's exact search, so the figures are ratios on
one machine at one load.

    nice -n 10 uv run python -m scripts.bench_pg_hnsw --n 100000 --efs 40 64 100 160

`--random` draws unclustered unit rows instead (HNSW's worst case).
PostgreSQL comes from TEST_DATABASE_URL or an embedded server started here.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import psycopg

from redstring import TenantId
from redstring.ports import VectorRecord
from redstring.stores import open_postgres
from redstring.vector.postgres import DEFAULT_EXACT_BELOW, PgVectorStore
from scripts.bench_measure import percentile as pct
from tests.postgres_server import running_server

DIMENSION = 384
K = 10
#: Entity types and the share of rows drawn with each; the filters keep "place"
#: (about 25%) and "concept" (about 2%).
TYPES = {"person": 0.49, "place": 0.25, "organisation": 0.24, "concept": 0.02}
FILTERS: dict[str, list[str] | None] = {"none": None, "25%": ["place"], "2%": ["concept"]}


def make_rows(n: int, queries: int, *, clustered: bool, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    total = n + n // 10
    if clustered:
        centres = rng.standard_normal((max(10, n // 500), DIMENSION)).astype(np.float32)
        rows = centres[rng.integers(0, len(centres), size=total)]
        rows += 0.6 * rng.standard_normal((total, DIMENSION)).astype(np.float32)
    else:
        rows = rng.standard_normal((total, DIMENSION)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    kinds = rng.choice(list(TYPES), size=total, p=list(TYPES.values()))
    picks = rng.integers(0, n, size=queries)
    query = rows[picks] + 0.3 * rng.standard_normal((queries, DIMENSION)).astype(np.float32) / (
        DIMENSION**0.5
    )
    query /= np.linalg.norm(query, axis=1, keepdims=True)
    ids = [uuid.UUID(int=i + 1) for i in range(total)]
    return {"rows": rows, "kinds": kinds, "ids": ids, "queries": query}


def exact_top(rows: np.ndarray, q: np.ndarray, k: int) -> np.ndarray:
    scores = rows @ q
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])]


async def timed(call: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    out = await call()
    return (time.perf_counter() - started) * 1000, out


async def run(args: argparse.Namespace, url: str) -> dict[str, Any]:
    data = make_rows(args.n, args.queries, clustered=not args.random, seed=7)
    rows, kinds, ids, queries = data["rows"], data["kinds"], data["ids"], data["queries"]
    tenant, other = TenantId(uuid.UUID(int=1)), TenantId(uuid.UUID(int=2))
    schema = f"hnsw_{uuid.uuid4().hex[:8]}"
    stores = await open_postgres(url, dimension=DIMENSION, schema=schema, max_size=2)
    started = time.perf_counter()
    for start in range(0, len(rows), 1000):
        await stores.vectors.upsert(
            [
                VectorRecord(
                    tenant_id=tenant if i < args.n else other,
                    entity_id=ids[i],
                    entity_type=str(kinds[i]),
                    vector=rows[i].tolist(),
                )
                for i in range(start, min(start + 1000, len(rows)))
            ]
        )
    saved: dict[str, Any] = {"n": args.n, "rows": len(rows), "clustered": not args.random}
    saved["ingest_s"] = time.perf_counter() - started
    print(f"ingest {len(rows)} rows: {saved['ingest_s']:.0f} s", flush=True)
    mine = rows[: args.n]
    truth: dict[str, list[set[uuid.UUID]]] = {}
    floor: list[float] = []
    for name, types in FILTERS.items():
        keep = np.arange(args.n) if types is None else np.flatnonzero(kinds[: args.n] == types[0])
        sub = mine[keep]
        truth[name] = []
        for q in queries:
            started = time.perf_counter()
            top = exact_top(sub, q, K)
            if types is None:
                floor.append((time.perf_counter() - started) * 1000)
            truth[name].append({ids[int(keep[t])] for t in top})
    exact_ms = []
    for q in queries[: args.exact_queries]:
        ms, _ = await timed(lambda q=q: stores.vectors.search(q.tolist(), tenant, k=K))
        exact_ms.append(ms)
    for name, types in FILTERS.items():
        if types is not None:
            filtered = []
            for q in queries[: args.exact_queries]:
                ms, _ = await timed(
                    lambda q=q, types=types: stores.vectors.search(
                        q.tolist(), tenant, k=K, entity_types=types
                    )
                )
                filtered.append(ms)
            saved[f"exact_{name}_p50"] = pct(filtered, 50)
            print(f"store exact, {name} filter: p50 {pct(filtered, 50):.2f} ms", flush=True)
    print(
        f"numpy floor (1 thread) p50 {pct(floor, 50):.2f} ms; store exact p50"
        f" {pct(exact_ms, 50):.1f} ms = {pct(exact_ms, 50) / pct(floor, 50):.2f}x",
        flush=True,
    )
    saved["floor_p50"], saved["exact_p50"] = pct(floor, 50), pct(exact_ms, 50)
    started = time.perf_counter()
    await stores.vectors.create_hnsw_index()
    build = time.perf_counter() - started
    saved["build_s"], saved["sweep"] = build, []
    async with await psycopg.AsyncConnection.connect(url) as connection:
        cursor = await connection.execute(
            "SELECT pg_size_pretty(pg_table_size(%s)), pg_size_pretty(pg_relation_size(%s))",
            (f"{schema}.vector_records", f"{schema}.vector_records_hnsw"),
        )
        sizes = await cursor.fetchone()
    saved["sizes"] = list(sizes or ())
    print(f"HNSW build ({len(rows)} rows): {build:.0f} s; table, index: {sizes}", flush=True)
    print("\n| exact_below | ef_search | filter | recall@10 | p50 ms | p90 ms | p50 / floor |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for below, ef in ((below, ef) for below in args.exact_below for ef in args.efs):
        store = PgVectorStore(
            stores.database,
            dimension=DIMENSION,
            search_mode="hnsw",
            ef_search=ef,
            exact_below=below,
        )
        for q in queries[:20]:  # warm-up: the index's pages
            await store.search(q.tolist(), tenant, k=K)
        for name, types in FILTERS.items():
            times, recalls = [], []
            for q, want in zip(queries, truth[name], strict=True):
                ms, found = await timed(
                    lambda q=q, types=types, store=store: store.search(
                        q.tolist(), tenant, k=K, entity_types=types
                    )
                )
                times.append(ms)
                recalls.append(len({m.entity_id for m in found} & want) / K)
            saved["sweep"].append(
                {
                    "exact_below": below,
                    "ef_search": ef,
                    "filter": name,
                    "recall": float(np.mean(recalls)),
                    "p50": pct(times, 50),
                    "p90": pct(times, 90),
                }
            )
            print(
                f"| {below} | {ef} | {name} | {np.mean(recalls):.3f} | {pct(times, 50):.2f} |"
                f" {pct(times, 90):.2f} | {pct(times, 50) / pct(floor, 50):.2f}x |",
                flush=True,
            )
    await stores.close()
    for memory in args.compare_build_mem:
        # The store's own statement, rebuilt with another maintenance_work_mem.
        async with await psycopg.AsyncConnection.connect(url, autocommit=True) as connection:
            await connection.execute(f"DROP INDEX {schema}.vector_records_hnsw")
            await connection.execute(f"SET maintenance_work_mem = '{memory}'")
            started = time.perf_counter()
            await connection.execute(
                f"CREATE INDEX vector_records_hnsw ON {schema}.vector_records"
                " USING hnsw (embedding vector_cosine_ops)"
            )
            print(
                f"HNSW build with maintenance_work_mem {memory}:"
                f" {time.perf_counter() - started:.0f} s",
                flush=True,
            )
    return saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--exact-queries", type=int, default=30)
    parser.add_argument("--efs", type=int, nargs="+", default=[40, 64, 100, 160, 240])
    parser.add_argument("--random", action="store_true", help="unclustered rows")
    parser.add_argument(
        "--exact-below",
        type=int,
        nargs="+",
        default=[0, DEFAULT_EXACT_BELOW],
        help="the store's exact_below values to sweep (0: always the index)",
    )
    parser.add_argument("--maintenance-work-mem", default="1GB")
    parser.add_argument(
        "--json", help="write the figures here (scripts.bench_retrieval reads them)"
    )
    parser.add_argument(
        "--compare-build-mem", nargs="*", default=[], help="rebuild the index with these too"
    )
    args = parser.parse_args()
    print(f"load average {os.getloadavg()}; {vars(args)}", flush=True)
    with running_server(shared_buffers="1GB") as url:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(
                f"ALTER SYSTEM SET maintenance_work_mem = '{args.maintenance_work_mem}'"
            )
            connection.execute("SELECT pg_reload_conf()")
        saved = asyncio.run(run(args, url))
    if args.json:
        Path(args.json).write_text(json.dumps(saved, indent=1))
    print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
