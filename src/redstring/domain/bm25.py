"""BM25 over the chunk corpus: term-weighted ranking of a store's lexical candidates.

score(chunk) = sum over the query terms t, a repeated term once per repeat, of

    idf(t) * tf / (tf + K1 * (1 - B + B * length / average_length))

with idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), which is never negative
(the Lucene variant, also `bm25s` `method="lucene"`). `tf` is how often t occurs
in the chunk, `length` the chunk's term count, both as `tokenize` counts them.
Scores are >= 0 and unbounded above; they compare chunks of one query over one
corpus and mean nothing across queries. A term the query holds twice counts
twice, as in Lucene and `bm25s`: a long query (a paragraph) weighs its own
repeated words. The scorer is pure: two stores handing it the same candidates and
statistics rank identically.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt
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


@dataclass(frozen=True, eq=False)
class LexicalCandidates:
    """What a lexical chunk source answers, as columns.

    Row `i` is candidate `chunk_ids[i]` (a chunk holding at least one asked
    term, each chunk once) of `lengths[i]` terms; `counts[i, j]` is how often
    `terms[j]` occurs in it (0 when absent). `document_frequencies[j]` is the
    number of chunks of the whole corpus containing `terms[j]`; `document_count`
    and `average_length` describe the whole corpus, not only the candidates.
    `terms` are the asked terms, distinct, in the order asked; `repeats[j]`
    is how often the query holds `terms[j]` (`()`: once each; `asked_by`
    sets it).
    """

    terms: tuple[str, ...]
    chunk_ids: npt.NDArray[np.object_]
    lengths: npt.NDArray[np.int64]
    counts: npt.NDArray[np.int64]
    document_frequencies: npt.NDArray[np.int64]
    document_count: int
    average_length: float
    repeats: tuple[int, ...] = ()

    def asked_by(self, query_terms: Sequence[str]) -> LexicalCandidates:
        """These candidates for a query of `query_terms` (its analysed terms, repeats kept);
        an asked term `query_terms` lacks counts once."""
        held = Counter(query_terms)
        return replace(self, repeats=tuple(max(1, held[term]) for term in self.terms))

    @property
    def times(self) -> tuple[int, ...]:
        """How often the query holds each of `terms`: `repeats`, or once each."""
        return self.repeats or (1,) * len(self.terms)

    def term_weights(self) -> list[float]:
        """Each term's `idf` times its repeats: the most it can add to a chunk's score."""
        return [
            idf(int(df), self.document_count) * n
            for df, n in zip(self.document_frequencies, self.times, strict=True)
        ]

    @classmethod
    def empty(cls, terms: Sequence[str], stats: CorpusStats) -> LexicalCandidates:
        """No candidates over a corpus described by `stats`."""
        return cls.of(stats, [], terms=terms)

    @classmethod
    def of(
        cls,
        stats: CorpusStats,
        candidates: Sequence[LexicalCandidate],
        *,
        terms: Sequence[str] | None = None,
    ) -> LexicalCandidates:
        """The columns of `candidates` (one object each) over `terms`.

        `terms` defaults to the keys of `stats.document_frequencies`.
        """
        asked = tuple(dict.fromkeys(stats.document_frequencies if terms is None else terms))
        seen: set[str] = set()
        for candidate in candidates:
            if candidate.chunk_id in seen:
                raise InconsistentCorpusError(
                    term=None, detail=f"chunk {candidate.chunk_id} was offered as a candidate twice"
                )
            seen.add(candidate.chunk_id)
        counts = np.zeros((len(candidates), len(asked)), dtype=np.int64)
        for row, candidate in enumerate(candidates):
            for column, term in enumerate(asked):
                counts[row, column] = candidate.term_frequencies.get(term, 0)
        return cls(
            terms=asked,
            chunk_ids=_object_array([c.chunk_id for c in candidates]),
            lengths=np.array([c.length for c in candidates], dtype=np.int64),
            counts=counts,
            document_frequencies=np.array(
                [stats.document_frequencies.get(t, 0) for t in asked], dtype=np.int64
            ),
            document_count=stats.document_count,
            average_length=stats.average_length,
        )

    @classmethod
    def from_postings(
        cls,
        terms: Sequence[str],
        postings: Iterable[tuple[str, str, int, int]],
        stats: CorpusStats,
    ) -> LexicalCandidates:
        """Columns of `(chunk id, term, count, chunk length)` rows, as SQL stores read them."""
        asked = tuple(dict.fromkeys(terms))
        column_of = {term: n for n, term in enumerate(asked)}
        row_of: dict[str, int] = {}
        ids: list[str] = []
        lengths: list[int] = []
        cells: list[tuple[int, int, int]] = []
        for chunk_id, term, count, length in postings:
            row = row_of.get(chunk_id)
            if row is None:
                row = row_of[chunk_id] = len(ids)
                ids.append(chunk_id)
                lengths.append(int(length))
            cells.append((row, column_of[term], int(count)))
        counts = np.zeros((len(ids), len(asked)), dtype=np.int64)
        if cells:
            rows, columns, values = np.array(cells, dtype=np.int64).T
            counts[rows, columns] = values
        return cls(
            terms=asked,
            chunk_ids=_object_array(ids),
            lengths=np.array(lengths, dtype=np.int64),
            counts=counts,
            document_frequencies=np.array(
                [stats.document_frequencies.get(t, 0) for t in asked], dtype=np.int64
            ),
            document_count=stats.document_count,
            average_length=stats.average_length,
        )

    @property
    def stats(self) -> CorpusStats:
        """The corpus statistics as one object."""
        return CorpusStats(
            document_count=self.document_count,
            average_length=self.average_length,
            document_frequencies={
                t: int(n) for t, n in zip(self.terms, self.document_frequencies, strict=True)
            },
        )

    @property
    def candidates(self) -> list[LexicalCandidate]:
        """One object per candidate, zero counts left out (for inspection, not ranking)."""
        return [
            LexicalCandidate(
                chunk_id=ChunkId(str(chunk_id)),
                length=int(length),
                term_frequencies={t: int(n) for t, n in zip(self.terms, row, strict=True) if n > 0},
            )
            for chunk_id, length, row in zip(self.chunk_ids, self.lengths, self.counts, strict=True)
        ]


def _object_array(values: Sequence[str]) -> npt.NDArray[np.object_]:
    out = np.empty(len(values), dtype=object)
    out[:] = list(values)
    return out


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


def rank_chunks(found: LexicalCandidates, *, k: int) -> list[tuple[ChunkId, float]]:
    """The `k` best of `found` as `(chunk id, bm25 score)`, best first, ties by id string.

    Every candidate is scored (numpy, one column per distinct term, summed in
    term order); candidates scoring 0 are dropped. `LexicalRanking(found).first(k)`.
    Raises `InconsistentCorpusError` when a candidate holds a term whose
    document frequency is outside `1..N`.
    """
    k = require_k(k)
    return LexicalRanking(found).first(k) if k else []


class LexicalRanking:
    """BM25's whole ranking of `found`, read only as far as asked.

    The order is `(-score, id string)` over the candidates scoring above 0;
    `first(n)` is its first `n`, `places` the one-based place of a few ids
    in it, neither sorting more than it answers, and `scores_of` their scores. Raises
    `InconsistentCorpusError` as `rank_chunks` does.
    """

    def __init__(self, found: LexicalCandidates) -> None:
        self._ids = found.chunk_ids
        self._scores = (
            _column_scores(found) if len(found.chunk_ids) else np.zeros(0, dtype=np.float64)
        )
        self._ranked = np.flatnonzero(self._scores > 0.0)

    @property
    def size(self) -> int:
        """How many candidates the ranking holds (those scoring above 0)."""
        return len(self._ranked)

    def first(self, n: int) -> list[tuple[ChunkId, float]]:
        """The first `n` of the ranking as `(chunk id, bm25 score)`."""
        kept, scores = self._ranked, self._scores
        if n <= 0 or len(kept) == 0:
            return []
        if len(kept) > n:
            cut = np.argpartition(-scores[kept], n - 1)[n - 1]
            kept = kept[scores[kept] >= scores[kept][cut]]
        chosen = sorted((-float(scores[row]), str(self._ids[row]), row) for row in kept.tolist())
        return [(ChunkId(chunk_id), -negative) for negative, chunk_id, _ in chosen[:n]]

    def places(self, chunk_ids: Iterable[ChunkId]) -> dict[ChunkId, tuple[int, float]]:
        """`(place, bm25 score)` of each of `chunk_ids` the ranking holds.

        An id's place is one plus the candidates scoring above it and those
        tied with it whose id string sorts first, as `first` orders them.
        """
        wanted = set(chunk_ids)
        if not wanted:
            return {}
        scores, ids = self._scores, self._ids.tolist()
        places: dict[ChunkId, tuple[int, float]] = {}
        for row in [row for row, c in enumerate(ids) if c in wanted and scores[row] > 0.0]:
            mine = str(ids[row])
            tied = np.flatnonzero(scores == scores[row]).tolist()
            place = 1 + int((scores > scores[row]).sum())
            place += sum(1 for other in tied if str(ids[other]) < mine)
            places[ChunkId(mine)] = (place, float(scores[row]))
        return places

    def scores_of(self, chunk_ids: Iterable[ChunkId]) -> dict[ChunkId, float]:
        """The bm25 score of each of `chunk_ids` the ranking holds, without its place."""
        wanted = set(chunk_ids)
        if not wanted:
            return {}
        scores = self._scores
        return {
            ChunkId(str(chunk_id)): float(scores[row])
            for row, chunk_id in enumerate(self._ids.tolist())
            if chunk_id in wanted and scores[row] > 0.0
        }


def _column_scores(found: LexicalCandidates) -> npt.NDArray[np.float64]:
    """Each candidate's BM25 score, the per-term parts computed as `term_score` does."""
    counts = found.counts
    present = counts > 0
    frequencies = found.document_frequencies
    bad = present.any(axis=0) & ((frequencies < 1) | (frequencies > found.document_count))
    if bad.any():
        column = int(np.flatnonzero(bad)[0])
        row = int(np.flatnonzero(present[:, column])[0])
        raise InconsistentCorpusError(
            term=found.terms[column],
            detail=(
                f"chunk {found.chunk_ids[row]} contains it but its document frequency is "
                f"{int(frequencies[column])} in a corpus of {found.document_count} chunks"
            ),
        )
    n = found.document_count
    average = found.average_length
    if average > 0:
        relative = found.lengths.astype(np.float64) / average
    else:
        relative = np.ones(len(found.lengths), dtype=np.float64)
    norm = K1 * (1.0 - B + B * relative)
    total = np.zeros(len(found.lengths), dtype=np.float64)
    compensation = np.zeros_like(total)
    times = found.times
    for column in range(len(found.terms)):
        df = int(frequencies[column])
        if not present[:, column].any():
            continue
        weight = idf(df, n) * times[column]
        tf = counts[:, column].astype(np.float64)
        part = np.where(present[:, column], weight * tf / (tf + norm), 0.0)
        # Neumaier summation: the old path summed the parts with math.fsum.
        step = total + part
        compensation += np.where(
            np.abs(total) >= np.abs(part), (total - step) + part, (part - step) + total
        )
        total = step
    return total + compensation
