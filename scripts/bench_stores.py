"""Benchmark the store calls entity retrieval makes, on every backend, in one run.

For each size N: ingest N entities (plus N/10 in a second tenant, so tenant
filters matter) with 384-dimensional clustered vectors into the in-memory
stores (the baseline), SQLite (matrix cache on and off), PostgreSQL exact and
PostgreSQL HNSW (iterative scan); then time `VectorStore.search` (k=10, with
and without an entity-type filter) and `find_by_blocking_keys` for a real
entity's name. Prints median and p90 latencies, their ratio to the in-memory
baseline measured in the same run, ingest throughput, and recall@10 of HNSW
against exact search.

Then, for each chunk count C, the store calls `ChunkRetriever.retrieve_chunks`
makes: ingest C chunks (about 60 words drawn from a Zipf vocabulary, with
384-dimensional embeddings; plus C/10 in a second tenant) into the in-memory
chunk store (the baseline), SQLite and PostgreSQL, then time
`lexical_candidates` for 3-term queries and `search_chunks` (k=10).

    uv run python scripts/bench_stores.py --sizes 10000 100000 [--queries 200]
    uv run python scripts/bench_stores.py --sizes --chunk-sizes 10000 100000

PostgreSQL comes from TEST_DATABASE_URL, or an embedded server (PostgreSQL 18
+ pgvector, durable settings) started and stopped by this script.

OpenBLAS defaults to one thread per core; on small VMs its threaded
matrix-vector product was measured 30-100x slower than one thread, so this
script sets OPENBLAS_NUM_THREADS=1 unless the caller set it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.postgres_server import running_server  # noqa: E402

from redstring import Entity, StoredChunk, TenantId  # noqa: E402
from redstring.domain.blocking import query_blocking_keys  # noqa: E402
from redstring.domain.query import NormalizedQuery  # noqa: E402
from redstring.domain.tokenize import Analyzer  # noqa: E402
from redstring.ports import ChunkStore, GraphStore, VectorRecord, VectorStore  # noqa: E402
from redstring.stores import (  # noqa: E402
    InMemoryChunkStore,
    InMemoryGraphStore,
    InMemoryVectorStore,
    open_postgres,
    open_sqlite,
)

DIMENSION = 384
K = 10
TYPES = ["person", "place", "organisation", "concept"]
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["an", "el", "or", "is", "um"]


@dataclass
class Corpus:
    tenant: TenantId
    other: TenantId
    entities: list[Entity]
    vectors: list[VectorRecord]
    queries: np.ndarray
    query_names: list[str]


@dataclass
class Result:
    name: str
    ingest_entities_per_s: float = float("nan")
    ingest_vectors_per_s: float = float("nan")
    search: list[float] = field(default_factory=list)
    search_typed: list[float] = field(default_factory=list)
    blocking: list[float] = field(default_factory=list)
    recall: float | None = None
    recall_typed: float | None = None
    note: str = ""


def make_corpus(n: int, queries: int, seed: int) -> Corpus:
    rng = np.random.default_rng(seed)
    tenant, other = TenantId(uuid.uuid4()), TenantId(uuid.uuid4())
    centres = rng.standard_normal((max(10, n // 500), DIMENSION)).astype(np.float32)
    names: set[str] = set()
    entities: list[Entity] = []
    vectors: list[VectorRecord] = []
    for owner, count in ((tenant, n), (other, n // 10)):
        for _ in range(count):
            while True:
                name = " ".join(
                    "".join(rng.choice(SYLLABLES, size=int(rng.integers(2, 4)))).capitalize()
                    for _ in range(2)
                )
                if (owner, name) not in names:
                    names.add((owner, name))  # type: ignore[arg-type]
                    break
            kind = TYPES[int(rng.integers(0, len(TYPES)))]
            entity = Entity(tenant_id=owner, entity_type=kind, name=name)
            centre = centres[int(rng.integers(0, len(centres)))]
            vector = centre + 0.6 * rng.standard_normal(DIMENSION).astype(np.float32)
            entities.append(entity)
            vectors.append(
                VectorRecord(
                    tenant_id=owner, entity_id=entity.id, entity_type=kind, vector=vector.tolist()
                )
            )
    mine = [v for v in vectors if v.tenant_id == tenant]
    picks = rng.integers(0, len(mine), size=queries)
    base = np.array([mine[i].vector for i in picks], dtype=np.float32)
    query_vectors = base + 0.3 * rng.standard_normal(base.shape).astype(np.float32)
    by_id = {e.id: e for e in entities}
    query_names = [by_id[mine[i].entity_id].name for i in picks]
    return Corpus(tenant, other, entities, vectors, query_vectors, query_names)


async def ingest(
    result: Result, graph: GraphStore, vectors: VectorStore, corpus: Corpus, batch: int = 1000
) -> None:
    started = time.perf_counter()
    for start in range(0, len(corpus.entities), batch):
        await graph.upsert(corpus.entities[start : start + batch])
    result.ingest_entities_per_s = len(corpus.entities) / (time.perf_counter() - started)
    started = time.perf_counter()
    for start in range(0, len(corpus.vectors), batch):
        await vectors.upsert(corpus.vectors[start : start + batch])
    result.ingest_vectors_per_s = len(corpus.vectors) / (time.perf_counter() - started)


async def timed(call: Callable[[], Awaitable[object]]) -> tuple[float, object]:
    started = time.perf_counter()
    value = await call()
    return (time.perf_counter() - started) * 1000.0, value


async def measure(
    result: Result,
    graph: GraphStore | None,
    vectors: VectorStore,
    corpus: Corpus,
    queries: int,
) -> tuple[list[list[uuid.UUID]], list[list[uuid.UUID]]]:
    """Run the queries; return the ids each search found (untyped, typed)."""
    found: list[list[uuid.UUID]] = []
    found_typed: list[list[uuid.UUID]] = []
    await vectors.search(corpus.queries[0].tolist(), corpus.tenant, k=K)  # warm caches
    for i in range(queries):
        q = corpus.queries[i].tolist()
        ms, hits = await timed(lambda q=q: vectors.search(q, corpus.tenant, k=K))
        result.search.append(ms)
        found.append([h.entity_id for h in hits])  # type: ignore[attr-defined]
        ms, hits = await timed(
            lambda q=q: vectors.search(q, corpus.tenant, k=K, entity_types=["place"])
        )
        result.search_typed.append(ms)
        found_typed.append([h.entity_id for h in hits])  # type: ignore[attr-defined]
        if graph is not None:
            keys = query_blocking_keys(NormalizedQuery.of(corpus.query_names[i]))
            ms, _ = await timed(lambda keys=keys: graph.find_by_blocking_keys(keys, corpus.tenant))
            result.blocking.append(ms)
    return found, found_typed


def recall(found: Sequence[Sequence[uuid.UUID]], exact: Sequence[Sequence[uuid.UUID]]) -> float:
    hits = sum(len(set(f) & set(e)) for f, e in zip(found, exact, strict=True))
    return hits / max(1, sum(len(e) for e in exact))


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def report(n: int, results: list[Result]) -> None:
    base = results[0]
    print(f"\n## N = {n:,} entities in the searched tenant (+{n // 10:,} in another)\n")
    print(
        "| store | vector search p50 / p90 ms (x base) | typed search p50 / p90 ms (x base)"
        " | blocking lookup p50 / p90 ms (x base) | ingest entities/s | ingest vectors/s"
        " | recall@10 (typed) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in results:

        def cell(values: list[float], baseline: list[float]) -> str:
            if not values:
                return "n/a"
            ratio = statistics.median(values) / statistics.median(baseline)
            return f"{pct(values, 50):.2f} / {pct(values, 90):.2f} ({ratio:.1f}x)"

        rec = "exact" if r.recall is None else f"{r.recall:.3f} ({r.recall_typed:.3f})"
        print(
            f"| {r.name}{r.note} | {cell(r.search, base.search)}"
            f" | {cell(r.search_typed, base.search_typed)} | {cell(r.blocking, base.blocking)}"
            f" | {r.ingest_entities_per_s:,.0f} | {r.ingest_vectors_per_s:,.0f} | {rec} |"
        )
    sys.stdout.flush()


async def run_size(n: int, queries: int, uncached_queries: int, url: str | None) -> None:
    corpus = make_corpus(n, queries, seed=n)
    results: list[Result] = []

    memory = Result("in-memory (baseline)")
    mem_graph, mem_vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=DIMENSION)
    await ingest(memory, mem_graph, mem_vectors, corpus)
    exact, exact_typed = await measure(memory, mem_graph, mem_vectors, corpus, queries)
    results.append(memory)

    folder = Path(tempfile.mkdtemp(prefix="redstring-bench-"))
    sqlite = open_sqlite(folder / "bench.db", dimension=DIMENSION)
    cached = Result("SQLite")
    await ingest(cached, sqlite.graph, sqlite.vectors, corpus)
    await measure(cached, sqlite.graph, sqlite.vectors, corpus, queries)
    results.append(cached)
    await sqlite.close()
    uncached_stores = open_sqlite(folder / "bench.db", cache_bytes=0)
    uncached = Result(
        "SQLite, no matrix cache", note=f" ({min(uncached_queries, queries)} queries)"
    )
    await measure(uncached, None, uncached_stores.vectors, corpus, min(uncached_queries, queries))
    results.append(uncached)
    await uncached_stores.close()
    shutil.rmtree(folder, ignore_errors=True)

    if url is not None:
        schema = f"bench_{n}"
        pg = await open_postgres(url, dimension=DIMENSION, schema=schema, max_size=4)
        pg_exact = Result("PostgreSQL exact")
        await ingest(pg_exact, pg.graph, pg.vectors, corpus)
        await measure(pg_exact, pg.graph, pg.vectors, corpus, queries)
        results.append(pg_exact)
        started = time.perf_counter()
        await pg.vectors.create_hnsw_index()
        build = time.perf_counter() - started
        await pg.close()
        for order in ("relaxed_order", "strict_order"):
            hnsw_stores = await open_postgres(
                url, dimension=DIMENSION, schema=schema, search_mode="hnsw", iterative_scan=order
            )
            hnsw = Result(f"PostgreSQL HNSW {order}", note=f" (index build {build:.0f} s)")
            found, found_typed = await measure(hnsw, None, hnsw_stores.vectors, corpus, queries)
            hnsw.recall = recall(found, exact)
            hnsw.recall_typed = recall(found_typed, exact_typed)
            results.append(hnsw)
            await hnsw_stores.close()
    report(n, results)


VOCABULARY = 20_000
WORDS_PER_CHUNK = 60


@dataclass
class ChunkCorpus:
    """A deterministic chunk corpus, generated in batches so no backend holds it twice."""

    size: int
    seed: int
    tenant: TenantId
    other: TenantId
    words: list[str]
    centres: np.ndarray
    term_queries: list[list[str]]
    vector_queries: np.ndarray

    def batches(self, batch: int = 1000) -> Iterator[list[StoredChunk]]:
        rng = np.random.default_rng(self.seed)
        owners = [(self.tenant, self.size), (self.other, self.size // 10)]
        for owner, count in owners:
            for start in range(0, count, batch):
                chunks = []
                for n in range(start, min(count, start + batch)):
                    ranks = np.minimum(rng.zipf(1.1, WORDS_PER_CHUNK), VOCABULARY) - 1
                    text = " ".join(self.words[r] for r in ranks) + f" n{n}"
                    centre = self.centres[int(rng.integers(0, len(self.centres)))]
                    vector = centre + 0.6 * rng.standard_normal(DIMENSION).astype(np.float32)
                    chunks.append(
                        StoredChunk(
                            tenant_id=owner,
                            source_id=f"doc-{n // 20}",
                            text=text,
                            index=n % 20,
                            start=0,
                            end=len(text),
                            embedding=vector.tolist(),
                        )
                    )
                yield chunks


def make_chunk_corpus(size: int, queries: int, seed: int) -> ChunkCorpus:
    rng = np.random.default_rng(seed + 1)
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < VOCABULARY:
        word = "".join(rng.choice(SYLLABLES, size=int(rng.integers(2, 4))))
        if word not in seen and Analyzer().terms(word) == [word]:
            seen.add(word)
            words.append(word)
    # Query terms: one frequent (rank < 100), one middling (< 2,000), one rare.
    term_queries = [
        [
            words[int(rng.integers(0, 100))],
            words[int(rng.integers(100, 2_000))],
            words[int(rng.integers(2_000, VOCABULARY))],
        ]
        for _ in range(queries)
    ]
    centres = rng.standard_normal((max(10, size // 500), DIMENSION)).astype(np.float32)
    picks = centres[rng.integers(0, len(centres), size=queries)]
    vector_queries = picks + 0.6 * rng.standard_normal(picks.shape).astype(np.float32)
    return ChunkCorpus(
        size=size,
        seed=seed,
        tenant=TenantId(uuid.uuid4()),
        other=TenantId(uuid.uuid4()),
        words=words,
        centres=centres,
        term_queries=term_queries,
        vector_queries=vector_queries,
    )


@dataclass
class ChunkResult:
    name: str
    ingest_per_s: float = float("nan")
    lexical: list[float] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    semantic: list[float] = field(default_factory=list)
    found: list[list[str]] = field(default_factory=list)


async def bench_chunks(
    name: str, store: ChunkStore, corpus: ChunkCorpus, queries: int
) -> ChunkResult:
    result = ChunkResult(name)
    spent = 0.0  # only the upserts: generating the corpus is not the store's time
    for batch in corpus.batches():
        started = time.perf_counter()
        await store.upsert_chunks(batch)
        spent += time.perf_counter() - started
    result.ingest_per_s = (corpus.size + corpus.size // 10) / spent
    await store.search_chunks(corpus.vector_queries[0].tolist(), corpus.tenant, k=K)  # warm
    for i in range(queries):
        terms = corpus.term_queries[i]
        ms, found = await timed(lambda terms=terms: store.lexical_candidates(terms, corpus.tenant))
        result.lexical.append(ms)
        result.candidates.append(len(found.chunk_ids))  # type: ignore[attr-defined]
        q = corpus.vector_queries[i].tolist()
        ms, hits = await timed(lambda q=q: store.search_chunks(q, corpus.tenant, k=K))
        result.semantic.append(ms)
        result.found.append([str(h.chunk.id) for h in hits])  # type: ignore[attr-defined]
    return result


def report_chunks(size: int, results: list[ChunkResult]) -> None:
    base = results[0]
    print(f"\n## C = {size:,} chunks in the searched tenant (+{size // 10:,} in another)\n")
    print(
        "| store | lexical_candidates p50 / p90 ms (x base) | candidates per query (median)"
        " | search_chunks p50 / p90 ms (x base) | same top-10 as base | ingest chunks/s |"
    )
    print("| --- | --- | --- | --- | --- | --- |")
    for r in results:

        def cell(values: list[float], baseline: list[float]) -> str:
            ratio = statistics.median(values) / statistics.median(baseline)
            return f"{pct(values, 50):.2f} / {pct(values, 90):.2f} ({ratio:.1f}x)"

        agree = sum(f == b for f, b in zip(r.found, base.found, strict=True)) / len(base.found)
        print(
            f"| {r.name} | {cell(r.lexical, base.lexical)}"
            f" | {statistics.median(r.candidates):,.0f} | {cell(r.semantic, base.semantic)}"
            f" | {agree:.0%} | {r.ingest_per_s:,.0f} |"
        )
    sys.stdout.flush()


async def run_chunk_size(size: int, queries: int, url: str | None) -> None:
    corpus = make_chunk_corpus(size, queries, seed=size)
    results = [
        await bench_chunks(
            "in-memory (baseline)", InMemoryChunkStore(dimension=DIMENSION), corpus, queries
        )
    ]
    folder = Path(tempfile.mkdtemp(prefix="redstring-bench-"))
    async with open_sqlite(folder / "chunks.db", dimension=DIMENSION) as sqlite:
        results.append(await bench_chunks("SQLite", sqlite.chunks, corpus, queries))
    shutil.rmtree(folder, ignore_errors=True)
    if url is not None:
        async with await open_postgres(
            url, dimension=DIMENSION, schema=f"bench_chunks_{size}", max_size=4
        ) as pg:
            results.append(await bench_chunks("PostgreSQL exact", pg.chunks, corpus, queries))
    report_chunks(size, results)


async def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--chunk-sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--uncached-queries", type=int, default=20)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args(argv)
    print(
        f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}, dimension {DIMENSION}, k={K}"
    )
    with contextlib.ExitStack() as stack:
        url = None if args.no_postgres else stack.enter_context(running_server(durable=True))
        if url is not None:
            import psycopg  # noqa: PLC0415

            with psycopg.connect(url, autocommit=True) as connection:
                connection.execute("ALTER SYSTEM SET maintenance_work_mem = '2GB'")
                connection.execute("SELECT pg_reload_conf()")
        for n in args.sizes:
            await run_size(n, args.queries, args.uncached_queries, url)
        for n in args.chunk_sizes:
            await run_chunk_size(n, args.queries, url)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
