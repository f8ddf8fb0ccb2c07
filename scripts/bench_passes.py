"""The timed passes of scripts.bench_retrieval's entity worker, and its second configurations.

`measure` times `Retriever.retrieve` per mode beside the baselines of the same
moment (numpy floor, rapidfuzz, the blocking lookups). The other passes
measure a second configuration over rows already ingested, so no variant pays
a second ingest:

- `approximate_passes`: a store's IVF search (`ApproximateVectorStore`, ADR
  0225, or `SqliteVectorStore(search_mode="ivf")`, ADR 0265) over the same
  rows as its exact search, its index build, recall@10 against exact numpy
  top-10 per `probes` (with and without a type filter), and HYBRID through it
  beside HYBRID through exact search (issue 16's approximate row);
- `hnsw_passes`: PostgreSQL with its HNSW index, per `hnsw.ef_search`.

`vacuum_after_load` brings a PostgreSQL worker's tables to the state
autovacuum leaves an insert-only table in before any pass runs (ADR 0305).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import numpy as np

#: `probes` values the approximate row sweeps; the store's default is 32 (ADR 0225).
PROBES = (8, 16, 32, 64)
#: The type filter of the approximate row: organisations are about 20% of the names.
FILTER_TYPE = "organization"


class ExactView:
    """A store with an IVF search, searched exactly (its rows scored by `ExactSearch`)."""

    def __init__(self, store: Any) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def search(self, *args: Any, **kwargs: Any) -> Any:
        from redstring.vector.rows import ExactSearch  # noqa: PLC0415

        ivf, self._store._search = self._store._search, ExactSearch()
        try:
            return await self._store.search(*args, **kwargs)
        finally:
            self._store._search = ivf


async def measure(
    retriever: Any,
    graph: Any,
    tenant: Any,
    mix: Sequence[tuple[str, str, int]],
    table: dict[str, list[float]],
    mine: np.ndarray,
    names: list[str],
    *,
    rapidfuzz_queries: int,
) -> dict[str, Any]:
    """Per-mode latency of `retriever` and the baselines, one pass per operation."""
    from rapidfuzz import process, utils  # noqa: PLC0415
    from threadpoolctl import ThreadpoolController  # noqa: PLC0415

    from redstring import RetrievalMode  # noqa: PLC0415
    from redstring.domain.blocking import query_blocking_keys  # noqa: PLC0415
    from redstring.domain.query import NormalizedQuery  # noqa: PLC0415
    from scripts.bench_measure import K, numpy_top_k, summary, time_async, time_sync  # noqa: PLC0415

    modes = {
        "semantic": RetrievalMode.SEMANTIC,
        "lexical": RetrievalMode.LEXICAL,
        "hybrid": RetrievalMode.HYBRID,
    }
    # An untimed warm-up pass over the whole query mix (B103): HYBRID runs the
    # SEMANTIC and LEXICAL work too, so no timed pass pays for cold caches
    # (matrix stacking, statement preparation, a just-built index's pages).
    for _, text, _ in mix:
        await retriever.retrieve(text, tenant, k=K, mode=RetrievalMode.HYBRID)
    timings: dict[str, list[float]] = {
        name: [] for name in [*modes, "numpy_1thread", "numpy_default", "rapidfuzz", "blocking"]
    }
    by_shape: dict[str, dict[str, list[float]]] = {}
    for name, mode in modes.items():
        for shape, text, _ in mix:
            ms = await time_async(
                lambda text=text, mode=mode: retriever.retrieve(text, tenant, k=K, mode=mode)
            )
            timings[name].append(ms)
            by_shape.setdefault(shape, {}).setdefault(name, []).append(ms)
    vectors_of = [np.asarray(table[text], dtype=np.float32) for _, text, _ in mix]
    with ThreadpoolController().limit(limits=1, user_api="blas"):
        for q in vectors_of:
            timings["numpy_1thread"].append(time_sync(lambda q=q: numpy_top_k(mine, q, K)))
    for _, text, _ in mix[:rapidfuzz_queries]:
        timings["rapidfuzz"].append(
            time_sync(
                lambda text=text: process.extract(
                    text, names, processor=utils.default_process, limit=K
                )
            )
        )
    candidates: list[int] = []
    for _, text, _ in mix:
        keys = query_blocking_keys(NormalizedQuery.of(text))
        found: dict[str, list[Any]] = {}

        async def lookup(keys: list[str] = keys, found: dict[str, list[Any]] = found) -> None:
            found.update(await graph.find_by_blocking_keys(keys, tenant))

        timings["blocking"].append(await time_async(lookup))
        candidates.append(len({e.id for group in found.values() for e in group}))
    for q in vectors_of:  # last: a threaded BLAS leaves its threads spinning for a while
        timings["numpy_default"].append(time_sync(lambda q=q: numpy_top_k(mine, q, K)))
    return {
        "latency": {name: summary(values) for name, values in timings.items()},
        "by_shape": {
            shape: {name: summary(values) for name, values in modes_.items()}
            for shape, modes_ in by_shape.items()
        },
        "lexical_candidates_p50": float(np.median(candidates)),
        "lexical_candidates_max": int(max(candidates)),
    }


async def _search_pass(
    vectors: Any, tenant: Any, queries: list[np.ndarray], truth: list[set[Any]], **filters: Any
) -> dict[str, float]:
    """p50 / p90 of `vectors.search` and its recall@10 against `truth`."""
    from scripts.bench_measure import K, summary  # noqa: PLC0415

    times, recalls = [], []
    for q, want in zip(queries, truth, strict=True):
        started = time.perf_counter()
        found = await vectors.search(q.tolist(), tenant, k=K, **filters)
        times.append((time.perf_counter() - started) * 1000)
        recalls.append(len({m.entity_id for m in found} & want) / K)
    return {"recall": float(np.mean(recalls)), **summary(times)}


async def approximate_passes(
    approximate: Any,
    exact_retriever: Any,
    graph: Any,
    tenant: Any,
    mix: Sequence[tuple[str, str, int]],
    table: dict[str, list[float]],
    mine: np.ndarray,
    entities: Sequence[Any],
    *,
    rapidfuzz_queries: int,
) -> dict[str, Any]:
    """The approximate store over the exact store's rows: build, recall per `probes`, HYBRID."""
    from redstring import RetrievalMode, Retriever  # noqa: PLC0415
    from scripts.bench_corpus import TableEmbeddings  # noqa: PLC0415
    from scripts.bench_measure import K, numpy_top_k  # noqa: PLC0415

    ids = [e.id for e in entities]
    queries = [np.asarray(table[text], dtype=np.float32) for _, text, _ in mix]
    truth = [{ids[row] for row in numpy_top_k(mine, q, K)} for q in queries]
    keep = np.flatnonzero(np.array([e.entity_type for e in entities]) == FILTER_TYPE)
    kept_rows = mine[keep]
    kept_truth = [{ids[keep[row]] for row in numpy_top_k(kept_rows, q, K)} for q in queries]
    del kept_rows
    started = time.perf_counter()
    await approximate.search(queries[0].tolist(), tenant, k=K)  # the first search builds
    out: dict[str, Any] = {"ann_build_s": time.perf_counter() - started, "ann_sweep": []}
    out["ann_filter_share"] = len(keep) / len(ids)
    ivf = approximate._search
    default = ivf.probes
    for probes in PROBES:
        ivf.probes = probes  # the store's own search at each setting, over one index
        for name, want, filters in (
            ("none", truth, {}),
            ("type", kept_truth, {"entity_types": [FILTER_TYPE]}),
        ):
            figures = await _search_pass(approximate, tenant, queries, want, **filters)
            out["ann_sweep"].append({"probes": probes, "filter": name, **figures})
    ivf.probes = default
    out["ann_probes"] = default
    retriever = Retriever(
        embeddings=TableEmbeddings(mine.shape[1], table), vectors=approximate, graph=graph
    )
    names = [e.name for e in entities]
    out.update(
        await measure(
            retriever, graph, tenant, mix, table, mine, names, rapidfuzz_queries=rapidfuzz_queries
        )
    )
    agreement = []
    for _, text, _ in mix:
        found = await retriever.retrieve(text, tenant, k=K, mode=RetrievalMode.HYBRID)
        want = await exact_retriever.retrieve(text, tenant, k=K, mode=RetrievalMode.HYBRID)
        expected = {m.entity.id for m in want.matches}
        if expected:
            agreement.append(len({m.entity.id for m in found.matches} & expected) / len(expected))
    out["hybrid_agreement"] = float(np.mean(agreement)) if agreement else None
    return out


