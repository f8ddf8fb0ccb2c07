"""The retrieval benchmark's workers (scripts.bench_retrieval): one store kind and size each.

`entity_worker` ingests the entity corpus into one store kind and times its
passes (scripts.bench_passes); `chunk_worker` does the same for passages in
the in-memory chunk store, beside bm25s and the numpy floor.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from scripts.bench_corpus import (
    TableEmbeddings,
    chunk_corpus,
    entity_corpus,
    ingest_chunks,
    ingest_entities,
    lee_sentences,
    make_queries,
    unit_rows,
)
from scripts.bench_measure import K, numpy_top_k, peak_mb, rss_mb, summary, time_async, time_sync

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
#: `hnsw.ef_search` values the pg-hnsw row sweeps (B192); 160 is the default (ADR 0340).
EF_SEARCH = (40, 100, 160, 320)


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
        from scripts.bench_passes import vacuum_after_load  # noqa: PLC0415

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
    from redstring import Retriever  # noqa: PLC0415
    from scripts.bench_passes import (  # noqa: PLC0415
        ExactView,
        approximate_passes,
        hnsw_passes,
        measure,
    )

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
        from scripts.bench_memory import first_touch  # noqa: PLC0415

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


async def chunk_worker(store: str, n: int, dim: int, queries: int) -> dict:
    import bm25s  # noqa: PLC0415
    from threadpoolctl import ThreadpoolController  # noqa: PLC0415

    from redstring import ChunkRetriever, RetrievalMode  # noqa: PLC0415
    from redstring.domain.tokenize import Analyzer  # noqa: PLC0415
    from redstring.stores import InMemoryChunkStore  # noqa: PLC0415

    assert store == "memory"
    tokenize = Analyzer().terms  # the store's default analysis, handed to bm25s as tokens
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
    from scripts.bench_memory import first_touch  # noqa: PLC0415

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
