"""Passage retrieval on public collections, beside bm25s and LanceDB on the same vectors.

    nice -n 10 uv run python -m scripts.bench_beir --data DIR [DIR ...] [--sets elements python]
    uv run python -m scripts.bench_beir --prepare-nfcorpus TEST DEV TOPICS QRELS --into DIR
    uv run python -m scripts.bench_beir --prepare-arguana ARGUMENTS --into DIR [--split training]

Each DIR is a collection in BEIR's layout (`scripts/quality/beir.py`);
`--sets` adds the committed graded passage sets. One passage per document
(title and text). Every system reads the same local
MiniLM vectors (`LocalEmbeddingProvider`, computed once and kept under
`.cache/beir/`, which git ignores). Printed per collection: nDCG@10 and
Recall@100 of `ChunkRetriever` HYBRID (the default fusion), LEXICAL,
SEMANTIC, `fusion=ReciprocalRankFusion()`, `fusion=EvidenceFusion()` (a
score fusion of both channels read at `k`, the path of the adaptive fusion
that was the default before ADR 0355 and is gone since ADR 0365), bm25s
with the same Snowball stemmer and stopwords (twice: with its own word
pattern, which drops one-character words, and with ours), LanceDB full-text search and
LanceDB hybrid (its defaults); the expected calibration error of HYBRID's
`confidence` against relevance over each query's top 10; HYBRID's nDCG@10
minus each other system's with a 95% paired bootstrap interval; how deep HYBRID
read the semantic channel, and the mean time per query of each of our modes
in the same run. A query's own document (ArguAna's queries are documents
of its corpus) is left out of every run before measuring, as BEIR and MTEB
do.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import platform
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import bm25s  # type: ignore[import-untyped]
import lancedb
import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]
import Stemmer  # type: ignore[import-not-found]

from redstring import ChunkRetriever, RetrievalMode, StoredChunk
from redstring.domain.chunk import ChunkId
from redstring.domain.fusion import EvidenceFusion, FusionStrategy, ReciprocalRankFusion
from redstring.domain.ids import TenantId
from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.stores import InMemoryChunkStore
from scripts.quality.arguana import SPLITS, prepare_arguana_release
from scripts.quality.beir import (
    Collection,
    expected_calibration_error,
    from_passage_set,
    judged,
    load_collection,
    ndcg10,
    paired_difference,
    prepare_nfcorpus_release,
    recall_at,
)
from scripts.quality.harness import TENANT, fmt
from scripts.quality.passage_sets import PASSAGE_SETS

CACHE = Path(__file__).resolve().parents[1] / ".cache" / "beir"
DEPTH = 100
#: Each system is asked one more than `DEPTH`: the query's own document, when the
#: collection holds it (ArguAna), is dropped before measuring, as BEIR and MTEB do.
ASKED = DEPTH + 1


class CachedVectors:
    """An `EmbeddingProvider` answering from vectors computed once (documents and queries)."""

    def __init__(self, vectors: dict[str, list[float]], model: str, dimension: int) -> None:
        self._vectors = vectors
        self.model = model
        self.dimension = dimension

    def vector(self, text: str) -> list[float]:
        return self._vectors[text]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vectors[text] for text in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vectors[text] for text in texts]


class DepthRecordingStore(InMemoryChunkStore):
    """The in-memory store, remembering the largest semantic `k` asked per query."""

    def __init__(self, *, dimension: int) -> None:
        super().__init__(dimension=dimension)
        self.asked: list[int] = []

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        self.asked.append(k)
        return await super().semantic_ranking(vector, tenant_id, k=k, source_ids=source_ids)


def vectors_for(
    name: str, texts: list[str], embed: Callable[[list[str]], np.ndarray]
) -> np.ndarray:
    """`embed(texts)`, kept under `.cache/beir/` by a digest of the texts."""
    digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()[:16]
    path = CACHE / f"{name}-{digest}.npy"
    if path.exists():
        return np.asarray(np.load(path), dtype=np.float32)
    matrix = embed(texts)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, matrix.astype(np.float32))
    return matrix


def embedded(collection: Collection) -> CachedVectors:
    """Every passage and query embedded once by the local model (cached on disk)."""
    model = LocalEmbeddingProvider()
    doc_texts = [collection.text_of(d) for d in collection.documents]
    query_texts = list(collection.queries.values())
    docs = vectors_for(
        f"{collection.name}-docs",
        doc_texts,
        lambda texts: np.array(asyncio.run(model.embed(texts)), dtype=np.float32),
    )
    queries = vectors_for(
        f"{collection.name}-queries",
        query_texts,
        lambda texts: np.array(asyncio.run(model.embed_query(texts)), dtype=np.float32),
    )
    table = {t: v.tolist() for t, v in zip(doc_texts, docs, strict=True)}
    table.update({t: v.tolist() for t, v in zip(query_texts, queries, strict=True)})
    return CachedVectors(table, model.model, model.dimension)


async def load_passages(
    store: InMemoryChunkStore, collection: Collection, vectors: CachedVectors
) -> None:
    """Every document of `collection` into `store` as one passage with its cached vector."""
    chunks = [
        StoredChunk(
            tenant_id=TENANT,
            source_id=doc_id,
            text=(text := collection.text_of(doc_id)),
            index=0,
            start=0,
            end=len(text),
            embedding=vectors.vector(text),
            embedding_model=vectors.model,
        )
        for doc_id in collection.documents
    ]
    for start in range(0, len(chunks), 1000):
        await store.upsert_chunks(chunks[start : start + 1000])


async def our_runs(collection: Collection, vectors: CachedVectors) -> dict[str, object]:
    store = DepthRecordingStore(dimension=vectors.dimension)
    await load_passages(store, collection, vectors)
    systems: dict[str, tuple[RetrievalMode, FusionStrategy | None]] = {
        "HYBRID (default)": (RetrievalMode.HYBRID, None),
        "LEXICAL": (RetrievalMode.LEXICAL, None),
        "SEMANTIC": (RetrievalMode.SEMANTIC, None),
        "ReciprocalRankFusion()": (RetrievalMode.HYBRID, ReciprocalRankFusion()),
        "EvidenceFusion() (channels at k)": (RetrievalMode.HYBRID, EvidenceFusion()),
    }
    rankings: dict[str, dict[str, list[str]]] = {}
    timings: dict[str, float] = {}
    pairs: list[tuple[float, bool]] = []
    depths: list[int] = []
    for label, (mode, fusion) in systems.items():
        retriever = (
            ChunkRetriever(embeddings=vectors, chunks=store)
            if fusion is None
            else ChunkRetriever(embeddings=vectors, chunks=store, fusion=fusion)
        )
        rankings[label] = {}
        started = time.perf_counter()
        for query_id, text in collection.queries.items():
            store.asked.clear()
            result = await retriever.retrieve_chunks(text, TENANT, k=ASKED, mode=mode)
            rankings[label][query_id] = [m.chunk.source_id for m in result.matches]
            if label == "HYBRID (default)":
                depths.append(max(store.asked, default=0))
                relevant = collection.qrels[query_id]
                own = [m for m in result.matches if m.chunk.source_id != query_id]
                pairs += [(m.confidence or 0.0, m.chunk.source_id in relevant) for m in own[:10]]
        timings[label] = (time.perf_counter() - started) * 1000 / len(collection.queries)
    # k=10, the default, timed twice in turn; the second (warm) pass is reported.
    at_ten: dict[str, float] = {}
    for label in ("HYBRID (default)", "EvidenceFusion() (channels at k)") * 2:
        _, fusion = systems[label]
        retriever = (
            ChunkRetriever(embeddings=vectors, chunks=store)
            if fusion is None
            else ChunkRetriever(embeddings=vectors, chunks=store, fusion=fusion)
        )
        started = time.perf_counter()
        for text in collection.queries.values():
            await retriever.retrieve_chunks(text, TENANT, k=10)
        at_ten[label] = (time.perf_counter() - started) * 1000 / len(collection.queries)
    return {
        "rankings": rankings,
        "timings": timings,
        "at_ten": at_ten,
        "ece": pairs,
        "depths": depths,
    }


#: bm25s's own word pattern (two characters or more) and ours (one or more: "vitamin D").
BM25S_WORDS = {"bm25s's words (2+ characters)": r"(?u)\b\w\w+\b", "our words": r"(?u)\b\w+\b"}


def bm25s_run(collection: Collection, words: str) -> dict[str, list[str]]:
    """bm25s (Lucene IDF, k1 1.2, b 0.75) with the Snowball English stemmer and its English
    stopwords, tokenising by the regular expression `words`."""
    stemmer = Stemmer.Stemmer("english")
    ids = list(collection.documents)

    def analysed(texts: list[str]) -> object:
        return bm25s.tokenize(
            texts, stopwords="en", stemmer=stemmer, token_pattern=words, show_progress=False
        )

    index = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    index.index(analysed([collection.text_of(d) for d in ids]), show_progress=False)
    out = {}
    for query_id, text in collection.queries.items():
        k = min(ASKED, len(ids))
        found, scores = index.retrieve(analysed([text]), k=k, show_progress=False)
        out[query_id] = [ids[int(i)] for i, s in zip(found[0], scores[0], strict=True) if s > 0]
    return out


def lancedb_runs(collection: Collection, vectors: CachedVectors) -> dict[str, dict[str, list[str]]]:
    ids = list(collection.documents)
    texts = [collection.text_of(d) for d in ids]
    matrix = np.array([vectors.vector(t) for t in texts], dtype=np.float32)
    with tempfile.TemporaryDirectory() as folder:
        db = lancedb.connect(folder)
        vector_type = pa.list_(pa.float32(), matrix.shape[1])
        table = db.create_table(
            "passages",
            data=pa.table(
                {
                    "id": ids,
                    "text": texts,
                    "vector": pa.FixedSizeListArray.from_arrays(
                        pa.array(matrix.reshape(-1)), matrix.shape[1]
                    ).cast(vector_type),
                }
            ),
        )
        table.create_fts_index("text")
        fts: dict[str, list[str]] = {}
        hybrid: dict[str, list[str]] = {}
        for query_id, text in collection.queries.items():
            vector = vectors.vector(text)
            rows = table.search(text, query_type="fts").limit(ASKED).select(["id"]).to_list()
            fts[query_id] = [r["id"] for r in rows]
            rows = (
                table.search(query_type="hybrid")
                .vector(vector)
                .text(text)
                .limit(ASKED)
                .select(["id"])
                .to_list()
            )
            hybrid[query_id] = [r["id"] for r in rows]
    return {"LanceDB full-text (defaults)": fts, "LanceDB hybrid (defaults)": hybrid}


def score(collection: Collection, ranking: dict[str, list[str]]) -> tuple[list[float], float]:
    """Each query's nDCG@10 (in the collection's query order) and the mean Recall@100."""
    runs = {q: judged(q, ranking.get(q, []), DEPTH) for q in collection.queries}
    ndcg = [ndcg10(runs[q], collection.qrels[q]) for q in runs]
    recall = statistics.fmean(recall_at(runs[q], collection.qrels[q]) for q in runs)
    return ndcg, recall


def bench(collection: Collection) -> str:
    vectors = embedded(collection)
    ours = asyncio.run(our_runs(collection, vectors))
    rankings: dict[str, dict[str, list[str]]] = dict(ours["rankings"])  # type: ignore[call-overload]
    for label, words in BM25S_WORDS.items():
        rankings[f"bm25s, Snowball English + stopwords, {label}"] = bm25s_run(collection, words)
    rankings.update(lancedb_runs(collection, vectors))
    timings: dict[str, float] = ours["timings"]  # type: ignore[assignment]
    depths: list[int] = ours["depths"]  # type: ignore[assignment]
    lines = [
        f"### {collection.name}: {len(collection.documents)} documents, "
        f"{len(collection.queries)} test queries",
        "",
        "| system (same data, same vectors) | nDCG@10 | R@100 | ms/query |",
        "| --- | --- | --- | --- |",
    ]
    per_query: dict[str, list[float]] = {}
    for label, ranking in rankings.items():
        per_query[label], recall = score(collection, ranking)
        ms = f"{timings[label]:.1f}" if label in timings else "—"
        lines.append(
            f"| {label} | {fmt(statistics.fmean(per_query[label]))} | {fmt(recall)} | {ms} |"
        )
    hybrid = per_query["HYBRID (default)"]
    lines += [
        "",
        "HYBRID minus each system, nDCG@10 over the same queries, with a 95% paired "
        "bootstrap interval (10,000 resamplings of the queries):",
        "",
        *(
            f"- {label}: {mean:+.3f} [{low:+.3f}, {high:+.3f}]"
            for label, figures in per_query.items()
            if label != "HYBRID (default)"
            for mean, low, high in [paired_difference(hybrid, figures)]
        ),
    ]
    ece = expected_calibration_error(ours["ece"])  # type: ignore[arg-type]
    lines += [
        "",
        f"HYBRID `confidence` over each query's top 10: ECE {fmt(ece)} (10 bins). "
        f"Deepest semantic_ranking HYBRID asked (k={ASKED}): "
        f"median {statistics.median(depths):.0f}, "
        f"max {max(depths)} of {len(collection.documents)}. At k=10: "
        + ", ".join(f"{label} {ms:.1f} ms/query" for label, ms in ours["at_ten"].items())  # type: ignore[attr-defined]
        + ".",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", nargs="*", type=Path, default=[], help="BEIR-layout folders")
    parser.add_argument(
        "--sets", nargs="*", default=[], choices=sorted(PASSAGE_SETS), help="committed passage sets"
    )
    parser.add_argument(
        "--prepare-nfcorpus",
        nargs=4,
        type=Path,
        metavar=("TEST_DOCS", "DEV_DOCS", "TOPICS", "QRELS"),
        help="write NFCorpus's released docs with BEIR's test topics and qrels to --into",
    )
    parser.add_argument(
        "--prepare-arguana",
        type=Path,
        metavar="ARGUMENTS",
        help="write ArguAna from its release's 02-extracted-arguments folder to --into",
    )
    parser.add_argument(
        "--split",
        default="test",
        choices=SPLITS,
        help="whose points --prepare-arguana asks: test (BEIR's queries) or another split's",
    )
    parser.add_argument("--into", type=Path, help="where --prepare-* writes")
    args = parser.parse_args()
    if args.prepare_nfcorpus or args.prepare_arguana:
        if args.into is None:
            parser.error("--prepare-nfcorpus and --prepare-arguana need --into DIR")
        if args.prepare_nfcorpus:
            test_docs, dev_docs, topics, qrels = args.prepare_nfcorpus
            made = prepare_nfcorpus_release([test_docs, dev_docs], topics, qrels, args.into)
        else:
            made = prepare_arguana_release(args.prepare_arguana, args.into, args.split)
        print(f"{args.into}: {len(made.documents)} documents, {len(made.queries)} queries")
        return
    load = os.getloadavg()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} vCPU, load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}\n"
    )
    collections = [load_collection(folder) for folder in args.data]
    collections += [from_passage_set(name, PASSAGE_SETS[name]) for name in args.sets]
    for collection in collections:
        print(bench(collection) + "\n", flush=True)


if __name__ == "__main__":
    main()
