"""Development tools: benchmarks, fits, fault campaigns and the retrieval-quality harness.

Run each as a module from the repository root, e.g.
`uv run python -m scripts.bench_retrieval --help`. Shared pieces:
`bench_corpus` (the benchmark corpora and their ingest loops),
`bench_measure` (timers, percentiles, memory, markdown tables) and
`quality.harness` (the graded corpora and their metrics).
"""

from __future__ import annotations

from pathlib import Path

#: The repository root (the folder holding `scripts/`, `src/` and `tests/`).
ROOT = Path(__file__).resolve().parent.parent
