"""Benchmark retrieval end to end on every store, beside baselines measured in the same run.

For each size N and dimension D, one subprocess per store (so peak memory
never mixes) builds N entities of one tenant plus N/10 in each of three other
tenants, with names combined deterministically from the first names, surnames
and organisation words of tests/data/quality/entity_corpus.json, and random
unit vectors (latency does not depend on what the vectors mean; the query
vector is a stored entity's vector plus noise, served by a lookup-table
provider so no embedding time is counted). It then times, over a fixed-seed
mix of queries (exact names, one-edit typos, surname only):

- `Retriever.retrieve` in SEMANTIC, LEXICAL and HYBRID mode (k=10);
- the baselines: numpy brute-force top-k (`argpartition`) over the same
  matrix (the practical floor, with BLAS at one thread and at its default),
  and `rapidfuzz.process.extract` over all the tenant's names;
- ingest throughput and peak memory (ru_maxrss, and its growth over ingest).

A chunk configuration (in-memory chunk store; persistent chunk stores once
they exist) builds N chunks of sentences from the Lee corpus
(tests/data/quality/passages.json) and times `ChunkRetriever.retrieve_chunks`
(LEXICAL = BM25, SEMANTIC, HYBRID) against `bm25s` (lucene IDF, same k1, b
and tokens) and the numpy floor.

The rows of issue 16's table are selectable (`--rows`, default all), one
invocation runs every one of them:

- the 100k rows at each of `--sizes` (default 10k and 100k, for the
  latency-vs-N plot);
- `pg-exact` / `pg-hnsw`: one PostgreSQL worker ranks exactly, then builds
  the HNSW index over the same rows and sweeps `hnsw.ef_search` (recall@10
  against exact numpy top-10; random rows, HNSW's worst case);
  `pg-hnsw-clustered` runs scripts/bench_pg_hnsw.py (clustered rows, type
  filters, the store's defaults) after it;
- `million` (`--million`, default 1M): the exact in-memory store and
  `ApproximateVectorStore` (ADR 0225) over the same clustered rows in one
  worker (recall@10 per `probes`, HYBRID through both), and SQLite, which
  runs beside the other rows from the start (`--no-beside` to run it in turn)
  because its ingest alone outlasts the rest; past 100k the three other
  tenants hold 10k entities each;
- `d768` (`--wide`, default 100k) at 768 dimensions: memory, SQLite and
  PostgreSQL exact search (ADR 0270's float16 pool);
- `indexing` runs scripts/bench_indexing.py.

`--stop-at HH:MM` (UTC) stops a worker still running then; its row says so.

A PostgreSQL worker runs `VACUUM (ANALYZE)` on its schema's tables after the
bulk load and before any search (the state autovacuum brings an insert-only
table to once the inserts pass its threshold; ADR 0305); its row states the
VACUUM's time, and how many of the vector table's pages autovacuum had not
yet marked all-visible by then.

    nice -n 10 uv run python scripts/bench_retrieval.py --json run.json  # every row
    nice -n 10 uv run python scripts/bench_retrieval.py --rows chunks indexing \
        --sizes 10000 --index-mb 0.2                                  # a few minutes
    uv run python scripts/bench_retrieval.py --from-json run.json     # reprint, replot

Prints markdown tables and issue 16's table (row, figure, baseline, target,
met?), writes the raw figures as JSON (`--json`) and the plot to
docs/img/bench_latency.png (`--plot`). PostgreSQL comes from an embedded
server started and stopped here.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

K = 10
OTHER_TENANTS = 3
BATCH = 1000
#: Entities per upsert past 100k. At 1M the SQLite key table's B-tree takes a
#: batch's ~28 keys an entity at random pages: with batches of 1,000 the first
#: 350k entities wrote 121 GB (about 350 MB a batch, WAL and checkpoint) and the
#: worker waited on the disk; a bulk load of that size writes in larger batches.
BATCH_PAST_100K = 25_000
#: The stores a result can name (plot colours in this order): "approx" is
#: `ApproximateVectorStore` (ADR 0225), "sqlite-approx" `SqliteVectorStore`'s
#: IVF search (ADR 0265).
STORES = ("memory", "sqlite", "pg-exact", "pg-hnsw", "approx", "sqlite-approx")
#: Worker stores whose rows are clustered (an approximate index's realistic case)
#: and whose second pass searches the same store through its IVF index.
IVF_STORES = ("approx", "sqlite-approx")
#: The SQLite stores' matrix cache: room for a 1M x 384 tenant (1.5 GB), which the
#: default 256 MiB cannot hold (every search would read the rows again); a
#: deployment of that size sets `cache_bytes` the same way.
SQLITE_CACHE_BYTES = 4 * 2**30
#: rapidfuzz's extract over a million names takes about a second a query: past
#: 100k it is timed over the first queries only.
RAPIDFUZZ_QUERIES_PAST_100K = 20
#: Past 100k the three other tenants hold this many entities each rather than N/10,
#: so a 1M worker fits the machine's memory beside another (the searched tenant's
#: size is what the rows measure; the others only check the tenant filter).
OTHER_TENANT_N_PAST_100K = 10_000
#: Centres of the clustered rows (ADR 0191's `scripts/bench_ann.py` recipe).
CLUSTERS = 100
#: The embedded server's buffers: room for the largest table run here (100k x 768
#: plus the other tenants' rows is about 500 MB), so exact search reads no page
#: from the OS cache (B190).
SHARED_BUFFERS = "1GB"
#: `hnsw.ef_search` values the pg-hnsw row sweeps (B192); 100 is the default (ADR 0196).
EF_SEARCH = (40, 100, 160, 320)
ORG_SUFFIXES = ("Ltd", "Limited", "Group", "Holdings", "Inc", "Corporation", "Partners", "Co")


# -- corpus ------------------------------------------------------------------------------------


def name_parts() -> tuple[list[str], list[str], list[str]]:
    """First names, surnames and organisation words from the quality corpus, sorted."""
    data = json.loads((ROOT / "tests/data/quality/entity_corpus.json").read_text())
    firsts: set[str] = set()
    lasts: set[str] = set()
    words: set[str] = set()
    for entity in data["entities"]:
        tokens = entity["name"].replace(",", " ").split()
        if entity["entity_type"] == "person" and len(tokens) >= 2:
            firsts.add(tokens[0])
            lasts.add(tokens[-1])
        elif entity["entity_type"] == "organization":
            words.update(t for t in tokens[1:] if t.isalpha() and t not in ORG_SUFFIXES)
    return sorted(firsts), sorted(lasts), sorted(words)


def make_names(count: int, seed: int) -> list[tuple[str, str]]:
    """`count` distinct (type, name) pairs: 80% people, 20% organisations, deterministic."""
    firsts, lasts, words = name_parts()
    rng = np.random.default_rng(seed)
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    initials = [""] + [f" {c}." for c in "ABCDEFGHJKLMNPRSTW"]
    while len(out) < count:
        if rng.random() < 0.8:
            first = firsts[rng.integers(len(firsts))]
            middle = initials[rng.integers(len(initials))] if rng.random() < 0.5 else ""
            pair = ("person", f"{first}{middle} {lasts[rng.integers(len(lasts))]}")
        else:
            head = lasts[rng.integers(len(lasts))]
            pair = (
                "organization",
                f"{head} {words[rng.integers(len(words))]} {ORG_SUFFIXES[rng.integers(8)]}",
            )
        if pair not in seen:
            seen.add(pair)
            out.append(pair)
    return out


def typo(name: str, rng: np.random.Generator) -> str:
    """One edit (swap, deletion or substitution) inside a word of `name`."""
    chars = list(name)
    spots = [i for i in range(1, len(chars) - 1) if chars[i].isalpha() and chars[i + 1].isalpha()]
    i = spots[rng.integers(len(spots))]
    kind = rng.integers(3)
    if kind == 0:
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    elif kind == 1:
        del chars[i]
    else:
        chars[i] = "aeiourstn"[rng.integers(9)]
    return "".join(chars)


def make_queries(names: Sequence[str], count: int, seed: int) -> list[tuple[str, str, int]]:
    """(shape, query, target row): 40% exact, 30% typo, 30% surname only."""
    rng = np.random.default_rng(seed)
    queries = []
    for _ in range(count):
        row = int(rng.integers(len(names)))
        name = names[row]
        draw = rng.random()
        if draw < 0.4:
            queries.append(("exact", name, row))
        elif draw < 0.7:
            queries.append(("typo", typo(name, rng), row))
        else:
            tokens = name.split()
            surname = tokens[-1] if len(tokens) < 3 or "." in tokens[1] else tokens[0]
            queries.append(("surname", surname, row))
    return queries


def unit_rows(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def clustered_rows(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Unit rows around 100 random centres, noise of a centre's norm (ADR 0191's clustered rows).

    For the approximate row: an index over random rows is its worst case, and
    embeddings of text cluster. Exact search costs the same on either.
    """
    centres = unit_rows(CLUSTERS, dim, rng)
    matrix = np.empty((rows, dim), dtype=np.float32)
    for start in range(0, rows, 100_000):
        stop = min(rows, start + 100_000)
        matrix[start:stop] = centres[rng.integers(CLUSTERS, size=stop - start)]
        matrix[start:stop] += unit_rows(stop - start, dim, rng)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def entity_corpus(
    n: int, dim: int, clustered: bool
) -> tuple[Any, list[Any], np.ndarray, np.random.Generator]:
    """(searched tenant, entities, rows, generator): N entities of the searched tenant first.

    Three other tenants follow with N/10 each (10k past 100k); the rows are unit
    vectors, random or clustered, and the generator is left where the rows end.
    """
    from redstring import Entity, TenantId  # noqa: PLC0415

    rng = np.random.default_rng(n + dim)
    tenant = TenantId(uuid.UUID(int=1))
    others = [TenantId(uuid.UUID(int=2 + i)) for i in range(OTHER_TENANTS)]
    other_n = max(1, n // 10) if n <= 100_000 else OTHER_TENANT_N_PAST_100K
    counts = [(tenant, n)] + [(other, other_n) for other in others]
    total = sum(c for _, c in counts)
    pairs = make_names(total, seed=7)
    entities: list[Entity] = []
    offset = 0
    for owner, count in counts:
        entities.extend(
            Entity(tenant_id=owner, entity_type=kind, name=name)
            for kind, name in pairs[offset : offset + count]
        )
        offset += count
    matrix = (clustered_rows if clustered else unit_rows)(total, dim, rng)
    return tenant, entities, matrix, rng


async def ingest_entities(
    graph: Any, vectors: Any, entities: list[Any], matrix: np.ndarray, n: int
) -> dict[str, float]:
    """Upsert `entities` and their rows into `graph` and `vectors`, timing only the upserts.

    Batches of `BATCH` (`BATCH_PAST_100K` past 100k). Returns the wall milliseconds
    of each store (`graph_ms`, `vector_ms`), the CPU-seconds of both (`cpu_s`) and of
    the graph alone (`graph_cpu_s`), and the wall seconds and CPU-seconds once the
    first `n` (the searched tenant) are in (`tenant_s`, `tenant_cpu_s`).
    """
    from redstring.ports import VectorRecord  # noqa: PLC0415

    total = len(entities)
    graph_ms = vector_ms = cpu_s = graph_cpu_s = 0.0
    marks: dict[str, float] = {}
    step = BATCH if n <= 100_000 else BATCH_PAST_100K
    for start in range(0, total, step):
        batch = entities[start : start + step]
        records = [
            VectorRecord(
                tenant_id=e.tenant_id,
                entity_id=e.id,
                entity_type=e.entity_type,
                vector=matrix[start + i].tolist(),
            )
            for i, e in enumerate(batch)
        ]
        cpu_started = time.process_time()  # CPU-seconds beside wall time: the machine is shared
        graph_ms += await time_async(lambda batch=batch: graph.upsert(batch))
        graph_cpu_s += time.process_time() - cpu_started
        vector_ms += await time_async(lambda records=records: vectors.upsert(records))
        cpu_s += time.process_time() - cpu_started
        del records
        if (start + step) // 100_000 > start // 100_000:  # progress, read if the worker is stopped
            print(f"ingested {start + step:,} of {total:,} entities", file=sys.stderr, flush=True)
        if start + step >= n and "tenant_s" not in marks:
            marks["tenant_s"] = (graph_ms + vector_ms) / 1000  # the searched tenant's N
            marks["tenant_cpu_s"] = cpu_s
    return {
        "graph_ms": graph_ms,
        "vector_ms": vector_ms,
        "cpu_s": cpu_s,
        "graph_cpu_s": graph_cpu_s,
        **marks,
    }


def chunk_corpus(n: int, dim: int) -> tuple[Any, list[str], np.ndarray, np.random.Generator]:
    """(tenant, texts, rows, generator): N passages of two to four Lee sentences after a name.

    The rows are random unit vectors; the generator is left where the rows end.
    """
    from redstring import TenantId  # noqa: PLC0415

    rng = np.random.default_rng(n + dim + 1)
    tenant = TenantId(uuid.UUID(int=1))
    sentences = lee_sentences()
    people = [name for kind, name in make_names(2000, seed=3) if kind == "person"]
    texts: list[str] = []
    for i in range(n):
        picked = [sentences[j] for j in rng.integers(len(sentences), size=int(rng.integers(2, 5)))]
        texts.append(f"{people[i % len(people)]}: " + " ".join(picked))
    return tenant, texts, unit_rows(n, dim, rng), rng


def stored_chunk(tenant: Any, i: int, text: str, vector: np.ndarray) -> Any:
    """The `i`-th passage: document i // 10, position i % 10."""
    from redstring import StoredChunk  # noqa: PLC0415

    return StoredChunk(
        tenant_id=tenant,
        source_id=f"doc-{i // 10}",
        text=text,
        index=i % 10,
        start=0,
        end=len(text),
        embedding=vector.tolist(),
    )


async def ingest_chunks(
    store: Any, tenant: Any, texts: list[str], matrix: np.ndarray
) -> tuple[float, float]:
    """Upsert the passages in batches of `BATCH`: (wall ms, CPU-seconds) of the upserts alone."""
    wall_ms = cpu_s = 0.0
    for start in range(0, len(texts), BATCH):
        batch = [
            stored_chunk(tenant, i, texts[i], matrix[i])
            for i in range(start, min(len(texts), start + BATCH))
        ]
        cpu_started = time.process_time()
        wall_ms += await time_async(lambda batch=batch: store.upsert_chunks(batch))
        cpu_s += time.process_time() - cpu_started
    return wall_ms, cpu_s


class TableEmbeddings:
    """An embedding provider answering from a table of precomputed query vectors."""

    def __init__(self, dimension: int, table: dict[str, list[float]]) -> None:
        self.dimension = dimension
        self._table = table

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._table[text] for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._table[text] for text in texts]


