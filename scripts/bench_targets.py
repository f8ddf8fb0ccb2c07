"""Issue 16's table from one run of scripts.bench_retrieval: every row beside its target.

`issue_rows` turns the raw figures of the entity, chunk and indexing workers
into (row, figure, baseline, target, met) tuples in the issue's order; a row
whose worker did not run says why (not selected with `--rows`, the machine
lacks the memory, or the worker failed).
"""

from __future__ import annotations

from typing import Any

from redstring.vector.postgres import DEFAULT_EF_SEARCH

Row = tuple[str, str, str, str, str]
TARGET_N = 100_000


def _pick(results: list[dict], **match: Any) -> dict | None:
    """The result matching every field, preferring N = 100k, else the largest N."""
    found = [r for r in results if all(r.get(k) == v for k, v in match.items())]
    if not found:
        return None
    exact = [r for r in found if r["n"] == TARGET_N]
    return exact[0] if exact else max(found, key=lambda r: r["n"])


def _at(r: dict, stated: int = TARGET_N) -> str:
    if r["n"] == stated:
        return ""
    return f" (run at N={r['n']:,}; the target is stated at {stated:,})"


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def _cpu(r: dict, field: str) -> str:
    """The CPU-seconds beside a wall-clock ingest time; nothing for a run saved before them."""
    return f" (CPU {r[field]:.1f} s)" if field in r else ""


def _touch(r: dict) -> str:
    """The same run's first touch of the ingest's growth; "-" for a run saved before it."""
    if "first_touch" not in r:
        return "-"
    t = r["first_touch"]
    return f"first touch of {t['mb']:,.0f} MB fresh: {t['wall_s']:.1f} s (CPU {t['cpu_s']:.1f} s)"


def _missing(what: str, target: str, why: str) -> Row:
    return (what, f"not run: {why}", "-", target, "-")


def _hybrid_row(what: str, r: dict | None, why: str, stated: int = TARGET_N) -> Row:
    target = "HYBRID p50 <= 2x (floor + LEXICAL)"
    if r is None:
        return _missing(what, target, why)
    lat = r["latency"]
    floor, lexical, hybrid = (
        lat["numpy_1thread"]["p50"],
        lat["lexical"]["p50"],
        lat["hybrid"]["p50"],
    )
    ratio = hybrid / (floor + lexical)
    return (
        what + _at(r, stated) + _context(r),
        f"HYBRID {hybrid:.2f} ms, LEXICAL {lexical:.2f} ms, SEMANTIC"
        f" {lat['semantic']['p50']:.2f} ms",
        f"numpy floor {floor:.2f} ms",
        target,
        f"{_yes(ratio <= 2)} ({ratio:.2f}x)",
    )


def _context(r: dict) -> str:
    """How a result was measured, when not as the other rows were."""
    notes = []
    if r.get("vectors") == "clustered":
        notes.append("clustered rows")
    if r.get("beside"):
        notes.append("ran beside the other rows")
    if "vacuum_s" in r:
        notes.append(f"VACUUM (ANALYZE) after the load, {r['vacuum_s']:.0f} s")
    return f" ({', '.join(notes)})" if notes else ""


def entity_rows(entities: list[dict], why: dict[str, str]) -> list[Row]:
    rows: list[Row] = []
    memory = _pick(entities, store="memory", dim=384)
    rows.append(_hybrid_row("entities in memory, 100k x 384", memory, why.get("entities", "")))
    if memory is None:
        rows.append(_missing("ingest 100k entities in memory", "< 10 s, < 1 GB", why["entities"]))
    else:
        ok = memory["ingest_tenant_s"] < 10 and memory["ingest_growth_mb"] < 1024
        rows.append(
            (
                "ingest 100k entities in memory" + _at(memory),
                f"{memory['ingest_tenant_s']:.1f} s{_cpu(memory, 'ingest_tenant_cpu_s')},"
                f" {memory['peak_rss_mb']:,.0f} MB peak"
                f" ({memory['ingest_growth_mb']:,.0f} MB grown)",
                _touch(memory),
                "< 10 s, < 1 GB grown",
                _yes(ok),
            )
        )
    sqlite = _pick(entities, store="sqlite", dim=384)
    if sqlite is None or memory is None or sqlite["n"] != memory["n"]:
        reason = why.get("sqlite", "") or why.get("entities", "")
        rows.append(_missing("ingest 100k entities, SQLite", "< 2x memory", reason))
    else:
        ratio = sqlite["ingest_tenant_s"] / memory["ingest_tenant_s"]
        rows.append(
            (
                "ingest 100k entities, SQLite" + _at(sqlite),
                f"{sqlite['ingest_tenant_s']:.1f} s{_cpu(sqlite, 'ingest_tenant_cpu_s')}",
                f"memory {memory['ingest_tenant_s']:.1f} s{_cpu(memory, 'ingest_tenant_cpu_s')}",
                "< 2x memory",
                f"{_yes(ratio < 2)} ({ratio:.2f}x)",
            )
        )
    return rows


