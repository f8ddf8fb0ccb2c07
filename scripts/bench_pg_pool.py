"""PostgreSQL exact search with and without a covering index for its pool, beside numpy.

Loads N random unit vectors of D dimensions into one tenant (plus N/10 into
each of three others) with `COPY` into the current vector schema (`before`),
and copies them server-side into two schemas that also hold the covering
index `(tenant_id) INCLUDE (entity_id, unit_half)` (B190's lever): `after`,
vacuumed, and `after_unvacuumed`, given `ANALYZE` but no `VACUUM` with
autovacuum off (the state right after a bulk load). Then it times, query by
query in alternating order, the store's exact search (`rank_exactly`, k=10,
one read transaction) on each, the `after` ones steered to the index the way
a store would (`STEER`: only while nine pages in ten are all-visible), and
numpy's exact top-k over the same float32 rows at one BLAS thread. Prints
p50 / p90 ms, the ratio to the floor, the server's CPU per query, how many
answers differ from `before`'s, the pool statement's plan per variant (before
and after the searches) and the load average. `--upserts` also times
`upsert` batches of 1,000 new rows into `before` and `after`, alternating
(the index's write cost); `--workers 0 1` also times `before` at those
`max_parallel_workers_per_gather` (`before_workers_N`).

    nice -n 10 uv run python -m scripts.bench_pg_pool --n 100000 --queries 200 --upserts 10
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
import uuid
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import psycopg
from pgvector import HalfVector
from pgvector.psycopg import register_vector

from redstring import EntityId, TenantId
from redstring.domain.half_precision import pool_size
from redstring.ports import VectorRecord
from redstring.storage.postgres import PostgresDatabase
from redstring.vector.postgres import PgVectorStore, configure_connection, schema_for
from redstring.vector.postgres_exact import _POOL, DISTANCE, rank_exactly
from scripts.bench_passes import not_all_visible, vacuum_analyze
from scripts.bench_pg_exact import rows, server_cpu, server_pid
from tests.postgres_server import running_server

K = 10
OTHER_TENANTS = 3
COLUMNS = "tenant_id, entity_id, entity_type, normalized_type, embedding"
#: The covering index measured: the pool's columns, keyed by tenant.
COVERING = (
    "CREATE INDEX vector_records_pool ON {schema}.vector_records"
    " (tenant_id) INCLUDE (entity_id, unit_half)"
)
#: Steers a transaction's plans to the covering index when the statistics count at
#: least nine pages in ten all-visible: sequential and bitmap scans off, random
#: page reads priced as sequential ones (the planner otherwise prices the
#: index-only scan above the sequential one).
STEER = (
    "SELECT set_config('enable_seqscan', 'off', true),"
    " set_config('enable_bitmapscan', 'off', true),"
    " set_config('random_page_cost', current_setting('seq_page_cost'), true)"
    " WHERE EXISTS (SELECT FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace"
    " WHERE n.nspname = %s AND c.relname = 'vector_records'"
    " AND c.relallvisible >= 0.9 * c.relpages)"
)
#: What a run of the pool statement's plan is summarised by.
PLAN_WORDS = ("Scan", "Heap Fetches", "Workers Launched", "Execution")


def data(n: int, dim: int) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Each row's tenant number, the rows, and queries near the first tenant's rows."""
    rng = np.random.default_rng(dim)
    owners = [1] * n + [2 + t for t in range(OTHER_TENANTS) for _ in range(n // 10)]
    matrix = rows(len(owners), dim, clustered=False, rng=rng)
    picks = rng.integers(0, n, size=4000)
    queries = matrix[picks] + 0.5 * rows(len(picks), dim, clustered=False, rng=rng)
    return owners, matrix, queries / np.linalg.norm(queries, axis=1, keepdims=True)


async def create(url: str, schema: str, dim: int, covering: bool) -> None:
    """The vector tables in `schema`, with the covering index when `covering`."""
    database = await PostgresDatabase.connect(url, schema=schema)
    at = schema_for(dim)
    if covering:
        at = type(at)(component="vector", migrations=[*at.migrations, [COVERING]])
    await database.ensure_schema(at, migrate=False, store="bench")
    await database.ensure_dimension("vector", dim, store="bench", holds="vectors")
    await database.close()


def load(
    connection: psycopg.Connection[Any], table: str, owners: list[int], matrix: np.ndarray
) -> float:
    """`COPY` the rows into `table`; seconds taken."""
    started = time.perf_counter()
    kinds = ("person", "organization", "place")
    with connection.cursor().copy(f"COPY {table} ({COLUMNS}) FROM STDIN") as copy:
        for i, owner in enumerate(owners):
            vector = "[" + ",".join(repr(float(x)) for x in matrix[i]) + "]"
            kind = kinds[i % 3]
            copy.write_row((uuid.UUID(int=owner), uuid.UUID(int=10**9 + i), kind, kind, vector))
    return time.perf_counter() - started


def _plan(connection: psycopg.Connection[Any], schema: str, bound: dict[str, Any]) -> str:
    """The plan of the store's pool statement over `schema`, steered as the store steers it."""
    pool = _POOL.format(distance=DISTANCE, keep="true", passing="tenant_id = %(tenant)s")
    with connection.transaction():
        if schema != "before":
            connection.execute(STEER, (schema,))
        plan = connection.execute(
            "EXPLAIN (ANALYZE, BUFFERS) " + pool.format(schema=schema), bound
        ).fetchall()
    return " | ".join(r[0].strip() for r in plan if any(w in r[0] for w in PLAN_WORDS))[:700]


async def timing(url: str, args: argparse.Namespace) -> None:
    owners, matrix, queries = data(args.n, args.dim)
    mine = matrix[: args.n]
    schemas = ("before", "after", "after_unvacuumed")
    for schema in schemas:
        await create(url, schema, args.dim, schema != "before")
    with psycopg.connect(url, autocommit=True) as connection:
        register_vector(connection)
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_visibility")
        connection.execute(
            "ALTER TABLE after_unvacuumed.vector_records SET (autovacuum_enabled = false)"
        )
        for schema in schemas:
            table = f"{schema}.vector_records"
            if schema == "before":
                print(f"- COPY into {table}: {load(connection, table, owners, matrix):.1f} s")
            else:
                started = time.perf_counter()
                connection.execute(
                    f"INSERT INTO {table} ({COLUMNS}) SELECT {COLUMNS} FROM before.vector_records"
                )
                print(f"- copy into {table}: {time.perf_counter() - started:.1f} s", flush=True)
            if schema == "after_unvacuumed":
                connection.execute(f"ANALYZE {table}")
            else:
                vacuum_analyze(connection, table)
            left, pages = not_all_visible(connection, table)
            sizes = connection.execute(
                "SELECT pg_relation_size(%s::regclass), pg_indexes_size(%s::regclass)",
                (table, table),
            ).fetchone() or (0, 0)
            print(
                f"- {table}: heap {sizes[0] / 2**20:.0f} MB, indexes {sizes[1] / 2**20:.0f} MB,"
                f" all-visible pages {pages - left:,} of {pages:,}"
            )
        q0 = queries[0]
        bound = {
            "q": q0,
            "half": HalfVector(q0),
            "tenant": uuid.UUID(int=1),
            "pool": pool_size(K),
        }
        for schema in schemas:
            print(f"\n`{schema}` pool: {_plan(connection, schema, bound)}")
    opened = {
        schema: PgVectorStore(
            await PostgresDatabase.connect(
                url, schema=schema, configure=configure_connection, min_size=1, max_size=1
            ),
            dimension=args.dim,
        )
        for schema in schemas
    }
    if args.upserts:
        await upserts(opened, args, owners, matrix)
    tenant = TenantId(uuid.UUID(int=1))
    workers = {f"before_workers_{n}": n for n in args.workers}
    wall: dict[str, list[float]] = {name: [] for name in [*schemas, *workers, "numpy"]}
    cpu = dict.fromkeys(wall, 0.0)
    postmaster = server_pid(url)
    differing = 0

    async def ranked(name: str, q: np.ndarray) -> list[Any]:
        """`rank_exactly` over `name`'s table, steered to the covering index where it has one."""
        database = opened[name if name in schemas else "before"]._db

        async def work(connection: Any) -> list[Any]:
            if name in workers:
                await connection.execute(
                    f"SET LOCAL max_parallel_workers_per_gather = {int(workers[name])}"
                )
            elif name != "before":
                await connection.execute(STEER, (name,))
            return await rank_exactly(
                database,
                connection,
                passing="tenant_id = %(tenant)s",
                parameters={"q": q, "tenant": tenant, "k": K},
                k=K,
                min_score=None,
                dimension=args.dim,
            )

        return list(await database.read(work, store="bench"))

    names = [*schemas, *workers]
    for i, q in enumerate(queries[: args.queries]):
        answers: dict[str, list[Any]] = {}
        for name in names if i % 2 == 0 else names[::-1]:
            spent = server_cpu(postmaster)
            started = time.perf_counter()
            answers[name] = await ranked(name, q)
            wall[name].append(time.perf_counter() - started)
            cpu[name] += server_cpu(postmaster) - spent
        differing += any(answers[name] != answers["before"] for name in names)
        started, spent = time.perf_counter(), time.process_time()
        np.argpartition(-(mine @ q), K)[:K]
        wall["numpy"].append(time.perf_counter() - started)
        cpu["numpy"] += time.process_time() - spent
    with psycopg.connect(url, autocommit=True) as connection:
        register_vector(connection)
        for schema in schemas:
            print(f"\n`{schema}` pool after the searches: {_plan(connection, schema, bound)}")
    floor = statistics.median(wall["numpy"])
    print(
        f"\n{args.queries} queries, {args.n:,} x {args.dim}; answers differing from `before`:"
        f" {differing}; load average {os.getloadavg()}"
    )
    print("\n| variant | p50 / p90 ms | / numpy floor | server CPU ms per query |")
    print("| --- | --- | --- | --- |")
    for name, values in wall.items():
        p50, p90 = (float(np.percentile(values, q)) * 1000 for q in (50, 90))
        print(
            f"| {name} | {p50:.2f} / {p90:.2f} | {statistics.median(values) / floor:.2f}x"
            f" | {cpu[name] / len(values) * 1000:.1f} |"
        )
    for store in opened.values():
        await store._db.close()


async def upserts(
    opened: dict[str, Any], args: argparse.Namespace, owners: list[int], matrix: np.ndarray
) -> None:
    """Time `upsert` of fresh rows into `before` and `after`, batch by batch, alternating."""
    tenant = TenantId(uuid.UUID(int=99))
    spent: dict[str, list[float]] = {"before": [], "after": []}
    for b in range(args.upserts):
        batch = [
            VectorRecord(
                tenant_id=tenant,
                entity_id=EntityId(uuid.UUID(int=5 * 10**9 + b * 1000 + j)),
                entity_type="person",
                vector=matrix[(b * 1000 + j) % len(owners)].tolist(),
            )
            for j in range(1000)
        ]
        for name in ("before", "after") if b % 2 == 0 else ("after", "before"):
            started = time.perf_counter()
            await opened[name].upsert(batch)
            spent[name].append(time.perf_counter() - started)
    print(
        f"\nupsert of {args.upserts} batches of 1,000 new rows: "
        + ", ".join(
            f"{n} {statistics.median(v) * 1000:.0f} ms a batch (p50)" for n, v in spent.items()
        )
        + f"; load average {os.getloadavg()}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--upserts", type=int, default=0, help="batches of 1,000 rows to time")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="*",
        default=[],
        help="also time `before` at these max_parallel_workers_per_gather",
    )
    args = parser.parse_args()
    print(f"load average at start {os.getloadavg()}; {vars(args)}", flush=True)
    with running_server(shared_buffers="1GB") as url:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        asyncio.run(timing(url, args))


if __name__ == "__main__":
    main()