# -- timing helpers ----------------------------------------------------------------------------


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def time_async(call: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await call()
    return (time.perf_counter() - started) * 1000.0


def time_sync(call: Callable[[], object]) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000.0


def numpy_top_k(matrix: np.ndarray, query: np.ndarray, k: int) -> np.ndarray:
    scores = matrix @ query
    best = np.argpartition(-scores, k)[:k]
    return best[np.argsort(-scores[best])]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "p50": float(np.percentile(values, 50)),
        "p90": float(np.percentile(values, 90)),
        "n": len(values),
    }


# -- workers -----------------------------------------------------------------------------------


async def open_stores(store: str, dim: int, url: str | None, tag: str) -> tuple[Any, Any, Any]:
    """(graph, vectors, closer) for one store kind, empty."""
    from redstring.stores import InMemoryGraphStore, InMemoryVectorStore, open_postgres, open_sqlite  # noqa: PLC0415

    if store == "memory":
        return InMemoryGraphStore(), InMemoryVectorStore(dimension=dim), None
    if store == "approx":
        from redstring.stores import ApproximateVectorStore  # noqa: PLC0415

        return InMemoryGraphStore(), ApproximateVectorStore(dimension=dim), None
    if store in ("sqlite", "sqlite-approx"):
        folder = Path(tempfile.mkdtemp(prefix="redstring-bench-"))
        mode = "ivf" if store == "sqlite-approx" else "exact"
        stores = open_sqlite(
            folder / "bench.db", dimension=dim, cache_bytes=SQLITE_CACHE_BYTES, search_mode=mode
        )

        async def close_sqlite() -> None:
            await stores.close()
            shutil.rmtree(folder, ignore_errors=True)

        return stores.graph, stores.vectors, close_sqlite
    assert url is not None
    pg = await open_postgres(url, dimension=dim, schema=f"bench_{tag}", max_size=4)
    return pg.graph, pg.vectors, pg.close


