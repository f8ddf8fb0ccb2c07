"""Row-level writes of the SQLite chunk store: a chunk's rows, postings and statistics.

`insert_rows` and `remove_rows` keep `chunk_terms` and `chunk_corpus` equal to
what the rows and postings hold; each runs inside the caller's transaction.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from redstring.storage.sqlite import chunked, placeholders


@dataclass(frozen=True)
class Row:
    """One chunk as its `chunk_rows` row, with the term counts it is posted under."""

    tenant: str
    chunk_id: str
    source_id: str
    index: int
    body: str
    embedding: bytes | None
    counts: Counter[str]
    entity_ids: list[str]

    @property
    def length(self) -> int:
        return self.counts.total()

    @property
    def terms(self) -> str:
        """The terms this row is posted under, as the JSON list its `terms` column holds."""
        return json.dumps(sorted(self.counts), ensure_ascii=False)


def remove_rows(connection: sqlite3.Connection, tenant: str, ids: Sequence[str]) -> None:
    """Delete these chunks of `tenant` (missing ones ignored) and take them out of the stats.

    A row's `terms` column lists the terms it was posted under, so each posting
    goes by its primary key (ADR 0187).
    """
    distinct = list(dict.fromkeys(ids))
    terms: Counter[str] = Counter()
    postings: list[tuple[str, str, str]] = []
    count = total = 0
    for part in chunked(distinct):
        marks = placeholders(len(part))
        for chunk_id, posted, length in connection.execute(
            "SELECT chunk_id, terms, length FROM chunk_rows"
            f" WHERE tenant_id = ? AND chunk_id IN ({marks})",
            (tenant, *part),
        ):
            for term in json.loads(posted):
                terms[term] += 1
                postings.append((tenant, term, chunk_id))
            count, total = count + 1, total + int(length)
        for table in ("chunk_entities", "chunk_rows"):
            connection.execute(
                f"DELETE FROM {table} WHERE tenant_id = ? AND chunk_id IN ({marks})",
                (tenant, *part),
            )
    connection.executemany(
        "DELETE FROM chunk_postings WHERE tenant_id = ? AND term = ? AND chunk_id = ?", postings
    )
    if not count:
        return
    connection.executemany(
        "UPDATE chunk_terms SET document_frequency = document_frequency - ?"
        " WHERE tenant_id = ? AND term = ?",
        [(n, tenant, term) for term, n in sorted(terms.items())],
    )
    connection.executemany(
        "DELETE FROM chunk_terms WHERE tenant_id = ? AND term = ? AND document_frequency <= 0",
        [(tenant, term) for term in sorted(terms)],
    )
    connection.execute(
        "UPDATE chunk_corpus SET document_count = document_count - ?,"
        " total_length = total_length - ? WHERE tenant_id = ?",
        (count, total, tenant),
    )


def insert_rows(connection: sqlite3.Connection, rows: Sequence[Row]) -> None:
    """Insert rows known to be absent, with their postings, and add them to the stats."""
    connection.executemany(
        "INSERT INTO chunk_rows"
        " (tenant_id, chunk_id, source_id, idx, length, body, embedding, terms)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (r.tenant, r.chunk_id, r.source_id, r.index, r.length, r.body, r.embedding, r.terms)
            for r in rows
        ],
    )
    connection.executemany(
        "INSERT INTO chunk_entities (tenant_id, entity_id, chunk_id) VALUES (?, ?, ?)",
        [(r.tenant, e, r.chunk_id) for r in rows for e in r.entity_ids],
    )
    connection.executemany(
        "INSERT INTO chunk_postings (tenant_id, term, chunk_id, tf, length) VALUES (?, ?, ?, ?, ?)",
        [(r.tenant, t, r.chunk_id, tf, r.length) for r in rows for t, tf in r.counts.items()],
    )
    frequencies = Counter((r.tenant, term) for r in rows for term in r.counts)
    connection.executemany(
        "INSERT INTO chunk_terms (tenant_id, term, document_frequency) VALUES (?, ?, ?)"
        " ON CONFLICT (tenant_id, term) DO UPDATE SET"
        " document_frequency = document_frequency + excluded.document_frequency",
        [(tenant, term, n) for (tenant, term), n in sorted(frequencies.items())],
    )
    totals: dict[str, tuple[int, int]] = {}
    for r in rows:
        count, total = totals.get(r.tenant, (0, 0))
        totals[r.tenant] = (count + 1, total + r.length)
    connection.executemany(
        "INSERT INTO chunk_corpus (tenant_id, document_count, total_length) VALUES (?, ?, ?)"
        " ON CONFLICT (tenant_id) DO UPDATE SET"
        " document_count = document_count + excluded.document_count,"
        " total_length = total_length + excluded.total_length",
        [(tenant, count, total) for tenant, (count, total) in sorted(totals.items())],
    )
