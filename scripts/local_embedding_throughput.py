"""Throughput of LocalEmbeddingProvider: texts per second, model load excluded.

Embeds 500 short names and 100 passages of about 60 words, each at batch
size 1 (the baseline, measured in the same run) and 32, with onnxruntime
limited to `--threads` threads (default 2). Prints the median of 3 runs in
texts per wall-clock second and per CPU second of this process (the latter
is less sensitive to other load on the machine), and the ratio to the
baseline. Then prints how a paraphrase query ranks a few bare names, the
figure quoted in docs/how-to/embed-locally.md.

    uv run python scripts/local_embedding_throughput.py [--threads N]
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
    threads = parser.parse_args().threads
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