async def entity_worker(
    store: str, n: int, dim: int, queries: int, url: str | None
) -> list[dict[str, Any]]:
    tenant, entities, matrix, rng = entity_corpus(n, dim, clustered=store in IVF_STORES)
    total = len(entities)
    mine = matrix[:n]
    names = [e.name for e in entities[:n]]
    mix = make_queries(names, queries, seed=11)
    noise = unit_rows(len(mix), dim, rng)
    table: dict[str, list[float]] = {}
    for (_, text, row), extra in zip(mix, noise, strict=True):
        vector = mine[row] + 0.5 * extra
        table.setdefault(text, (vector / np.linalg.norm(vector)).tolist())

    tag = f"{store.replace('-', '_')}_{n}_{dim}_{uuid.uuid4().hex[:6]}"
    graph, vectors, close = await open_stores(store, dim, url, tag)
    before_ingest = rss_mb()
    marks = await ingest_entities(graph, vectors, entities, matrix, n)
    graph_ms, vector_ms, cpu_s = marks["graph_ms"], marks["vector_ms"], marks["cpu_s"]
    result: dict[str, Any] = {
        "kind": "entities",
        "store": store,
        "n": n,
        "dim": dim,
        "total_entities": total,
        "ingest_s": (graph_ms + vector_ms) / 1000,
        "ingest_graph_s": graph_ms / 1000,
        "ingest_vectors_s": vector_ms / 1000,
        "ingest_per_s": total / ((graph_ms + vector_ms) / 1000),
        "ingest_tenant_s": marks["tenant_s"],
        "rss_before_ingest_mb": before_ingest,
        "vectors": "clustered" if store in IVF_STORES else "random",
        "ingest_cpu_s": cpu_s,
        "ingest_tenant_cpu_s": marks["tenant_cpu_s"],
    }
    if store.startswith("pg"):
        from bench_passes import vacuum_after_load  # noqa: PLC0415

        assert url is not None
        result.update(vacuum_after_load(url, f"bench_{tag}"))
    return await entity_passes(
        store, result, (graph, vectors, close), url, tag, tenant, mix, table, mine, entities[:n]
    )


