"""The part of a passage worth showing for a query: the window holding most of its words.

A passage's word matches a query term when their normalised forms are equal,
or one begins with the other and the shorter has at least `MIN_PREFIX`
characters ("program" finds "programs" and "programming"). The window of
at most `width` characters (whitespace runs folded to one space) holding
the most distinct terms, then the most matches, earliest on a tie, is cut
at word boundaries, its matched words marked.
"""

from __future__ import annotations

import re

from redstring.domain.normalization import normalize_name
from redstring.domain.tokenize import ENGLISH_STOPWORDS, words

#: The shortest term (or word) a longer word (or term) is matched by as a prefix.
MIN_PREFIX = 4
#: What marks a matched word, before and after it.
MARK = "**"
#: What stands for the text cut off at either end.
ELLIPSIS = "..."

_WORD = re.compile(r"[^\W_]+")


def _matches(word: str, terms: frozenset[str]) -> str | None:
    """The term `word` matches, if any."""
    folded = normalize_name(word)
    if folded in terms:
        return folded
    for term in terms:
        shorter = min(len(term), len(folded))
        if shorter >= MIN_PREFIX and (folded.startswith(term) or term.startswith(folded)):
            return term
    return None


def best_window(text: str, query: str, width: int) -> str:
    """`text`'s best window of at most `width` characters for `query`, matched words marked.

    Whitespace is folded first; the marks and `...` at a cut end are added
    beyond `width`. Without any match it is the text's start.
    """
    flat = " ".join(text.split())
    terms = frozenset(words(query)) - ENGLISH_STOPWORDS
    hits = [
        (found.start(), found.end(), term)
        for found in _WORD.finditer(flat)
        if (term := _matches(found.group(), terms)) is not None
    ]
    start = _best_start(flat, hits, width)
    end = min(len(flat), start + width)
    if end < len(flat) and " " in flat[start:end]:
        end = flat.rindex(" ", start, end)  # never cut a word at the end
    pieces: list[str] = [ELLIPSIS if start > 0 else ""]
    at = start
    for hit_start, hit_end, _ in hits:
        if hit_start >= start and hit_end <= end:
            pieces += [flat[at:hit_start], MARK, flat[hit_start:hit_end], MARK]
            at = hit_end
    pieces += [flat[at:end], ELLIPSIS if end < len(flat) else ""]
    return "".join(pieces)


def _best_start(flat: str, hits: list[tuple[int, int, str]], width: int) -> int:
    """Where the window holding the most distinct terms (then matches) begins."""
    margin = width // 8  # context shown before the first match
    best: tuple[int, int] = (0, 0)
    chosen = 0
    for first, (hit_start, _, _) in enumerate(hits):
        inside = [hit for hit in hits[first:] if hit[1] <= hit_start + width - margin]
        key = (len({term for _, _, term in inside}), len(inside))
        if key > best:
            best, chosen = key, hit_start
    if chosen == 0:
        return 0
    # Begin a little before the first match, at a word start, to show its context.
    lead = max(0, min(chosen - margin, len(flat) - width))
    if lead > 0:
        space = flat.find(" ", lead, chosen)
        lead = chosen if space == -1 else space + 1
    return lead
