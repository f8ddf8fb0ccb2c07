"""Benchmark indexing one large text file with the local model, phase by phase, beside baselines.

Builds a deterministic text of about `--mb` megabytes from the sentences of
the Lee corpus (tests/data/quality/passages.json, shuffled into paragraphs
with a fixed seed) and measures, in one process and one run:

- chunking: `SlidingWindowChunker().split` over the text (chunks/s);
- embedding: `LocalEmbeddingProvider().embed` over every chunk in batches of
  64, as `index_documents` sends them (chunks/s, and passages per CPU-second
  of this process, which other load on the machine disturbs less);
- the embedding baseline: the provider's previous settings (onnxruntime's
  default threads with spinning workers, batches of 32 in input order),
  rebuilt here on the same model and timed on the same passages, so the
  ratio compares implementations on the same machine at the same moment;
- storing: `index_documents` into a fresh SQLite file with a provider that
  answers the vectors already computed (so its time is planning and
  writing, with the chunking time subtracted), and the file size against
  the text's (with the postings' share where SQLite's `dbstat` is built in);
- re-indexing after a one-paragraph edit (one word of the middle paragraph
  lengthened, so every later passage moves): the whole `index_documents`
  call, chunking included, the changed passages' vectors computed before.

    nice -n 10 uv run python -m scripts.bench_indexing            # about 2 MB
    nice -n 10 uv run python -m scripts.bench_indexing --mb 0.2   # a minute
    nice -n 10 uv run python -m scripts.bench_indexing --provider fake  # storing only
    nice -n 10 uv run python -m scripts.bench_indexing --build 200  # build_graph's transactions
    nice -n 10 uv run python -m scripts.bench_indexing --threads --mb 0.3  # cores vs one thread

`--provider fake` embeds with `FakeEmbeddingProvider` (384 dimensions, no
model, no baseline): the store time and the file size are measured as with
the model, the embedding rows are not.

Prints a markdown table and, with `--json FILE`, writes the raw figures
(scripts.bench_retrieval runs this as its `indexing` row).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import sqlite3
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np

from scripts import ROOT
from scripts.bench_corpus import TableEmbeddings

EMBED_BATCH = 64  # index_documents' default batch
BASELINE_BATCH = 32  # the provider's batch before ADR 0189
BASELINE_PASSAGES = 256  # passages both embedding implementations are timed on


def corpus_text(megabytes: float, seed: int = 5) -> str:
    """About `megabytes` of English prose: Lee corpus sentences in shuffled paragraphs."""
    data = json.loads((ROOT / "tests/data/quality/passages.json").read_text())
    sentences: list[str] = []
    for document in data["documents"]:
        sentences.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+", document["text"]))
    sentences = sorted({s for s in sentences if s})
    rng = np.random.default_rng(seed)
    paragraphs: list[str] = []
    size = 0
    while size < megabytes * 1_000_000:
        picked = rng.integers(len(sentences), size=int(rng.integers(3, 9)))
        paragraph = " ".join(sentences[i] for i in picked)
        paragraphs.append(paragraph)
        size += len(paragraph) + 2
    return "\n\n".join(paragraphs)


def baseline_embed(texts: list[str]) -> list[np.ndarray]:
    """The provider's previous settings: default onnxruntime threads (spinning), batches of 32."""
    import onnxruntime  # type: ignore[import-untyped]  # noqa: PLC0415
    from tokenizers import Tokenizer  # noqa: PLC0415

    from redstring.llm.local_embedding import (  # noqa: PLC0415
        MAX_TOKENS,
        mean_pool_and_normalise,
        packaged_files,
    )

    files = packaged_files()
    options = onnxruntime.SessionOptions()
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        files.model.read_bytes(), sess_options=options, providers=["CPUExecutionProvider"]
    )
    tokenizer = Tokenizer.from_str(files.tokenizer.read_text())
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.no_padding()
    names = {node.name for node in session.get_inputs()}
    out: list[np.ndarray] = []
    for start in range(0, len(texts), BASELINE_BATCH):
        encodings = tokenizer.encode_batch(texts[start : start + BASELINE_BATCH])
        order = sorted(range(len(encodings)), key=lambda i: len(encodings[i].ids))
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, i in enumerate(order):
            ids[row, : len(encodings[i].ids)] = encodings[i].ids
            mask[row, : len(encodings[i].ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        (hidden,) = session.run(
            ["last_hidden_state"], {k: v for k, v in feed.items() if k in names}
        )
        pooled = np.asarray(mean_pool_and_normalise(np.asarray(hidden, np.float32), mask))
        back = np.empty_like(pooled)
        back[order] = pooled
        out.extend(back)
    return out


def edit_one_paragraph(text: str) -> str:
    """`text` with one word of its middle paragraph lengthened: one passage changes, and
    every later one moves."""
    paragraphs = text.split("\n\n")
    middle = len(paragraphs) // 2
    paragraphs[middle] = re.sub(r"\w+", lambda m: m.group() + "ly", paragraphs[middle], count=1)
    return "\n\n".join(paragraphs)


def timed(call: Any) -> tuple[Any, float, float]:
    """(result, wall seconds, CPU seconds of this process)."""
    wall, cpu = time.perf_counter(), time.process_time()
    value = call()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def folder_bytes(folder: Path) -> int:
    """The bytes of every file in `folder` (the database and any journal left beside it)."""
    return sum(path.stat().st_size for path in folder.iterdir())


def postings_share(path: Path) -> float | None:
    """The fraction of the file's pages held by the postings table and its index, if measurable."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        try:
            rows = connection.execute(
                "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"
            ).fetchall()
        except sqlite3.OperationalError:
            return None
    total = sum(size for _, size in rows)
    postings = sum(size for name, size in rows if "posting" in name)  # v3 and v4 tables
    return postings / total if total else None


async def run(megabytes: float, provider_name: str = "local") -> dict[str, Any]:
    from redstring.composition.index_documents import index_documents  # noqa: PLC0415
    from redstring.composition.sqlite_stores import open_sqlite  # noqa: PLC0415
    from redstring.domain.chunking import SlidingWindowChunker  # noqa: PLC0415
    from redstring.domain.document import SourceDocument  # noqa: PLC0415
    from redstring.domain.ids import TenantId  # noqa: PLC0415
    from redstring.llm.fake_embedding import FakeEmbeddingProvider  # noqa: PLC0415
    from redstring.llm.local_embedding import LocalEmbeddingProvider  # noqa: PLC0415

    text = corpus_text(megabytes)
    spans, chunk_s, _ = timed(lambda: SlidingWindowChunker().split(text))
    passages = [text[s.start : s.end] for s in spans]
    fake = provider_name == "fake"
    provider = FakeEmbeddingProvider(dimension=384) if fake else LocalEmbeddingProvider()
    if not fake:
        await provider.load()
        await provider.embed(passages[:8])  # warm-up, as for the baseline below
    wall, cpu = time.perf_counter(), time.process_time()
    vectors: list[list[float]] = []
    for start in range(0, len(passages), EMBED_BATCH):
        vectors.extend(await provider.embed(passages[start : start + EMBED_BATCH]))
    embed_s, embed_cpu = time.perf_counter() - wall, time.process_time() - cpu
    sample = passages[:BASELINE_PASSAGES]
    base_s = base_cpu = new_cpu = float("nan")
    agreement = float("nan")
    if not fake:
        baseline_embed(sample[:8])  # warm-up
        old, base_s, base_cpu = timed(lambda: baseline_embed(sample))
        new_start = time.process_time()
        new = await provider.embed(sample)
        new_cpu = time.process_time() - new_start
        agreement = float(min(np.dot(a, np.asarray(b)) for a, b in zip(old, new, strict=True)))

    folder = Path(tempfile.mkdtemp(prefix="redstring-bench-index-"))
    try:
        stores = open_sqlite(folder / "index.db", dimension=provider.dimension)
        table = dict(zip(passages, vectors, strict=True))
        document = SourceDocument(id="corpus.txt", text=text)
        wall = time.perf_counter()
        report = await index_documents(
            [document],
            chunks=stores.chunks,
            tenant_id=TenantId(uuid.UUID(int=1)),
            embeddings=TableEmbeddings(provider.dimension, table),
        )
        index_s = time.perf_counter() - wall
        edited = edit_one_paragraph(text)
        for span in SlidingWindowChunker().split(edited):
            if span.text not in table:
                [table[span.text]] = await provider.embed([span.text])  # before the clock
        wall = time.perf_counter()
        edit = await index_documents(
            [SourceDocument(id="corpus.txt", text=edited)],
            chunks=stores.chunks,
            tenant_id=TenantId(uuid.UUID(int=1)),
            embeddings=TableEmbeddings(provider.dimension, table),
        )
        edit_s = time.perf_counter() - wall
        await stores.close()
        file_bytes = folder_bytes(folder)
        share = postings_share(folder / "index.db")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    store_s = max(index_s - chunk_s, 1e-9)
    return {
        "kind": "indexing",
        "provider": provider_name,
        "text_bytes": len(text.encode("utf-8")),
        "chunks": len(passages),
        "chunks_written": report.chunks_written,
        "chunk_s": chunk_s,
        "embed_s": embed_s,
        "embed_cpu_s": embed_cpu,
        "store_s": store_s,
        "edit_s": edit_s,
        "edit_embedded": edit.embedded,
        "file_bytes": file_bytes,
        "postings_share": share,
        "baseline_passages": len(sample),
        "baseline_per_cpu_s": len(sample) / base_cpu,
        "baseline_per_s": len(sample) / base_s,
        "new_per_cpu_s": len(sample) / new_cpu,
        "min_cosine_to_baseline": agreement,
        "load_average": os.getloadavg()[0],
    }


async def run_threads(megabytes: float, rounds: int) -> dict[str, Any]:
    """Passages per second of `index_documents` with the local model: its default threads
    (every core) against one thread, alternating, `rounds` times each, into fresh SQLite files.

    The text is cut into documents of about 20 passages (one file each); the
    models are loaded and warmed up before the clock; every round indexes
    the same documents into a new file, so each embeds every passage.
    """
    from redstring.composition.index_documents import index_documents  # noqa: PLC0415
    from redstring.composition.sqlite_stores import open_sqlite  # noqa: PLC0415
    from redstring.domain.document import SourceDocument  # noqa: PLC0415
    from redstring.domain.ids import TenantId  # noqa: PLC0415
    from redstring.llm.local_embedding import LocalEmbeddingProvider  # noqa: PLC0415

    paragraphs = corpus_text(megabytes).split("\n\n")
    step = max(1, len(paragraphs) // max(1, round(megabytes * 1_000_000 / 20_000)))
    documents = [
        SourceDocument(id=f"doc{n}.md", text="\n\n".join(paragraphs[at : at + step]))
        for n, at in enumerate(range(0, len(paragraphs), step))
    ]
    providers = {"default": LocalEmbeddingProvider(), "one": LocalEmbeddingProvider(threads=1)}
    for provider in providers.values():
        await provider.load()
        await provider.embed([document.text[:1000] for document in documents[:4]])  # warm-up
    rates: dict[str, list[float]] = {name: [] for name in providers}
    loads = [os.getloadavg()[0]]
    passages = 0
    for _ in range(rounds):
        for name, provider in providers.items():
            folder = Path(tempfile.mkdtemp(prefix="redstring-bench-threads-"))
            try:
                stores = open_sqlite(folder / "index.db", dimension=provider.dimension)
                wall = time.perf_counter()
                report = await index_documents(
                    documents,
                    chunks=stores.chunks,
                    tenant_id=TenantId(uuid.UUID(int=1)),
                    embeddings=provider,
                )
                seconds = time.perf_counter() - wall
                await stores.close()
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            passages = report.embedded
            rates[name].append(report.embedded / seconds)
            loads.append(os.getloadavg()[0])
    return {
        "documents": len(documents),
        "passages": passages,
        "default_threads": providers["default"].threads,
        "rates": rates,
        "loads": loads,
    }


async def run_build(documents: int) -> dict[str, Any]:
    """`build_graph` of `documents` paragraphs into a fresh SQLite file with a scripted model.

    Counts the write transactions (`BEGIN IMMEDIATE`) the file's connection
    ran and times the call; the model answers at once, so the time is the
    build's own (extraction plumbing, consolidation, events and folds).
    """
    from redstring.composition.build_graph import build_graph  # noqa: PLC0415
    from redstring.composition.sqlite_stores import open_sqlite  # noqa: PLC0415
    from redstring.domain.document import SourceDocument  # noqa: PLC0415
    from redstring.domain.ids import TenantId  # noqa: PLC0415
    from redstring.extraction.prompts import CLASSIFY_MARKER  # noqa: PLC0415
    from redstring.llm.fake_embedding import FakeEmbeddingProvider  # noqa: PLC0415
    from redstring.llm.fake_llm import FakeLlmProvider  # noqa: PLC0415

    paragraphs = corpus_text(documents * 0.0012).split("\n\n")[:documents]
    answer = {
        "entities": [{"name": "Lee", "type": "person", "description": "a name of the corpus"}],
        "relationships": [],
    }
    model = FakeLlmProvider(
        by_substring={CLASSIFY_MARKER: {"domain": "general", "confidence": 0.9}, "": answer}
    )
    folder = Path(tempfile.mkdtemp(prefix="redstring-bench-build-"))
    try:
        stores = open_sqlite(folder / "build.db", dimension=384)
        executed: list[str] = []
        stores.database.connection.set_trace_callback(executed.append)
        wall = time.perf_counter()
        report = await build_graph(
            [SourceDocument(id=f"p{n}", text=text) for n, text in enumerate(paragraphs)],
            provider=model,
            graph=stores.graph,
            tenant_id=TenantId(uuid.UUID(int=1)),
            embeddings=FakeEmbeddingProvider(dimension=384),
            vectors=stores.vectors,
            chunks=stores.chunks,
            log=stores.events,
        )
        build_s = time.perf_counter() - wall
        stores.database.connection.set_trace_callback(None)
        await stores.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return {
        "documents": report.documents,
        "chunks": report.chunks_written,
        "write_transactions": sum(1 for s in executed if s.startswith("BEGIN IMMEDIATE")),
        "read_transactions": sum(1 for s in executed if s == "BEGIN"),
        "build_s": build_s,
        "load_average": os.getloadavg()[0],
    }


def rows(r: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """(row, figure, baseline, target, met) for the issue-16 table."""
    store_share = r["store_s"] / r["embed_s"]
    size = r["file_bytes"] / r["text_bytes"]
    ratio = r["new_per_cpu_s"] / r["baseline_per_cpu_s"]
    share = "" if r["postings_share"] is None else f", {r['postings_share']:.0%} of it postings"
    mb = r["text_bytes"] / 1e6
    return [
        (
            f"index {mb:.1f} MB of text ({r['chunks']:,} chunks, local model): store time"
            " as a share of embedding time",
            f"store {r['store_s']:.1f} s / embedding {r['embed_s']:.1f} s = {store_share:.0%}",
            "embedding time, same run",
            "< 20%",
            "yes" if store_share < 0.2 else "NO",
        ),
        (
            "SQLite file size over text size",
            f"{r['file_bytes'] / 1e6:.1f} MB / {mb:.1f} MB = {size:.1f}x{share}",
            "the text",
            "<= 5x",
            "yes" if size <= 5 else "NO",
        ),
        (
            "chunks/s: chunking / embedding / storing",
            f"{r['chunks'] / r['chunk_s']:,.0f} / {r['chunks'] / r['embed_s']:,.1f}"
            f" / {r['chunks'] / r['store_s']:,.0f}",
            "-",
            "-",
            "-",
        ),
        (
            f"local embedding, passages per CPU-second ({r['baseline_passages']} passages)",
            f"{r['new_per_cpu_s']:.1f} (min cosine to baseline {r['min_cosine_to_baseline']:.6f})",
            f"previous settings: {r['baseline_per_cpu_s']:.1f}",
            ">= 2x",
            f"{'yes' if ratio >= 2 else 'NO'} ({ratio:.2f}x)",
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=2.0, help="megabytes of text (default 2)")
    parser.add_argument("--json", help="write the raw figures to this file")
    parser.add_argument(
        "--provider",
        choices=["local", "fake"],
        default="local",
        help="local: the packaged model (default); fake: no model, storing measured only",
    )
    parser.add_argument(
        "--build",
        type=int,
        metavar="N",
        help="instead: build_graph of N paragraphs (scripted model), counting write transactions",
    )
    parser.add_argument(
        "--threads",
        action="store_true",
        help="instead: passages/s indexing with the default threads against one thread",
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="alternating rounds of --threads (default 3)"
    )
    args = parser.parse_args()
    if args.threads:
        timed_threads = asyncio.run(run_threads(args.mb, args.rounds))
        rates = timed_threads["rates"]
        best = {name: max(values) for name, values in rates.items()}
        loads = ", ".join(f"{load:.1f}" for load in timed_threads["loads"])
        print(
            f"indexing {timed_threads['passages']} passages in {timed_threads['documents']}"
            f" documents with the local model into SQLite, {args.rounds} alternating rounds;"
            f" cores this process may use: {timed_threads['default_threads']};"
            f" load average before and after each round: {loads}"
        )
        for name, label in (("default", "default threads"), ("one", "one thread")):
            each = ", ".join(f"{rate:.1f}" for rate in rates[name])
            print(f"{label}: best {best[name]:.1f} passages/s (rounds: {each})")
        print(f"ratio default / one thread (best of each): {best['default'] / best['one']:.2f}x")
        return
    if args.build:
        built = asyncio.run(run_build(args.build))
        print(f"load average at the end: {built['load_average']:.1f}\n")
        print(
            f"build_graph of {built['documents']} documents ({built['chunks']} chunks) into"
            f" SQLite: {built['write_transactions']} write and {built['read_transactions']} read"
            f" transactions ({built['write_transactions'] / built['documents']:.2f} writes a"
            f" document), {built['build_s']:.2f} s"
        )
        return
    result = asyncio.run(run(args.mb, args.provider))
    if args.json:
        Path(args.json).write_text(json.dumps(result))
    print(f"load average at the end: {result['load_average']:.1f}\n")
    print("| row | figure | baseline | target | met |\n| --- | --- | --- | --- | --- |")
    for row in rows(result):
        if result["provider"] == "fake" and row[0].startswith(("local", "chunks/s", "index")):
            continue  # embedding figures without a model say nothing
        print("| " + " | ".join(row) + " |")
    if result["provider"] == "fake":
        print(f"| storing (fake provider) | {result['store_s']:.1f} s | - | - | - |")
    print(
        f"| re-indexing after a one-paragraph edit ({result['edit_embedded']} passages embedded)"
        f" | {result['edit_s']:.2f} s | - | - | - |"
    )


if __name__ == "__main__":
    main()