#: What each worker's store kind reports its first (exact) pass as.
EXACT_LABEL = {
    "approx": "memory",
    "sqlite-approx": "sqlite",
    "pg": "pg-exact",
}


async def entity_passes(
    store: str,
    result: dict[str, Any],
    opened: tuple[Any, Any, Any],
    url: str | None,
    tag: str,
    tenant: Any,
    mix: list[tuple[str, str, int]],
    table: dict[str, list[float]],
    mine: np.ndarray,
    entities: list[Any],
) -> list[dict[str, Any]]:
    """The exact pass of an ingested worker, then its second configuration if it has one."""
    from bench_passes import (  # noqa: PLC0415
        ExactView,
        approximate_passes,
        hnsw_passes,
        measure,
    )
    from redstring import Retriever  # noqa: PLC0415

    graph, vectors, close = opened
    n, dim = result["n"], result["dim"]
    fuzz = len(mix) if n <= 100_000 else RAPIDFUZZ_QUERIES_PAST_100K
    exact_vectors = ExactView(vectors) if store in IVF_STORES else vectors
    retriever = Retriever(
        embeddings=TableEmbeddings(dim, table), vectors=exact_vectors, graph=graph
    )
    names = [e.name for e in entities]
    first = await measure(retriever, graph, tenant, mix, table, mine, names, rapidfuzz_queries=fuzz)
    result["peak_rss_mb"] = peak_mb()
    result["ingest_growth_mb"] = peak_mb() - result.pop("rss_before_ingest_mb")
    if store == "memory" and n <= 100_000:  # the rows with a wall-clock ingest target
        from bench_memory import first_touch  # noqa: PLC0415

        result["first_touch"] = first_touch(result["ingest_growth_mb"])
    results = [{**result, "store": EXACT_LABEL.get(store, store), **first}]
    base = {k: v for k, v in result.items() if k not in first}
    schema = f"bench_{tag}"
    if store in IVF_STORES:
        second = await approximate_passes(
            vectors, retriever, graph, tenant, mix, table, mine, entities, rapidfuzz_queries=fuzz
        )
        results.append({**base, "store": store, "vectors": "clustered", **second})
    elif store == "pg":
        assert url is not None
        second = await hnsw_passes(
            url,
            schema,
            dim,
            vectors,
            close,
            tenant,
            mix,
            table,
            mine,
            entities,
            EF_SEARCH,
            rapidfuzz_queries=fuzz,
        )
        close = None  # hnsw_passes closed the exact store and its own
        results.append({**base, "store": "pg-hnsw", **second})
    if close is not None:
        await close()
    return results


def lee_sentences() -> list[str]:
    import re  # noqa: PLC0415

    data = json.loads((ROOT / "tests/data/quality/passages.json").read_text())
    sentences: list[str] = []
    for document in data["documents"]:
        sentences.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", document["text"]))
    return sorted({s for s in sentences if len(s.split()) >= 4})


