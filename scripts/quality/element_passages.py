"""`element_passages.json`: lay questions answered by technical element descriptions.

Passages: one per chemical element that `mendeleev` describes (its SQLite
table `elements`, read directly): name, symbol, atomic number, the technical
description and how the element is obtained. What an element is *used for*
is kept out of the passage, so the `uses` family cannot match it word for word.

Families:
- `lay_question`: hand-written lay questions (`element_queries.py`), graded 2
  for the element written for, 1 for the others a reader would accept;
- `uses`: mendeleev's `uses` text without the sentences naming its own
  element ("Used in batteries. Also for certain kinds of glass and
  ceramics. Some is used in lubricants."), at least six words; graded 2. A
  single sentence ("Used in batteries.") fits many elements, so the whole
  text is the query; a text several elements share ("It has no significant
  commercial applications.") is one query graded 2 for each of them;
- `no_match`: hand-written everyday questions no passage answers.
"""

from __future__ import annotations

import re
import sqlite3
from importlib.metadata import version
from pathlib import Path
from typing import Any

import mendeleev

from .common import SEED, add_graded_query, write_lines_json
from .element_queries import LAY_QUESTIONS, OFF_TOPIC_QUESTIONS


def elements() -> list[dict[str, Any]]:
    """Every element with a description and uses, by atomic number."""
    db = Path(mendeleev.__file__).parent / "elements.db"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = con.execute(
            "select atomic_number, symbol, name, description, sources, uses from elements "
            "where description is not null and uses is not null order by atomic_number"
        ).fetchall()
    return [
        dict(zip(("number", "symbol", "name", "description", "sources", "uses"), r, strict=True))
        for r in rows
    ]


def clean(text: str | None) -> str:
    return " ".join((text or "").split())


def passage(e: dict[str, Any]) -> str:
    head = f"{e['name']} (symbol {e['symbol']}, atomic number {e['number']})."
    return " ".join(p for p in (head, clean(e["description"]), clean(e["sources"])) if p)


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", clean(text)) if s]


def names_itself(sentence: str, e: dict[str, Any]) -> bool:
    words = set(re.findall(r"[\w-]+", sentence.casefold()))
    return e["name"].casefold() in sentence.casefold() or e["symbol"].casefold() in words


def build(out_dir: Path) -> dict[str, Any]:
    els = elements()
    key = {e["symbol"]: f"element:{e['symbol']}" for e in els}
    queries: list[dict[str, Any]] = []

    def add(shape: str, text: str, grades: dict[str, int], source: str) -> None:
        add_graded_query(queries, "elements", shape, text, grades, source)

    for text, symbol, others in LAY_QUESTIONS:
        grades = {key[s]: 1 for s in others if s in key}
        if symbol not in key:
            raise ValueError(f"lay question {text!r}: element {symbol} has no passage")
        grades[key[symbol]] = 2
        add("lay_question", text, grades, "hand_written")
    described: dict[str, dict[str, int]] = {}
    for e in els:
        text = " ".join(s for s in sentences(e["uses"]) if not names_itself(s, e))
        if len(text.split()) >= 6:
            described.setdefault(text, {})[key[e["symbol"]]] = 2
    for text, grades in described.items():
        add("uses", text, grades, "mendeleev_uses")
    for text in OFF_TOPIC_QUESTIONS:
        add("no_match", text, {}, "hand_written_off_topic")
    corpus = {
        "meta": {
            "description": "Graded passage-retrieval set: lay questions and use statements "
            "answered by technical descriptions of chemical elements.",
            "generator": "scripts/generate_quality_corpus.py",
            "seed": SEED,
            "grading": "`grades` maps each acceptable document id to 2 (written for) or 1 "
            "(also acceptable); `targets` lists them; a hit is any target in the top 10; "
            "nDCG@10 uses the grades; no_match queries have no grades.",
            "sources": f"mendeleev {version('mendeleev')} (MIT): elements.db table `elements` "
            "(description, sources, uses); lay questions hand-written for this corpus",
        },
        "documents": [
            {"id": key[e["symbol"]], "title": e["name"], "text": passage(e)} for e in els
        ],
        "queries": queries,
    }
    write_lines_json(out_dir / "element_passages.json", corpus)
    return corpus
