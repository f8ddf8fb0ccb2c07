"""The library's one normalisation of names.

Every comparison of names (ids, blocking keys, similarity) goes through
`normalize_name`, so two subsystems can never disagree about whether two
spellings are the same name.
"""

from __future__ import annotations

import unicodedata


def normalize_name(name: str) -> str:
    """`name` in NFKC, casefolded, stripped, with runs of whitespace made one space.

    Total: any string maps to a string, a blank one to `""`.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return " ".join(folded.split())