async def chunk_worker(store: str, n: int, dim: int, queries: int) -> dict:
    import bm25s  # noqa: PLC0415
    from threadpoolctl import ThreadpoolController  # noqa: PLC0415

    from redstring import ChunkRetriever, RetrievalMode  # noqa: PLC0415
    from redstring.domain.tokenize import tokenize  # noqa: PLC0415
    from redstring.stores import InMemoryChunkStore  # noqa: PLC0415

    assert store == "memory"
    tenant, texts, matrix, rng = chunk_corpus(n, dim)
    vocabulary = sorted({t for s in lee_sentences() for t in tokenize(s)})
    mix: list[str] = []
    for _ in range(queries):
        words = rng.choice(vocabulary, size=int(rng.integers(1, 4)), replace=False)
        mix.append(" ".join(str(w) for w in words))
    noise = unit_rows(queries, dim, rng)
    table = {}
    for text, extra in zip(mix, noise, strict=True):
        vector = matrix[rng.integers(n)] + 0.5 * extra
        table.setdefault(text, (vector / np.linalg.norm(vector)).tolist())

    chunks_store = InMemoryChunkStore(dimension=dim)
    before = rss_mb()
    ingest_ms, ingest_cpu_s = await ingest_chunks(chunks_store, tenant, texts, matrix)
    retriever = ChunkRetriever(embeddings=TableEmbeddings(dim, table), chunks=chunks_store)
    modes = {
        "semantic": RetrievalMode.SEMANTIC,
        "bm25": RetrievalMode.LEXICAL,
        "hybrid": RetrievalMode.HYBRID,
    }
    for mode in modes.values():
        await retriever.retrieve_chunks(mix[0], tenant, k=K, mode=mode)
    result: dict[str, Any] = {
        "kind": "chunks",
        "store": store,
        "n": n,
        "dim": dim,
        "ingest_s": ingest_ms / 1000,
        "ingest_cpu_s": ingest_cpu_s,
        "ingest_per_s": n / (ingest_ms / 1000),
        "peak_rss_mb": peak_mb(),
        "ingest_growth_mb": peak_mb() - before,
    }
    from bench_memory import first_touch  # noqa: PLC0415

    result["first_touch"] = first_touch(result["ingest_growth_mb"])
    started = time.perf_counter()
    index = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    index.index([tokenize(t) for t in texts], show_progress=False)
    result["bm25s_index_s"] = time.perf_counter() - started
    controller = ThreadpoolController()
    timings: dict[str, list[float]] = {
        name: [] for name in [*modes, "bm25s", "numpy_1thread", "numpy_default"]
    }
    for name, mode in modes.items():  # one pass per operation, as for entities
        for text in mix:
            timings[name].append(
                await time_async(
                    lambda text=text, mode=mode: retriever.retrieve_chunks(
                        text, tenant, k=K, mode=mode
                    )
                )
            )
    for text in mix:
        tokens = tokenize(text)
        timings["bm25s"].append(
            time_sync(
                lambda tokens=tokens: index.retrieve(
                    [tokens], k=K, show_progress=False, n_threads=1
                )
            )
        )
    vectors_of = [np.asarray(table[text], dtype=np.float32) for text in mix]
    with controller.limit(limits=1, user_api="blas"):
        for q in vectors_of:
            timings["numpy_1thread"].append(time_sync(lambda q=q: numpy_top_k(matrix, q, K)))
    for q in vectors_of:
        timings["numpy_default"].append(time_sync(lambda q=q: numpy_top_k(matrix, q, K)))
    result["latency"] = {name: summary(values) for name, values in timings.items()}
    return result


# -- parent: run configurations, print, plot ----------------------------------------------------


class Worker:
    """One worker subprocess, started now and read by `results` (stderr goes to a file)."""

    def __init__(self, args: list[str], url: str | None) -> None:
        env = dict(os.environ)
        if url is not None:
            env["BENCH_PG_URL"] = url
        self.args = args
        self.started = time.perf_counter()
        self._stderr = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115  # read and closed at the end
        self._process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", *args],
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            env=env,
        )

    def results(self, stop_at: float | None) -> list[dict] | str:
        """The worker's results, or why there are none (it failed, or ran into `stop_at`)."""
        budget = None if stop_at is None else max(0.0, stop_at - time.time())
        try:
            out, _ = self._process.communicate(timeout=budget)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.communicate()
            progress = [line for line in self._errors().splitlines() if line.startswith("ingested")]
            return (
                f"stopped after {time.perf_counter() - self.started:.0f} s at the run's --stop-at"
                f" ({stamp(stop_at)}), to land the results in time"
                + (f"; it had {progress[-1]}" if progress else "")
            )
        if self._process.returncode != 0:
            print(f"<!-- worker {self.args} failed: {self._errors()[-2000:]} -->", flush=True)
            return "the worker failed (its stderr is printed above)"
        if not out.strip():
            return "the worker ended without printing its results"
        results: list[dict] = json.loads(out.strip().splitlines()[-1])
        for result in results:
            result["wall_s"] = time.perf_counter() - self.started
        return results

    def _errors(self) -> str:
        self._stderr.seek(0)
        text = self._stderr.read()
        self._stderr.seek(0, os.SEEK_END)
        return text


def stamp(when: float | None) -> str:
    return "-" if when is None else time.strftime("%H:%M UTC", time.gmtime(when))


def fmt(cell: dict[str, float]) -> str:
    return f"{cell['p50']:.2f} / {cell['p90']:.2f}"


def cpu_of(result: dict, field: str) -> str:
    """A CPU-seconds figure, or "-" for a run saved before it was measured."""
    return f"{result[field]:.1f}" if field in result else "-"


