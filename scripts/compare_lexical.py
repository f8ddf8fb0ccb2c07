"""SQLite LEXICAL on a kept file: its latency, and its whole answers for a byte-for-byte check.

Builds (once; reused when it exists) a graph-only SQLite file holding the
retrieval benchmark's entity corpus (`bench_corpus.make_names`: N entities
of the searched tenant and three other tenants), then answers `--queries`
queries of the benchmark's mix (exact names, one-edit typos, surnames;
every fourth with an entity-type filter) through `Retriever.lexical_only`.
Each answer (`RetrievalResult` as JSON, in order) goes to `--out`, so two
trees' runs over the same file compare with `cmp`; the p50 / p90 of a timed
pass over the same queries without the filter (as the benchmark's LEXICAL
row) are printed. Run it
against another tree's library with that tree's `src` first on `PYTHONPATH`:

    PYTHONPATH=/path/to/old/src nice -n 10 uv run python -m scripts.compare_lexical \
        --file /tmp/lex100k.db --n 100000 --out old.json
    nice -n 10 uv run python -m scripts.compare_lexical \
        --file /tmp/lex100k.db --n 100000 --out new.json
    cmp old.json new.json
"""

from __future__ import annotations

import argparse
import os
import time
import uuid
from pathlib import Path

import numpy as np

import redstring
from redstring import Entity, Retriever, TenantId
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase
from scripts.bench_corpus import (
    BATCH_PAST_100K,
    OTHER_TENANT_N_PAST_100K,
    OTHER_TENANTS,
    make_names,
    make_queries,
)
from scripts.bench_measure import compare_trees

TENANT = TenantId(uuid.UUID(int=1))


def counts(n: int) -> list[tuple[TenantId, int]]:
    """Each tenant's entity count, the searched tenant first (as `bench_corpus.entity_corpus`)."""
    other = max(1, n // 10) if n <= 100_000 else OTHER_TENANT_N_PAST_100K
    return [(TENANT, n)] + [(TenantId(uuid.UUID(int=2 + i)), other) for i in range(OTHER_TENANTS)]


async def build(graph: SqliteGraphStore, n: int) -> None:
    """Upsert the corpus in batches of `BATCH_PAST_100K`."""
    tally = counts(n)
    pairs = make_names(sum(c for _, c in tally), seed=7)
    entities: list[Entity] = []
    offset = 0
    for owner, count in tally:
        entities.extend(
            Entity(tenant_id=owner, entity_type=kind, name=name)
            for kind, name in pairs[offset : offset + count]
        )
        offset += count
    started = time.perf_counter()
    for start in range(0, len(entities), BATCH_PAST_100K):
        await graph.upsert(entities[start : start + BATCH_PAST_100K])
        print(f"  {start + BATCH_PAST_100K:,} written", flush=True)
    print(f"built in {time.perf_counter() - started:.0f} s", flush=True)


async def run(args: argparse.Namespace) -> list[str]:
    fresh = not args.file.exists()
    graph = SqliteGraphStore(SqliteDatabase(args.file), migrate=fresh)
    if fresh:
        await build(graph, args.n)
    retriever = Retriever.lexical_only(graph=graph)
    names = [name for _, name in make_names(sum(c for _, c in counts(args.n)), seed=7)[: args.n]]
    mix = [text for _, text, _ in make_queries(names, args.queries, seed=11)]
    types = [["organization"] if at % 4 == 3 else None for at in range(len(mix))]
    print(f"library {redstring.__file__}; load {os.getloadavg()}", flush=True)
    answers = [
        (await retriever.retrieve(text, TENANT, k=10, entity_types=kind)).model_dump_json()
        for text, kind in zip(mix, types, strict=True)
    ]
    timed: list[float] = []
    cpu = time.process_time()
    for text in mix:  # as the benchmark's LEXICAL pass: no type filter
        started = time.perf_counter()
        await retriever.retrieve(text, TENANT, k=10)
        timed.append((time.perf_counter() - started) * 1000)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(mix)
    p50, p90 = np.percentile(timed, [50, 90])
    print(
        f"LEXICAL p50 {p50:.2f} ms, p90 {p90:.2f} ms, CPU {cpu_ms:.2f} ms a query;"
        f" load {os.getloadavg()}",
        flush=True,
    )
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, required=True, help="the SQLite file, kept")
    parser.add_argument("--n", type=int, default=100_000, help="entities of the searched tenant")
    compare_trees(parser, run)


if __name__ == "__main__":
    main()
