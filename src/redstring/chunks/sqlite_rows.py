"""Row-level writes of the SQLite chunk store: a chunk's rows, postings and statistics.

`insert_rows` and `remove_rows` keep the postings blocks, `chunk_corpus` and
the tenant's counters equal to what the rows hold; each runs inside the
caller's transaction. Layout and encodings: ADR 0220, `sqlite_codec`.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from redstring.chunks.sqlite_codec import (
    BLOCK,
    BLOCKS,
    Ints,
    block_row,
    decode_block,
    decode_body,
    decode_terms,
    encode_block,
    encode_body,
    encode_terms,
)
from redstring.chunks.term_counts import TermCounts
from redstring.domain.chunk import naming_model
from redstring.domain.tokenize import Analyzer
from redstring.storage.damage import decoding
from redstring.storage.sqlite import chunked, placeholders

#: A chunk's key in `chunk_vectors`: the tenant's number above these bits, the chunk's below.
CHUNK_BITS = 40


@dataclass(frozen=True)
class Row(TermCounts):
    """One chunk as its `chunk_texts` row, with the term counts it is posted under."""

    tenant: str
    chunk_id: str
    source_id: str
    index: int
    body: str
    embedding: bytes | None
    text: str
    analyzer: Analyzer
    entity_ids: list[str]
    #: Keep the stored vector and its model (`embedding` is then `None`), ADR 0255.
    keep: bool = False


def vector_key(tenant_number: int, chunk_number: int) -> int:
    """The `chunk_vectors` key of a chunk: tenant first, so a tenant's rows are one range."""
    return (tenant_number << CHUNK_BITS) + chunk_number


def tenant_number(connection: sqlite3.Connection, tenant: str) -> int | None:
    """The tenant's number in this file, `None` if nothing was ever written for it."""
    row = connection.execute(
        "SELECT number FROM chunk_tenants WHERE tenant_id = ?", (tenant,)
    ).fetchone()
    return None if row is None else int(row[0])


def term_numbers(
    connection: sqlite3.Connection, tenant: str, terms: Sequence[str]
) -> dict[str, int]:
    """The numbers of those of `terms` the tenant has ever stored."""
    found: dict[str, int] = {}
    for part in chunked(terms):
        found.update(
            connection.execute(
                "SELECT term, number FROM chunk_words"
                f" WHERE tenant_id = ? AND term IN ({placeholders(len(part))})",
                (tenant, *part),
            )
        )
    return found


def remove_rows(connection: sqlite3.Connection, tenant: str, ids: Sequence[str]) -> None:
    """Delete these chunks of `tenant` (missing ones ignored) and take them out of the stats.

    A row's `terms` lists the term numbers it was posted under, so only the
    blocks holding its postings are read and rewritten.
    """
    number = tenant_number(connection, tenant)
    if number is None:
        return
    distinct = list(dict.fromkeys(ids))
    gone: dict[tuple[int, int], list[int]] = defaultdict(list)
    keys: list[tuple[int]] = []
    count = total = 0
    for part in chunked(distinct):
        marks = placeholders(len(part))
        for chunk_id, chunk_number, terms, length in connection.execute(
            "SELECT chunk_id, number, terms, length FROM chunk_texts"
            f" WHERE tenant_id = ? AND chunk_id IN ({marks})",
            (tenant, *part),
        ):
            block, slot = divmod(int(chunk_number), BLOCK)
            with decoding(table="chunk_texts", tenant=tenant, row=f"chunk {chunk_id}"):
                listed = decode_terms(terms).tolist()
            for term in listed:
                gone[(term, block)].append(slot)
            keys.append((vector_key(number, int(chunk_number)),))
            count, total = count + 1, total + int(length)
        for table in ("chunk_entities", "chunk_texts"):
            connection.execute(
                f"DELETE FROM {table} WHERE tenant_id = ? AND chunk_id IN ({marks})",
                (tenant, *part),
            )
    if not count:
        return
    connection.executemany("DELETE FROM chunk_vectors WHERE key = ?", keys)
    _rewrite_blocks(connection, tenant, number, gone)
    connection.execute(
        "UPDATE chunk_corpus SET document_count = document_count - ?,"
        " total_length = total_length - ? WHERE tenant_id = ?",
        (count, total, tenant),
    )


def _rewrite_blocks(
    connection: sqlite3.Connection,
    tenant: str,
    number: int,
    gone: dict[tuple[int, int], list[int]],
) -> None:
    """Take the `gone` slots out of each `(term, block)`, deleting blocks left empty."""
    updates: list[tuple[bytes, int, int, int]] = []
    deletes: list[tuple[int, int, int]] = []
    for (term, block), blob in _blocks(connection, number, gone):
        slots, counts = decoded_block(tenant, term, block, blob)
        keep = ~np.isin(slots, gone[(term, block)])
        if keep.any():
            updates.append((encode_block(slots[keep], counts[keep]), number, term, block))
        else:
            deletes.append((number, term, block))
    connection.executemany(
        "UPDATE chunk_posting_blocks SET postings = ? WHERE tenant = ? AND term = ? AND block = ?",
        updates,
    )
    connection.executemany(
        "DELETE FROM chunk_posting_blocks WHERE tenant = ? AND term = ? AND block = ?", deletes
    )


