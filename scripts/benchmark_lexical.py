"""Block sizes and LEXICAL latency at scale, against a full rapidfuzz scan (ADR 0070).

    uv run python scripts/benchmark_lexical.py               # 100k entities
    uv run python scripts/benchmark_lexical.py --entities 10000 --queries 200

Builds one tenant of N entities with realistic names (given names and
surnames drawn, by their frequency, from the people of the committed quality
corpus; one in ten an organisation: a corpus surname followed by the tail of
a corpus organisation name), plus a small second tenant, in an
`InMemoryGraphStore`. Reports:

- block sizes: members per key over every name key of the big tenant
  (p50, p99, max, keys over `MAX_BLOCK_MEMBERS`), computed with the same
  `blocking_keys_for` the store indexes with;
- per query, the candidates the lexical channel scores (after the cap);
- latency of `Retriever.lexical_only(...).retrieve(mode=LEXICAL, k=10)`
  (p50, p90) for queries of six shapes made from random entities, beside the
  baseline measured in the same run: `rapidfuzz.process.extract` with
  Jaro-Winkler over all N names (the full scan blocking replaces).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from uuid import UUID

from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring import Entity, InMemoryGraphStore, RetrievalMode, Retriever, TenantId
from redstring.domain.blocking import (
    LEXICAL_CANDIDATE_LIMIT,
    MAX_BLOCK_MEMBERS,
    blocking_keys_for,
    query_blocking_keys,
)
from redstring.domain.normalization import matching_form

sys.path.insert(0, str(Path(__file__).resolve().parent))
from quality.harness import load_entity_corpus

BIG = TenantId(UUID("b1000000-0000-4000-8000-000000000001"))
SMALL = TenantId(UUID("b1000000-0000-4000-8000-000000000002"))
SHAPES = ("full", "surname", "first", "reordered", "initial", "typo")


def name_pools() -> tuple[list[str], list[str], list[str]]:
    """Given names and surnames of the corpus's people (repeats kept), and organisation tails."""
    corpus = load_entity_corpus()
    given, surnames, tails = [], [], []
    for entity in corpus.entities:
        parts = entity.name.split()
        if entity.entity_type == "person" and len(parts) >= 2:
            given.append(parts[0])
            surnames.append(parts[-1])
        elif entity.entity_type == "organization" and len(parts) >= 2:
            tails.append(" ".join(parts[1:]))
    return given, surnames, tails


def make_entities(n: int, tenant: TenantId, rng: random.Random) -> list[Entity]:
    given, surnames, tails = name_pools()
    entities = []
    for i in range(n):
        if i % 10 == 9:
            name, kind = f"{rng.choice(surnames)} {rng.choice(tails)}", "organization"
        else:
            name, kind = f"{rng.choice(given)} {rng.choice(surnames)}", "person"
        entities.append(
            Entity(
                tenant_id=tenant,
                id=UUID(int=rng.getrandbits(128) | (4 << 76)),
                entity_type=kind,
                name=name,
            )
        )
    return entities


def typo(word: str, rng: random.Random) -> str:
    if len(word) < 3:
        return word
    at = rng.randrange(1, len(word) - 1)
    return word[:at] + word[at + 1] + word[at] + word[at + 2 :]


def make_queries(entities: list[Entity], count: int, rng: random.Random) -> list[tuple[str, str]]:
    people = [e for e in entities if e.entity_type == "person"]
    queries = []
    for i in range(count):
        shape = SHAPES[i % len(SHAPES)]
        first, last = rng.choice(people).name.split(maxsplit=1)
        text = {
            "full": f"{first} {last}",
            "surname": last,
            "first": first,
            "reordered": f"{last}, {first}",
            "initial": f"{first[0]}. {last}",
            "typo": f"{typo(first, rng)} {last}",
        }[shape]
        queries.append((shape, text))
    return queries


def quantiles(values: list[float]) -> tuple[float, float, float, float]:
    ordered = sorted(values)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return statistics.median(ordered), cuts[89], cuts[98], ordered[-1]


