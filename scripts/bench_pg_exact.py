"""PostgreSQL exact search before and after ADR 0270, beside the numpy floor, in one worker.

Loads N random unit vectors of D dimensions into one tenant (plus N/10 in
each of three others) through `PgVectorStore.upsert`, then copies the rows
server-side into two tables of the schema before ADR 0270 (ADR 0190's: the
float32 vector only, pgvector's default EXTERNAL storage, so it moves to
TOAST when a row passes 2 kB; and the same with `SET STORAGE MAIN`, which
keeps it in the row: B190's proposal). Then, interleaved query by query, it
times ADR 0190's statement on both, `PgVectorStore.search` (a float16 pool
re-scored from float32, ADR 0270), a scan of the tenant's rows that reads no
vector (`scan_only`: the per-row cost PostgreSQL pays whatever it computes),
and numpy's exact top-k over the same float32 rows at one BLAS thread. Every
PostgreSQL variant runs through the store's pool (one read-only transaction
each, on one connection). Prints p50 / p90 ms, the ratio to the floor, the
server's CPU per query (every server process, parallel workers included;
less sensitive than wall time to the shared machine's load; numpy's is the
process's), how many searches needed the full re-scan, and EXPLAIN (ANALYZE,
BUFFERS) of one query per variant.

    nice -n 10 uv run python scripts/bench_pg_exact.py --dims 384 768 --n 100000

`--clustered` draws clustered rows (many near neighbours: the float16 bound
is met less often). PostgreSQL is an embedded server started here.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import psycopg
from pgvector import HalfVector
from pgvector.psycopg import register_vector
from psycopg.conninfo import conninfo_to_dict

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.postgres_server import running_server  # noqa: E402

from redstring import TenantId  # noqa: E402
from redstring.domain.half_precision import pool_size  # noqa: E402
from redstring.ports import VectorRecord  # noqa: E402
from redstring.storage.postgres import PostgresDatabase  # noqa: E402
from redstring.stores import open_postgres  # noqa: E402
from redstring.vector.postgres import schema_for  # noqa: E402
from redstring.vector.postgres_exact import _POOL, DISTANCE  # noqa: E402

K = 10
#: A scan of the tenant's rows reading one float column: the per-row cost without a vector.
SCAN_ONLY = "SELECT max(inverse_norm) FROM {table} WHERE tenant_id = %(tenant)s AND %(k)s > 0"
COLUMNS = "tenant_id, entity_id, entity_type, normalized_type, embedding"
OTHER_TENANTS = 3
BATCH = 2000
#: ADR 0190's exact statement, as the store ran it before ADR 0270.
BEFORE = (
    "SELECT entity_id, entity_type, (1.0 + (embedding <#> %(q)s) * inverse_norm) AS distance"
    " FROM {table} WHERE tenant_id = %(tenant)s ORDER BY distance, entity_id LIMIT %(k)s"
)


def rows(n: int, dim: int, *, clustered: bool, rng: np.random.Generator) -> np.ndarray:
    if clustered:
        centres = rng.standard_normal((max(10, n // 500), dim)).astype(np.float32)
        matrix = centres[rng.integers(0, len(centres), size=n)]
        matrix += 0.6 * rng.standard_normal((n, dim)).astype(np.float32)
    else:
        matrix = rng.standard_normal((n, dim)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _statement(text: str, parameters: dict[str, Any]) -> Any:
    """A read of `text` through the store's own pool and transaction, as the store ran it."""

    async def work(connection: Any) -> list[Any]:
        return await (await connection.execute(text, parameters)).fetchall()

    return work


def server_pid(url: str) -> int:
    """The postmaster's PID, from `postmaster.pid` in the socket folder the URL names."""
    folder = conninfo_to_dict(url)["host"]
    return int((Path(str(folder)) / "postmaster.pid").read_text().splitlines()[0])


