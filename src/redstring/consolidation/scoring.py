"""Scoring whether two entities name the same thing. Pure.

The score is on 0..1 (1 means the same name once legal suffixes are set
aside). Two vetoes come first, decided on the entities' primary names:

- different normalised types never match (`None`);
- both names carry a legal suffix and the suffixes differ ("Smith Holdings
  Ltd" vs "Smith Holdings Inc"): two registered companies, score 0.0;
- the names hold different numbers ("Apollo 11" vs "Apollo 13"): 0.0.

Otherwise the score is the best Jaro-Winkler similarity (`string_similarity`)
between any name or alias of one and any of the other, each with its legal
suffix removed, so "Acme Corporation" and "Acme Corp" score 1.0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from redstring.domain.entity import Entity
from redstring.domain.legal_forms import LEGAL_SUFFIXES
from redstring.domain.normalization import normalize_name
from redstring.domain.similarity import string_similarity

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class NameParts:
    """A name split into its distinctive core, its legal suffixes and its numbers."""

    core: str
    suffixes: frozenset[str]
    numbers: frozenset[str]


def name_parts(name: str) -> NameParts:
    """The parts of `name`: trailing legal-form words are suffixes, the rest the core.

    A name made only of legal-form words keeps them as its core.
    """
    words = _WORD.findall(normalize_name(name))
    end = len(words)
    while end > 0 and words[end - 1] in LEGAL_SUFFIXES:
        end -= 1
    core_words = words[:end] or words
    suffixes = frozenset(LEGAL_SUFFIXES[word] for word in words[end:]) if end else frozenset()
    numbers = frozenset(word for word in words if any(ch.isdigit() for ch in word))
    return NameParts(core=" ".join(core_words), suffixes=suffixes, numbers=numbers)


def names_conflict(left: str, right: str) -> bool:
    """Whether two primary names are vetoed: differing legal suffixes or differing numbers."""
    a, b = name_parts(left), name_parts(right)
    if a.suffixes and b.suffixes and a.suffixes != b.suffixes:
        return True
    return a.numbers != b.numbers


def name_similarity(left: str, right: str) -> float:
    """Jaro-Winkler similarity of the suffix-free cores, on 0..1."""
    return string_similarity(name_parts(left).core, name_parts(right).core)


def entity_similarity(left: Entity, right: Entity) -> float | None:
    """How likely two entities are one, on 0..1; `None` when their types differ.

    See the module docstring for the vetoes and the score.
    """
    if normalize_name(left.entity_type) != normalize_name(right.entity_type):
        return None
    if names_conflict(left.name, right.name):
        return 0.0
    return max(
        name_similarity(a, b)
        for a in [left.name, *left.aliases]
        for b in [right.name, *right.aliases]
    )
