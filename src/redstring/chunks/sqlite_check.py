"""Every damaged row of a SQLite chunk store, found by reading each row as a read would.

Per tenant: each `chunk_texts` row's body (it decompresses, validates, and
names its own id and tenant) and term list; each vector of `chunk_vectors`;
each postings block. Then the postings against the term lists: every
posting is one a term list names and the reverse, and a chunk's counts give
its length as the write path reckons it (`document_length`: a compound term
repeats words already counted, so its count is not in it), so a block cut
by whole postings, or a word's count changed, is found even where the block
still decodes. Nothing is written.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict

import numpy as np

from redstring.chunks.sqlite_codec import (
    BLOCK,
    BLOCKS,
    Ints,
    block_row,
    decode_block,
    decode_body,
    decode_terms,
)
from redstring.chunks.sqlite_rows import CHUNK_BITS
from redstring.domain.chunk import StoredChunk
from redstring.domain.damage import DamagedRow
from redstring.domain.tokenize import document_length
from redstring.storage.damage import DECODE_FAILURES, damage_of, float_vector


def damaged_chunk_rows(connection: sqlite3.Connection, dimension: int) -> list[DamagedRow]:
    """Every damaged row of the chunk store's tables, tenant by tenant."""
    found: list[DamagedRow] = []
    for tenant, number in connection.execute(
        "SELECT tenant_id, number FROM chunk_tenants ORDER BY tenant_id"
    ).fetchall():
        found.extend(_Tenant(connection, str(tenant), int(number), dimension).scan())
    return found


class _Tenant:
    def __init__(
        self, connection: sqlite3.Connection, tenant: str, number: int, dimension: int
    ) -> None:
        self.connection = connection
        self.tenant = tenant
        self.number = number
        self.dimension = dimension
        self.found: list[DamagedRow] = []
        self.ids: dict[int, str] = {}
        self.lengths: dict[int, int] = {}
        self.listed: dict[int, Ints] = {}  # chunk number -> its term list, where it decodes

    def report(self, table: str, row: str, error: Exception) -> None:
        self.found.append(damage_of(table=table, tenant=self.tenant, row=row, error=error))

    def scan(self) -> list[DamagedRow]:
        self._texts()
        self._vectors()
        self._postings()
        self._corpus()
        return self.found

    def _corpus(self) -> None:
        row = self.connection.execute(
            "SELECT document_count, total_length FROM chunk_corpus WHERE tenant_id = ?",
            (self.tenant,),
        ).fetchone()
        count, total = (0, 0) if row is None else (int(row[0]), int(row[1]))
        held = (len(self.ids), sum(self.lengths.values()))
        if (count, total) != held:
            problem = ValueError(
                f"it counts {count} chunks of {total} terms; the rows hold {held[0]} of {held[1]}"
            )
            self.report("chunk_corpus", "totals", problem)

    def _texts(self) -> None:
        for chunk_id, chunk_number, length, terms, body in self.connection.execute(
            "SELECT chunk_id, number, length, terms, body FROM chunk_texts WHERE tenant_id = ?",
            (self.tenant,),
        ):
            row = f"chunk {chunk_id}"
            self.ids[int(chunk_number)] = str(chunk_id)
            self.lengths[int(chunk_number)] = int(length)
            try:
                chunk = StoredChunk.model_validate_json(decode_body(body))
                if str(chunk.id) != chunk_id or str(chunk.tenant_id) != self.tenant:
                    raise ValueError("its body holds another chunk's id or tenant")
            except DECODE_FAILURES as error:
                self.report("chunk_texts", row, error)
            try:
                self.listed[int(chunk_number)] = decode_terms(terms)
            except DECODE_FAILURES as error:
                self.report("chunk_texts", f"{row} (term list)", error)

    def _vectors(self) -> None:
        low = self.number << CHUNK_BITS
        for key, blob in self.connection.execute(
            "SELECT key, embedding FROM chunk_vectors WHERE key >= ? AND key < ?",
            (low, low + (1 << CHUNK_BITS)),
        ):
            chunk_id = self.ids.get(int(key) - low)
            row = f"chunk {chunk_id}" if chunk_id is not None else f"key {key}"
            try:
                if chunk_id is None:
                    raise ValueError("a vector of no chunk the tenant holds")
                float_vector(blob, self.dimension)
            except DECODE_FAILURES as error:
                self.report("chunk_vectors", row, error)

    def _postings(self) -> None:
        posted: dict[tuple[int, int], tuple[Ints, Ints]] = {}
        words = dict(
            self.connection.execute(
                "SELECT number, term FROM chunk_words WHERE tenant_id = ?", (self.tenant,)
            ).fetchall()
        )
        unread: set[tuple[int, int]] = set()
        for term, block, blob in self.connection.execute(
            f"SELECT term, block, postings FROM {BLOCKS} WHERE tenant = ?", (self.number,)
        ):
            key = (int(term), int(block))
            try:
                posted[key] = decode_block(blob)
            except DECODE_FAILURES as error:
                unread.add(key)
                self.report(BLOCKS, block_row(words.get(int(term), int(term)), key[1]), error)
        self._against_term_lists(posted, unread, words)

    def _against_term_lists(
        self,
        posted: dict[tuple[int, int], tuple[Ints, Ints]],
        unread: set[tuple[int, int]],
        words: dict[int, str],
    ) -> None:
        """Each block holds exactly the postings the term lists name; lengths add up."""
        expected: dict[tuple[int, int], list[int]] = defaultdict(list)
        for chunk_number, terms in self.listed.items():
            for term in terms.tolist():
                expected[(term, chunk_number // BLOCK)].append(chunk_number % BLOCK)
        for key in sorted(set(expected) | set(posted)):
            if key in unread:
                continue
            slots = posted[key][0] if key in posted else np.zeros(0, np.int64)
            want = np.array(sorted(expected.get(key, [])), dtype=np.int64)
            if not np.array_equal(want, slots):
                missing = len(np.setdiff1d(want, slots))
                extra = len(np.setdiff1d(slots, want))
                problem = ValueError(
                    f"it lacks {missing} and holds {extra} postings against the chunks' term lists"
                )
                self.report(BLOCKS, block_row(words.get(key[0], key[0]), key[1]), problem)
        totals = _posted_lengths(posted, words)
        damaged_blocks = {block for _, block in unread}
        for chunk_number, length in sorted(self.lengths.items()):
            if chunk_number not in self.listed or chunk_number // BLOCK in damaged_blocks:
                continue
            if totals.get(chunk_number, 0) != length:
                counted = totals.get(chunk_number, 0)
                problem = ValueError(f"its length is {length} terms, its postings count {counted}")
                self.report("chunk_texts", f"chunk {self.ids[chunk_number]}", problem)


def _posted_lengths(
    posted: dict[tuple[int, int], tuple[Ints, Ints]], words: dict[int, str]
) -> dict[int, int]:
    """Each chunk's length as its postings give it: `document_length` of its terms' counts,
    gathered one block of chunks at a time (a term number no word names counts as a word)."""
    by_block: dict[int, list[tuple[str, Ints, Ints]]] = defaultdict(list)
    for (term, block), (slots, counts) in posted.items():
        by_block[block].append((words.get(term, str(term)), slots, counts))
    lengths: dict[int, int] = {}
    for block, terms in by_block.items():
        held: dict[int, dict[str, int]] = defaultdict(dict)
        for word, slots, counts in terms:
            for slot, count in zip(slots.tolist(), counts.tolist(), strict=True):
                held[block * BLOCK + slot][word] = count
        lengths.update((number, document_length(counts)) for number, counts in held.items())
    return lengths