def server_cpu(postmaster: int) -> float:
    """CPU seconds of every server process: the live ones, and those already reaped
    (parallel workers exit after each query; their time adds to the postmaster's)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat.parent.name == str(postmaster):
            total += sum(int(f) for f in fields[11:15])  # its own and its reaped children's
        elif fields[1] == str(postmaster):
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def p(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) * 1000


async def run(url: str, dim: int, n: int, queries: int, clustered: bool) -> None:
    rng = np.random.default_rng(dim)
    tenant = TenantId(uuid.UUID(int=1))
    owners = [tenant] * n + [
        TenantId(uuid.UUID(int=2 + t)) for t in range(OTHER_TENANTS) for _ in range(n // 10)
    ]
    matrix = rows(len(owners), dim, clustered=clustered, rng=rng)
    mine = matrix[:n]
    picks = rng.integers(0, n, size=queries)
    noise = rows(queries, dim, clustered=False, rng=rng)
    query_rows = mine[picks] + 0.5 * noise
    query_rows /= np.linalg.norm(query_rows, axis=1, keepdims=True)
    schema = f"exact_{dim}_{uuid.uuid4().hex[:6]}"
    stores = await open_postgres(url, dimension=dim, schema=schema, min_size=1, max_size=1)
    started = time.perf_counter()
    kinds = ("person", "organization", "place")
    for start in range(0, len(owners), BATCH):
        await stores.vectors.upsert(
            [
                VectorRecord(
                    tenant_id=owners[i],
                    entity_id=uuid.UUID(int=10**9 + i),
                    entity_type=kinds[i % 3],
                    vector=matrix[i].tolist(),
                )
                for i in range(start, min(start + BATCH, len(owners)))
            ]
        )
    print(
        f"\n## {dim} dimensions, {n:,} rows (+{OTHER_TENANTS} x {n // 10:,}),"
        f" {'clustered' if clustered else 'random'}; upsert {time.perf_counter() - started:.0f} s"
    )
    before = PostgresDatabase
    tables = {"after": f'"{schema}".vector_records'}
    with psycopg.connect(url, autocommit=True) as connection:
        for name, storage in (("before", None), ("before_main", "MAIN")):
            other = f"{schema}_{name}"
            database = await before.connect(url, schema=other)
            version_two = type(schema_for(dim))(
                component="vector", migrations=schema_for(dim).migrations[:2]
            )
            await database.ensure_schema(version_two, migrate=False, store="bench")
            await database.close()
            table = f'"{other}".vector_records'
            if storage:
                connection.execute(
                    f"ALTER TABLE {table} ALTER COLUMN embedding SET STORAGE {storage}"
                )
            connection.execute(
                f"INSERT INTO {table} ({COLUMNS}) SELECT {COLUMNS} FROM {tables['after']}"
            )
            tables[name] = table
        for table in tables.values():
            connection.execute(f"VACUUM ANALYZE {table}")
            heap, toast = connection.execute(
                "SELECT pg_relation_size(oid), pg_relation_size(reltoastrelid) FROM pg_class"
                " WHERE oid = %s::regclass",
                (table,),
            ).fetchone() or (0, 0)
            print(f"- {table}: heap {heap / 2**20:.0f} MB, TOAST {toast / 2**20:.0f} MB")
    reader = psycopg.connect(url, autocommit=True)
    register_vector(reader)
    statements = {name: BEFORE.format(table=tables[name]) for name in ("before", "before_main")}
    # What the scan alone costs: every row of the tenant read, no vector touched.
    statements["scan_only"] = SCAN_ONLY.format(table=tables["before_main"])
    first = {"q": query_rows[0], "tenant": tenant, "k": K}
    for name, statement in statements.items():
        plan = reader.execute("EXPLAIN (ANALYZE, BUFFERS) " + statement, first).fetchall()
        print(
            f"\n`{name}`: "
            + " | ".join(
                r[0].strip()
                for r in plan
                if "Buffers" in r[0] or "Execution" in r[0] or "Workers" in r[0]
            )[:600]
        )
    pool = _POOL.format(distance=DISTANCE, keep="true", passing="tenant_id = %(tenant)s").format(
        schema=tables["after"].split(".")[0]
    )
    plan = reader.execute(
        "EXPLAIN (ANALYZE, BUFFERS) " + pool,
        {**first, "half": HalfVector(query_rows[0]), "pool": pool_size(K)},
    ).fetchall()
    print(
        "\n`after` (the pool statement): "
        + " | ".join(
            r[0].strip()
            for r in plan
            if "Buffers" in r[0] or "Execution" in r[0] or "Workers" in r[0]
        )[:600]
    )
    wall: dict[str, list[float]] = {name: [] for name in [*statements, "after", "numpy"]}
    cpu: dict[str, float] = dict.fromkeys(wall, 0.0)
    rescans = 0
    seen: list[str] = []
    execute = psycopg.AsyncCursor.execute

    async def recording(cursor: Any, query: Any, params: Any = None, **kw: Any) -> Any:
        seen.append(str(query))
        return await execute(cursor, query, params, **kw)

    psycopg.AsyncCursor.execute = recording  # type: ignore[method-assign]
    postmaster = server_pid(url)

    for q in query_rows:
        for name, statement in statements.items():
            before_cpu = server_cpu(postmaster)
            s = time.perf_counter()
            await stores.database.read(
                _statement(statement, {"q": q, "tenant": tenant, "k": K}), store="bench"
            )
            wall[name].append(time.perf_counter() - s)
            cpu[name] += server_cpu(postmaster) - before_cpu
        seen.clear()
        before_cpu = server_cpu(postmaster)
        s = time.perf_counter()
        await stores.vectors.search(q.tolist(), tenant, k=K)
        wall["after"].append(time.perf_counter() - s)
        cpu["after"] += server_cpu(postmaster) - before_cpu
        rescans += any("ceiling" in text for text in seen)
        s, c = time.perf_counter(), time.process_time()
        scores = mine @ q
        np.argpartition(-scores, K)[:K]
        wall["numpy"].append(time.perf_counter() - s)
        cpu["numpy"] += time.process_time() - c
    psycopg.AsyncCursor.execute = execute  # type: ignore[method-assign]
    floor = statistics.median(wall["numpy"])
    print("\n| variant | p50 / p90 ms | / numpy floor | server CPU ms per query |")
    print("| --- | --- | --- | --- |")
    for name, values in wall.items():
        print(
            f"| {name} | {p(values, 50):.2f} / {p(values, 90):.2f}"
            f" | {statistics.median(values) / floor:.2f}x | {cpu[name] / len(values) * 1000:.1f} |"
        )
    print(f"\nfull re-scans: {rescans} of {queries} searches; load average {os.getloadavg()}")
    reader.close()
    await stores.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[384, 768])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--clustered", action="store_true")
    parser.add_argument("--shared-buffers", default="3GB")
    args = parser.parse_args()
    print(f"load average at start {os.getloadavg()}")
    with running_server(shared_buffers=args.shared_buffers) as url:
        for dim in args.dims:
            asyncio.run(run(url, dim, args.n, args.queries, args.clustered))


if __name__ == "__main__":
    main()
