"""A chunk row's term counts, as its store's analyzer gives them, computed once and only when asked.

Mixed into the SQLite and PostgreSQL stores' row types: a row kept in place
by `replace_source` (ADR 0255) is never posted again, so never analysed.
"""

from __future__ import annotations

from collections import Counter
from functools import cached_property

from redstring.domain.tokenize import Analyzer, document_length


class TermCounts:
    """`counts` and `length` of the row's `text` by its `analyzer` (the subclass's fields)."""

    text: str
    analyzer: Analyzer

    @cached_property
    def counts(self) -> Counter[str]:
        """Each term of `text` and how often it occurs."""
        return Counter(self.analyzer.terms(self.text))

    @property
    def length(self) -> int:
        """BM25's document length of `text` (`document_length`)."""
        return document_length(self.counts)