def entity_table(results: list[dict]) -> str:
    lines = [
        "| N | dim | store | SEMANTIC | LEXICAL | HYBRID | numpy floor (1 thread / default)"
        " | rapidfuzz extract | HYBRID / (floor + LEXICAL) | LEXICAL / rapidfuzz"
        " | ingest s, N / all tenants (entities/s; CPU s, N) | peak RSS MB (ingest growth) |",
        "| ---: | ---: | --- | --- | --- | --- | --- | --- | ---: | ---: | --- | --- |",
    ]
    for r in results:
        lat = r["latency"]
        floor = lat["numpy_1thread"]["p50"]
        ratio = lat["hybrid"]["p50"] / (floor + lat["lexical"]["p50"])
        extra = ""
        if "hnsw_build_s" in r:
            extra = f" (HNSW build {r['hnsw_build_s']:.0f} s)"
        if "ann_build_s" in r:
            extra = f" (IVF build {r['ann_build_s']:.0f} s, probes {r['ann_probes']})"
        if "vacuum_s" in r:
            extra += (
                f" (VACUUM (ANALYZE) after the load, {r['vacuum_s']:.0f} s; vector pages not"
                f" all-visible {r['pages_not_all_visible']:,} -> "
                f"{r['pages_not_all_visible_after']:,} of {r['pages']:,})"
            )
        if r.get("vectors") == "clustered":
            extra += ", clustered rows"
        lines.append(
            f"| {r['n']:,} | {r['dim']} | {r['store']}{extra} | {fmt(lat['semantic'])}"
            f" | {fmt(lat['lexical'])} | {fmt(lat['hybrid'])}"
            f" | {fmt(lat['numpy_1thread'])} ({lat['numpy_default']['p50']:.2f})"
            f" | {fmt(lat['rapidfuzz'])} ({lat['rapidfuzz']['n']} q) | {ratio:.2f}x"
            f" | {lat['lexical']['p50'] / lat['rapidfuzz']['p50']:.3f}x"
            f" | {r['ingest_tenant_s']:.1f} / {r['ingest_s']:.1f} ({r['ingest_per_s']:,.0f};"
            f" CPU {cpu_of(r, 'ingest_tenant_cpu_s')})"
            f" | {r['peak_rss_mb']:,.0f} ({r['ingest_growth_mb']:,.0f}) |"
        )
    return "\n".join(lines)