async def main(args: argparse.Namespace) -> None:
    rng = random.Random(args.seed)
    entities = make_entities(args.entities, BIG, rng)
    started = time.perf_counter()
    graph = InMemoryGraphStore()
    await graph.upsert(entities)
    await graph.upsert(make_entities(1000, SMALL, rng))
    ingest = time.perf_counter() - started

    sizes = Counter(
        key for e in entities for key in blocking_keys_for(e) if not key.startswith("t:")
    )
    p50, p90, p99, largest = quantiles([float(v) for v in sizes.values()])
    over = sorted(((v, k) for k, v in sizes.items() if v > MAX_BLOCK_MEMBERS), reverse=True)
    print(f"# LEXICAL at {args.entities:,} entities (in-memory), seed {args.seed}\n")
    print(f"ingest {ingest:.1f} s; {len(sizes):,} name keys\n")
    print("| block size (members per key) | p50 | p90 | p99 | max | keys over the bound |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(
        f"| all name keys | {p50:.0f} | {p90:.0f} | {p99:.0f} | {largest:.0f} | "
        f"{len(over)} of {len(sizes):,} (bound {MAX_BLOCK_MEMBERS}) |"
    )
    for namespace in ("p:", "s:", "w:", "x:", "i:"):
        part = [float(v) for k, v in sizes.items() if k.startswith(namespace)]
        a, b, c, d = quantiles(part)
        n_over = sum(v > MAX_BLOCK_MEMBERS for v in part)
        print(f"| `{namespace}` | {a:.0f} | {b:.0f} | {c:.0f} | {d:.0f} | {n_over} |")
    print("\nlargest blocks: " + ", ".join(f"`{k}` {v:,}" for v, k in over[:8]) + "\n")

    queries = make_queries(entities, args.queries, rng)
    retriever = Retriever.lexical_only(graph=graph)
    names = [matching_form(e.name) for e in entities]
    candidates, ours, scan = [], [], []
    for _, text in queries[: min(20, len(queries))]:  # warm caches on both sides
        await retriever.retrieve(text, BIG, k=10, mode=RetrievalMode.LEXICAL)
    for _, text in queries:
        blocks = await graph.find_ids_by_blocking_keys(query_blocking_keys(text), BIG)
        candidates.append(float(len({i for block in blocks.values() for i in block})))
        t0 = time.perf_counter()
        await retriever.retrieve(text, BIG, k=10, mode=RetrievalMode.LEXICAL)
        t1 = time.perf_counter()
        process.extract(
            matching_form(text), names, scorer=JaroWinkler.normalized_similarity, limit=10
        )
        t2 = time.perf_counter()
        ours.append((t1 - t0) * 1000)
        scan.append((t2 - t1) * 1000)
    c50, c90, c99, cmax = quantiles(candidates)
    print(
        f"candidates under the query's keys (after the cap): p50 {c50:.0f}, p90 {c90:.0f}, "
        f"p99 {c99:.0f}, max {cmax:.0f}; the {LEXICAL_CANDIDATE_LIMIT} sharing the most "
        "keys are scored\n"
    )
    print("| latency, ms | p50 | p90 |")
    print("| --- | --- | --- |")
    o50, o90, _, _ = quantiles(ours)
    s50, s90, _, _ = quantiles(scan)
    print(f"| LEXICAL retrieve (blocked) | {o50:.2f} | {o90:.2f} |")
    print(f"| rapidfuzz.process.extract, full scan (baseline) | {s50:.2f} | {s90:.2f} |")
    print(f"| ratio blocked / scan | {o50 / s50:.2f} | {o90 / s90:.2f} |\n")
    print("| shape | LEXICAL p50 ms | candidates under its keys, p50 |")
    print("| --- | --- | --- |")
    for shape in SHAPES:
        rows = [i for i, (s, _) in enumerate(queries) if s == shape]
        print(
            f"| {shape} | {statistics.median(ours[i] for i in rows):.2f} | "
            f"{statistics.median(candidates[i] for i in rows):.0f} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument("--seed", type=int, default=20261130)
    asyncio.run(main(parser.parse_args()))
