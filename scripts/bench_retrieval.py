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

The rows of issue 16's table are selectable (`--rows`); the HNSW row sweeps
`hnsw.ef_search` and reports recall@10 against exact numpy top-10, the
indexing row runs scripts/bench_indexing.py:

    nice -n 10 uv run python scripts/bench_retrieval.py               # all rows but million
    nice -n 10 uv run python scripts/bench_retrieval.py --rows chunks indexing \
        --sizes 10000 --index-mb 0.2                                  # a few minutes
    nice -n 10 uv run python scripts/bench_retrieval.py --rows million

Prints markdown tables and issue 16's table (row, figure, baseline, target,
met?), writes the raw figures as JSON and the plot to docs/img/bench_latency.png.
PostgreSQL comes from an embedded server started and stopped here.
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
STORES = ("memory", "sqlite", "pg-exact", "pg-hnsw")
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
    if store == "sqlite":
        folder = Path(tempfile.mkdtemp(prefix="redstring-bench-"))
        stores = open_sqlite(folder / "bench.db", dimension=dim)

        async def close_sqlite() -> None:
            await stores.close()
            shutil.rmtree(folder, ignore_errors=True)

        return stores.graph, stores.vectors, close_sqlite
    assert url is not None
    pg = await open_postgres(url, dimension=dim, schema=f"bench_{tag}", max_size=4)
    return pg.graph, pg.vectors, pg.close