async def hnsw_passes(
    url: str,
    schema: str,
    dim: int,
    vectors: Any,
    close: Any,
    tenant: Any,
    mix: Sequence[tuple[str, str, int]],
    table: dict[str, list[float]],
    mine: np.ndarray,
    entities: Sequence[Any],
    ef_values: Sequence[int],
    *,
    rapidfuzz_queries: int,
) -> dict[str, Any]:
    """PostgreSQL's HNSW index over the ingested rows: build, HYBRID, recall per ef_search."""
    from redstring import Retriever  # noqa: PLC0415
    from redstring.stores import open_postgres  # noqa: PLC0415
    from redstring.vector.postgres import PgVectorStore  # noqa: PLC0415
    from scripts.bench_corpus import TableEmbeddings  # noqa: PLC0415
    from scripts.bench_measure import K, numpy_top_k  # noqa: PLC0415

    started = time.perf_counter()
    await vectors.create_hnsw_index()
    out: dict[str, Any] = {"hnsw_build_s": time.perf_counter() - started}
    await close()
    pg = await open_postgres(url, dimension=dim, schema=schema, search_mode="hnsw")
    retriever = Retriever(
        embeddings=TableEmbeddings(dim, table), vectors=pg.vectors, graph=pg.graph
    )
    names = [e.name for e in entities]
    out.update(
        await measure(
            retriever,
            pg.graph,
            tenant,
            mix,
            table,
            mine,
            names,
            rapidfuzz_queries=rapidfuzz_queries,
        )
    )
    ids = [e.id for e in entities]
    queries = [np.asarray(table[text], dtype=np.float32) for _, text, _ in mix]
    truth = [{ids[row] for row in numpy_top_k(mine, q, K)} for q in queries]
    out["hnsw"] = []
    for ef in ef_values:
        store = PgVectorStore(pg.database, dimension=dim, search_mode="hnsw", ef_search=ef)
        for q in queries[:20]:  # warm-up: the index's pages
            await store.search(q.tolist(), tenant, k=K)
        out["hnsw"].append({"ef_search": ef, **await _search_pass(store, tenant, queries, truth)})
    await pg.close()
    return out


