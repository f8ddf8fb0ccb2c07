"""rapidfuzz's Jaro-Winkler scores exactly as jellyfish's on real names (ADR 0070)."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import jellyfish
from rapidfuzz.distance import JaroWinkler

from redstring.domain.normalization import matching_form, matching_tokens

CORPUS = Path(__file__).resolve().parents[2] / "data" / "quality" / "entity_corpus.json"


def sample_names(count: int = 300) -> list[str]:
    rows = json.loads(CORPUS.read_text(encoding="utf-8"))["entities"]
    step = max(1, len(rows) // count)
    return [matching_form(row["name"]) for row in rows[::step]][:count]


def test_whole_names_score_the_same_in_both_libraries() -> None:
    names = sample_names()
    pairs = list(combinations(names, 2))
    assert len(pairs) > 40_000
    differing = [
        (a, b)
        for a, b in pairs
        if abs(JaroWinkler.similarity(a, b) - jellyfish.jaro_winkler_similarity(a, b)) > 1e-12
    ]
    assert differing == []


def test_tokens_and_one_letter_strings_score_the_same_in_both_libraries() -> None:
    tokens = sorted({t for name in sample_names() for t in matching_tokens(name)})[:400]
    tokens += ["a", "b", "ab", "ba"]
    for a, b in combinations(tokens, 2):
        assert JaroWinkler.similarity(a, b) == jellyfish.jaro_winkler_similarity(a, b), (a, b)