def decoded_block(tenant: str, term: str | int, block: int, blob: bytes) -> tuple[Ints, Ints]:
    """`decode_block`, a damaged blob raising `DamagedRowError` naming the block."""
    with decoding(table=BLOCKS, tenant=tenant, row=block_row(term, block)):
        return decode_block(blob)


def _blocks(
    connection: sqlite3.Connection, number: int, wanted: Iterable[tuple[int, int]]
) -> list[tuple[tuple[int, int], bytes]]:
    """The stored blobs of the `wanted` `(term, block)` pairs of tenant `number`."""
    by_block: dict[int, list[int]] = defaultdict(list)
    for term, block in wanted:
        by_block[block].append(term)
    found: list[tuple[tuple[int, int], bytes]] = []
    for block, terms in sorted(by_block.items()):
        for part in chunked(sorted(terms)):
            for term, blob in connection.execute(
                "SELECT term, postings FROM chunk_posting_blocks WHERE tenant = ? AND block = ?"
                f" AND term IN ({placeholders(len(part))})",
                (number, block, *part),
            ):
                found.append(((int(term), block), blob))
    return found


def place_rows(connection: sqlite3.Connection, tenant: str, rows: Sequence[Row]) -> list[Row]:
    """Bring the stored ones of `rows` (distinct ids of `tenant`) up to date; the rest, to insert.

    A stored chunk has the same text (the id is derived from it), so it keeps
    its number, term list and postings: only its index and body, entity rows
    and vector are rewritten, each only if it differs. A row marked `keep`
    keeps the stored vector, never read, and the model the stored body names
    (ADR 0255). Returns the rows not stored (a `keep` one without a vector or model).
    """
    stored: dict[str, tuple[int, bytes]] = {}
    for part in chunked([row.chunk_id for row in rows]):
        for chunk_id, key, body in connection.execute(
            f"SELECT r.chunk_id, (t.number << {CHUNK_BITS}) + r.number, r.body"
            " FROM chunk_texts r JOIN chunk_tenants t ON t.tenant_id = r.tenant_id"
            f" WHERE r.tenant_id = ? AND r.chunk_id IN ({placeholders(len(part))})",
            (tenant, *part),
        ):
            stored[chunk_id] = (int(key), body)
    vectors = _vectors(connection, [stored[r.chunk_id][0] for r in rows if _rewrites(r, stored)])
    absent: list[Row] = []
    for given in rows:
        if given.chunk_id not in stored:
            absent.append(_with_model(given, None) if given.keep else given)
            continue
        key, body = stored[given.chunk_id]
        with decoding(table="chunk_texts", tenant=tenant, row=f"chunk {given.chunk_id}"):
            old = decode_body(body)
            model = json.loads(old).get("embedding_model") if given.keep else None
        row = given
        if old != given.body.encode("utf-8") and given.keep:
            row = _with_model(given, model)
        if old != row.body.encode("utf-8"):  # entity ids are in the body
            connection.execute(
                "UPDATE chunk_texts SET idx = ?, body = ? WHERE tenant_id = ? AND chunk_id = ?",
                (row.index, encode_body(row.body), tenant, row.chunk_id),
            )
            connection.execute(
                "DELETE FROM chunk_entities WHERE tenant_id = ? AND chunk_id = ?",
                (tenant, row.chunk_id),
            )
            connection.executemany(
                "INSERT INTO chunk_entities (tenant_id, entity_id, chunk_id) VALUES (?, ?, ?)",
                [(tenant, e, row.chunk_id) for e in row.entity_ids],
            )
        if not row.keep and vectors.get(key) != row.embedding:
            connection.execute("DELETE FROM chunk_vectors WHERE key = ?", (key,))
            if row.embedding is not None:
                connection.execute(
                    "INSERT INTO chunk_vectors (key, embedding) VALUES (?, ?)", (key, row.embedding)
                )
    return absent


def _rewrites(row: Row, stored: dict[str, tuple[int, bytes]]) -> bool:
    """Whether `row` is stored and brings its own vector (so the stored one is compared)."""
    return row.chunk_id in stored and not row.keep


def _vectors(connection: sqlite3.Connection, keys: Sequence[int]) -> dict[int, bytes]:
    """The stored embeddings of these `chunk_vectors` keys (those without one omitted)."""
    found: dict[int, bytes] = {}
    for part in chunked(keys):
        found.update(
            connection.execute(
                "SELECT key, embedding FROM chunk_vectors"
                f" WHERE key IN ({placeholders(len(part))})",
                part,
            )
        )
    return found


def _with_model(row: Row, model: str | None) -> Row:
    """`row` with its body naming `model` as the embedding's model."""
    return replace(row, body=naming_model(row.body, model))


