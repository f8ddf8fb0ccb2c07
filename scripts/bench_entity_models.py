"""What asking a tenant's entity vectors for their embedding model costs (ADR 0655).

A tenant of N entity vectors written by one model, beside a second tenant
holding the same entity ids written by another, in a new SQLite file (and,
with `--postgres URL`, in a new PostgreSQL schema). Through the store's own
methods it times, p50 / p90 ms over `--repeat` calls:

- `embeds_with` answering yes (the model wrote the tenant): the search's check;
- `embeds_with` answering no (another model and `None`): a refused search's check;
- `embedding_models` (every model counted): `describe()` and a refusal's message;
- `count`, for scale: a count of the tenant's rows.

    uv run python -m scripts.bench_entity_models --n 100000
    uv run python -m scripts.bench_entity_models --n 100000 --postgres postgresql://...
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

import numpy as np

from redstring.domain.ids import EntityId, TenantId
from redstring.ports import VectorRecord, VectorStore
from redstring.storage.postgres import PostgresDatabase
from redstring.storage.sqlite import SqliteDatabase
from redstring.vector.postgres import EXTENSIONS, PgVectorStore, configure_connection
from redstring.vector.sqlite import SqliteVectorStore
from scripts.bench_measure import percentile

DIMENSION = 8  # the check reads no vector: their length does not matter
BATCH = 5000


async def _fill(store: VectorStore, n: int, tenants: dict[TenantId, str]) -> None:
    rng = np.random.default_rng(0)
    for start in range(0, n, BATCH):
        rows = rng.standard_normal((min(BATCH, n - start), DIMENSION)).astype(np.float32)
        await store.upsert(
            [
                VectorRecord(
                    tenant_id=tenant,
                    entity_id=EntityId(uuid.UUID(int=start + at + 1)),
                    entity_type="person",
                    vector=row.tolist(),
                    model=model,
                )
                for tenant, model in tenants.items()
                for at, row in enumerate(rows)
            ]
        )


async def _timed(call: Callable[[], Awaitable[object]], repeat: int) -> str:
    await call()  # a first call warms the page cache and the statement cache
    times: list[float] = []
    for _ in range(repeat):
        began = time.perf_counter()
        await call()
        times.append((time.perf_counter() - began) * 1000)
    return f"p50 {percentile(times, 50):.3f} ms, p90 {percentile(times, 90):.3f} ms"


async def _measure(store: VectorStore, n: int, repeat: int, label: str) -> None:
    tenant, other = TenantId(uuid.UUID(int=1)), TenantId(uuid.UUID(int=2))
    began = time.perf_counter()
    await _fill(store, n, {tenant: "m-old", other: "m-other"})
    took = time.perf_counter() - began
    print(f"{label}: {n} entities in each of 2 tenants, written in {took:.1f} s")
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        "embeds_with yes": lambda: store.embeds_with(tenant, {"m-old", None}),
        "embeds_with no": lambda: store.embeds_with(tenant, {"m-new", None}),
        "embedding_models": lambda: store.embedding_models(tenant),
        "count": lambda: store.count(tenant),
    }
    for name, call in calls.items():
        print(f"  {name:17} {await _timed(call, repeat)}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--postgres", help="a PostgreSQL URL; a new schema is made and dropped")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = SqliteDatabase(Path(folder) / "bench.db")
        try:
            store = SqliteVectorStore(database, dimension=DIMENSION, cache_bytes=0)
            await _measure(store, args.n, args.repeat, "SQLite")
        finally:
            database.close()
    if args.postgres:
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        pg = await PostgresDatabase.connect(
            args.postgres, schema=schema, extensions=EXTENSIONS, configure=configure_connection
        )
        try:
            vectors = await PgVectorStore.open(pg, dimension=DIMENSION)
            await _measure(vectors, args.n, args.repeat, "PostgreSQL")

            async def drop(connection: object) -> None:
                await connection.execute(f'DROP SCHEMA "{schema}" CASCADE')  # type: ignore[attr-defined]

            await pg.write(drop, store="bench")
        finally:
            await pg.close()


if __name__ == "__main__":
    asyncio.run(main())
