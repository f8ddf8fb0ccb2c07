"""Block sizes and LEXICAL latency at scale, against a full rapidfuzz scan (ADR 0070).

    uv run python -m scripts.benchmark_lexical               # 100k entities
    uv run python -m scripts.benchmark_lexical --entities 10000 --queries 200
    uv run python -m scripts.benchmark_lexical --recall 240  # + candidate recall (ADR 0115)
    uv run python -m scripts.benchmark_lexical --queries 0 --recall 80  # recall only
    uv run python -m scripts.benchmark_lexical --crowd 50000 # exact name behind N namesakes only

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

With `--crowd N`, only the exact-name case (ADR 0115): N organisations
"Smith Holdings 1".."Smith Holdings N" with the lowest ids, then one entity
named "Smith" and one aliased "Smith" with higher ids; reports where
LEXICAL ranks each for the queries "Smith" and "SMITH".

With `--recall Q`, candidate recall against a full scan (ADR 0115): for Q
queries (the six shapes plus a typo in the surname and a name written
without its space), every entity of the tenant is scored with the same
`lexical_score` and trigram weights the channel uses; a query counts when the
entity it was made from is in that full scan's top 10, and is recalled when
the channel's candidates (everything it scores) hold it. Also reported: the
share of the full scan's top 10 the channel's top 10 holds. The recall
queries are drawn from their own seed, so `--queries` does not change them
(`--queries 0` skips the latency part). The full scan does not depend on
candidate generation, so its top 10 per query is cached in a JSON file
(`--cache`, default under the temporary directory, named by seed, size and a
digest of the scoring code); `--cache ''` turns the cache off.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import inspect
import json
import random
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from uuid import UUID

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import JaroWinkler

from redstring import Entity, EntityId, RetrievalMode, Retriever, TenantId
from redstring.composition.lexical_channel import CANDIDATE_LIMIT, rank_lexically
from redstring.domain import lexical, ngrams, normalization, rarity, similarity
from redstring.domain import query as query_module
from redstring.domain.blocking import (
    MAX_BLOCK_MEMBERS,
    blocking_keys_for,
    query_blocking_keys,
    query_ngram_keys,
)
from redstring.domain.lexical import NGRAM_MIX, PROPERTY_WEIGHT, lexical_score
from redstring.domain.ngrams import (
    NGRAM_DF_CAP,
    ngram_keys_of_form,
    ngram_weight,
    ngram_weights,
)
from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery
from redstring.stores import InMemoryGraphStore
from scripts.quality.harness import load_entity_corpus

BIG = TenantId(UUID("b1000000-0000-4000-8000-000000000001"))
SMALL = TenantId(UUID("b1000000-0000-4000-8000-000000000002"))
SHAPES = ("full", "surname", "first", "reordered", "initial", "typo")
RECALL_SHAPES = (*SHAPES, "typo_surname", "joined")


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


def make_queries(
    entities: list[Entity], count: int, rng: random.Random, shapes: tuple[str, ...] = SHAPES
) -> list[tuple[str, str]]:
    return [(shape, text) for shape, text, _ in made_from(entities, count, rng, shapes)]


def made_from(
    entities: list[Entity], count: int, rng: random.Random, shapes: tuple[str, ...]
) -> list[tuple[str, str, Entity]]:
    """(shape, query text, the entity it was made from), shapes in turn."""
    people = [e for e in entities if e.entity_type == "person"]
    queries = []
    for i in range(count):
        shape = shapes[i % len(shapes)]
        source = rng.choice(people)
        first, last = source.name.split(maxsplit=1)
        text = {
            "full": f"{first} {last}",
            "surname": last,
            "first": first,
            "reordered": f"{last}, {first}",
            "initial": f"{first[0]}. {last}",
            "typo": f"{typo(first, rng)} {last}",
            "typo_surname": f"{first} {typo(last, rng)}",
            "joined": f"{first}{last}",
        }[shape]
        queries.append((shape, text, source))
    return queries


def quantiles(values: list[float]) -> tuple[float, float, float, float]:
    ordered = sorted(values)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return statistics.median(ordered), cuts[89], cuts[98], ordered[-1]


async def crowd(n: int) -> None:
    """Where an exact name and an exact alias rank behind `n` namesakes of their first token."""

    def numbered(i: int) -> UUID:
        return UUID(f"00000000-0000-4000-8000-{i:012x}")

    graph = InMemoryGraphStore()
    started = time.perf_counter()
    for start in range(1, n + 1, 10_000):
        await graph.upsert(
            [
                Entity(
                    tenant_id=BIG,
                    id=numbered(i),
                    entity_type="organization",
                    name=f"Smith Holdings {i}",
                )
                for i in range(start, min(start + 10_000, n + 1))
            ]
        )
    named = Entity(tenant_id=BIG, id=numbered(n + 1), entity_type="person", name="Smith")
    aliased = Entity(
        tenant_id=BIG,
        id=numbered(n + 2),
        entity_type="person",
        name="J. Q. Public",
        aliases=["Smith"],
    )
    await graph.upsert([named, aliased])
    ingest = time.perf_counter() - started
    print(f'# exact name behind {n:,} "Smith Holdings N" (ingest {ingest:.1f} s)\n')
    retriever = Retriever.lexical_only(graph=graph)
    print('| query | rank of "Smith" | rank of the alias "Smith" | matches |')
    print("| --- | --- | --- | --- |")
    for text in ("Smith", "SMITH"):
        result = await retriever.retrieve(text, BIG, k=10, mode=RetrievalMode.LEXICAL)
        ids = [match.entity.id for match in result.matches]
        ranks = [ids.index(e.id) + 1 if e.id in ids else "absent" for e in (named, aliased)]
        print(f"| {text} | {ranks[0]} | {ranks[1]} | {len(ids)} |")


async def main(args: argparse.Namespace) -> None:
    if args.crowd:
        await crowd(args.crowd)
        return
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
    for namespace in ("n:", "p:", "s:", "w:", "x:", "i:", "g:"):
        part = [float(v) for k, v in sizes.items() if k.startswith(namespace)]
        a, b, c, d = quantiles(part)
        n_over = sum(v > MAX_BLOCK_MEMBERS for v in part)
        print(f"| `{namespace}` | {a:.0f} | {b:.0f} | {c:.0f} | {d:.0f} | {n_over} |")
    print("\nlargest blocks: " + ", ".join(f"`{k}` {v:,}" for v, k in over[:8]) + "\n")

    if args.queries:
        await latency(graph, entities, args.queries, rng)
    if args.recall:
        print(f"\n## candidate recall against a full scan, {args.recall} queries\n")
        cache = Path(args.cache.format(seed=args.seed, n=args.entities, code=score_digest()))
        recall_rng = random.Random(args.seed + 1)
        await candidate_recall(
            graph, entities, args.recall, recall_rng, cache if args.cache else None, args.misses
        )


async def latency(
    graph: InMemoryGraphStore, entities: list[Entity], count: int, rng: random.Random
) -> None:
    """Candidates per query and LEXICAL latency beside a full rapidfuzz scan, per shape."""
    queries = make_queries(entities, count, rng)
    retriever = Retriever.lexical_only(graph=graph)
    names = [matching_form(e.name) for e in entities]
    candidates, ours, scan = [], [], []
    for _, text in queries[: min(20, len(queries))]:  # warm caches on both sides
        await retriever.retrieve(text, BIG, k=10, mode=RetrievalMode.LEXICAL)
    for _, text in queries:
        keys = query_blocking_keys(NormalizedQuery.of(text))
        blocks = await graph.find_ids_by_blocking_keys(keys, BIG)
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
        f"p99 {c99:.0f}, max {cmax:.0f}; at most {CANDIDATE_LIMIT}, pre-scored, are scored\n"
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


class FullScan:
    """The exact top k of `lexical_score` over every entity, with a trigram index to bound it.

    A name score is at most `(1 - NGRAM_MIX) + NGRAM_MIX * trigram` (every other
    reading is at most 1) and a property score at most `PROPERTY_WEIGHT`. Each
    entity's best trigram reading is computed for all entities at once from an
    inverted index over their forms (the same harmonic mean as
    `ngram_similarity`, in numpy); entities are then scored with
    `lexical_score` in descending order of the bound, and the walk stops once
    the bound falls below the k-th best score: the same top k as scoring every
    entity, ties by ascending id string.
    """

    def __init__(self, entities: list[Entity]) -> None:
        self.entities = entities
        rows_of_key: dict[str, list[int]] = {}
        owner: list[int] = []
        sizes: list[int] = []
        for index, entity in enumerate(entities):
            for form in {matching_form(f) for f in (entity.name, *entity.aliases)}:
                keys = ngram_keys_of_form(form)
                for key in keys:
                    rows_of_key.setdefault(key, []).append(len(owner))
                owner.append(index)
                sizes.append(len(keys))
        self.rows_of_key = {key: np.asarray(rows) for key, rows in rows_of_key.items()}
        self.owner = np.asarray(owner)
        self.sizes = np.maximum(np.asarray(sizes, dtype=np.float64), 1.0)

    def top(self, query: NormalizedQuery, weights: dict[str, float], k: int = 10) -> list[Entity]:
        rarest = ngram_weight(1)
        weighted = np.zeros(len(self.owner))
        shared = np.zeros(len(self.owner))
        for key in query.ngrams:  # a form's keys are distinct: no row twice per key
            rows = self.rows_of_key.get(key)
            if rows is not None:
                weighted[rows] += weights.get(key, rarest)
                shared[rows] += 1.0
        total = sum(weights.get(key, rarest) for key in query.ngrams)
        recall = weighted / max(total, 1e-300)
        precision = shared / self.sizes
        mean = 2.0 * recall * precision / np.maximum(recall + precision, 1e-300)
        trigram = np.zeros(len(self.entities))
        np.maximum.at(trigram, self.owner, mean)
        # A hair of slack so float rounding in numpy never puts a bound under its score.
        bound = np.maximum((1.0 - NGRAM_MIX) + NGRAM_MIX * trigram, PROPERTY_WEIGHT) + 1e-9
        best: list[tuple[float, str, Entity]] = []
        for index in np.argsort(-bound, kind="stable").tolist():
            if len(best) >= k and bound[index] < best[k - 1][0]:
                break
            entity = self.entities[index]
            best.append((lexical_score(query, entity, weights), str(entity.id), entity))
            best.sort(key=lambda row: (-row[0], row[1]))
            del best[k:]
        return [entity for _, _, entity in best]


def score_digest() -> str:
    """A digest of the code the full scan's answer depends on: the score and its weights."""
    read = (lexical, ngrams, normalization, query_module, rarity, similarity)
    parts = [inspect.getsource(module) for module in read]
    parts.append(f"{ngrams.NGRAM_DF_CAP} {ngrams.NGRAM_LENGTH}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def load_cache(cache: Path | None) -> dict[str, list[str]]:
    """The cached full-scan top 10 (ids as text) by query text; empty without a cache."""
    if cache is None or not cache.exists():
        return {}
    held: dict[str, list[str]] = json.loads(cache.read_text())
    return held


def save_cache(cache: Path | None, known: dict[str, list[str]]) -> None:
    """Write the full-scan top 10 by query text, unless there is no cache."""
    if cache is not None:
        cache.write_text(json.dumps(known))


async def candidate_recall(
    graph: InMemoryGraphStore,
    entities: list[Entity],
    count: int,
    rng: random.Random,
    cache: Path | None,
    misses: bool,
) -> None:
    """Candidate recall of the channel against a full scan with the same score (ADR 0115)."""
    made = made_from(entities, count, rng, RECALL_SHAPES)
    counted: Counter[str] = Counter()
    recalled: Counter[str] = Counter()
    overlap: Counter[str] = Counter()
    started = time.perf_counter()
    known = load_cache(cache)
    scan: FullScan | None = None
    by_id = {entity.id: entity for entity in entities}
    lost: list[tuple[str, str, str]] = []
    for at, (shape, text, source) in enumerate(made, start=1):
        query = NormalizedQuery.of(text)
        if text not in known:
            if scan is None:
                scan = FullScan(entities)
            keys = query_ngram_keys(query)
            counts = await graph.count_blocking_keys(keys, BIG, limit=NGRAM_DF_CAP)
            known[text] = [str(entity.id) for entity in scan.top(query, ngram_weights(counts))]
            if at % 10 == 0:
                save_cache(cache, known)
        top = [by_id[EntityId(UUID(value))].id for value in known[text]]
        scored = await rank_lexically(graph, query, BIG, None)
        candidates = {entity.id for entity, _ in scored}
        overlap[shape] += len(set(top) & {entity.id for entity, _ in scored[:10]})
        if source.id in top:
            counted[shape] += 1
            recalled[shape] += source.id in candidates
            if source.id not in candidates:
                lost.append((shape, text, source.name))
        if at % 20 == 0:
            print(f"  {at}/{len(made)} queries, {time.perf_counter() - started:.0f} s", flush=True)
    save_cache(cache, known)
    print("\n| shape | queries | target in full-scan top 10 | recalled | recall | top-10 overlap |")
    print("| --- | --- | --- | --- | --- | --- |")
    for shape in (*RECALL_SHAPES, "all"):
        n = count // len(RECALL_SHAPES) if shape != "all" else count
        c = sum(counted.values()) if shape == "all" else counted[shape]
        r = sum(recalled.values()) if shape == "all" else recalled[shape]
        o = sum(overlap.values()) if shape == "all" else overlap[shape]
        print(f"| {shape} | {n} | {c} | {r} | {r / max(c, 1):.3f} | {o / (10 * max(n, 1)):.3f} |")
    if misses:
        print("\n| missed | query | target |\n| --- | --- | --- |")
        for shape, text, name in lost:
            print(f"| {shape} | {text} | {name} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entities", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=600)
    parser.add_argument("--seed", type=int, default=20261130)
    parser.add_argument("--recall", type=int, default=0, help="queries for candidate recall")
    parser.add_argument(
        "--crowd", type=int, default=0, help="only the exact name behind N namesakes"
    )
    parser.add_argument(
        "--cache",
        default=str(Path(tempfile.gettempdir()) / "redstring-fullscan-{seed}-{n}-{code}.json"),
        help="where the full scan's top 10 per query is kept ('' for no cache)",
    )
    parser.add_argument("--misses", action="store_true", help="list the queries not recalled")
    asyncio.run(main(parser.parse_args()))
