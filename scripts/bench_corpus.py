"""The retrieval benchmark's corpus, and the loops that ingest it (scripts.bench_retrieval).

Entity names combined deterministically from the first names, surnames and
organisation words of tests/data/quality/entity_corpus.json, queries over them
(exact, one-edit typos, surname only), random or clustered unit rows, passages
of Lee corpus sentences (tests/data/quality/passages.json), and the timed
upsert loops that `bench_retrieval.py`'s workers and `compare_ingest.py` share.
"""

from __future__ import annotations

import json
import sys
import time
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from scripts import ROOT
from scripts.bench_measure import time_async

OTHER_TENANTS = 3
BATCH = 1000
#: Entities per upsert past 100k. At 1M the SQLite key table's B-tree takes a
#: batch's ~28 keys an entity at random pages: with batches of 1,000 the first
#: 350k entities wrote 121 GB (about 350 MB a batch, WAL and checkpoint) and the
#: worker waited on the disk; a bulk load of that size writes in larger batches.
BATCH_PAST_100K = 25_000
#: Past 100k the three other tenants hold this many entities each rather than N/10,
#: so a 1M worker fits the machine's memory beside another (the searched tenant's
#: size is what the rows measure; the others only check the tenant filter).
OTHER_TENANT_N_PAST_100K = 10_000
#: Centres of the clustered rows (ADR 0191's `scripts.bench_ann` recipe).
CLUSTERS = 100
ORG_SUFFIXES = ("Ltd", "Limited", "Group", "Holdings", "Inc", "Corporation", "Partners", "Co")


def name_parts() -> tuple[list[str], list[str], list[str]]:
    """First names, surnames and organisation words from the quality corpus, sorted."""
    data = json.loads((ROOT / "tests/data/quality/entity_corpus.json").read_text())
    firsts: set[str] = set()
    lasts: set[str] = set()
    words: set[str] = set()
    for entity in data["entities"]:
        tokens = entity["name"].replace(",", " ").split()
        if entity["entity_type"] == "person" and len(tokens) >= 2:
            firsts.add(tokens[0])
            lasts.add(tokens[-1])
        elif entity["entity_type"] == "organization":
            words.update(t for t in tokens[1:] if t.isalpha() and t not in ORG_SUFFIXES)
    return sorted(firsts), sorted(lasts), sorted(words)


def make_names(count: int, seed: int) -> list[tuple[str, str]]:
    """`count` distinct (type, name) pairs: 80% people, 20% organisations, deterministic."""
    firsts, lasts, words = name_parts()
    rng = np.random.default_rng(seed)
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    initials = [""] + [f" {c}." for c in "ABCDEFGHJKLMNPRSTW"]
    while len(out) < count:
        if rng.random() < 0.8:
            first = firsts[rng.integers(len(firsts))]
            middle = initials[rng.integers(len(initials))] if rng.random() < 0.5 else ""
            pair = ("person", f"{first}{middle} {lasts[rng.integers(len(lasts))]}")
        else:
            head = lasts[rng.integers(len(lasts))]
            pair = (
                "organization",
                f"{head} {words[rng.integers(len(words))]} {ORG_SUFFIXES[rng.integers(8)]}",
            )
        if pair not in seen:
            seen.add(pair)
            out.append(pair)
    return out


def typo(name: str, rng: np.random.Generator) -> str:
    """One edit (swap, deletion or substitution) inside a word of `name`."""
    chars = list(name)
    spots = [i for i in range(1, len(chars) - 1) if chars[i].isalpha() and chars[i + 1].isalpha()]
    i = spots[rng.integers(len(spots))]
    kind = rng.integers(3)
    if kind == 0:
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    elif kind == 1:
        del chars[i]
    else:
        chars[i] = "aeiourstn"[rng.integers(9)]
    return "".join(chars)


def make_queries(names: Sequence[str], count: int, seed: int) -> list[tuple[str, str, int]]:
    """(shape, query, target row): 40% exact, 30% typo, 30% surname only."""
    rng = np.random.default_rng(seed)
    queries = []
    for _ in range(count):
        row = int(rng.integers(len(names)))
        name = names[row]
        draw = rng.random()
        if draw < 0.4:
            queries.append(("exact", name, row))
        elif draw < 0.7:
            queries.append(("typo", typo(name, rng), row))
        else:
            tokens = name.split()
            surname = tokens[-1] if len(tokens) < 3 or "." in tokens[1] else tokens[0]
            queries.append(("surname", surname, row))
    return queries


