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
  `pg-hnsw-clustered` runs scripts.bench_pg_hnsw (clustered rows, type
  filters, the store's defaults) after it;
- `million` (`--million`, default 1M): the exact in-memory store and
  `ApproximateVectorStore` (ADR 0225) over the same clustered rows in one
  worker (recall@10 per `probes`, HYBRID through both), and SQLite, which
  runs beside the other rows from the start (`--no-beside` to run it in turn)
  because its ingest alone outlasts the rest; past 100k the three other
  tenants hold 10k entities each;
- `d768` (`--wide`, default 100k) at 768 dimensions: memory, SQLite and
  PostgreSQL exact search (ADR 0270's float16 pool);
- `indexing` runs scripts.bench_indexing.

`--stop-at HH:MM` (UTC) stops a worker still running then; its row says so.

A PostgreSQL worker runs `VACUUM (ANALYZE)` on its schema's tables after the
bulk load and before any search (the state autovacuum brings an insert-only
table to once the inserts pass its threshold; ADR 0305); its row states the
VACUUM's time, and how many of the vector table's pages autovacuum had not
yet marked all-visible by then.

    nice -n 10 uv run python -m scripts.bench_retrieval --json run.json  # every row
    nice -n 10 uv run python -m scripts.bench_retrieval --rows chunks indexing \
        --sizes 10000 --index-mb 0.2                                  # a few minutes
    uv run python -m scripts.bench_retrieval --from-json run.json     # reprint, replot

Prints markdown tables and issue 16's table (row, figure, baseline, target,
met?), writes the raw figures as JSON (`--json`) and the plot to
docs/img/bench_latency.png (`--plot`). PostgreSQL comes from an embedded
server started and stopped here.

This module runs the workers and the report; the corpus and its ingest loops
are scripts.bench_corpus, the workers scripts.bench_workers (their
passes scripts.bench_passes), the timers scripts.bench_measure, and the
tables and plot scripts.bench_report.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from redstring.vector.postgres import DEFAULT_EF_SEARCH
from scripts import ROOT

# compare_ingest.py reads the corpus, its ingest loops and two measures here as `bench.*`
# (kept while another change to it is in flight; it can import them from their homes after).
from scripts.bench_corpus import (  # noqa: F401
    chunk_corpus,
    entity_corpus,
    ingest_chunks,
    ingest_entities,
    stored_chunk,
)
from scripts.bench_measure import rss_mb, time_async  # noqa: F401
from scripts.bench_report import chunk_table, entity_table, report
from scripts.bench_workers import chunk_worker, entity_worker

#: The embedded server's buffers: room for the largest table run here (100k x 768
#: plus the other tenants' rows is about 500 MB), so exact search reads no page
#: from the OS cache (B190).
SHARED_BUFFERS = "1GB"


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
            [sys.executable, "-m", "scripts.bench_retrieval", "--worker", *args],
            cwd=ROOT,
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
    "pg-hnsw-clustered": [],  # scripts.bench_pg_hnsw (ADR 0196's clustered rows)
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


def run_indexing(megabytes: float) -> dict | None:
    out = Path(tempfile.mkdtemp(prefix="redstring-bench-")) / "indexing.json"
    command = [
        sys.executable,
        *("-m", "scripts.bench_indexing"),
        "--mb",
        str(megabytes),
        "--json",
        str(out),
    ]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"<!-- indexing failed: {done.stderr[-2000:]} -->", flush=True)
        return None
    print(done.stdout, flush=True)
    result: dict = json.loads(out.read_text())
    shutil.rmtree(out.parent, ignore_errors=True)
    return result


def run_pg_hnsw_clustered(n: int, queries: int, stop_at: float | None) -> dict | str:
    """scripts.bench_pg_hnsw at the store's defaults (`DEFAULT_EF_SEARCH`, exact_below 5,000)."""
    out = Path(tempfile.mkdtemp(prefix="redstring-bench-")) / "pg_hnsw.json"
    command = [
        sys.executable,
        *("-m", "scripts.bench_pg_hnsw"),
        *("--n", str(n), "--queries", str(queries), "--efs", str(DEFAULT_EF_SEARCH)),
        *("--exact-below", "0", "5000", "--json", str(out)),
    ]
    budget = None if stop_at is None else stop_at - time.time()
    if budget is not None and budget <= 0:
        return f"not started: the run's --stop-at ({stamp(stop_at)}) had passed"
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, check=False, timeout=budget, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return f"stopped at the run's --stop-at ({stamp(stop_at)}), to land the results in time"
    if done.returncode != 0:
        print(f"<!-- bench_pg_hnsw failed: {done.stderr[-2000:]} -->", flush=True)
        return "scripts.bench_pg_hnsw failed (its stderr is printed above)"
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
