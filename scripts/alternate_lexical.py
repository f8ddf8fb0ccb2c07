"""Two trees' entity LEXICAL and HYBRID in memory, answers compared and latency alternated.

Starts one worker per tree (`--old` and `--new`, each a `src` folder put first
on the worker's `PYTHONPATH`). Each builds the retrieval benchmark's corpus
(`bench_corpus.entity_corpus`: N entities of the searched tenant, three other
tenants, random rows) in `InMemoryGraphStore` and `InMemoryVectorStore`, then
answers on request:

- the check: a few hundred varied queries (the benchmark's mix, more exact
  names, typos and surnames, first names, prefixes, reordered and joined
  names, acronyms, other scripts, punctuation, noise; every fifth with a type
  filter), each through LEXICAL at `k=60` (every candidate the channel keeps)
  and HYBRID at `k=10`, every answer as `RetrievalResult` JSON. The two
  trees' answers must be equal string for string (floats print round-trip);
- a timed pass: the benchmark's query mix through one mode at `k=10`, the
  milliseconds of each query, after one untimed HYBRID warm-up pass.

The timed passes alternate old, new, old, new, ... (`--rounds` of each per
mode) so both trees see the same load; the load average is printed before
and after. Nothing asserts on time.

    nice -n 10 uv run python -m scripts.alternate_lexical --old /tmp/old/src --new src
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scripts import ROOT
from scripts.bench_corpus import entity_corpus, ingest_entities, make_queries, typo, unit_rows

#: Queries in other scripts, punctuation, noise and codes: the shapes the benchmark lacks.
ODD_QUERIES = (
    "Москва",
    "Владимир Путин",
    "ルワンダ",
    "北京",
    "محمد",
    "Σωκράτης",
    "Łódź",
    "Müller",
    "José García",
    "O'Brien",
    "A.B.C.",
    "x",
    "zz",
    "the",
    "and co",
    "Ltd",
    "123",
    "GBP",
    "J. Smith",
    "smith, john",
    "  SMITH   JOHN  ",
    "Group Holdings",
    "qwxz kjhg",
)


def check_queries(names: list[str], seed: int) -> list[tuple[str, list[str] | None]]:
    """(query, entity-type filter) pairs: varied shapes over the corpus's names, fixed by `seed`."""
    rng = np.random.default_rng(seed)
    texts = [text for _, text, _ in make_queries(names, 200, seed=11)]
    texts += [text for _, text, _ in make_queries(names, 100, seed=seed)]
    for _ in range(25):
        name = names[int(rng.integers(len(names)))]
        tokens = name.split()
        texts += [
            tokens[0],  # a first name or an organisation's head word
            tokens[-1][: max(2, len(tokens[-1]) // 2)],  # half a word
            " ".join(reversed(tokens)),  # reordered
            "".join(tokens),  # joined
            typo(typo(name, rng), rng),  # two edits
        ]
        if len(tokens) >= 3:
            texts.append("".join(t[0] for t in tokens[:3]).upper())  # an acronym
    texts += list(ODD_QUERIES)
    filters: list[list[str] | None] = [None, None, None, None, ["organization"]]
    return [(text, filters[at % 5] if at % 10 else ["person"]) for at, text in enumerate(texts)]


async def worker(n: int, dim: int) -> None:
    """Build the corpus, then answer the parent's commands (one JSON line in, one out)."""
    import redstring  # noqa: PLC0415
    from redstring import RetrievalMode, Retriever  # noqa: PLC0415
    from redstring.stores import InMemoryGraphStore, InMemoryVectorStore  # noqa: PLC0415
    from scripts.bench_corpus import TableEmbeddings  # noqa: PLC0415

    tenant, entities, matrix, _ = entity_corpus(n, dim, clustered=False)
    graph, vectors = InMemoryGraphStore(), InMemoryVectorStore(dimension=dim)
    await ingest_entities(graph, vectors, entities, matrix, n)
    names = [e.name for e in entities[:n]]
    mix = [text for _, text, _ in make_queries(names, 200, seed=11)]
    checks = check_queries(names, seed=12)
    # Each query's vector: a random stored row plus noise, the same in both trees.
    rows = np.random.default_rng(13).integers(n, size=len(checks))
    noise = unit_rows(len(checks), dim, np.random.default_rng(14))
    table: dict[str, list[float]] = {}
    for (text, _), row, extra in zip(checks, rows, noise, strict=True):
        vector = matrix[row] + 0.5 * extra
        table.setdefault(text, (vector / np.linalg.norm(vector)).tolist())
    retriever = Retriever(embeddings=TableEmbeddings(dim, table), vectors=vectors, graph=graph)
    modes = {"lexical": RetrievalMode.LEXICAL, "hybrid": RetrievalMode.HYBRID}
    for text in mix:  # the benchmark's untimed warm-up
        await retriever.retrieve(text, tenant, k=10, mode=RetrievalMode.HYBRID)
    print(json.dumps({"ready": redstring.__file__}), flush=True)
    for line in sys.stdin:
        command = json.loads(line)
        reply: Any
        if command["do"] == "check":
            reply = [
                (
                    await retriever.retrieve(text, tenant, k=k, mode=modes[mode], entity_types=kind)
                ).model_dump_json()
                for text, kind in checks
                for mode, k in (("lexical", 60), ("hybrid", 10))
            ]
        else:
            mode = modes[command["mode"]]
            reply = []
            for text in mix:
                started = time.perf_counter()
                await retriever.retrieve(text, tenant, k=10, mode=mode)
                reply.append((time.perf_counter() - started) * 1000)
        print(json.dumps(reply), flush=True)


class Tree:
    """One worker process (`module` run with `--worker` and `arguments`) running the
    library of one `src` folder; it prints one JSON line when ready and one per command."""

    def __init__(self, label: str, src: Path, module: str, arguments: list[str]) -> None:
        env = {**os.environ, "PYTHONPATH": f"{src.resolve()}{os.pathsep}{ROOT}"}
        self.label, self.src, self.arguments = label, src, arguments
        self.process = subprocess.Popen(
            [sys.executable, "-m", module, "--worker", *arguments],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def close(self) -> None:
        """End the worker (its input closed) and wait for it."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()

    def ask(self, command: dict[str, Any] | None) -> Any:
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        if command is not None:
            self.process.stdin.write(json.dumps(command) + "\n")
            self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", type=Path, help="the old tree's src folder")
    parser.add_argument("--new", type=Path, default=ROOT / "src", help="the new tree's src")
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--rounds", type=int, default=4, help="timed passes per tree and mode")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        asyncio.run(worker(args.n, args.dim))
        return
    sizes = [f"--n={args.n}", f"--dim={args.dim}"]
    trees = [
        Tree(label, src, "scripts.alternate_lexical", sizes)
        for label, src in (("old", args.old), ("new", args.new))
    ]
    for tree in trees:
        print(f"{tree.label}: {tree.ask(None)['ready']}", flush=True)
    old, new = (tree.ask({"do": "check"}) for tree in trees)
    differ = [at for at, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    print(f"check: {len(old)} answers ({len(old) // 2} queries), {len(differ)} differ", flush=True)
    for at in differ[:5]:
        print(f"  old {old[at][:300]}\n  new {new[at][:300]}")
    print(f"load before timing {os.getloadavg()}", flush=True)
    times: dict[tuple[str, str], list[float]] = {}
    for mode in ("lexical", "hybrid"):
        for _ in range(args.rounds):
            for tree in trees:
                times.setdefault((tree.label, mode), []).extend(
                    tree.ask({"do": "time", "mode": mode})
                )
    finish(trees, {(mode, label): ms for (label, mode), ms in times.items()})
    sys.exit(1 if differ else 0)


def finish(trees: Sequence[Tree], spent: dict[tuple[str, str], list[float]]) -> None:
    """Print the load and each `(pass, tree)`'s p50 and p90 of `spent`; stop the trees."""
    print(f"load after timing {os.getloadavg()}", flush=True)
    for (kind, label), ms in spent.items():
        p50, p90 = np.percentile(ms, [50, 90])
        print(f"{kind:9s} {label}: p50 {p50:.2f} ms, p90 {p90:.2f} ms over {len(ms)} queries")
    for tree in trees:
        tree.close()


if __name__ == "__main__":
    main()
