"""`python_passages.json`: lay questions answered by passages of the Python reference.

Passages: sections and signature entries of the standard library's
`pydoc_data.topics` (`python_topics.py`), extracted once under the Python
version the file records and shipped with it, so the set does not change with
the interpreter: `build` reads the shipped passages back unless asked to
extract them afresh (`extract=True`, `generate_quality_corpus.py
--extract-python`).

Families:
- `lay_question`: hand-written plain-language questions (`python_queries.py`),
  graded 2 for the passage written for, 1 for the others a reader would accept;
- `no_match`: hand-written everyday questions no passage answers.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path
from typing import Any

from .common import DATA_DIR, SEED, add_graded_query, write_lines_json
from .python_queries import LAY_QUESTIONS, OFF_TOPIC_QUESTIONS
from .python_topics import LICENCE, extract

PYTHON_PASSAGES = DATA_DIR / "python_passages.json"


def shipped(path: Path = PYTHON_PASSAGES) -> tuple[str, list[dict[str, str]]]:
    """The Python version the shipped passages come from, and the passages."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return raw["meta"]["python_version"], raw["documents"]


def build(
    out_dir: Path, *, extract_afresh: bool = False, source: Path = PYTHON_PASSAGES
) -> dict[str, Any]:
    """Write `python_passages.json` under `out_dir`: the passages of `source` (or this
    Python's, with `extract_afresh`) and the graded questions."""
    if extract_afresh:
        version, documents = platform.python_version(), extract()
    else:
        version, documents = shipped(source)
    ids = {d["id"] for d in documents}
    queries: list[dict[str, Any]] = []

    def add(shape: str, text: str, grades: dict[str, int], origin: str) -> None:
        add_graded_query(queries, "python", shape, text, grades, origin)

    for text, written_for, others in LAY_QUESTIONS:
        grades = {f"python:{o}": 1 for o in others}
        grades[f"python:{written_for}"] = 2
        missing = sorted(set(grades) - ids)
        if missing:
            raise ValueError(f"lay question {text!r}: no passage {', '.join(missing)}")
        add("lay_question", text, grades, "hand_written")
    for text in OFF_TOPIC_QUESTIONS:
        add("no_match", text, {}, "hand_written_off_topic")
    corpus = {
        "meta": {
            "description": "Graded passage-retrieval set: plain-language questions answered "
            "by sections of the Python Language and Library Reference.",
            "generator": "scripts/generate_quality_corpus.py",
            "seed": SEED,
            "grading": "`grades` maps each acceptable document id to 2 (written for) or 1 "
            "(also acceptable); `targets` lists them; a hit is any target in the top 10; "
            "nDCG@10 uses the grades; no_match queries have no grades.",
            "python_version": version,
            "sources": f"pydoc_data.topics of Python {version} (the standard library's "
            "plain-text rendering of the CPython reference documentation), split into "
            "sections and signature entries by scripts/quality/python_topics.py; "
            "questions hand-written for this set",
            "licence": LICENCE,
        },
        "documents": documents,
        "queries": queries,
    }
    write_lines_json(out_dir / "python_passages.json", corpus)
    return corpus