async def entity_worker(store: str, n: int, dim: int, queries: int, url: str | None) -> dict:
    from threadpoolctl import ThreadpoolController  # noqa: PLC0415

    from redstring import Entity, RetrievalMode, Retriever, TenantId  # noqa: PLC0415
    from redstring.ports import VectorRecord  # noqa: PLC0415

    rng = np.random.default_rng(n + dim)
    tenant = TenantId(uuid.UUID(int=1))
    others = [TenantId(uuid.UUID(int=2 + i)) for i in range(OTHER_TENANTS)]
    counts = [(tenant, n)] + [(other, max(1, n // 10)) for other in others]
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
    matrix = unit_rows(total, dim, rng)
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
    graph_ms = vector_ms = cpu_s = 0.0
    marks: dict[str, float] = {}
    for start in range(0, total, BATCH):
        batch = entities[start : start + BATCH]
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
        vector_ms += await time_async(lambda records=records: vectors.upsert(records))
        cpu_s += time.process_time() - cpu_started
        del records
        if start + BATCH >= n and "tenant_s" not in marks:
            marks["tenant_s"] = (graph_ms + vector_ms) / 1000  # the searched tenant's N
            marks["tenant_cpu_s"] = cpu_s
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
        "ingest_cpu_s": cpu_s,
        "ingest_tenant_cpu_s": marks["tenant_cpu_s"],
    }
    if store == "pg-hnsw":
        started = time.perf_counter()
        await vectors.create_hnsw_index()
        result["hnsw_build_s"] = time.perf_counter() - started
        await close()
        from redstring.stores import open_postgres  # noqa: PLC0415

        assert url is not None
        pg = await open_postgres(url, dimension=dim, schema=f"bench_{tag}", search_mode="hnsw")
        graph, vectors, close = pg.graph, pg.vectors, pg.close

    retriever = Retriever(embeddings=TableEmbeddings(dim, table), vectors=vectors, graph=graph)
    modes = {
        "semantic": RetrievalMode.SEMANTIC,
        "lexical": RetrievalMode.LEXICAL,
        "hybrid": RetrievalMode.HYBRID,
    }
    # An untimed warm-up pass over the whole query mix (B103): HYBRID runs the
    # SEMANTIC and LEXICAL work too, so no timed pass pays for cold caches
    # (matrix stacking, statement preparation, a just-built HNSW index's pages).
    for _, text, _ in mix:
        await retriever.retrieve(text, tenant, k=K, mode=RetrievalMode.HYBRID)
    result["peak_rss_mb"] = peak_mb()
    result["ingest_growth_mb"] = peak_mb() - before_ingest

    from rapidfuzz import process, utils  # noqa: PLC0415

    controller = ThreadpoolController()
    timings: dict[str, list[float]] = {
        name: [] for name in [*modes, "numpy_1thread", "numpy_default", "rapidfuzz", "blocking"]
    }
    by_shape: dict[str, dict[str, list[float]]] = {}
    from redstring.domain.blocking import query_blocking_keys  # noqa: PLC0415
    from redstring.domain.query import NormalizedQuery  # noqa: PLC0415

    candidates: list[int] = []
    # One pass per operation, so no operation runs with another's data in the caches.
    for name, mode in modes.items():
        for shape, text, _ in mix:
            ms = await time_async(
                lambda text=text, mode=mode: retriever.retrieve(text, tenant, k=K, mode=mode)
            )
            timings[name].append(ms)
            by_shape.setdefault(shape, {}).setdefault(name, []).append(ms)
    vectors_of = [np.asarray(table[text], dtype=np.float32) for _, text, _ in mix]
    with controller.limit(limits=1, user_api="blas"):
        for q in vectors_of:
            timings["numpy_1thread"].append(time_sync(lambda q=q: numpy_top_k(mine, q, K)))
    for _, text, _ in mix:
        timings["rapidfuzz"].append(
            time_sync(
                lambda text=text: process.extract(
                    text, names, processor=utils.default_process, limit=K
                )
            )
        )
    for _, text, _ in mix:
        keys = query_blocking_keys(NormalizedQuery.of(text))
        found: dict[str, list[Any]] = {}

        async def lookup(keys: list[str] = keys, found: dict[str, list[Any]] = found) -> None:
            found.update(await graph.find_by_blocking_keys(keys, tenant))

        timings["blocking"].append(await time_async(lookup))
        candidates.append(len({e.id for group in found.values() for e in group}))
    for q in vectors_of:  # last: a threaded BLAS leaves its threads spinning for a while
        timings["numpy_default"].append(time_sync(lambda q=q: numpy_top_k(mine, q, K)))
    result["latency"] = {name: summary(values) for name, values in timings.items()}
    result["by_shape"] = {
        shape: {name: summary(values) for name, values in modes_.items()}
        for shape, modes_ in by_shape.items()
    }
    result["lexical_candidates_p50"] = float(np.median(candidates))
    result["lexical_candidates_max"] = int(max(candidates))
    if store == "pg-hnsw":
        result["hnsw"] = await hnsw_sweep(vectors, mine, [e.id for e in entities[:n]], vectors_of)
    if close is not None:
        await close()
    return result


async def hnsw_sweep(
    vectors: Any, mine: np.ndarray, ids: list[Any], queries: list[np.ndarray]
) -> list[dict[str, Any]]:
    """Per `hnsw.ef_search`: `search` p50/p90 and recall@10 against exact numpy top-k (B192)."""
    from redstring.vector.postgres import PgVectorStore  # noqa: PLC0415

    tenant = vectors_tenant()
    exact = [{ids[row] for row in numpy_top_k(mine, q, K)} for q in queries]
    out = []
    for ef in EF_SEARCH:
        store = PgVectorStore(
            vectors._db, dimension=mine.shape[1], search_mode="hnsw", ef_search=ef
        )
        for q in queries[:20]:  # warm-up: the index's pages
            await store.search(q.tolist(), tenant, k=K)
        times, recalls = [], []
        for q, truth in zip(queries, exact, strict=True):
            found: list[Any] = []

            async def call(q: np.ndarray = q, found: list[Any] = found, store: Any = store) -> None:
                found.extend(await store.search(q.tolist(), tenant, k=K))

            times.append(await time_async(call))
            recalls.append(len({m.entity_id for m in found} & truth) / K)
        out.append({"ef_search": ef, "recall": float(np.mean(recalls)), **summary(times)})
    return out


def vectors_tenant() -> Any:
    from redstring import TenantId  # noqa: PLC0415

    return TenantId(uuid.UUID(int=1))


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

    from redstring import ChunkRetriever, RetrievalMode, StoredChunk, TenantId  # noqa: PLC0415
    from redstring.domain.tokenize import tokenize  # noqa: PLC0415
    from redstring.stores import InMemoryChunkStore  # noqa: PLC0415

    assert store == "memory"
    rng = np.random.default_rng(n + dim + 1)
    tenant = TenantId(uuid.UUID(int=1))
    sentences = lee_sentences()
    people = [name for kind, name in make_names(2000, seed=3) if kind == "person"]
    texts: list[str] = []
    for i in range(n):
        picked = [sentences[j] for j in rng.integers(len(sentences), size=int(rng.integers(2, 5)))]
        texts.append(f"{people[i % len(people)]}: " + " ".join(picked))
    matrix = unit_rows(n, dim, rng)
    vocabulary = sorted({t for s in sentences for t in tokenize(s)})
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
    ingest_ms = ingest_cpu_s = 0.0
    for start in range(0, n, BATCH):
        batch = [
            StoredChunk(
                tenant_id=tenant,
                source_id=f"doc-{i // 10}",
                text=texts[i],
                index=i % 10,
                start=0,
                end=len(texts[i]),
                embedding=matrix[i].tolist(),
            )
            for i in range(start, min(n, start + BATCH))
        ]
        cpu_started = time.process_time()
        ingest_ms += await time_async(lambda batch=batch: chunks_store.upsert_chunks(batch))
        ingest_cpu_s += time.process_time() - cpu_started
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


def run_worker(args: list[str], url: str | None) -> dict | None:
    env = dict(os.environ)
    if url is not None:
        env["BENCH_PG_URL"] = url
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", *args]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        print(f"<!-- worker {args} failed: {done.stderr[-2000:]} -->", flush=True)
        return None
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["wall_s"] = time.perf_counter() - started
    return result


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
        extra = f" (HNSW build {r['hnsw_build_s']:.0f} s)" if "hnsw_build_s" in r else ""
        lines.append(
            f"| {r['n']:,} | {r['dim']} | {r['store']}{extra} | {fmt(lat['semantic'])}"
            f" | {fmt(lat['lexical'])} | {fmt(lat['hybrid'])}"
            f" | {fmt(lat['numpy_1thread'])} ({lat['numpy_default']['p50']:.2f})"
            f" | {fmt(lat['rapidfuzz'])} | {ratio:.2f}x"
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
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    dims = sorted({r["dim"] for r in results})
    fig, axes = plt.subplots(1, len(dims) + 1, figsize=(6 * (len(dims) + 1), 4.5), squeeze=False)
    for ax, dim in zip(axes[0], dims, strict=False):
        for colour, store in zip(("C0", "C1", "C2", "C3"), STORES, strict=True):
            rows = sorted(
                (r for r in results if r["dim"] == dim and r["store"] == store),
                key=lambda r: r["n"],
            )
            if not rows:
                continue
            for mode, style in (("semantic", "-o"), ("lexical", "--s"), ("hybrid", ":^")):
                ax.plot(
                    [r["n"] for r in rows],
                    [r["latency"][mode]["p50"] for r in rows],
                    style,
                    color=colour,
                    label=f"{store} {mode}",
                )
        floor = sorted((r for r in results if r["dim"] == dim), key=lambda r: r["n"])
        by_n = {r["n"]: r["latency"]["numpy_1thread"]["p50"] for r in floor}
        ax.plot(list(by_n), list(by_n.values()), "k-", linewidth=2, label="numpy floor")
        ax.set(xscale="log", yscale="log", xlabel="entities in tenant", ylabel="median ms")
        ax.set_title(f"Retriever.retrieve, dim {dim}, k={K}")
        ax.legend(fontsize=6, ncol=2)
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
ROWS: dict[str, list[tuple[str, str, int | None, int]]] = {
    "chunks": [("chunks", "memory", None, 384)],
    "entities": [("entities", "memory", None, 384)],
    "sqlite": [("entities", "memory", None, 384), ("entities", "sqlite", None, 384)],
    "indexing": [],
    "pg-exact": [("entities", "pg-exact", None, 384)],
    "pg-hnsw": [("entities", "pg-hnsw", None, 384)],
    "million": [("entities", "memory", 1_000_000, 384)],
    "d768": [("entities", "memory", 100_000, 768), ("entities", "sqlite", 100_000, 768)],
}
#: Memory the 1M row needs free before it is started (its worker peaked near 10x the
#: 100k worker's 1.2 GB).
MILLION_NEEDS_GB = 14


def available_gb() -> float:
    with contextlib.suppress(OSError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / 2**20
    return 0.0


def configurations(rows: list[str], sizes: list[int]) -> list[tuple[str, str, int, int]]:
    """The distinct worker configurations the selected rows need, in a stable order."""
    out: list[tuple[str, str, int, int]] = []
    for row in rows:
        for kind, store, n, dim in ROWS[row]:
            for size in [n] if n is not None else sizes:
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


def parent(args: argparse.Namespace) -> None:
    if args.from_json:
        report(json.loads(Path(args.from_json).read_text()), args.plot)
        return
    rows = list(dict.fromkeys(args.rows))
    why = {row: f"not selected (add `--rows {row}`)" for row in ROWS if row not in rows}
    if "million" in rows and available_gb() < MILLION_NEEDS_GB:
        rows.remove("million")
        why["million"] = (
            f"the machine has {available_gb():.1f} GB available, the 1M worker needs about"
            f" {MILLION_NEEDS_GB} GB"
        )
    print(f"Machine: {machine()}\nload average at start: {os.getloadavg()}\n", flush=True)
    saved: dict[str, Any] = {"entities": [], "chunks": [], "why": why}
    configs = configurations(rows, list(args.sizes))
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
        if "indexing" in rows:
            saved["indexing"] = run_indexing(args.index_mb)
            if saved["indexing"] is None:
                why["indexing"] = "the indexing worker failed (its stderr is printed above)"
        for kind, store, n, dim in configs:
            found = run_worker([kind, store, str(n), str(dim), str(args.queries)], url)
            if found is None:
                for row, needs in ROWS.items():
                    if any(c[:2] == (kind, store) for c in needs):
                        why.setdefault(row, f"the {kind} {store} worker failed (stderr above)")
                continue
            key = "entities" if kind == "entities" else "chunks"
            saved[key].append(found)
            print((entity_table if key == "entities" else chunk_table)([found]), flush=True)
            Path(args.json).write_text(json.dumps(saved, indent=1))
    saved["load"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    Path(args.json).write_text(json.dumps(saved, indent=1))
    report(saved, args.plot)
    print(f"\nplot: {args.plot}; raw figures: {args.json}")


def main(argv: list[str]) -> None:
    if argv and argv[0] == "--worker":
        kind, store, n, dim, queries = argv[1:6]
        url = os.environ.get("BENCH_PG_URL")
        if kind == "entities":
            result = asyncio.run(entity_worker(store, int(n), int(dim), int(queries), url))
        else:
            result = asyncio.run(chunk_worker(store, int(n), int(dim), int(queries)))
        print(json.dumps(result))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        nargs="+",
        default=[row for row in ROWS if row != "million"],
        choices=list(ROWS),
        help="rows of issue 16's table to run (default: all but million)",
    )
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=[100_000], help="N for the 100k rows"
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
