"""Issue 16's table from one run of scripts/bench_retrieval.py: every row beside its target.

`issue_rows` turns the raw figures of the entity, chunk and indexing workers
into (row, figure, baseline, target, met) tuples in the issue's order; a row
whose worker did not run says why (not selected with `--rows`, the machine
lacks the memory, or the worker failed).
"""

from __future__ import annotations

from typing import Any

Row = tuple[str, str, str, str, str]
TARGET_N = 100_000


def _pick(results: list[dict], **match: Any) -> dict | None:
    """The result matching every field, preferring N = 100k, else the largest N."""
    found = [r for r in results if all(r.get(k) == v for k, v in match.items())]
    if not found:
        return None
    exact = [r for r in found if r["n"] == TARGET_N]
    return exact[0] if exact else max(found, key=lambda r: r["n"])


def _at(r: dict) -> str:
    return "" if r["n"] == TARGET_N else f" (run at N={r['n']:,}; the target is stated at 100k)"


def _yes(ok: bool) -> str:
    return "yes" if ok else "NO"


def _cpu(r: dict, field: str) -> str:
    """The CPU-seconds beside a wall-clock ingest time; nothing for a run saved before them."""
    return f" (CPU {r[field]:.1f} s)" if field in r else ""


def _missing(what: str, target: str, why: str) -> Row:
    return (what, f"not run: {why}", "-", target, "-")


def _hybrid_row(what: str, r: dict | None, why: str) -> Row:
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
        what + _at(r),
        f"HYBRID {hybrid:.2f} ms, LEXICAL {lexical:.2f} ms",
        f"numpy floor {floor:.2f} ms",
        target,
        f"{_yes(ratio <= 2)} ({ratio:.2f}x)",
    )


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
                "-",
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
            "-",
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
                "PostgreSQL exact search (SEMANTIC) at 100k x 384" + _at(exact),
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
            "PostgreSQL HNSW at 100k: recall@10 at p50 of `search`, per ef_search" + _at(hnsw),
            f"{figures}; index build {hnsw['hnsw_build_s']:.0f} s; retrieve HYBRID"
            f" {hnsw['latency']['hybrid']['p50']:.2f} ms",
            "exact numpy top-10 (recall)",
            target,
            f"yes (ef {ok[0]['ef_search']})" if ok else "NO",
        )
    )
    return rows


def issue_rows(
    entities: list[dict],
    chunks: list[dict],
    indexing: list[Row] | None,
    why: dict[str, str],
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
    million = [r for r in entities if r["n"] >= 1_000_000 and r["store"] == "memory"]
    rows.append(
        _hybrid_row(
            "1M entities per tenant, in memory, exact",
            million[0] if million else None,
            why.get("million", ""),
        )
    )
    for store in ("memory", "sqlite"):
        wide = [r for r in entities if r["dim"] == 768 and r["store"] == store]
        rows.append(
            _hybrid_row(
                f"100k x 768, {store}, exact",
                max(wide, key=lambda r: r["n"]) if wide else None,
                why.get("d768", ""),
            )
        )
    rows.append(
        _missing(
            "approximate index at 1M (in memory / SQLite)",
            "HYBRID < 20 ms at recall@10 >= 0.98",
            "the 1M run through ApproximateVectorStore (ADR 0191) is not in this script yet"
            " (BACKLOG B193, B194)",
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
