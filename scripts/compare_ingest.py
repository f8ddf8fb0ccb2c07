"""Compare in-memory ingest of two source trees in one run, alternating their subprocesses.

Each worker imports `redstring` from one tree (`PYTHONPATH=<tree>/src`) and
ingests the corpus of `scripts/bench_retrieval.py` (this tree's builders, the
same for both) in batches of 1,000, timing only the upsert calls:

- `chunks`: N chunks of Lee sentences with random unit vectors into
  `InMemoryChunkStore` (`chunk_worker`'s corpus), then the first LEXICAL read
  (it builds the read structures), the mean of 50 more, and one chunk written
  and read again (a write between reads at N);
- `entities`: N entities plus N/10 in each of three other tenants with their
  vectors into `InMemoryGraphStore` and `InMemoryVectorStore`
  (`entity_worker`'s corpus), with the searched tenant's N marked.

CPU-seconds of the process beside wall time (the machine is shared), MB of
resident memory grown, and the load average at each worker's start:

    nice -n 10 uv run python scripts/compare_ingest.py --old /tmp/old-tree \
        --new . --kinds chunks entities --n 100000 --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_retrieval as bench  # noqa: E402


async def chunks(n: int, dim: int) -> dict[str, Any]:
    from redstring import StoredChunk, TenantId  # noqa: PLC0415
    from redstring.stores import InMemoryChunkStore  # noqa: PLC0415

    rng = np.random.default_rng(n + dim + 1)
    tenant = TenantId(uuid.UUID(int=1))
    sentences = bench.lee_sentences()
    people = [name for kind, name in bench.make_names(2000, seed=3) if kind == "person"]
    texts = []
    for i in range(n):
        picked = [sentences[j] for j in rng.integers(len(sentences), size=int(rng.integers(2, 5)))]
        texts.append(f"{people[i % len(people)]}: " + " ".join(picked))
    matrix = bench.unit_rows(n, dim, rng)

    def chunk(i: int, text: str) -> StoredChunk:
        return StoredChunk(
            tenant_id=tenant,
            source_id=f"doc-{i // 10}",
            text=text,
            index=i % 10,
            start=0,
            end=len(text),
            embedding=matrix[i % n].tolist(),
        )

    store = InMemoryChunkStore(dimension=dim)
    before = bench.rss_mb()
    wall = cpu = 0.0
    for start in range(0, n, bench.BATCH):
        batch = [chunk(i, texts[i]) for i in range(start, min(n, start + bench.BATCH))]
        wall_started, cpu_started = time.perf_counter(), time.process_time()
        await store.upsert_chunks(batch)
        wall += time.perf_counter() - wall_started
        cpu += time.process_time() - cpu_started
    grown = bench.rss_mb() - before
    words = ["the", "government", "said", "fire", "australia", "police"]
    first = await timed(lambda: store.lexical_candidates(words[:3], tenant))
    reads = [
        await timed(lambda i=i: store.lexical_candidates(words[i % 4 : i % 4 + 2], tenant))
        for i in range(50)
    ]
    await store.upsert_chunks([chunk(n, "a passage written between two reads of the fire")])
    after_write = await timed(lambda: store.lexical_candidates(words[2:5], tenant))
    return {
        "ingest_s": wall,
        "ingest_cpu_s": cpu,
        "grown_mb": grown,
        "first_read_ms": first,
        "read_ms": sum(reads) / len(reads),
        "read_after_write_ms": after_write,
    }


async def entities(n: int, dim: int) -> dict[str, Any]:
    from redstring import Entity, TenantId  # noqa: PLC0415
    from redstring.ports import VectorRecord  # noqa: PLC0415
    from redstring.stores import InMemoryGraphStore, InMemoryVectorStore  # noqa: PLC0415

    rng = np.random.default_rng(n + dim)
    tenant = TenantId(uuid.UUID(int=1))
    others = [TenantId(uuid.UUID(int=2 + i)) for i in range(bench.OTHER_TENANTS)]
    counts = [(tenant, n)] + [(other, max(1, n // 10)) for other in others]
    pairs = bench.make_names(sum(c for _, c in counts), seed=7)
    items: list[Entity] = []
    for owner, count in counts:
        at = len(items)
        items.extend(
            Entity(tenant_id=owner, entity_type=k, name=m) for k, m in pairs[at : at + count]
        )
    matrix = bench.unit_rows(len(items), dim, rng)
    graph, vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=dim)
    before = bench.rss_mb()
    wall = cpu = graph_cpu = 0.0
    marks: dict[str, float] = {}
    for start in range(0, len(items), bench.BATCH):
        batch = items[start : start + bench.BATCH]
        records = [
            VectorRecord(
                tenant_id=e.tenant_id,
                entity_id=e.id,
                entity_type=e.entity_type,
                vector=matrix[start + i].tolist(),
            )
            for i, e in enumerate(batch)
        ]
        wall_started, cpu_started = time.perf_counter(), time.process_time()
        await graph.upsert(batch)
        graph_cpu += time.process_time() - cpu_started
        await vectors.upsert(records)
        wall += time.perf_counter() - wall_started
        cpu += time.process_time() - cpu_started
        if start + bench.BATCH >= n and "n_s" not in marks:
            marks = {"n_s": wall, "n_cpu_s": cpu}
    return {
        "ingest_s": wall,
        "ingest_cpu_s": cpu,
        "graph_cpu_s": graph_cpu,
        "grown_mb": bench.rss_mb() - before,
        **marks,
    }


async def timed(call: Any) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000


def run_worker(tree: Path, kind: str, n: int, dim: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve() / "src"))
    load = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, __file__, "--worker", kind, "--n", str(n), "--dim", str(dim)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {"load": load, **json.loads(out.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", type=Path)
    parser.add_argument("--new", type=Path, default=HERE.parent)
    parser.add_argument("--kinds", nargs="+", default=["chunks", "entities"])
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--worker")
    args = parser.parse_args()
    if args.worker:
        import redstring  # noqa: PLC0415

        assert Path(redstring.__file__).is_relative_to(Path(os.environ["PYTHONPATH"]))
        work = chunks if args.worker == "chunks" else entities
        print(json.dumps(asyncio.run(work(args.n, args.dim))))
        return
    if args.old is None:
        parser.error("--old (the tree to compare against) is required")
    for _ in range(args.repeat):
        for kind in args.kinds:
            for label, tree in (("old", args.old), ("new", args.new)):
                row = run_worker(tree, kind, args.n, args.dim)
                cells = ", ".join(f"{k} {v:.2f}" for k, v in row.items())
                print(f"{kind} {args.n} {label}: {cells}", flush=True)


if __name__ == "__main__":
    main()
