"""SQLite LEXICAL on a file built once: profile it, time it, or record its answers (B206(c)).

    uv run python scripts/profile_sqlite_lexical.py --profile 100       # cProfile, top 30
    uv run python scripts/profile_sqlite_lexical.py --time              # p50/p90, every query
    uv run python scripts/profile_sqlite_lexical.py --dump answers.json # every answer, whole
    uv run python scripts/profile_sqlite_lexical.py --src /tmp/old/src --time  # another tree

Builds (once; reused while it exists) the graph side of `bench_retrieval.py`'s
entity worker in a SQLite file under the temporary directory: N entities in
the searched tenant plus three other tenants of N/10 (10k past 100k), the
same names and the same fixed-seed query mix (exact, one-edit typo, surname
only). Every run then opens the file and asks
`Retriever.lexical_only(...).retrieve(mode=LEXICAL, k=10)`. `--src` puts
another tree's `src` first on the import path, so the old and the new code
answer from the same file in one session; `--dump` writes each query's
whole answer (ids, order, scores, confidences), to compare two trees' answers byte for byte.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))


async def fill(graph: Any, n: int) -> None:
    """Upsert the bench's entities: N in tenant 1, then the three other tenants'."""
    from bench_corpus import OTHER_TENANT_N_PAST_100K, OTHER_TENANTS, make_names  # noqa: PLC0415
    from redstring import Entity, TenantId  # noqa: PLC0415

    other_n = max(1, n // 10) if n <= 100_000 else OTHER_TENANT_N_PAST_100K
    counts = [(TenantId(uuid.UUID(int=1)), n)] + [
        (TenantId(uuid.UUID(int=2 + i)), other_n) for i in range(OTHER_TENANTS)
    ]
    pairs = make_names(sum(c for _, c in counts), seed=7)
    offset = 0
    for owner, count in counts:
        batch = [
            Entity(tenant_id=owner, entity_type=kind, name=name)
            for kind, name in pairs[offset : offset + count]
        ]
        offset += count
        for start in range(0, len(batch), 25_000):
            await graph.upsert(batch[start : start + 25_000])
            print(f"built {offset - count + start:,}", file=sys.stderr, flush=True)


async def build(path: Path, n: int) -> None:
    from redstring.stores import open_sqlite  # noqa: PLC0415

    partial = path.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    stores = open_sqlite(partial, dimension=384)
    await fill(stores.graph, n)
    await stores.close()
    partial.rename(path)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import redstring  # noqa: PLC0415
    from bench_corpus import make_names  # noqa: PLC0415
    from redstring import RetrievalMode, Retriever, TenantId  # noqa: PLC0415
    from redstring.stores import open_sqlite  # noqa: PLC0415

    print(f"redstring from {Path(redstring.__file__).parent}", file=sys.stderr)
    from bench_corpus import make_queries  # noqa: PLC0415
    from redstring.stores import InMemoryGraphStore  # noqa: PLC0415

    names = [name for _, name in make_names(args.n, seed=7)]
    mix = make_queries(names, args.queries, seed=11)
    if args.memory:  # the baseline: the same entities in an in-memory store
        graph: Any = InMemoryGraphStore()
        await fill(graph, args.n)
        close = None
    else:
        stores = open_sqlite(args.file, read_only=True)
        graph, close = stores.graph, stores.close
    retriever = Retriever.lexical_only(graph=graph)
    tenant = TenantId(uuid.UUID(int=1))

    async def ask(text: str) -> Any:
        return await retriever.retrieve(text, tenant, k=10, mode=RetrievalMode.LEXICAL)

    for _, text, _ in mix:  # warm-up: pages cached, statements prepared
        await ask(text)
    answers = {}
    if args.dump:
        for _, text, _ in mix:
            answers[text] = json.loads((await ask(text)).model_dump_json())
    if args.time:
        took: dict[str, list[float]] = {}
        cpu_started = time.process_time()
        for _ in range(args.rounds):
            for shape, text, _ in mix:
                started = time.perf_counter()
                await ask(text)
                took.setdefault(shape, []).append((time.perf_counter() - started) * 1000)
        cpu_ms = (time.process_time() - cpu_started) * 1000 / (args.rounds * len(mix))
        every = [ms for values in took.values() for ms in values]
        print(f"CPU (every thread) {cpu_ms:.2f} ms a query")
        for shape, values in [("all", every), *sorted(took.items())]:
            cut = statistics.quantiles(values, n=10)
            print(f"{shape:8} p50 {statistics.median(values):7.2f} ms  p90 {cut[8]:7.2f} ms")
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _, text, _ in mix[: args.profile]:
            await ask(text)
        profiler.disable()
        stats = pstats.Stats(profiler).sort_stats(args.sort)
        stats.print_stats(30)
    if close is not None:
        await close()
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="the searched tenant's size")
    parser.add_argument("--queries", type=int, default=200, help="the query mix's size")
    parser.add_argument("--file", help="the SQLite file (default: under the temporary folder)")
    parser.add_argument(
        "--memory", action="store_true", help="an in-memory store of the same entities instead"
    )
    parser.add_argument("--src", help="a tree's src folder to import redstring from")
    parser.add_argument("--profile", type=int, default=0, help="cProfile this many queries")
    parser.add_argument("--sort", default="cumulative", help="the profile's sort key")
    parser.add_argument("--time", action="store_true", help="time every query of the mix")
    parser.add_argument("--rounds", type=int, default=1, help="timed passes over the mix")
    parser.add_argument(
        "--dump", help="write each query's whole answer (ids, order, scores, confidences) here"
    )
    args = parser.parse_args()
    if args.src:
        sys.path.insert(0, str(Path(args.src).resolve()))
    args.file = Path(args.file or Path(tempfile.gettempdir()) / f"sqlite-lexical-{args.n}.db")
    if not args.memory and not args.file.exists():
        asyncio.run(build(args.file, args.n))
    answers = asyncio.run(run(args))
    if args.dump:
        Path(args.dump).write_text(json.dumps(answers, indent=0, sort_keys=True))


if __name__ == "__main__":
    main()
