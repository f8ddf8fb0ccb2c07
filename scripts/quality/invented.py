"""Invented name tokens for queries that must match nothing."""

from __future__ import annotations

import random

ONSETS = [
    "b",
    "d",
    "f",
    "g",
    "k",
    "l",
    "m",
    "n",
    "p",
    "r",
    "s",
    "t",
    "v",
    "z",
    "br",
    "dr",
    "tr",
    "gr",
    "st",
    "th",
]
NUCLEI = ["a", "e", "i", "o", "u", "a", "e", "o", "ei", "ou"]
CODAS = ["", "", "", "n", "r", "l", "s"]


def invented_token(r: random.Random) -> str:
    n = r.choice([2, 2, 2, 3])
    return "".join(
        r.choice(ONSETS) + r.choice(NUCLEI) + r.choice(CODAS) for _ in range(n)
    ).capitalize()
