# ruff: noqa: E501  (long literal strings end up verbatim in the corpus metadata)
"""`passages.json`: the Lee corpus (50 news documents, human similarity), shipped in gensim."""

from __future__ import annotations

import json
from pathlib import Path

import gensim
import numpy as np


def write_passages(path: Path):

    data = Path(gensim.__file__).parent / "test" / "test_data"
    raw = (data / "lee.cor").read_bytes().decode("latin-1")
    docs = [line.strip() for line in raw.splitlines() if line.strip()]
    assert len(docs) == 50, len(docs)
    m = np.loadtxt(data / "similarities0-1.txt")
    assert m.shape == (50, 50)
    assert np.allclose(np.tril(m, -1), 0)
    full = np.triu(m) + np.triu(m, 1).T  # file stores the upper triangle only
    obj = {
        "meta": {
            "source": f"gensim {gensim.__version__}: gensim/test/test_data/lee.cor (50 documents, latin-1) and "
            "gensim/test/test_data/similarities0-1.txt (human similarity, upper triangle, 0..1)",
            "reference": "Lee, Pincombe & Welsh (2005), An empirical evaluation of models of text document similarity",
            "similarity_format": "full symmetric 50x50 matrix (mirrored from the upper triangle, diagonal 1), "
            "row/column i = documents[i], values rounded to 4 significant digits",
        },
        "documents": [{"id": f"lee-{i:02d}", "text": t} for i, t in enumerate(docs)],
        "similarity": [[float(f"{x:.4g}") for x in row] for row in full],
    }
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    path.write_text(text + "\n", encoding="utf-8")