def chunk_rows(chunks: list[dict], why: str) -> list[Row]:
    r = _pick(chunks, store="memory")
    if r is None:
        return [
            _missing("BM25 retrieve_chunks at 100k chunks, p50 / p90", "p50 <= 2x, p90 <= 3x", why),
            _missing("ingest 100k chunks in memory", "< 10 s, < 1 GB", why),
        ]
    lat = r["latency"]
    p50, p90 = lat["bm25"]["p50"] / lat["bm25s"]["p50"], lat["bm25"]["p90"] / lat["bm25s"]["p90"]
    return [
        (
            "BM25 retrieve_chunks at 100k chunks, p50 / p90" + _at(r),
            f"{lat['bm25']['p50']:.2f} / {lat['bm25']['p90']:.2f} ms",
            f"bm25s {lat['bm25s']['p50']:.2f} / {lat['bm25s']['p90']:.2f} ms",
            "p50 <= 2x, p90 <= 3x bm25s",
            f"{_yes(p50 <= 2 and p90 <= 3)} ({p50:.2f}x / {p90:.2f}x)",
        ),
        (
            "ingest 100k chunks in memory" + _at(r),
            f"{r['ingest_s']:.1f} s{_cpu(r, 'ingest_cpu_s')}, {r['peak_rss_mb']:,.0f} MB peak"
            f" ({r['ingest_growth_mb']:,.0f} MB grown)",
            _touch(r),
            "< 10 s, < 1 GB grown",
            _yes(r["ingest_s"] < 10 and r["ingest_growth_mb"] < 1024),
        ),
    ]


def postgres_rows(entities: list[dict], why: dict[str, str]) -> list[Row]:
    rows: list[Row] = []
    exact = _pick(entities, store="pg-exact", dim=384)
    if exact is None:
        rows.append(
            _missing("PostgreSQL exact search at 100k x 384", "<= 3x the floor", why["pg-exact"])
        )
    else:
        lat = exact["latency"]
        ratio = lat["semantic"]["p50"] / lat["numpy_1thread"]["p50"]
        rows.append(
            (
                "PostgreSQL exact search (SEMANTIC) at 100k x 384" + _at(exact) + _context(exact),
                f"{lat['semantic']['p50']:.2f} ms",
                f"numpy floor {lat['numpy_1thread']['p50']:.2f} ms",
                "<= 3x the floor",
                f"{_yes(ratio <= 3)} ({ratio:.2f}x)",
            )
        )
    hnsw = _pick(entities, store="pg-hnsw", dim=384)
    target = "recall@10 >= 0.95 at p50 < 10 ms"
    if hnsw is None:
        rows.append(_missing("PostgreSQL HNSW at 100k", target, why["pg-hnsw"]))
        return rows
    sweep = hnsw.get("hnsw", [])
    figures = "; ".join(
        f"ef {s['ef_search']}: {s['recall']:.3f} at {s['p50']:.2f} ms" for s in sweep
    )
    ok = [s for s in sweep if s["recall"] >= 0.95 and s["p50"] < 10]
    rows.append(
        (
            "PostgreSQL HNSW at 100k, random vectors (HNSW's worst case): recall@10 at p50 of"
            " `search`, per ef_search" + _at(hnsw),
            f"{figures}; index build {hnsw['hnsw_build_s']:.0f} s; retrieve HYBRID"
            f" {hnsw['latency']['hybrid']['p50']:.2f} ms",
            "exact numpy top-10 (recall)",
            target,
            f"yes (ef {ok[0]['ef_search']})" if ok else "NO",
        )
    )
    return rows


def clustered_hnsw_row(found: dict | None, why: str) -> Row:
    """scripts.bench_pg_hnsw's clustered rows at the store's defaults (ADR 0196)."""
    what = "PostgreSQL HNSW at 100k, clustered vectors (scripts.bench_pg_hnsw)"
    target = "recall@10 >= 0.95 at p50 < 10 ms"
    if found is None:
        return _missing(what, target, why)
    cells = [s for s in found["sweep"] if s["ef_search"] == DEFAULT_EF_SEARCH]
    at_default = [s for s in cells if s["exact_below"] == 5000] or cells
    figures = "; ".join(
        f"{s['filter']} filter: {s['recall']:.3f} at {s['p50']:.2f} ms" for s in at_default
    )
    index_only = [s for s in cells if s["exact_below"] == 0]
    if index_only and at_default is not index_only:
        figures += (
            " (through the index alone: "
            + "; ".join(f"{s['filter']} {s['recall']:.3f} at {s['p50']:.2f} ms" for s in index_only)
            + ")"
        )
    missed = [s["filter"] for s in at_default if not (s["recall"] >= 0.95 and s["p50"] < 10)]
    at = "" if found["n"] == TARGET_N else f" (run at N={found['n']:,})"
    return (
        what + at,
        f"ef_search {DEFAULT_EF_SEARCH}, exact_below 5,000: {figures};"
        f" index build {found['build_s']:.0f} s",
        f"exact numpy top-10 (recall); numpy floor {found['floor_p50']:.2f} ms, store exact"
        f" {found['exact_p50']:.2f} ms",
        target,
        "yes" if not missed else f"NO for the {', '.join(missed)} filter",
    )