def chunk_table(results: list[dict]) -> str:
    lines = [
        "| N chunks | dim | store | BM25 | bm25s | BM25 / bm25s | SEMANTIC | numpy floor"
        " (1 thread) | HYBRID | ingest s (chunks/s; CPU s) | peak RSS MB (ingest growth) |",
        "| ---: | ---: | --- | --- | --- | ---: | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        lat = r["latency"]
        lines.append(
            f"| {r['n']:,} | {r['dim']} | {r['store']} | {fmt(lat['bm25'])} | {fmt(lat['bm25s'])}"
            f" | {lat['bm25']['p50'] / lat['bm25s']['p50']:.2f}x | {fmt(lat['semantic'])}"
            f" | {fmt(lat['numpy_1thread'])} | {fmt(lat['hybrid'])}"
            f" | {r['ingest_s']:.1f} ({r['ingest_per_s']:,.0f}; CPU {cpu_of(r, 'ingest_cpu_s')})"
            f" | {r['peak_rss_mb']:,.0f} ({r['ingest_growth_mb']:,.0f}) |"
        )
    return "\n".join(lines)


def plot(results: list[dict], chunks: list[dict], path: Path) -> None:
    """Median latency against N: one panel per mode (a line per store), and the chunks."""
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    modes = ("semantic", "lexical", "hybrid")
    fig, axes = plt.subplots(
        1, len(modes) + 1, figsize=(5.5 * (len(modes) + 1), 4.5), squeeze=False
    )
    colours = {store: f"C{i}" for i, store in enumerate(STORES)}
    for ax, mode in zip(axes[0], modes, strict=False):
        for store, colour in colours.items():
            for dim, style in ((384, "-o"), (768, "none")):
                rows = sorted(
                    (r for r in results if r["dim"] == dim and r["store"] == store),
                    key=lambda r: r["n"],
                )
                if not rows:
                    continue
                ax.plot(
                    [r["n"] for r in rows],
                    [r["latency"][mode]["p50"] for r in rows],
                    style if dim == 384 else "D",
                    color=colour,
                    fillstyle="full" if dim == 384 else "none",
                    label=store if dim == 384 else f"{store}, 768 dims",
                )
        floor = {
            r["n"]: r["latency"]["numpy_1thread"]["p50"]
            for r in sorted(results, key=lambda r: r["n"])
            if r["dim"] == 384 and r["store"] in ("memory", "approx")
        }
        ax.plot(list(floor), list(floor.values()), "k--", linewidth=1.5, label="numpy floor")
        ax.set(xscale="log", yscale="log", xlabel="entities in tenant", ylabel="median ms")
        ax.set_title(f"Retriever.retrieve {mode.upper()}, 384 dims, k={K}")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=6)
    ax = axes[0][-1]
    for name in ("bm25", "bm25s", "semantic", "hybrid", "numpy_1thread"):
        rows = sorted(chunks, key=lambda r: r["n"])
        if rows:
            ax.plot(
                [r["n"] for r in rows], [r["latency"][name]["p50"] for r in rows], "-o", label=name
            )
    ax.set(xscale="log", yscale="log", xlabel="chunks in tenant", ylabel="median ms")
    ax.set_title("ChunkRetriever.retrieve_chunks (in-memory)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def machine() -> str:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import bm25s  # noqa: PLC0415
    import rapidfuzz  # noqa: PLC0415
    from threadpoolctl import threadpool_info  # noqa: PLC0415

    blas = [
        f"{i['internal_api']} {i['version']} ({i['num_threads']} threads)"
        for i in threadpool_info()
    ]
    return (
        f"{os.cpu_count()} CPUs ({cpu}), {memory:.0f} GiB RAM, Python {platform.python_version()},"
        f" numpy {np.__version__} with {', '.join(blas)}, rapidfuzz {rapidfuzz.__version__},"
        f" bm25s {bm25s.__version__}"
    )


#: Selectable rows of issue 16's table and the worker configurations each needs:
#: (kind, store, n, dim), with n=None for "each of --sizes".
ROWS: dict[str, list[tuple[str, str, str, int]]] = {
    "chunks": [("chunks", "memory", "sizes", 384)],
    "entities": [("entities", "memory", "sizes", 384)],
    "sqlite": [("entities", "memory", "sizes", 384), ("entities", "sqlite", "sizes", 384)],
    "indexing": [],
    "pg-exact": [("entities", "pg", "sizes", 384)],  # exact, then HNSW over the same rows
    "pg-hnsw": [("entities", "pg", "sizes", 384)],
    "pg-hnsw-clustered": [],  # scripts/bench_pg_hnsw.py (ADR 0196's clustered rows)
    # exact, then the IVF index over the same clustered rows: in memory, then in SQLite
    "million": [
        ("entities", "approx", "million", 384),
        ("entities", "sqlite-approx", "million", 384),
    ],
    # PostgreSQL: exact search only (no HNSW build at 768)
    "d768": [
        ("entities", "memory", "wide", 768),
        ("entities", "sqlite", "wide", 768),
        ("entities", "pg-exact", "wide", 768),
    ],
}
#: Memory the 1M row needs free before it is started (its worker peaked near 10x the
#: 100k worker's 1.2 GB).
MILLION_NEEDS_GB = 14
#: Stores whose 1M worker runs beside the other rows (`--beside`, the default): the
#: SQLite ingest of 1M entities alone takes about half an hour on the 2-core VM,
#: longer than the rest of the run allows; its figures are against baselines
#: timed in its own process, under the other rows' load, as the table says.
BESIDE_AT_MILLION = ("sqlite-approx",)
#: Memory the SQLite 1M worker needs on top of the in-memory 1M worker.
BESIDE_NEEDS_GB = 6


def available_gb() -> float:
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    return 0.0


def configurations(rows: list[str], sizes: dict[str, list[int]]) -> list[tuple[str, str, int, int]]:
    """The distinct worker configurations the selected rows need, in a stable order.

    `sizes` maps the size names of `ROWS` ("sizes", "million", "wide") to N values.
    """
    out: list[tuple[str, str, int, int]] = []
    for row in rows:
        for kind, store, size_name, dim in ROWS[row]:
            for size in sizes[size_name]:
                if (kind, store, size, dim) not in out:
                    out.append((kind, store, size, dim))
    return out


def report(saved: dict[str, Any], plot_path: str) -> None:
    from bench_indexing import rows as indexing_rows  # noqa: PLC0415
    from bench_targets import issue_rows, table  # noqa: PLC0415

    entity_results, chunk_results = saved["entities"], saved["chunks"]
    print("\n## Entities (median / p90 ms)\n")
    print(entity_table(entity_results))
    print("\n## Chunks (median / p90 ms)\n")
    print(chunk_table(chunk_results))
    indexing = saved.get("indexing")
    rows = issue_rows(
        entity_results,
        chunk_results,
        indexing_rows(indexing) if indexing else None,
        saved.get("why", {}),
        saved.get("pg_hnsw_clustered"),
    )
    print(f"\n## Issue 16 targets (load average {saved.get('load', '?')})\n")
    print(table(rows))
    if entity_results or chunk_results:
        plot(entity_results, chunk_results, Path(plot_path))


def run_indexing(megabytes: float) -> dict | None:
    out = Path(tempfile.mkdtemp(prefix="redstring-bench-")) / "indexing.json"
    command = [
        sys.executable,
        str(ROOT / "scripts/bench_indexing.py"),
        "--mb",
        str(megabytes),
        "--json",
        str(out),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"<!-- indexing failed: {done.stderr[-2000:]} -->", flush=True)
        return None
    print(done.stdout, flush=True)
    result: dict = json.loads(out.read_text())
    shutil.rmtree(out.parent, ignore_errors=True)
    return result


def run_pg_hnsw_clustered(n: int, queries: int, stop_at: float | None) -> dict | str:
    """scripts/bench_pg_hnsw.py at the store's defaults (ef_search 100, exact_below 5,000)."""
    out = Path(tempfile.mkdtemp(prefix="redstring-bench-")) / "pg_hnsw.json"
    command = [
        sys.executable,
        str(ROOT / "scripts/bench_pg_hnsw.py"),
        *("--n", str(n), "--queries", str(queries), "--efs", "100"),
        *("--exact-below", "0", "5000", "--json", str(out)),
    ]
    budget = None if stop_at is None else stop_at - time.time()
    if budget is not None and budget <= 0:
        return f"not started: the run's --stop-at ({stamp(stop_at)}) had passed"
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=budget)
    except subprocess.TimeoutExpired:
        return f"stopped at the run's --stop-at ({stamp(stop_at)}), to land the results in time"
    if done.returncode != 0:
        print(f"<!-- bench_pg_hnsw failed: {done.stderr[-2000:]} -->", flush=True)
        return "scripts/bench_pg_hnsw.py failed (its stderr is printed above)"
    print(done.stdout, flush=True)
    result: dict = json.loads(out.read_text())
    shutil.rmtree(out.parent, ignore_errors=True)
    return result


