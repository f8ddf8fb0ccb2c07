"""Helpers every corpus generator shares: seeded randomness, folding, the split, JSON layout."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

#: The seed of every generator; each purpose derives its own stream from it (`rng_for`).
SEED = 20240611
DATA_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "quality"
SPLITS = ("fit", "holdout")


def rng_for(label: str) -> random.Random:
    """An independent deterministic RNG per purpose: adding a step reshuffles no other."""
    return random.Random(f"{SEED}:{label}")


def fold(s: str) -> str:
    """Case-folded, whitespace-collapsed: the generators' one notion of "the same string"."""
    return " ".join(s.casefold().split())


def nice(s: str) -> str:
    """FEBRL stores lowercase; present names title-cased ("o'shannessy" -> "O'Shannessy")."""
    return " ".join(s.split()).title()


def split_of(qid: str) -> str:
    """`fit` or `holdout`, by the SHA-256 of the query id: stable across runs and machines."""
    return "fit" if int(hashlib.sha256(qid.encode()).hexdigest()[:8], 16) % 2 == 0 else "holdout"


def is_str(v: object) -> bool:
    return isinstance(v, str) and v.strip() != ""


def write_lines_json(path: Path, obj: dict[str, Any]) -> None:
    """Compact JSON but one entity / query per line, so git diffs stay readable."""
    parts = ["{"]
    keys = list(obj)
    for ki, k in enumerate(keys):
        v = obj[k]
        sep = "," if ki < len(keys) - 1 else ""
        if isinstance(v, list):
            parts.append(f"{json.dumps(k)}:[")
            parts.extend(
                json.dumps(x, ensure_ascii=False, separators=(",", ":"))
                + ("," if i < len(v) - 1 else "")
                for i, x in enumerate(v)
            )
            parts.append("]" + sep)
        else:
            parts.append(
                f"{json.dumps(k)}:{json.dumps(v, ensure_ascii=False, separators=(',', ':'))}{sep}"
            )
    parts.append("}")
    text = "\n".join(parts) + "\n"
    json.loads(text)  # sanity
    path.write_text(text, encoding="utf-8")


def add_graded_query(
    queries: list[dict[str, Any]],
    prefix: str,
    shape: str,
    text: str,
    grades: dict[str, int],
    source: str,
) -> None:
    """Append a graded query to `queries`: its id numbers it within its shape.

    `target` is the best-graded id (ties by the larger id), `None` when nothing
    is graded (a no-match query); the split follows the id's hash.
    """
    qid = f"{prefix}-{shape}-{sum(q['shape'] == shape for q in queries):04d}"
    best = max(grades, key=lambda k: (grades[k], k)) if grades else None
    queries.append(
        {
            "id": qid,
            "shape": shape,
            "split": split_of(qid),
            "query": text,
            "target": best,
            "targets": sorted(grades),
            "grades": dict(sorted(grades.items())),
            "source": source,
        }
    )