def approximate_row(
    r: dict | None, why: str, store: str = "ApproximateVectorStore, in memory"
) -> Row:
    what = f"approximate index at 1M ({store}, faiss IVF, clustered rows)"
    target = "HYBRID < 20 ms at recall@10 >= 0.98"
    if r is None:
        return _missing(what, target, why)
    sweep = {(s["probes"], s["filter"]): s for s in r["ann_sweep"]}
    own = sweep[(r["ann_probes"], "none")]
    typed = sweep[(r["ann_probes"], "type")]
    hybrid = r["latency"]["hybrid"]["p50"]
    at = "" if r["n"] >= 1_000_000 else f" (run at N={r['n']:,}; the target is stated at 1M)"
    kept = r["ann_filter_share"] * r["n"]
    exact_note = " (searched exactly: fewer rows than exact_below)" if kept < 50_000 else ""
    others = ", ".join(
        f"{p}: {s['recall']:.3f} at {s['p50']:.2f} ms"
        for (p, name), s in sorted(sweep.items())
        if name == "none"
    )
    return (
        what + at,
        f"HYBRID {hybrid:.2f} ms (LEXICAL {r['latency']['lexical']['p50']:.2f} ms); vector search"
        f" recall@10 {own['recall']:.3f} at {own['p50']:.2f} ms (probes {r['ann_probes']};"
        f" per probes {others}), with a {r['ann_filter_share']:.0%} type filter{exact_note}"
        f" {typed['recall']:.3f} at {typed['p50']:.2f} ms; HYBRID top-10 agreement with"
        f" exact {r['hybrid_agreement']:.3f}; index build {r['ann_build_s']:.0f} s",
        f"exact numpy top-10 (recall); numpy floor {r['latency']['numpy_1thread']['p50']:.2f} ms",
        target,
        f"{_yes(hybrid < 20 and own['recall'] >= 0.98)}",
    )


def issue_rows(
    entities: list[dict],
    chunks: list[dict],
    indexing: list[Row] | None,
    why: dict[str, str],
    pg_clustered: dict | None = None,
) -> list[Row]:
    """Every row of issue 16's table, in its order; `why[row]` explains a row not run."""
    rows = chunk_rows(chunks, why.get("chunks", ""))[:1]
    rows += entity_rows(entities, why)
    rows += chunk_rows(chunks, why.get("chunks", ""))[1:]
    if indexing is None:
        rows.append(_missing("indexing ~2 MB of text with the local model", "-", why["indexing"]))
    else:
        rows += indexing
    rows += postgres_rows(entities, why)
    rows.append(clustered_hnsw_row(pg_clustered, why.get("pg-hnsw-clustered", "")))

    def largest(store: str, dim: int, at_least: int = 0) -> dict | None:
        found = [r for r in entities if r["store"] == store and r["dim"] == dim]
        found = [r for r in found if r["n"] >= at_least]
        return max(found, key=lambda r: r["n"]) if found else None

    approximate = largest("approx", 384)
    million_n = approximate["n"] if approximate else 1_000_000  # the --million size of the run
    for store, label in (("memory", "in memory"), ("sqlite", "SQLite")):
        big = largest(store, 384, at_least=million_n)
        reason = why.get(f"million:{'approx' if store == 'memory' else 'sqlite-approx'}", "")
        rows.append(
            _hybrid_row(
                f"1M entities per tenant, {label}, exact",
                big,
                reason or why.get("million", ""),
                stated=1_000_000,
            )
        )
    for store, label in (
        ("memory", "memory"),
        ("sqlite", "SQLite"),
        ("pg-exact", "PostgreSQL (float16 pool, ADR 0270)"),
    ):
        reason = why.get(f"d768:{store}", "")
        rows.append(
            _hybrid_row(
                f"100k x 768, {label}, exact", largest(store, 768), reason or why.get("d768", "")
            )
        )
    rows.append(
        approximate_row(approximate, why.get("million:approx", "") or why.get("million", ""))
    )
    rows.append(
        approximate_row(
            largest("sqlite-approx", 384),
            why.get("million:sqlite-approx", "") or why.get("million", ""),
            store='SqliteVectorStore(search_mode="ivf")',
        )
    )
    return rows


def table(rows: list[Row]) -> str:
    lines = [
        "| row | figure | baseline (same run) | target | met? |",
        "| --- | --- | --- | --- | --- |",
    ]
    lines += ["| " + " | ".join(cell.replace("|", "/") for cell in row) + " |" for row in rows]
    return "\n".join(lines)
