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

    nice -n 10 uv run python -m scripts.bench_pg_exact --dims 384 768 --n 100000

More variants of `PgVectorStore.search` (ADR 0305): `after_unvacuumed`
searches a server-side copy of the store's table, loaded with autovacuum off
for it and given `ANALYZE` but no `VACUUM` (the state right after a bulk
load, pages not yet all-visible), through a second store over that schema,
and `after_copy` a copy made the same way but vacuumed (its control: the
same bytes, loaded alike, all-visible); the searches alternate their order
query by query, so none always runs first. `after_serial` runs the store's
statements on the vacuumed table with `SET LOCAL
max_parallel_workers_per_gather = 0` (no parallel workers).
`pool_seq` times the pool's statement alone (the float16 ranking, no
re-score) on the store's table, and `pool_index_only` the same over a
vacuumed copy whose only index is a covering one, `(tenant_id) INCLUDE
(entity_id, unit_half)`, with sequential and bitmap scans turned off, so it
reads the tenant's index entries only (an index-only scan). Every table but
`after_unvacuumed` is given `VACUUM (ANALYZE)` after its load. `--variants`
picks a subset (the ADR 0190 layouts cost the most at 768).

`--clustered` draws clustered rows (many near neighbours: the float16 bound
is met less often). PostgreSQL is an embedded server started here.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
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

from redstring import TenantId
from redstring.domain.half_precision import pool_size
from redstring.ports import VectorRecord
from redstring.storage.postgres import PostgresDatabase
from redstring.stores import open_postgres
from redstring.vector.postgres import schema_for
from redstring.vector.postgres_exact import _POOL, DISTANCE, rank_exactly
from scripts.bench_passes import not_all_visible, vacuum_analyze
from tests.postgres_server import running_server

K = 10
#: Every variant, in the order each query runs them.
VARIANTS = (
    "before",
    "before_main",
    "scan_only",
    "pool_seq",
    "pool_index_only",
    "after",
    "after_unvacuumed",
    "after_copy",
    "after_serial",
)
#: The pool's statement alone: the tenant's best rows by float16 distance, no re-score.
POOL_ONLY = (
    "SELECT entity_id, 1.0 + (unit_half <#> %(half)s) AS approximate FROM {table}"
    " WHERE tenant_id = %(tenant)s ORDER BY approximate LIMIT %(pool)s"
)
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


def _statement(text: str, parameters: dict[str, Any], settings: tuple[str, ...] = ()) -> Any:
    """A read of `text` (after `settings`) through the store's own pool and transaction."""

    async def work(connection: Any) -> list[Any]:
        for setting in settings:
            await connection.execute(setting)
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


#: The settings each variant that runs the store's statements by hand sets first.
SETTINGS = {
    "after_serial": ("SET LOCAL max_parallel_workers_per_gather = 0",),
    "pool_index_only": ("SET LOCAL enable_seqscan = off", "SET LOCAL enable_bitmapscan = off"),
}


#: The lines of an `EXPLAIN (ANALYZE, BUFFERS)` printed: the scans, buffers, workers, time.
PLAN_WORDS = ("Scan", "Heap Fetches", "Buffers", "Workers", "Execution")
#: The variants that run the store's search (or its statements), counted for full re-scans.
SEARCHES = ("after", "after_unvacuumed", "after_copy", "after_serial")
#: The searches over a server-side copy of the store's table, each through its own store.
COPIES = ("after_unvacuumed", "after_copy")


def _ranked(
    database: PostgresDatabase, settings: tuple[str, ...], parameters: dict[str, Any], dim: int
) -> Any:
    """The store's exact statements after `settings`, in one read transaction."""

    async def work(connection: Any) -> list[Any]:
        for setting in settings:
            await connection.execute(setting)
        return await rank_exactly(
            database,
            connection,
            passing="tenant_id = %(tenant)s",
            parameters=parameters,
            k=K,
            min_score=None,
            dimension=dim,
        )

    return work


