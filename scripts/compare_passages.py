"""Passage retrieval in every mode: its latency, and its whole answers for a byte-for-byte check.

Builds the retrieval benchmark's chunk corpus (`bench_corpus.chunk_corpus`:
N passages of Lee sentences, random unit vectors) in the in-memory chunk
store, or in a SQLite file with `--sqlite FILE` (built once, then reused),
and answers `--queries` queries through `ChunkRetriever` in LEXICAL,
SEMANTIC and HYBRID. A query is one to three of the corpus's words; its
vector is, for every other query, a passage holding those words plus noise
(so the channels agree in part) and otherwise a random passage's (so they
disagree). Every fifth query keeps a tenth of the sources and every
seventh asks for k = 50 instead of 10. Each answer
(`ChunkRetrievalResult` as JSON, in order) goes to `--out`, so two trees'
runs compare with `cmp`; the p50 and CPU time a query of a timed pass per
mode (k = 10, no filter, as the benchmark's chunk row) are printed. Run it
against another tree's library with that tree's `src` first on `PYTHONPATH`:

    PYTHONPATH=/path/to/old/src nice -n 10 uv run python -m scripts.compare_passages \
        --n 100000 --out old.json
    nice -n 10 uv run python -m scripts.compare_passages --n 100000 --out new.json
    cmp old.json new.json
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import redstring
from redstring import ChunkRetriever, RetrievalMode, TenantId
from redstring.domain.tokenize import Analyzer
from redstring.ports import ChunkStore
from redstring.stores import InMemoryChunkStore, open_sqlite
from scripts.bench_corpus import TableEmbeddings, chunk_corpus, ingest_chunks, unit_rows
from scripts.bench_measure import compare_trees

MODES = (RetrievalMode.LEXICAL, RetrievalMode.SEMANTIC, RetrievalMode.HYBRID)


def queries(
    texts: list[str], matrix: np.ndarray, count: int, seed: int
) -> tuple[list[str], dict[str, list[float]]]:
    """`count` distinct queries and each one's vector (see the module docstring)."""
    rng = np.random.default_rng(seed)
    terms = Analyzer().terms
    mix: list[str] = []
    table: dict[str, list[float]] = {}
    noise = unit_rows(4 * count, matrix.shape[1], rng)
    while len(mix) < count:
        holder = int(rng.integers(len(texts)))
        words = sorted(set(terms(texts[holder])))
        picked = rng.choice(words, size=min(len(words), int(rng.integers(1, 4))), replace=False)
        text = " ".join(str(w) for w in picked)
        if not text or text in table:
            continue
        source = holder if len(mix) % 2 == 0 else int(rng.integers(len(texts)))
        vector = matrix[source] + 0.5 * noise[len(table)]
        table[text] = (vector / np.linalg.norm(vector)).tolist()
        mix.append(text)
    return mix, table


async def open_store(
    args: argparse.Namespace, texts: list[str], matrix: np.ndarray, tenant: TenantId
) -> ChunkStore:
    """The chunk store holding the corpus: in memory, or the kept SQLite file."""
    if args.sqlite is None:
        store = InMemoryChunkStore(dimension=matrix.shape[1])
        await ingest_chunks(store, tenant, texts, matrix)
        return store
    fresh = not args.sqlite.exists()
    stores = open_sqlite(args.sqlite, dimension=matrix.shape[1], cache_bytes=4 << 30)
    if fresh:
        await ingest_chunks(stores.chunks, tenant, texts, matrix)
    return stores.chunks


async def run(args: argparse.Namespace) -> list[str]:
    tenant, texts, matrix, _ = chunk_corpus(args.n, args.dim)
    mix, table = queries(texts, matrix, args.queries, seed=17)
    store = await open_store(args, texts, matrix, tenant)
    retriever = ChunkRetriever(embeddings=TableEmbeddings(args.dim, table), chunks=store)
    sources = sorted({f"doc-{i // 10}" for i in range(args.n)})
    kept = sources[::10]
    print(f"library {redstring.__file__}; load {os.getloadavg()}", flush=True)
    answers: list[str] = []
    for at, text in enumerate(mix):
        for mode in MODES:
            result = await retriever.retrieve_chunks(
                text,
                tenant,
                k=50 if at % 7 == 6 else 10,
                mode=mode,
                source_ids=kept if at % 5 == 4 else None,
            )
            answers.append(result.model_dump_json())
    for mode in MODES:
        timed: list[float] = []
        cpu = time.process_time()
        for text in mix:
            started = time.perf_counter()
            await retriever.retrieve_chunks(text, tenant, k=10, mode=mode)
            timed.append((time.perf_counter() - started) * 1000)
        cpu_ms = (time.process_time() - cpu) * 1000 / len(mix)
        print(
            f"{mode.value}: p50 {np.percentile(timed, 50):.2f} ms, CPU {cpu_ms:.2f} ms a query",
            flush=True,
        )
    print(f"load {os.getloadavg()}", flush=True)
    return answers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="passages")
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--sqlite", type=Path, help="a SQLite file to build once and reuse")
    compare_trees(parser, run)


if __name__ == "__main__":
    main()
