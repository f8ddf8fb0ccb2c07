"""SQLite chunk files as versions 1-3 of the `chunks` schema wrote them, for migration tests.

Today's store writes only the current layout, so these helpers create the old
tables with the old migrations and fill them with raw SQL the way the old
writer did: one `chunk_postings` row per (tenant, term, chunk) with the
chunk's length, `chunk_terms` document frequencies, `chunk_corpus` totals,
and (from version 3) each row's JSON list of its terms. Terms are what those
versions' tokenizer gave (`legacy_terms`: casefolded words, a 49-word stopword
list, no stemming).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from redstring.chunks.sqlite_codec import BLOCK, decode_block
from redstring.chunks.sqlite_schema import SCHEMA
from redstring.domain.chunk import ChunkId, StoredChunk, chunk_id_for
from redstring.domain.tokenize import Analyzer, words
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase

#: The stopwords of the tokenizer before text analysis was a setting.
LEGACY_STOPWORDS = frozenset(
    [
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
    ]
)


def legacy_terms(text: str) -> list[str]:
    """The terms versions 1-4 posted for `text`."""
    return [word for word in words(text) if word not in LEGACY_STOPWORDS]


def create_file(path: Path, version: int, *, dimension: int) -> None:
    """A file whose `chunks` component is at `version` (1-3), as that version created it."""
    database = SqliteDatabase(path)
    try:
        database.define_function("redstring_chunk_id", chunk_id_for)
        database.ensure_schema(
            Schema("chunks", SCHEMA.migrations[:version]), migrate=False, store="legacy"
        )
        for component in ("chunks", "vector"):  # open_sqlite reads the vector store's
            database.ensure_dimension(component, dimension, store="legacy", holds="embeddings")
    finally:
        database.close()


def write_chunks(
    path: Path,
    chunks: Sequence[StoredChunk],
    *,
    terms_column: bool,
    chunk_id: Callable[[str, str], ChunkId] = chunk_id_for,
) -> None:
    """Insert `chunks` (absent so far) the way the version-1 to -3 writer did."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        for chunk in chunks:
            tenant, cid = str(chunk.tenant_id), str(chunk_id(chunk.source_id, chunk.text))
            counts = Counter(legacy_terms(chunk.text))
            body = chunk.model_dump_json(exclude={"embedding"})
            blob = (
                None
                if chunk.embedding is None
                else np.asarray(chunk.embedding, dtype=np.float32).tobytes()
            )
            columns = "tenant_id, chunk_id, source_id, idx, length, body, embedding"
            values: list[object] = [
                tenant, cid, chunk.source_id, chunk.index, counts.total(), body, blob
            ]  # fmt: skip
            if terms_column:
                columns += ", terms"
                values.append(json.dumps(sorted(counts)))
            raw.execute(
                f"INSERT INTO chunk_rows ({columns}) VALUES ({', '.join('?' * len(values))})",
                values,
            )
            raw.executemany(
                "INSERT INTO chunk_entities VALUES (?, ?, ?)",
                [(tenant, str(e), cid) for e in chunk.entity_ids],
            )
            raw.executemany(
                "INSERT INTO chunk_postings VALUES (?, ?, ?, ?, ?)",
                [(tenant, term, cid, tf, counts.total()) for term, tf in counts.items()],
            )
            raw.executemany(
                "INSERT INTO chunk_terms VALUES (?, ?, 1) ON CONFLICT (tenant_id, term)"
                " DO UPDATE SET document_frequency = document_frequency + 1",
                [(tenant, term) for term in counts],
            )
            raw.execute(
                "INSERT INTO chunk_corpus VALUES (?, 1, ?) ON CONFLICT (tenant_id) DO UPDATE SET"
                " document_count = document_count + 1,"
                " total_length = total_length + excluded.total_length",
                (tenant, counts.total()),
            )
            raw.execute(
                "INSERT INTO chunk_generations VALUES (?, ?) ON CONFLICT (tenant_id)"
                " DO UPDATE SET token = excluded.token",
                (tenant, uuid.uuid4().hex),
            )
        raw.commit()


def stored_postings(path: Path, *, block_size: int = BLOCK) -> list[tuple[str, str, str, int]]:
    """Every `(tenant id, term, chunk id, count)` the current layout's blocks hold, sorted."""
    with contextlib.closing(sqlite3.connect(path)) as raw:
        tenants = dict(raw.execute("SELECT number, tenant_id FROM chunk_tenants"))
        words = {(t, n): w for t, w, n in raw.execute("SELECT * FROM chunk_words")}
        chunks = {(t, n): c for t, c, n in raw.execute(
            "SELECT tenant_id, chunk_id, number FROM chunk_texts")}  # fmt: skip
        found = []
        for tenant, term, block, blob in raw.execute("SELECT * FROM chunk_posting_blocks"):
            slots, counts = decode_block(blob)
            for slot, count in zip(slots.tolist(), counts.tolist(), strict=True):
                key = tenants[tenant]
                found.append(
                    (key, words[(key, term)], chunks[(key, block * block_size + slot)], count)
                )
    return sorted(found)


def expected_postings(
    chunks: Sequence[StoredChunk], analyzer: Analyzer | None = None
) -> list[tuple[str, str, str, int]]:
    """The postings `chunks` (the live ones) should have under `analyzer` (English by
    default): a brute-force count."""
    analyzer = analyzer or Analyzer()
    return sorted(
        (str(c.tenant_id), term, str(c.id), n)
        for c in chunks
        for term, n in Counter(analyzer.terms(c.text)).items()
    )
