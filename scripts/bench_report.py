"""The retrieval benchmark's report: markdown tables, issue 16's table and the latency plot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripts.bench_measure import K

#: The stores a result can name (plot colours in this order): "approx" is
#: `ApproximateVectorStore` (ADR 0225), "sqlite-approx" `SqliteVectorStore`'s
#: IVF search (ADR 0265).
STORES = ("memory", "sqlite", "pg-exact", "pg-hnsw", "approx", "sqlite-approx")


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


def report(saved: dict[str, Any], plot_path: str) -> None:
    from scripts.bench_indexing import rows as indexing_rows  # noqa: PLC0415
    from scripts.bench_targets import issue_rows, table  # noqa: PLC0415

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
