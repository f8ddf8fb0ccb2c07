"""String similarity between two names.

Jaro-Winkler from `rapidfuzz`, which scores exactly as `jellyfish` (checked
on corpus names by `tests/unit/domain/test_similarity.py`) and is
faster (ADR 0070).
"""

from __future__ import annotations

from rapidfuzz.distance import JaroWinkler

from redstring.domain.normalization import normalize_name


def string_similarity(left: str, right: str) -> float:
    """Jaro-Winkler similarity of the normalised forms, on 0..1 (1 is identical).

    Two strings that normalise to the same form score exactly 1.0; two blank
    strings score 0.0 rather than a vacuous 1.0.
    """
    return form_similarity(normalize_name(left), normalize_name(right))


def form_similarity(a: str, b: str) -> float:
    """`string_similarity` of two strings already `normalize_name`d."""
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    return float(JaroWinkler.similarity(a, b))