def parent(args: argparse.Namespace) -> None:
    if args.from_json:
        report(json.loads(Path(args.from_json).read_text()), args.plot)
        return
    rows = list(dict.fromkeys(args.rows))
    why = {row: f"not selected (add `--rows {row}`)" for row in ROWS if row not in rows}
    stop_at = None
    if args.stop_at:
        hours, minutes = (int(part) for part in args.stop_at.split(":"))
        today = time.gmtime()
        stop_at = time.mktime((*today[:3], hours, minutes, 0, 0, 0, 0)) - time.timezone
    print(f"Machine: {machine()}\nload average at start: {os.getloadavg()}\n", flush=True)
    saved: dict[str, Any] = {"entities": [], "chunks": [], "why": why, "loads": []}
    sizes = {"sizes": list(args.sizes), "million": [args.million], "wide": [args.wide]}
    configs = configurations(rows, sizes)
    saved["started"] = stamp(time.time())

    def note_load(what: str) -> None:
        saved["loads"].append([stamp(time.time()), what, *os.getloadavg()])

    with contextlib.ExitStack() as stack:
        url = None
        if any(store.startswith("pg") for _, store, _, _ in configs):
            from tests.postgres_server import running_server  # noqa: PLC0415

            url = stack.enter_context(
                running_server(durable=True, shared_buffers=args.shared_buffers)
            )
            import psycopg  # noqa: PLC0415

            with psycopg.connect(url, autocommit=True) as connection:
                connection.execute("ALTER SYSTEM SET maintenance_work_mem = '2GB'")
                connection.execute("SELECT pg_reload_conf()")
        beside: dict[tuple[str, str, int, int], Worker] = {}
        for config in configs if args.beside else []:
            kind, store, n, dim = config
            roomy = available_gb() >= (MILLION_NEEDS_GB + BESIDE_NEEDS_GB) * n / 1_000_000
            if store in BESIDE_AT_MILLION and n == args.million and roomy:
                note_load(f"{kind} {store} {n} x {dim}, beside the others")
                beside[config] = Worker([kind, store, str(n), str(dim), str(args.queries)], url)
        configs = [c for c in configs if c not in beside] + list(beside)  # read it last
        if "indexing" in rows:
            note_load("indexing")
            saved["indexing"] = run_indexing(args.index_mb)
            if saved["indexing"] is None:
                why["indexing"] = "the indexing worker failed (its stderr is printed above)"
        for config in configs:
            kind, store, n, dim = config
            needed = [
                row
                for row, needs in ROWS.items()
                if any(c[:2] == (kind, store) and c[3] == dim and n in sizes[c[2]] for c in needs)
            ]
            needs_gb = MILLION_NEEDS_GB * n / 1_000_000
            if n >= 1_000_000 and available_gb() < needs_gb and config not in beside:
                found: list[dict] | str = (
                    f"not started: the machine had {available_gb():.1f} GB available, a 1M"
                    f" worker needs about {needs_gb:.0f} GB"
                )
            elif config in beside:
                found = beside[config].results(stop_at)
                for result in found if isinstance(found, list) else []:
                    result["beside"] = True
            else:
                note_load(f"{kind} {store} {n} x {dim}")
                found = Worker([kind, store, str(n), str(dim), str(args.queries)], url).results(
                    stop_at
                )
            if isinstance(found, str):
                for row in needed:
                    why.setdefault(f"{row}:{store}", found)
                    why.setdefault(row, found)
                continue
            key = "entities" if kind == "entities" else "chunks"
            saved[key].extend(found)
            print((entity_table if key == "entities" else chunk_table)(found), flush=True)
            Path(args.json).write_text(json.dumps(saved, indent=1))
            if "pg-hnsw-clustered" in rows and store == "pg" and n == max(args.sizes):
                note_load("pg-hnsw-clustered")
                clustered = run_pg_hnsw_clustered(n, args.queries, stop_at)
                if isinstance(clustered, str):
                    why["pg-hnsw-clustered"] = clustered
                else:
                    saved["pg_hnsw_clustered"] = clustered
        if "pg-hnsw-clustered" in rows and "pg_hnsw_clustered" not in saved:
            why.setdefault("pg-hnsw-clustered", "it runs after the pg rows, which did not run")
    note_load("end")
    saved["ended"] = stamp(time.time())
    saved["load"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    Path(args.json).write_text(json.dumps(saved, indent=1))
    report(saved, args.plot)
    print(f"\nplot: {args.plot}; raw figures: {args.json}")


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--worker":
        kind, store, n, dim, queries = argv[1:6]
        url = os.environ.get("BENCH_PG_URL")
        if kind == "entities":
            results = asyncio.run(entity_worker(store, int(n), int(dim), int(queries), url))
        else:
            results = [asyncio.run(chunk_worker(store, int(n), int(dim), int(queries)))]
        print(json.dumps(results))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        nargs="+",
        default=list(ROWS),
        choices=list(ROWS),
        help="rows of issue 16's table to run (default: all)",
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[10_000, 100_000],
        help="N for the 100k rows (10k too, for the latency-vs-N plot)",
    )
    parser.add_argument("--million", type=int, default=1_000_000, help="N for the 1M rows")
    parser.add_argument("--wide", type=int, default=100_000, help="N for the 768-dim rows")
    parser.add_argument(
        "--beside",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="run the SQLite 1M worker beside the other rows, from the start (default: yes)",
    )
    parser.add_argument(
        "--stop-at",
        help="HH:MM UTC: a worker still running then is stopped, and its row says so",
    )
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--index-mb", type=float, default=2.0, help="text the indexing row indexes")
    parser.add_argument(
        "--shared-buffers",
        default=SHARED_BUFFERS,
        help=f"the embedded PostgreSQL server's shared_buffers (default {SHARED_BUFFERS})",
    )
    parser.add_argument("--json", default=str(Path(tempfile.gettempdir()) / "bench_retrieval.json"))
    parser.add_argument(
        "--from-json", help="print the tables and draw the plot of a saved run, running nothing"
    )
    parser.add_argument("--plot", default=str(ROOT / "docs/img/bench_latency.png"))
    parent(parser.parse_args(argv))


if __name__ == "__main__":
    main(sys.argv[1:])
