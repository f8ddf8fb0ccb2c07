"""The library's one normalisation of names.

Every comparison of names (ids, blocking keys, similarity) goes through
`normalize_name`, so two subsystems can never disagree about whether two
spellings are the same name.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

#: A run of characters that are neither letters nor digits (underscore included).
_NOT_WORD = re.compile(r"[\W_]+")
#: Apostrophes join rather than split ("O'Brien" -> "obrien").
_APOSTROPHES = frozenset("'\u2019\u02bc")


def normalize_name(name: str) -> str:
    """`name` in NFKC, casefolded, stripped, with runs of whitespace made one space.

    Total: any string maps to a string, a blank one to `""`.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(folded.split())


def matching_form(name: str) -> str:
    """`normalize_name(name)` with accents folded and punctuation made space.

    The form names are *matched* in (blocking keys, lexical similarity): NFKD,
    combining marks dropped ("Lovelacé" -> "lovelace"), then every run of
    characters that are neither letters nor digits made one space ("Lovelace,
    Ada" -> "lovelace ada", "A.B." -> "a b"); apostrophes are dropped
    ("O'Brien" -> "obrien"). Non-Latin letters are kept.
    Total: a blank or all-punctuation name gives `""`. Ids still use
    `normalize_name`, so this form can change without moving any id.
    """
    return _matching_form(name)


def matching_tokens(name: str) -> tuple[str, ...]:
    """The space-separated tokens of `matching_form(name)`, in order, repeats kept."""
    return _matching_tokens(name)


@lru_cache(maxsize=1 << 17)
def _matching_form(name: str) -> str:
    folded = normalize_name(name)
    if folded.isascii():  # nothing to decompose: the common case, kept fast
        kept = folded.replace("'", "")
    else:
        decomposed = unicodedata.normalize("NFKD", folded)
        kept = "".join(
            ch for ch in decomposed if not unicodedata.combining(ch) and ch not in _APOSTROPHES
        )
    return " ".join(_NOT_WORD.sub(" ", kept).split())


@lru_cache(maxsize=1 << 17)
def _matching_tokens(name: str) -> tuple[str, ...]:
    return tuple(_matching_form(name).split())