def not_all_visible(connection: Any, table: str) -> tuple[int, int]:
    """(pages of `table` not all-visible, pages), from its visibility map (`pg_visibility`)."""
    found = connection.execute(
        "SELECT count(*) FILTER (WHERE NOT all_visible), count(*)"
        " FROM pg_visibility_map(%s::regclass)",
        (table,),
    ).fetchone()
    return (int(found[0]), int(found[1])) if found else (0, 0)


def vacuum_analyze(connection: Any, table: str, *, tries: int = 30) -> int:
    """`VACUUM (ANALYZE)` `table` until every page is all-visible, or `tries` runs; pages left.

    A transaction that began before the load ended (autovacuum's ANALYZE of
    another table, say) keeps VACUUM from marking the load's rows visible to
    all, so VACUUM runs again a second later while any page is left.
    """
    left = -1
    for attempt in range(tries):
        if attempt:
            time.sleep(1)
        connection.execute(f"VACUUM (ANALYZE) {table}")
        left, _ = not_all_visible(connection, table)
        if not left:
            break
    return left


def vacuum_after_load(url: str, schema: str) -> dict[str, Any]:
    """`VACUUM (ANALYZE)` every table of `schema` once the bulk load is done (ADR 0305).

    Autovacuum does the same to an insert-only table once the rows inserted
    since its last run pass its threshold (1,000 plus a fifth of the table's
    unfrozen part); this does it now rather than at an unknown moment during
    the timed passes. Returns the VACUUM's seconds, and the vector table's
    pages autovacuum had not yet marked all-visible by the end of the load and
    after this VACUUM (0 unless a transaction older than the load held it back).
    """
    import psycopg  # noqa: PLC0415

    vectors = f'"{schema}".vector_records'
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_visibility")
        before, pages = not_all_visible(connection, vectors)
        tables = ", ".join(
            f'"{schema}"."{name}"'
            for (name,) in connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename",
                (schema,),
            ).fetchall()
        )
        started = time.perf_counter()
        connection.execute(f"VACUUM (ANALYZE) {tables}")
        after, _ = not_all_visible(connection, vectors)
        if after:
            after = vacuum_analyze(connection, vectors)
        return {
            "vacuum_s": time.perf_counter() - started,
            "pages_not_all_visible": before,
            "pages_not_all_visible_after": after,
            "pages": pages,
        }
