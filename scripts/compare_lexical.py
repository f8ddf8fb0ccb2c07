"""SQLite LEXICAL on a kept file: its latency, and its whole answers for a byte-for-byte check.

Builds (once; reused when it exists) a graph-only SQLite file holding the
retrieval benchmark's entity corpus (`bench_corpus.make_names`: N entities
of the searched tenant and three other tenants), then answers `--queries`
queries of the benchmark's mix (exact names, one-edit typos, surnames;
every fourth with an entity-type filter) through `Retriever.lexical_only`.
Each answer (`RetrievalResult` as JSON, in order) goes to `--out`, so two
trees' runs over the same file compare with `cmp`; the p50 / p90 of a timed
pass over the same queries without the filter (as the benchmark's LEXICAL
row) are printed. Run it
against another tree's library with that tree's `src` first on `PYTHONPATH`:

    PYTHONPATH=/path/to/old/src nice -n 10 uv run python -m scripts.compare_lexical \
        --file /tmp/lex100k.db --n 100000 --out old.json
    nice -n 10 uv run python -m scripts.compare_lexical \
        --file /tmp/lex100k.db --n 100000 --out new.json
    cmp old.json new.json

With `--old` (and `--new`, this tree's `src` by default) it runs both trees
in one process each (`alternate_lexical.Tree`), each over its own copy of
the kept file (`<file>-old.db`, `<file>-new.db`, copied once; build the
kept file with the old tree first, since a newer schema is migrated on
open and an older library refuses it). It compares their answers, then
alternates timed passes, old, new, old, new, ... (`--rounds` of each): the
benchmark's query mix again (as `bench_retrieval` times it: every query seen
before), and a fresh mix each round that neither tree has answered (seeded
by the round, the same in both). Nothing asserts on time:

    nice -n 10 uv run python -m scripts.compare_lexical --file /tmp/lex100k.db \
        --old /tmp/old/src

With `--crossing Q` it times instead, each round, a fresh worker of each
tree from its first query: Q queries of a fresh mix, across the 1,000 reads
after which the tenant is read whole into memory. It prints each tree's
slowest query, its p99, and the p50 of the last third (after warm-up).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import time
import uuid
from pathlib import Path

import numpy as np

import redstring
from redstring import Entity, Retriever, TenantId
from redstring.graph.sqlite import SqliteGraphStore
from redstring.storage.sqlite import SqliteDatabase
from scripts import ROOT
from scripts.alternate_lexical import Tree, finish
from scripts.bench_corpus import (
    BATCH_PAST_100K,
    OTHER_TENANT_N_PAST_100K,
    OTHER_TENANTS,
    make_names,
    make_queries,
)
from scripts.bench_measure import compare_trees

TENANT = TenantId(uuid.UUID(int=1))


def counts(n: int) -> list[tuple[TenantId, int]]:
    """Each tenant's entity count, the searched tenant first (as `bench_corpus.entity_corpus`)."""
    other = max(1, n // 10) if n <= 100_000 else OTHER_TENANT_N_PAST_100K
    return [(TENANT, n)] + [(TenantId(uuid.UUID(int=2 + i)), other) for i in range(OTHER_TENANTS)]


async def build(graph: SqliteGraphStore, n: int) -> None:
    """Upsert the corpus in batches of `BATCH_PAST_100K`."""
    tally = counts(n)
    pairs = make_names(sum(c for _, c in tally), seed=7)
    entities: list[Entity] = []
    offset = 0
    for owner, count in tally:
        entities.extend(
            Entity(tenant_id=owner, entity_type=kind, name=name)
            for kind, name in pairs[offset : offset + count]
        )
        offset += count
    started = time.perf_counter()
    for start in range(0, len(entities), BATCH_PAST_100K):
        await graph.upsert(entities[start : start + BATCH_PAST_100K])
        print(f"  {start + BATCH_PAST_100K:,} written", flush=True)
    print(f"built in {time.perf_counter() - started:.0f} s", flush=True)


async def opened(path: Path, n: int) -> Retriever:
    """A LEXICAL retriever over the file at `path`, built first when it does not exist."""
    fresh = not await asyncio.to_thread(path.exists)
    graph = SqliteGraphStore(SqliteDatabase(path), migrate=True)
    if fresh:
        await build(graph, n)
    return Retriever.lexical_only(graph=graph)


def query_mix(n: int, count: int, seed: int) -> list[str]:
    """`count` queries of the benchmark's mix over the searched tenant's names."""
    names = [name for _, name in make_names(sum(c for _, c in counts(n)), seed=7)[:n]]
    return [text for _, text, _ in make_queries(names, count, seed=seed)]


async def answers(retriever: Retriever, mix: list[str]) -> list[str]:
    """Each query's answer as JSON, every fourth with an entity-type filter."""
    types = [["organization"] if at % 4 == 3 else None for at in range(len(mix))]
    return [
        (await retriever.retrieve(text, TENANT, k=10, entity_types=kind)).model_dump_json()
        for text, kind in zip(mix, types, strict=True)
    ]


async def timed(retriever: Retriever, mix: list[str]) -> list[float]:
    """Each query's milliseconds, as the benchmark's LEXICAL pass (no type filter)."""
    spent: list[float] = []
    for text in mix:
        started = time.perf_counter()
        await retriever.retrieve(text, TENANT, k=10)
        spent.append((time.perf_counter() - started) * 1000)
    return spent


async def run(args: argparse.Namespace) -> list[str]:
    if args.worker:
        await worker(args)
        return []
    if args.old is not None:
        alternate(args)
        return []
    retriever = await opened(args.file, args.n)
    mix = query_mix(args.n, args.queries, seed=11)
    print(f"library {redstring.__file__}; load {os.getloadavg()}", flush=True)
    answered = await answers(retriever, mix)
    cpu = time.process_time()
    spent = await timed(retriever, mix)
    cpu_ms = (time.process_time() - cpu) * 1000 / len(mix)
    p50, p90 = np.percentile(spent, [50, 90])
    print(
        f"LEXICAL p50 {p50:.2f} ms, p90 {p90:.2f} ms, CPU {cpu_ms:.2f} ms a query;"
        f" load {os.getloadavg()}",
        flush=True,
    )
    return answered


async def worker(args: argparse.Namespace) -> None:
    """Open this tree's copy, then answer the parent's commands (one JSON line in, one out)."""
    retriever = await opened(args.file, args.n)
    print(json.dumps({"ready": redstring.__file__}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        mix = query_mix(args.n, command["queries"], seed=command["seed"])
        if command["do"] == "check":
            print(json.dumps(await answers(retriever, mix)), flush=True)
        else:
            print(json.dumps(await timed(retriever, mix)), flush=True)


def alternate(args: argparse.Namespace) -> None:
    """Both trees' answers compared, then their timed passes alternated (see the module doc)."""
    if not args.file.exists():
        sys.exit(f"{args.file} does not exist: build it with the old tree first")
    trees = []
    for label, src in (("old", args.old), ("new", args.new)):
        copy = args.file.with_name(f"{args.file.stem}-{label}{args.file.suffix}")
        if not copy.exists():
            shutil.copyfile(args.file, copy)
        tree = Tree(label, src, "scripts.compare_lexical", [f"--file={copy}", f"--n={args.n}"])
        print(f"{label}: {tree.ask(None)['ready']} over {copy}", flush=True)
        trees.append(tree)
    if args.crossing:
        crossing(args, trees)
        return
    old, new = (tree.ask({"do": "check", "seed": 11, "queries": args.queries}) for tree in trees)
    differ = [at for at, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    print(f"check: {len(old)} queries, {len(differ)} answers differ", flush=True)
    print(f"load before timing {os.getloadavg()}", flush=True)
    spent: dict[tuple[str, str], list[float]] = {}
    for round_ in range(args.rounds):
        passes = {"mix again": 11, "fresh mix": 1000 + round_}
        for kind, seed in passes.items():
            for tree in trees:
                command = {"do": "time", "seed": seed, "queries": 200}
                spent.setdefault((kind, tree.label), []).extend(tree.ask(command))
    finish(trees, spent)
    if differ:
        sys.exit(1)


def crossing(args: argparse.Namespace, trees: list[Tree]) -> None:
    """Each round, a fresh worker of each tree timed from its first query (see the module doc)."""
    plans = [(tree.label, tree.arguments, tree.src) for tree in trees]
    for tree in trees:
        tree.close()
    print(f"load before timing {os.getloadavg()}", flush=True)
    spent: dict[str, list[list[float]]] = {}
    for round_ in range(args.rounds):
        for label, arguments, src in plans:
            tree = Tree(label, src, "scripts.compare_lexical", arguments)
            tree.ask(None)
            command = {"do": "time", "seed": 2000 + round_, "queries": args.crossing}
            spent.setdefault(label, []).append(tree.ask(command))
            tree.close()
    print(f"load after timing {os.getloadavg()}", flush=True)
    for label, runs in spent.items():
        every = np.concatenate(runs)
        warm = np.concatenate([ms[len(ms) * 2 // 3 :] for ms in runs])
        print(
            f"{label}: max {every.max():.1f} ms (each run: {[round(max(ms)) for ms in runs]}),"
            f" p99 {np.percentile(every, 99):.2f} ms, p50 after warm-up"
            f" {np.percentile(warm, 50):.2f} ms over {len(runs)} runs of {args.crossing}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, required=True, help="the SQLite file, kept")
    parser.add_argument("--n", type=int, default=100_000, help="entities of the searched tenant")
    parser.add_argument("--old", type=Path, help="the old tree's src folder: alternate two trees")
    parser.add_argument("--new", type=Path, default=ROOT / "src", help="the new tree's src")
    parser.add_argument("--rounds", type=int, default=4, help="timed passes per tree and mix")
    parser.add_argument("--crossing", type=int, default=0, help="queries a fresh worker times")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    compare_trees(parser, run)


if __name__ == "__main__":
    main()