async def run(
    url: str, dim: int, n: int, queries: int, clustered: bool, variants: list[str]
) -> None:
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
    tables = {"after": f'"{schema}".vector_records'}
    copies: list[tuple[str, str | None, int]] = []
    if "before" in variants:
        copies.append(("before", None, 2))
    if {"before_main", "scan_only"} & set(variants):
        copies.append(("before_main", "MAIN", 2))
    for name in (*COPIES, "pool_index_only"):
        if name in variants:
            copies.append((name, None, 3))
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_visibility")
        for name, storage, version in copies:
            other = f"{schema}_{name}"
            database = await PostgresDatabase.connect(url, schema=other)
            schema_at = type(schema_for(dim))(
                component="vector", migrations=schema_for(dim).migrations[:version]
            )
            await database.ensure_schema(schema_at, migrate=False, store="bench")
            await database.close()
            table = f'"{other}".vector_records'
            if storage:
                connection.execute(
                    f"ALTER TABLE {table} ALTER COLUMN embedding SET STORAGE {storage}"
                )
            if name in COPIES:  # no autovacuum may reach them during the run
                connection.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = false)")
            connection.execute(
                f"INSERT INTO {table} ({COLUMNS}) SELECT {COLUMNS} FROM {tables['after']}"
            )
            if name == "pool_index_only":  # the covering index is its only index
                connection.execute(f'DROP INDEX "{other}".vector_records_by_type')
                connection.execute(f"ALTER TABLE {table} DROP CONSTRAINT vector_records_pkey")
                connection.execute(
                    f"CREATE INDEX ON {table} (tenant_id) INCLUDE (entity_id, unit_half)"
                )
            tables[name] = table
        for name, table in tables.items():
            if name == "after_unvacuumed":
                # ANALYZE alone sets no page all-visible: the state right after a bulk load.
                connection.execute(f"ANALYZE {table}")
            else:
                vacuum_analyze(connection, table)
            heap, toast = connection.execute(
                "SELECT pg_relation_size(oid), pg_relation_size(reltoastrelid) FROM pg_class"
                " WHERE oid = %s::regclass",
                (table,),
            ).fetchone() or (0, 0)
            left, pages = not_all_visible(connection, table)
            print(
                f"- {name} {table}: heap {heap / 2**20:.0f} MB, TOAST {toast / 2**20:.0f} MB,"
                f" all-visible pages {pages - left:,} of {pages:,}"
            )
        print(
            "- jit: "
            + str(
                connection.execute("SELECT current_setting('jit'), pg_jit_available()").fetchone()
            )
            + "; max_parallel_workers_per_gather "
            + str(connection.execute("SHOW max_parallel_workers_per_gather").fetchone())
        )
    reader = psycopg.connect(url, autocommit=True)
    register_vector(reader)
    statements = {
        name: BEFORE.format(table=tables[name])
        for name in ("before", "before_main")
        if name in variants
    }
    if "scan_only" in variants:
        # What the scan alone costs: every row of the tenant read, no vector touched.
        statements["scan_only"] = SCAN_ONLY.format(table=tables["before_main"])
    for name, table in (("pool_seq", "after"), ("pool_index_only", "pool_index_only")):
        if name in variants:
            statements[name] = POOL_ONLY.format(table=tables[table])
    first = {"q": query_rows[0], "tenant": tenant, "k": K, "half": HalfVector(query_rows[0])}
    first["pool"] = pool_size(K)
    for name, statement in statements.items():
        with reader.transaction():
            for setting in SETTINGS.get(name, ()):
                reader.execute(setting)
            plan = reader.execute("EXPLAIN (ANALYZE, BUFFERS) " + statement, first).fetchall()
        print(
            f"\n`{name}`: "
            + " | ".join(r[0].strip() for r in plan if any(word in r[0] for word in PLAN_WORDS))[
                :900
            ]
        )
    searched = [name for name in ("after", *COPIES) if name in tables]
    for name in searched:  # also sets the hint bits of a table no scan has read yet
        pool = _POOL.format(
            distance=DISTANCE, keep="true", passing="tenant_id = %(tenant)s"
        ).format(schema=tables[name].split(".")[0])
        plan = reader.execute("EXPLAIN (ANALYZE, BUFFERS) " + pool, first).fetchall()
        print(
            f"\n`{name}` (the pool statement): "
            + " | ".join(r[0].strip() for r in plan if any(word in r[0] for word in PLAN_WORDS))[
                :900
            ]
        )
    opened = {"after": stores, "after_serial": stores}
    for name in COPIES:
        if name in variants:
            opened[name] = await open_postgres(
                url, dimension=dim, schema=f"{schema}_{name}", min_size=1, max_size=1
            )
    timed = [*statements, *(v for v in SEARCHES if v in variants)]
    wall: dict[str, list[float]] = {name: [] for name in [*timed, "numpy"]}
    cpu: dict[str, float] = dict.fromkeys(wall, 0.0)
    rescans = 0
    seen: list[str] = []
    execute = psycopg.AsyncCursor.execute

    async def recording(cursor: Any, query: Any, params: Any = None, **kw: Any) -> Any:
        seen.append(str(query))
        return await execute(cursor, query, params, **kw)

    psycopg.AsyncCursor.execute = recording  # type: ignore[method-assign]
    postmaster = server_pid(url)

    for i, q in enumerate(query_rows):
        for name, statement in statements.items():
            before_cpu = server_cpu(postmaster)
            s = time.perf_counter()
            bound = {"q": q, "tenant": tenant, "k": K, "half": HalfVector(q), "pool": pool_size(K)}
            work = _statement(statement, bound, SETTINGS.get(name, ()))
            await stores.database.read(work, store="bench")
            wall[name].append(time.perf_counter() - s)
            cpu[name] += server_cpu(postmaster) - before_cpu
        for name in SEARCHES if i % 2 == 0 else SEARCHES[::-1]:  # none always goes first
            if name not in wall:
                continue
            store = opened[name]
            parameters = {"q": np.asarray(q, dtype=np.float32), "tenant": tenant, "k": K}
            seen.clear()
            before_cpu = server_cpu(postmaster)
            s = time.perf_counter()
            if name in SETTINGS:
                ranked = _ranked(store.database, SETTINGS[name], parameters, dim)
                await store.database.read(ranked, store="bench")
            else:
                await store.vectors.search(q.tolist(), tenant, k=K)
            wall[name].append(time.perf_counter() - s)
            cpu[name] += server_cpu(postmaster) - before_cpu
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
    searches = queries * len(set(SEARCHES) & set(wall))
    print(f"\nfull re-scans: {rescans} of {searches} searches; load average {os.getloadavg()}")
    reader.close()
    for name in COPIES:
        if name in opened:
            await opened[name].close()
    await stores.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[384, 768])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--clustered", action="store_true")
    parser.add_argument("--shared-buffers", default="3GB")
    parser.add_argument("--variants", nargs="+", choices=VARIANTS, default=list(VARIANTS))
    args = parser.parse_args()
    print(f"load average at start {os.getloadavg()}")
    with running_server(shared_buffers=args.shared_buffers) as url:
        for dim in args.dims:
            asyncio.run(run(url, dim, args.n, args.queries, args.clustered, args.variants))


if __name__ == "__main__":
    main()
