"""Compare in-memory ingest of two source trees in one run, alternating their subprocesses.

Each worker imports `redstring` from one tree (`PYTHONPATH=<tree>/src`) and
ingests the corpus of `scripts.bench_retrieval` through its ingest loops
(this tree's script, the same for both trees), timing only the upsert calls:

- `chunks`: N chunks of Lee sentences with random unit vectors into
  `InMemoryChunkStore` (`chunk_corpus`, batches of 1,000), then the first LEXICAL read
  (it builds the read structures), the mean of 50 more, and one chunk written
  and read again (a write between reads at N);
- `entities`: N entities plus N/10 in each of three other tenants (10k past
  100k) with their vectors into `InMemoryGraphStore` and `InMemoryVectorStore`
  (`entity_corpus`, `ingest_entities`: batches of 1,000, 25,000 past 100k),
  with the searched tenant's N marked, then the first read of one name's
  keys in the searched tenant (`count_blocking_keys` and
  `find_ids_by_blocking_keys` of its name and trigram keys, as the lexical
  channel reads them; it sorts the blocks read), the mean over 50 more
  names, and one read after a one-entity write.

CPU-seconds of the process beside wall time (the machine is shared), MB of
resident memory grown, and the load average at each worker's start:

    nice -n 10 uv run python -m scripts.compare_ingest --old /tmp/old-tree \
        --new . --kinds chunks entities --n 100000 --repeat 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from scripts import ROOT
from scripts import bench_retrieval as bench


async def chunks(n: int, dim: int) -> dict[str, Any]:
    from redstring.stores import InMemoryChunkStore  # noqa: PLC0415

    tenant, texts, matrix, _ = bench.chunk_corpus(n, dim)
    store = InMemoryChunkStore(dimension=dim)
    before = bench.rss_mb()
    wall_ms, cpu = await bench.ingest_chunks(store, tenant, texts, matrix)
    grown = bench.rss_mb() - before
    words = ["the", "government", "said", "fire", "australia", "police"]
    first = await bench.time_async(lambda: store.lexical_candidates(words[:3], tenant))
    reads = [
        await bench.time_async(
            lambda i=i: store.lexical_candidates(words[i % 4 : i % 4 + 2], tenant)
        )
        for i in range(50)
    ]
    written = "a passage written between two reads of the fire"
    await store.upsert_chunks([bench.stored_chunk(tenant, n, written, matrix[0])])
    after_write = await bench.time_async(lambda: store.lexical_candidates(words[2:5], tenant))
    return {
        "ingest_s": wall_ms / 1000,
        "ingest_cpu_s": cpu,
        "grown_mb": grown,
        "first_read_ms": first,
        "read_ms": sum(reads) / len(reads),
        "read_after_write_ms": after_write,
    }


async def entities(n: int, dim: int) -> dict[str, Any]:
    from redstring import Entity  # noqa: PLC0415
    from redstring.domain.blocking import name_keys_for  # noqa: PLC0415
    from redstring.domain.ngrams import ngram_keys_of_form  # noqa: PLC0415
    from redstring.domain.normalization import matching_form  # noqa: PLC0415
    from redstring.stores import InMemoryGraphStore, InMemoryVectorStore  # noqa: PLC0415

    _, items, matrix, _ = bench.entity_corpus(n, dim, clustered=False)
    graph, vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=dim)
    before = bench.rss_mb()
    marks = await bench.ingest_entities(graph, vectors, items, matrix, n)
    grown = bench.rss_mb() - before
    tenant = items[0].tenant_id

    async def read(name: str) -> None:
        keys = [*name_keys_for(name), *sorted(ngram_keys_of_form(matching_form(name)))]
        await graph.count_blocking_keys(keys, tenant)
        await graph.find_ids_by_blocking_keys(keys, tenant, limit=250)

    names = [items[i * (n // 51)].name for i in range(51)]
    first = await bench.time_async(lambda: read(names[0]))
    reads = [await bench.time_async(lambda name=name: read(name)) for name in names[1:]]
    written = Entity(tenant_id=tenant, entity_type="person", name=names[1] + " Junior")
    await graph.upsert([written])
    after_write = await bench.time_async(lambda: read(names[1]))
    return {
        "ingest_s": (marks["graph_ms"] + marks["vector_ms"]) / 1000,
        "ingest_cpu_s": marks["cpu_s"],
        "graph_cpu_s": marks["graph_cpu_s"],
        "grown_mb": grown,
        "n_s": marks["tenant_s"],
        "n_cpu_s": marks["tenant_cpu_s"],
        "first_read_ms": first,
        "read_ms": sum(reads) / len(reads),
        "read_after_write_ms": after_write,
    }


def run_worker(tree: Path, kind: str, n: int, dim: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve() / "src"))
    load = os.getloadavg()[0]
    command = [sys.executable, "-m", "scripts.compare_ingest", "--worker", kind]
    out = subprocess.run(
        [*command, "--n", str(n), "--dim", str(dim)],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {"load": load, **json.loads(out.strip().splitlines()[-1])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--old", type=Path)
    parser.add_argument("--new", type=Path, default=ROOT)
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
