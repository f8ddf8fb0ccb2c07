"""BM25 over the chunk corpus: term-weighted ranking of a store's lexical candidates.

score(chunk) = sum over the *distinct* query terms t of

    idf(t) * tf / (tf + K1 * (1 - B + B * length / average_length))

with idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), which is never negative
(the Lucene variant, also `bm25s` `method="lucene"`). `tf` is how often t occurs
in the chunk, `length` the chunk's term count, both as `tokenize` counts them.
Scores are >= 0 and unbounded above; they compare chunks of one query over one
corpus and mean nothing across queries. A term repeated in the query counts
once. The scorer is pure: two stores handing it the same candidates and
statistics rank identically.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from redstring.domain.chunk import ChunkId
from redstring.domain.errors import InconsistentCorpusError
from redstring.domain.validation import require_k

#: Term-frequency saturation.
K1 = 1.2
#: Strength of length normalisation (0: none, 1: full).
B = 0.75


class CorpusStats(BaseModel):
    """Statistics of one tenant's whole chunk corpus, as BM25 needs them.

    `document_count` is the number of chunks, `average_length` their mean term
    count, and `document_frequencies` maps each term asked about to the number
    of chunks containing it (0 for a term no chunk has).
    """

    model_config = ConfigDict(frozen=True)

    document_count: int = Field(ge=0)
    average_length: float = Field(ge=0.0)
    document_frequencies: dict[str, int] = Field(default_factory=dict)

    @classmethod
    def from_totals(
        cls, *, document_count: int, total_length: int, document_frequencies: dict[str, int]
    ) -> CorpusStats:
        """The statistics of `document_count` chunks holding `total_length` terms in all."""
        average = total_length / document_count if document_count else 0.0
        return cls(
            document_count=document_count,
            average_length=average,
            document_frequencies=document_frequencies,
        )


class LexicalCandidate(BaseModel):
    """A chunk containing at least one query term, with the counts BM25 needs.

    Only the id: a store ranks on counts and the caller fetches the `k` winners,
    so no store materialises the text of every chunk sharing a common term.
    `length` is the chunk's term count; `term_frequencies` maps each query term
    the chunk contains to its count there (terms it lacks may be absent or 0).
    """

    chunk_id: ChunkId
    length: int = Field(ge=0)
    term_frequencies: dict[str, int] = Field(default_factory=dict)


class LexicalCandidates(BaseModel):
    """What a lexical chunk source answers: the candidates and the corpus statistics."""

    stats: CorpusStats
    candidates: list[LexicalCandidate] = Field(default_factory=list)


def idf(document_frequency: int, document_count: int) -> float:
    """ln(1 + (N - df + 0.5) / (df + 0.5)): positive whenever df <= N."""
    return math.log(1.0 + (document_count - document_frequency + 0.5) / (document_frequency + 0.5))


def term_score(
    term_frequency: int, length: int, average_length: float, inverse_frequency: float
) -> float:
    """One term's contribution to a chunk's score; 0 when the term is absent."""
    if term_frequency <= 0:
        return 0.0
    relative_length = length / average_length if average_length > 0 else 1.0
    norm = K1 * (1.0 - B + B * relative_length)
    return inverse_frequency * term_frequency / (term_frequency + norm)


def bm25_score(
    query_terms: Sequence[str], candidate: LexicalCandidate, stats: CorpusStats
) -> float:
    """The BM25 score of one candidate for `query_terms` (repeats count once)."""
    return _score(list(dict.fromkeys(query_terms)), candidate, stats, {})


def _score(
    terms: list[str], candidate: LexicalCandidate, stats: CorpusStats, idfs: dict[str, float]
) -> float:
    """`bm25_score` over distinct `terms`, memoising each term's checked idf in `idfs`."""
    parts = []
    frequencies = candidate.term_frequencies
    for term in terms:
        frequency = frequencies.get(term, 0)
        if frequency <= 0:
            continue
        weight = idfs.get(term)
        if weight is None:
            weight = idfs[term] = _checked_idf(term, candidate, stats)
        parts.append(term_score(frequency, candidate.length, stats.average_length, weight))
    return math.fsum(parts)


def _checked_idf(term: str, candidate: LexicalCandidate, stats: CorpusStats) -> float:
    """The idf of a term `candidate` contains; raises when its frequency contradicts that."""
    document_frequency = stats.document_frequencies.get(term)
    if document_frequency is None or not 1 <= document_frequency <= stats.document_count:
        raise InconsistentCorpusError(
            term=term,
            detail=(
                f"chunk {candidate.chunk_id} contains it but its document frequency is "
                f"{document_frequency} in a corpus of {stats.document_count} chunks"
            ),
        )
    return idf(document_frequency, stats.document_count)


def rank_chunks(
    query_terms: Sequence[str],
    candidates: Sequence[LexicalCandidate],
    stats: CorpusStats,
    *,
    k: int,
) -> list[tuple[ChunkId, float]]:
    """The `k` best candidates as `(chunk id, bm25 score)`, best first, ties by id string.

    Candidates containing no query term are dropped. `k == 0` gives `[]`;
    `k < 0` raises `ValueError`. A chunk offered twice raises
    `InconsistentCorpusError` (a store returning duplicate postings), as does
    a document frequency that contradicts a candidate.
    """
    require_k(k)
    terms = list(dict.fromkeys(query_terms))
    idfs: dict[str, float] = {}  # each term's idf, computed and checked once per query
    seen: set[ChunkId] = set()
    scored: list[tuple[ChunkId, float]] = []
    for candidate in candidates:
        chunk_id = candidate.chunk_id
        if chunk_id in seen:
            raise InconsistentCorpusError(
                term=None, detail=f"chunk {chunk_id} was offered as a candidate twice"
            )
        seen.add(chunk_id)
        score = _score(terms, candidate, stats, idfs)
        if score > 0.0:
            scored.append((chunk_id, score))
    return heapq.nsmallest(k, scored, key=lambda pair: (-pair[1], str(pair[0])))
