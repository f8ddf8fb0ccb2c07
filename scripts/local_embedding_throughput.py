"""Throughput of LocalEmbeddingProvider: texts per second, model load excluded.

Embeds 500 short names and 100 passages of about 60 words, each at batch
size 1 (the baseline, measured in the same run) and 32, with onnxruntime
limited to `--threads` threads (default 2). Prints the median of 3 runs in
texts per wall-clock second and per CPU second of this process (the latter
is less sensitive to other load on the machine), and the ratio to the
baseline. Then prints how a paraphrase query ranks a few bare names, the
figure quoted in docs/how-to/embed-locally.md.

`--multilingual` instead measures the multilingual-e5-small model (the
`multilingual` extra, ADR 0275) beside MiniLM in the same run, both on one
thread and through their providers, on the same names, 60-word passages and
1,000-character passages: texts per CPU-second of this process, the median
of 3 rounds that alternate the two models, and MiniLM's rate over the
other's (the other's time per text in MiniLM's); then where each model's
cosine lies for 25 unrelated query/text pairs.

    uv run python -m scripts.local_embedding_throughput [--threads N]
    nice -n 10 uv run python -m scripts.local_embedding_throughput --multilingual
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import time

import numpy as np

from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.llm.multilingual_embedding import MultilingualEmbeddingProvider
from redstring.ports import EmbeddingProvider

FIRST = [
    "Ada",
    "Alan",
    "Grace",
    "Charles",
    "Marie",
    "Isaac",
    "Emmy",
    "Niels",
    "Rosalind",
    "Katherine",
    "Edsger",
    "Barbara",
]
LAST = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Babbage",
    "Curie",
    "Newton",
    "Noether",
    "Bohr",
    "Franklin",
    "Johnson",
    "Liskov",
]
WORDS = [
    "the",
    "engine",
    "committee",
    "measured",
    "archive",
    "river",
    "city",
    "algorithm",
    "historian",
    "telescope",
    "published",
    "translated",
    "designed",
    "recorded",
    "compared",
    "discovered",
    "difference",
    "program",
    "compiler",
    "crystals",
    "theory",
    "computation",
    "orbit",
    "comet",
    "weaving",
    "tides",
    "catalogue",
    "stars",
    "census",
    "tables",
    "letters",
    "workshop",
    "notebook",
    "lecture",
    "society",
]


def names(count: int, rng: random.Random) -> list[str]:
    return [f"{rng.choice(FIRST)} {rng.choice(LAST)} {i}" for i in range(count)]


def passages(count: int, rng: random.Random) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(60)) + "." for _ in range(count)]


#: Queries and texts that have nothing to do with each other: where a model's
#: cosine sits for "no match" (the confidence calibration reads it, ADR 0275).
UNRELATED_QUERIES = [
    "who painted the Mona Lisa",
    "capital of France",
    "the English mathematician who designed the Analytical Engine",
    "how do volcanoes erupt",
    "Zorblat Quenting",
]
UNRELATED_TEXTS = [
    "Bananas are yellow.",
    "Sourdough bread rises slowly with wild yeast.",
    "Serena Williams, tennis champion",
    "The Rhine flows from the Alps to the North Sea.",
    "Copper conducts electricity well.",
]


def long_passages(count: int, rng: random.Random) -> list[str]:
    """Passages of about 1,000 characters, the size the chunker cuts."""
    texts = []
    for _ in range(count):
        words: list[str] = []
        while sum(len(w) + 1 for w in words) < 1000:
            words.append(rng.choice(WORDS))
        texts.append(" ".join(words) + ".")
    return texts


async def cpu_rate(provider: EmbeddingProvider, texts: list[str]) -> float:
    """Texts per CPU-second of this process for one `embed` call over `texts`."""
    started = time.process_time()
    await provider.embed(texts)
    return len(texts) / (time.process_time() - started)


async def compare_multilingual() -> None:
    rng = random.Random(7)
    print(f"one thread each, load average {os.getloadavg()[0]:.1f}")
    print("texts per CPU-second (median of 3 alternating rounds)")
    minilm, multilingual = LocalEmbeddingProvider(), MultilingualEmbeddingProvider()
    for provider in (minilm, multilingual):
        await provider.load()
        await provider.embed(["warm up", "the engine"])
    for label, texts in (
        ("short names", names(500, rng)),
        ("60-word passages", passages(100, rng)),
        ("1,000-char passages", long_passages(40, rng)),
    ):
        base, other = [], []
        for _ in range(3):
            base.append(await cpu_rate(minilm, texts))
            other.append(await cpu_rate(multilingual, texts))
        b, o = statistics.median(base), statistics.median(other)
        print(
            f"{label:20s} MiniLM {b:7.1f}   multilingual-e5-small {o:7.1f}   "
            f"time per text {b / o:.2f}x MiniLM's"
        )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    for provider in (minilm, multilingual):
        queries = np.array(await provider.embed_query(UNRELATED_QUERIES))
        texts = np.array(await provider.embed(UNRELATED_TEXTS))
        cosines = queries @ texts.T
        print(
            f"{type(provider).__name__}: cosine of {cosines.size} unrelated query/text pairs "
            f"min {cosines.min():.3f} median {np.median(cosines):.3f} max {cosines.max():.3f}"
        )


async def rate(texts: list[str], batch_size: int, threads: int) -> tuple[float, float]:
    """Median texts per wall-clock second, and texts per CPU second of this process."""
    provider = LocalEmbeddingProvider(batch_size=batch_size, threads=threads)
    await provider.load()
    await provider.embed(texts[:batch_size])  # warm-up
    wall, cpu = [], []
    for _ in range(3):
        started, started_cpu = time.perf_counter(), time.process_time()
        await provider.embed(texts)
        wall.append(len(texts) / (time.perf_counter() - started))
        cpu.append(len(texts) / (time.process_time() - started_cpu))
    return statistics.median(wall), statistics.median(cpu)


async def ranking() -> None:
    provider = LocalEmbeddingProvider()
    query = "the English mathematician who designed the Analytical Engine"
    candidates = [
        "Charles Babbage",
        "Louis Armstrong",
        "Wolfgang Amadeus Mozart",
        "Genghis Khan",
        "Frida Kahlo",
        "Serena Williams",
        "Cleopatra",
    ]
    [vector] = await provider.embed_query([query])
    scores = np.array(await provider.embed(candidates)) @ np.array(vector)
    print(f"\ncosine to {query!r} (bare names):")
    for score, name in sorted(zip(scores, candidates, strict=True), reverse=True):
        print(f"  {score:.3f}  {name}")


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--multilingual", action="store_true", help="multilingual-e5-small beside MiniLM"
    )
    args = parser.parse_args()
    if args.multilingual:
        await compare_multilingual()
        return
    threads = args.threads
    rng = random.Random(7)
    print(
        f"onnxruntime threads={threads}, cpus visible={os.cpu_count()}, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print("texts/s wall-clock (texts per CPU-second of this process)")
    for label, texts in (
        ("short names", names(500, rng)),
        ("60-word passages", passages(100, rng)),
    ):
        base_wall, base_cpu = await rate(texts, 1, threads)
        wall, cpu = await rate(texts, 32, threads)
        print(
            f"{label:17s} batch=1: {base_wall:6.1f} ({base_cpu:6.1f})   "
            f"batch=32: {wall:6.1f} ({cpu:6.1f})   ratio {wall / base_wall:.2f}x"
        )
    started = time.perf_counter()
    await LocalEmbeddingProvider().load()
    print(f"cold load (hash both files + build the session): {time.perf_counter() - started:.2f} s")
    await ranking()


if __name__ == "__main__":
    asyncio.run(main())