def unit_rows(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    matrix = rng.standard_normal((rows, dim)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def clustered_rows(rows: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Unit rows around 100 random centres, noise of a centre's norm (ADR 0191's clustered rows).

    For the approximate row: an index over random rows is its worst case, and
    embeddings of text cluster. Exact search costs the same on either.
    """
    centres = unit_rows(CLUSTERS, dim, rng)
    matrix = np.empty((rows, dim), dtype=np.float32)
    for start in range(0, rows, 100_000):
        stop = min(rows, start + 100_000)
        matrix[start:stop] = centres[rng.integers(CLUSTERS, size=stop - start)]
        matrix[start:stop] += unit_rows(stop - start, dim, rng)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix


def entity_corpus(
    n: int, dim: int, clustered: bool
) -> tuple[Any, list[Any], np.ndarray, np.random.Generator]:
    """(searched tenant, entities, rows, generator): N entities of the searched tenant first.

    Three other tenants follow with N/10 each (10k past 100k); the rows are unit
    vectors, random or clustered, and the generator is left where the rows end.
    """
    from redstring import Entity, TenantId  # noqa: PLC0415

    rng = np.random.default_rng(n + dim)
    tenant = TenantId(uuid.UUID(int=1))
    others = [TenantId(uuid.UUID(int=2 + i)) for i in range(OTHER_TENANTS)]
    other_n = max(1, n // 10) if n <= 100_000 else OTHER_TENANT_N_PAST_100K
    counts = [(tenant, n)] + [(other, other_n) for other in others]
    total = sum(c for _, c in counts)
    pairs = make_names(total, seed=7)
    entities: list[Entity] = []
    offset = 0
    for owner, count in counts:
        entities.extend(
            Entity(tenant_id=owner, entity_type=kind, name=name)
            for kind, name in pairs[offset : offset + count]
        )
        offset += count
    matrix = (clustered_rows if clustered else unit_rows)(total, dim, rng)
    return tenant, entities, matrix, rng


async def ingest_entities(
    graph: Any, vectors: Any, entities: list[Any], matrix: np.ndarray, n: int
) -> dict[str, float]:
    """Upsert `entities` and their rows into `graph` and `vectors`, timing only the upserts.

    Batches of `BATCH` (`BATCH_PAST_100K` past 100k). Returns the wall milliseconds
    of each store (`graph_ms`, `vector_ms`), the CPU-seconds of both (`cpu_s`) and of
    the graph alone (`graph_cpu_s`), and the wall seconds and CPU-seconds once the
    first `n` (the searched tenant) are in (`tenant_s`, `tenant_cpu_s`).
    """
    from redstring.ports import VectorRecord  # noqa: PLC0415

    total = len(entities)
    graph_ms = vector_ms = cpu_s = graph_cpu_s = 0.0
    marks: dict[str, float] = {}
    step = BATCH if n <= 100_000 else BATCH_PAST_100K
    for start in range(0, total, step):
        batch = entities[start : start + step]
        records = [
            VectorRecord(
                tenant_id=e.tenant_id,
                entity_id=e.id,
                entity_type=e.entity_type,
                vector=matrix[start + i].tolist(),
            )
            for i, e in enumerate(batch)
        ]
        cpu_started = time.process_time()  # CPU-seconds beside wall time: the machine is shared
        graph_ms += await time_async(lambda batch=batch: graph.upsert(batch))
        graph_cpu_s += time.process_time() - cpu_started
        vector_ms += await time_async(lambda records=records: vectors.upsert(records))
        cpu_s += time.process_time() - cpu_started
        del records
        if (start + step) // 100_000 > start // 100_000:  # progress, read if the worker is stopped
            print(f"ingested {start + step:,} of {total:,} entities", file=sys.stderr, flush=True)
        if start + step >= n and "tenant_s" not in marks:
            marks["tenant_s"] = (graph_ms + vector_ms) / 1000  # the searched tenant's N
            marks["tenant_cpu_s"] = cpu_s
    return {
        "graph_ms": graph_ms,
        "vector_ms": vector_ms,
        "cpu_s": cpu_s,
        "graph_cpu_s": graph_cpu_s,
        **marks,
    }


def chunk_corpus(n: int, dim: int) -> tuple[Any, list[str], np.ndarray, np.random.Generator]:
    """(tenant, texts, rows, generator): N passages of two to four Lee sentences after a name.

    The rows are random unit vectors; the generator is left where the rows end.
    """
    from redstring import TenantId  # noqa: PLC0415

    rng = np.random.default_rng(n + dim + 1)
    tenant = TenantId(uuid.UUID(int=1))
    sentences = lee_sentences()
    people = [name for kind, name in make_names(2000, seed=3) if kind == "person"]
    texts: list[str] = []
    for i in range(n):
        picked = [sentences[j] for j in rng.integers(len(sentences), size=int(rng.integers(2, 5)))]
        texts.append(f"{people[i % len(people)]}: " + " ".join(picked))
    return tenant, texts, unit_rows(n, dim, rng), rng


def stored_chunk(tenant: Any, i: int, text: str, vector: np.ndarray) -> Any:
    """The `i`-th passage: document i // 10, position i % 10."""
    from redstring import StoredChunk  # noqa: PLC0415

    return StoredChunk(
        tenant_id=tenant,
        source_id=f"doc-{i // 10}",
        text=text,
        index=i % 10,
        start=0,
        end=len(text),
        embedding=vector.tolist(),
    )


async def ingest_chunks(
    store: Any, tenant: Any, texts: list[str], matrix: np.ndarray
) -> tuple[float, float]:
    """Upsert the passages in batches of `BATCH`: (wall ms, CPU-seconds) of the upserts alone."""
    wall_ms = cpu_s = 0.0
    for start in range(0, len(texts), BATCH):
        batch = [
            stored_chunk(tenant, i, texts[i], matrix[i])
            for i in range(start, min(len(texts), start + BATCH))
        ]
        cpu_started = time.process_time()
        wall_ms += await time_async(lambda batch=batch: store.upsert_chunks(batch))
        cpu_s += time.process_time() - cpu_started
    return wall_ms, cpu_s


class TableEmbeddings:
    """An embedding provider answering from a table of precomputed query vectors."""

    def __init__(self, dimension: int, table: dict[str, list[float]]) -> None:
        self.dimension = dimension
        self._table = table

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._table[text] for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._table[text] for text in texts]


def lee_sentences() -> list[str]:
    import re  # noqa: PLC0415

    data = json.loads((ROOT / "tests/data/quality/passages.json").read_text())
    sentences: list[str] = []
    for document in data["documents"]:
        sentences.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", document["text"]))
    return sorted({s for s in sentences if len(s.split()) >= 4})
