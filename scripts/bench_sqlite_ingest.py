"""SQLite graph ingest and LEXICAL latency: two source trees side by side in one run.

Each round runs one subprocess per tree, in alternating order, so both
trees see the same machine load; the in-memory graph store of this tree runs
once per round beside them as the baseline. A worker builds
`scripts.bench_retrieval`'s corpus (N entities of the searched tenant plus
N/10 in each of three other tenants; ids derived from the names, so every
tree files the same ids), upserts it in batches of 1,000 through the graph
store only, and reports:

- ingest wall seconds and CPU-seconds of the `upsert` calls;
- the file's size per entity (after closing, the WAL checkpointed);
- LEXICAL latency: `Retriever.lexical_only` over bench_retrieval's query
  mix (after one untimed warm-up pass), p50 / p90 ms and CPU ms a query;
- a digest of every query's ranked ids, which must agree between trees.

    git archive main src | tar -x -C /tmp/old        # the tree to compare against
    nice -n 10 uv run python -m scripts.bench_sqlite_ingest --old /tmp/old/src --n 100000
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from scripts import ROOT

BATCH = 1000
OTHER_TENANTS = 3


async def worker(kind: str, n: int, queries: int) -> dict[str, Any]:
    from redstring import Entity, RetrievalMode, Retriever, TenantId  # noqa: PLC0415
    from redstring.graph.in_memory import InMemoryGraphStore  # noqa: PLC0415
    from redstring.graph.sqlite import SqliteGraphStore  # noqa: PLC0415
    from redstring.storage.sqlite import SqliteDatabase  # noqa: PLC0415
    from scripts.bench_corpus import make_names, make_queries  # noqa: PLC0415

    tenant = TenantId(uuid.UUID(int=1))
    counts = [(tenant, n)] + [(TenantId(uuid.UUID(int=2 + i)), n // 10) for i in range(3)]
    pairs = make_names(sum(c for _, c in counts), seed=7)
    entities: list[Entity] = []
    for owner, count in counts:
        start = len(entities)
        entities.extend(
            Entity(tenant_id=owner, entity_type=kind_, name=name)
            for kind_, name in pairs[start : start + count]
        )
    folder = Path(tempfile.mkdtemp(prefix="redstring-ingest-"))
    database = None
    if kind == "memory":
        graph: Any = InMemoryGraphStore()
    else:
        database = SqliteDatabase(folder / "graph.db")
        graph = SqliteGraphStore(database)
    wall = cpu = 0.0
    for start in range(0, len(entities), BATCH):
        batch = entities[start : start + BATCH]
        began, began_cpu = time.perf_counter(), time.process_time()
        await graph.upsert(batch)
        wall += time.perf_counter() - began
        cpu += time.process_time() - began_cpu
    mix = make_queries([e.name for e in entities[:n]], queries, seed=11)
    retriever = Retriever.lexical_only(graph=graph)
    digest = hashlib.sha256()
    for _, text, _ in mix:  # untimed warm-up, and the ranked ids for the digest
        result = await retriever.retrieve(text, tenant, k=10, mode=RetrievalMode.LEXICAL)
        digest.update(json.dumps([str(m.entity.id) for m in result.matches]).encode())
    lexical: list[float] = []
    began_cpu = time.process_time()
    for _, text, _ in mix:
        began = time.perf_counter()
        await retriever.retrieve(text, tenant, k=10, mode=RetrievalMode.LEXICAL)
        lexical.append((time.perf_counter() - began) * 1000)
    lexical_cpu = (time.process_time() - began_cpu) * 1000 / len(mix)
    size = 0
    if database is not None:
        database.close()
        size = folder_bytes(folder)
    shutil.rmtree(folder, ignore_errors=True)
    cuts = statistics.quantiles(lexical, n=10)
    return {
        "kind": kind,
        "entities": len(entities),
        "ingest_s": round(wall, 2),
        "ingest_cpu_s": round(cpu, 2),
        "bytes_per_entity": round(size / len(entities)),
        "lexical_p50_ms": round(statistics.median(lexical), 2),
        "lexical_p90_ms": round(cuts[-1], 2),
        "lexical_cpu_ms_per_query": round(lexical_cpu, 2),
        "ranked_digest": digest.hexdigest()[:16],
    }


def folder_bytes(folder: Path) -> int:
    """The bytes of every file in `folder`."""
    return sum(p.stat().st_size for p in folder.iterdir())


def run(tree: str | None, kind: str, n: int, queries: int) -> dict[str, Any]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = tree
    args = [sys.executable, "-m", "scripts.bench_sqlite_ingest", "--worker", kind]
    args += ["--n", str(n), "--queries", str(queries)]
    done = subprocess.run(args, env=env, cwd=ROOT, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{kind} worker on {tree or 'this tree'} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="the other tree's src folder (required)")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--worker", choices=["memory", "sqlite"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(asyncio.run(worker(args.worker, args.n, args.queries))))
        return
    if args.old is None:
        parser.error("--old is required")
    print(f"load average at start: {os.getloadavg()}", flush=True)
    for round_ in range(args.rounds):
        order = [("old", args.old), ("new", None)]
        for label, tree in order if round_ % 2 == 0 else order[::-1]:
            print(
                json.dumps(
                    {"round": round_, "tree": label, **run(tree, "sqlite", args.n, args.queries)}
                ),
                flush=True,
            )
        print(
            json.dumps(
                {"round": round_, "tree": "new", **run(None, "memory", args.n, args.queries)}
            ),
            flush=True,
        )
    print(f"load average at end: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
