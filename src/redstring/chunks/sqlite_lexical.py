"""BM25 candidates from the SQLite chunk store's packed postings blocks (ADR 0220).

A term's document frequency is the number of postings in its blocks, all of
which are read whatever the source filter (the filter narrows candidates,
never statistics). Chunk numbers become ids, lengths and sources through the
tenant's `Lexicon`, which the store caches by generation token.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from redstring.chunks.sqlite_codec import (
    BLOCK,
    Ints,
    decode_blocks,
)
from redstring.chunks.sqlite_rows import decoded_block, tenant_number, term_numbers
from redstring.domain.bm25 import CorpusStats, LexicalCandidates
from redstring.domain.errors import InconsistentCorpusError
from redstring.storage.sqlite import chunked, placeholders
from redstring.storage.tenant_cache import held_bytes


@dataclass(frozen=True)
class Lexicon:
    """A tenant's live chunks by ascending number: id, length (term count) and source."""

    numbers: Ints
    ids: npt.NDArray[np.object_]
    lengths: Ints
    sources: npt.NDArray[np.str_]

    @property
    def nbytes(self) -> int:
        return held_bytes(self.numbers, self.lengths, self.sources) + held_bytes(list(self.ids))


def load_lexicon(connection: sqlite3.Connection, tenant: str) -> Lexicon:
    """The tenant's `Lexicon`, read from the covering index `chunk_texts_by_source`."""
    rows = connection.execute(
        "SELECT number, chunk_id, length, source_id FROM chunk_texts WHERE tenant_id = ?",
        (tenant,),
    ).fetchall()
    numbers = np.array([row[0] for row in rows], dtype=np.int64)
    order = np.argsort(numbers, kind="stable")
    ids = np.empty(len(rows), dtype=object)
    ids[:] = [rows[i][1] for i in order.tolist()]
    return Lexicon(
        numbers=numbers[order],
        ids=ids,
        lengths=np.array([rows[i][2] for i in order.tolist()], dtype=np.int64),
        sources=np.array([rows[i][3] for i in order.tolist()], dtype=np.str_),
    )


def lexical_candidates(
    connection: sqlite3.Connection,
    tenant: str,
    asked: list[str],
    allowed: list[str] | None,
    lexicon: Callable[[], Lexicon],
) -> LexicalCandidates:
    """Every chunk of `tenant` holding an `asked` term (within `allowed` sources if given)."""
    row = connection.execute(
        "SELECT document_count, total_length FROM chunk_corpus WHERE tenant_id = ?", (tenant,)
    ).fetchone()
    count, total = (0, 0) if row is None else (int(row[0]), int(row[1]))
    number = tenant_number(connection, tenant)
    words = {} if number is None else term_numbers(connection, tenant, asked)
    columns = _postings(connection, tenant, number, words) if number is not None else {}
    frequencies = {term: len(columns[term][0]) if term in columns else 0 for term in asked}
    stats = CorpusStats.from_totals(
        document_count=count, total_length=total, document_frequencies=frequencies
    )
    if allowed == [] or not columns:
        return LexicalCandidates.empty(asked, stats)
    return _columns(asked, columns, lexicon(), allowed, stats)


def _postings(
    connection: sqlite3.Connection, tenant: str, number: int, words: dict[str, int]
) -> dict[str, tuple[Ints, Ints]]:
    """`term -> (chunk numbers, counts)` over all of each term's blocks."""
    term_of = {n: term for term, n in words.items()}
    read: dict[str, tuple[list[int], list[bytes]]] = {}
    for part in chunked(sorted(term_of)):
        for term, block, blob in connection.execute(
            "SELECT term, block, postings FROM chunk_posting_blocks"
            f" WHERE tenant = ? AND term IN ({placeholders(len(part))})",
            (number, *part),
        ):
            blocks, blobs = read.setdefault(term_of[int(term)], ([], []))
            blocks.append(int(block))
            blobs.append(blob)
    columns: dict[str, tuple[Ints, Ints]] = {}
    for term, (blocks, blobs) in read.items():
        decoded = decode_blocks(blobs, np.array(blocks, dtype=np.int64) * BLOCK)
        columns[term] = _each(tenant, term, blocks, blobs) if decoded is None else decoded
    return columns


def _each(tenant: str, term: str, blocks: list[int], blobs: list[bytes]) -> tuple[Ints, Ints]:
    """The blocks decoded one at a time: a damaged one raises `DamagedRowError` naming it."""
    numbers: list[Ints] = []
    counts: list[Ints] = []
    for block, blob in zip(blocks, blobs, strict=True):
        slots, tfs = decoded_block(tenant, term, block, blob)
        numbers.append(slots + block * BLOCK)
        counts.append(tfs)
    return np.concatenate(numbers), np.concatenate(counts)


def _columns(
    asked: Sequence[str],
    columns: dict[str, tuple[Ints, Ints]],
    lexicon: Lexicon,
    allowed: list[str] | None,
    stats: CorpusStats,
) -> LexicalCandidates:
    rows = _distinct(np.concatenate([numbers for numbers, _ in columns.values()]))
    at = np.searchsorted(lexicon.numbers, rows)
    live = len(lexicon.numbers)
    if not live or np.any(lexicon.numbers[np.minimum(at, live - 1)] != rows):
        raise InconsistentCorpusError(term=None, detail="a posting names a chunk no row holds")
    counts = np.zeros((len(rows), len(asked)), dtype=np.int64)
    for j, term in enumerate(asked):
        if term in columns:
            numbers, tfs = columns[term]
            counts[np.searchsorted(rows, numbers), j] = tfs
    keep = slice(None) if allowed is None else np.isin(lexicon.sources[at], allowed)
    return LexicalCandidates(
        terms=tuple(asked),
        chunk_ids=lexicon.ids[at][keep],
        lengths=lexicon.lengths[at][keep],
        counts=counts[keep],
        document_frequencies=np.array(
            [stats.document_frequencies[t] for t in asked], dtype=np.int64
        ),
        document_count=stats.document_count,
        average_length=stats.average_length,
    )


def _distinct(numbers: Ints) -> Ints:
    """`np.unique(numbers)`, by a sort (several times faster on a query's postings)."""
    ordered = np.sort(numbers)
    first = np.ones(len(ordered), dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    return ordered[first]
