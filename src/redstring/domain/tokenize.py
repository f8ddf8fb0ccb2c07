"""The one tokenizer of the chunk corpus: text to the terms BM25 counts.

Stores index the terms `tokenize` gives and the retriever looks up the terms
it gives for a query, so every adapter ranks on the same terms.
"""

from __future__ import annotations

import re

from redstring.domain.normalization import normalize_name

#: A word: a run of Unicode letters and digits (underscore splits words).
_WORD = re.compile(r"[^\W_]+")
#: For ASCII text, every character `_WORD` does not match made a space: the words are then
#: what `str.split` gives, several times faster than the regex (B101).
_ASCII_SEPARATORS = {code: " " for code in range(128) if not re.fullmatch(_WORD, chr(code))}

#: Function words too common to tell passages apart. Deliberately short: a
#: long list removes terms ("who", "first") that some queries are about.
STOPWORDS: frozenset[str] = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "his",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "s",
        "she",
        "so",
        "t",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "we",
        "were",
        "which",
        "will",
        "with",
    }
)


def tokenize(text: str) -> list[str]:
    """The terms of `text`, in order, repeats kept.

    `normalize_name` (NFKC, casefold) first, then runs of letters and digits,
    then `STOPWORDS` removed. Total: a blank text gives `[]`.
    """
    folded = normalize_name(text)
    if folded.isascii():
        words = folded.translate(_ASCII_SEPARATORS).split()
    else:
        words = _WORD.findall(folded)
    return [term for term in words if term not in STOPWORDS]