def insert_rows(connection: sqlite3.Connection, rows: Sequence[Row]) -> None:
    """Insert rows known to be absent, with their postings, and add them to the stats."""
    by_tenant: dict[str, list[Row]] = {}
    for row in rows:
        by_tenant.setdefault(row.tenant, []).append(row)
    for tenant, group in sorted(by_tenant.items()):
        _insert_tenant(connection, tenant, group)


def _counters(connection: sqlite3.Connection, tenant: str) -> tuple[int, int, int]:
    """`(tenant number, next chunk number, next term number)`, numbering a new tenant."""
    row = connection.execute(
        "SELECT number, next_chunk, next_term FROM chunk_tenants WHERE tenant_id = ?", (tenant,)
    ).fetchone()
    if row is not None:
        return int(row[0]), int(row[1]), int(row[2])
    (number,) = connection.execute(
        "SELECT COALESCE(MAX(number) + 1, 0) FROM chunk_tenants"
    ).fetchone()
    connection.execute(
        "INSERT INTO chunk_tenants (tenant_id, number, next_chunk, next_term) VALUES (?, ?, 0, 0)",
        (tenant, number),
    )
    return int(number), 0, 0


def _insert_tenant(connection: sqlite3.Connection, tenant: str, rows: Sequence[Row]) -> None:
    number, first_chunk, next_term = _counters(connection, tenant)
    terms = sorted({term for row in rows for term in row.counts})
    words = term_numbers(connection, tenant, terms)
    new = [term for term in terms if term not in words]
    words.update((term, next_term + n) for n, term in enumerate(new))
    connection.executemany(
        "INSERT INTO chunk_words (tenant_id, term, number) VALUES (?, ?, ?)",
        [(tenant, term, words[term]) for term in new],
    )
    fresh: dict[tuple[int, int], tuple[list[int], list[int]]] = {}
    texts = []
    for chunk_number, row in enumerate(rows, start=first_chunk):
        block, slot = divmod(chunk_number, BLOCK)
        posted = [words[term] for term in row.counts]
        for term, tf in zip(posted, row.counts.values(), strict=True):
            slots, counts = fresh.setdefault((term, block), ([], []))
            slots.append(slot)
            counts.append(tf)
        texts.append(
            (
                tenant,
                row.chunk_id,
                row.source_id,
                row.index,
                chunk_number,
                row.length,
                encode_terms(np.array(posted, dtype=np.int64)),
                encode_body(row.body),
            )
        )
    connection.executemany(
        "INSERT INTO chunk_texts"
        " (tenant_id, chunk_id, source_id, idx, number, length, terms, body)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        texts,
    )
    connection.executemany(
        "INSERT INTO chunk_vectors (key, embedding) VALUES (?, ?)",
        [
            (vector_key(number, n), row.embedding)
            for n, row in enumerate(rows, start=first_chunk)
            if row.embedding is not None
        ],
    )
    connection.executemany(
        "INSERT INTO chunk_entities (tenant_id, entity_id, chunk_id) VALUES (?, ?, ?)",
        [(tenant, e, row.chunk_id) for row in rows for e in row.entity_ids],
    )
    _write_blocks(connection, tenant, number, first_chunk, fresh)
    connection.execute(
        "UPDATE chunk_tenants SET next_chunk = ?, next_term = ? WHERE tenant_id = ?",
        (first_chunk + len(rows), next_term + len(new), tenant),
    )
    connection.execute(
        "INSERT INTO chunk_corpus (tenant_id, document_count, total_length) VALUES (?, ?, ?)"
        " ON CONFLICT (tenant_id) DO UPDATE SET"
        " document_count = document_count + excluded.document_count,"
        " total_length = total_length + excluded.total_length",
        (tenant, len(rows), sum(row.length for row in rows)),
    )


def _write_blocks(
    connection: sqlite3.Connection,
    tenant: str,
    number: int,
    first_chunk: int,
    fresh: dict[tuple[int, int], tuple[list[int], list[int]]],
) -> None:
    """Store the new postings; only the block of `first_chunk` can already hold older ones.

    Chunk numbers are never reused and every stored one is below `first_chunk`.
    """
    merged = {
        key: (np.array(s, dtype=np.int64), np.array(c, dtype=np.int64))
        for key, (s, c) in fresh.items()
    }
    if first_chunk % BLOCK:
        shared = first_chunk // BLOCK
        for key, blob in _blocks(connection, number, (k for k in fresh if k[1] == shared)):
            slots, counts = decoded_block(tenant, *key, blob)
            new_slots, new_counts = merged[key]
            merged[key] = (np.concatenate([slots, new_slots]), np.concatenate([counts, new_counts]))
    connection.executemany(
        "INSERT INTO chunk_posting_blocks (tenant, term, block, postings) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (tenant, term, block) DO UPDATE SET postings = excluded.postings",
        [
            (number, term, block, encode_block(slots, counts))
            for (term, block), (slots, counts) in sorted(merged.items())
        ],
    )
