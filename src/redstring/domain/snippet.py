"""The part of a passage worth showing for a query: the window holding most of its words.

A passage's word matches a query term when the `Analyzer` of the passages'
index gives it that term: the same normalisation, stemmer and stopwords the
lexical channel matched with, so a marked word is one BM25 counted ("Häuser"
for "Haus" in German, "programs" for "program" in English) and a word BM25
did not count is not marked. Words are read from the text as written, with
their combining marks (`word_spans`), so a word stored decomposed (`cafe` and
a combining acute) is analysed as the whole word and marked on its own
characters, as its composed spelling is. The window of at most `width` characters
(whitespace runs folded to one space) holding the most distinct terms, then
the most matches, earliest on a tie, is cut at word boundaries, its matched
words marked with `MARK` on either side; a word already inside the text's
own `**...**` is shown bold as it is, never marked again inside it.
"""

from __future__ import annotations

import re

from redstring.domain.tokenize import Analyzer, word_spans

#: What marks a matched word, before and after it (Markdown's bold).
MARK = "**"
#: What stands for the text cut off at either end.
ELLIPSIS = "..."

#: The text's own bold: `**`, then text neither starting nor ending with a space, then `**`.
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
#: The analysis of an answer that names none: a new index's.
_DEFAULT = Analyzer()


def best_window(text: str, query: str, width: int, analyzer: Analyzer | None = None) -> str:
    """`text`'s best window of at most `width` characters for `query`, matched words marked.

    `analyzer` is the passages' index's (`ChunkStore.analyzer`; `None`: the
    default, English). Whitespace is folded first; the marks and `...` at a
    cut end are added beyond `width`. Without any match it is the text's start.
    """
    analysis = _DEFAULT if analyzer is None else analyzer
    flat = " ".join(text.split())
    terms = frozenset(analysis.terms(query))
    hits = [
        (start, end, term)
        for start, end in word_spans(flat)
        if (term := _matched(analysis.terms(flat[start:end]), terms)) is not None
    ]
    start = _best_start(flat, hits, width)
    end = min(len(flat), start + width)
    if end < len(flat) and " " in flat[start:end]:
        end = flat.rindex(" ", start, end)  # never cut a word at the end
    bold = [(found.start(1), found.end(1)) for found in _BOLD.finditer(flat)]
    pieces: list[str] = [ELLIPSIS if start > 0 else ""]
    at = start
    for hit_start, hit_end, _ in hits:
        if hit_start >= start and hit_end <= end and not _inside(hit_start, hit_end, bold):
            pieces += [flat[at:hit_start], MARK, flat[hit_start:hit_end], MARK]
            at = hit_end
    pieces += [flat[at:end], ELLIPSIS if end < len(flat) else ""]
    return "".join(pieces)


def _matched(word_terms: list[str], terms: frozenset[str]) -> str | None:
    """The first of a word's terms the query holds, if any."""
    return next((term for term in word_terms if term in terms), None)


def _inside(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    return any(span_start <= start and end <= span_end for span_start, span_end in spans)


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
