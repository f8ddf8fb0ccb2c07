"""Row-level writes of the PostgreSQL chunk store: a chunk's row, entities, postings, stats.

Each function runs inside the caller's transaction and keeps `chunk_postings`,
`chunk_terms` and `chunk_corpus` equal to what the rows hold.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID

import numpy as np

from redstring.chunks.term_counts import TermCounts
from redstring.domain.chunk import StoredChunk, naming_model
from redstring.domain.exact_search import stored_vector
from redstring.domain.tokenize import Analyzer
from redstring.storage.damage import decoding
from redstring.storage.postgres import Connection, PostgresDatabase
from redstring.storage.postgres_json import jsonb_text


@dataclass(frozen=True)
class Row(TermCounts):
    """One chunk as its `chunk_rows` row, with the term counts it is posted under."""

    tenant: UUID
    chunk_id: str
    source_id: str
    index: int
    body: str
    embedding: np.ndarray[Any, np.dtype[np.float32]] | None
    text: str
    analyzer: Analyzer
    entity_ids: list[UUID]


def rows_of(chunks: Sequence[StoredChunk], dimension: int, analyzer: Analyzer) -> list[Row]:
    """Validated rows, the last of each (tenant, id) winning; touches no state."""
    rows: dict[tuple[UUID, str], Row] = {}
    for chunk in chunks:
        embedding = None
        if chunk.embedding is not None:
            embedding = stored_vector(
                chunk.embedding,
                dimension=dimension,
                context=f"embedding of chunk {chunk.id}",
            )
        row = Row(
            tenant=chunk.tenant_id,
            chunk_id=str(chunk.id),
            source_id=chunk.source_id,
            index=chunk.index,
            body=jsonb_text(chunk.model_dump_json(exclude={"embedding"})),
            embedding=embedding,
            text=chunk.text,
            analyzer=analyzer,
            entity_ids=sorted(set(chunk.entity_ids)),
        )
        rows.pop((row.tenant, row.chunk_id), None)
        rows[(row.tenant, row.chunk_id)] = row
    return list(rows.values())


async def place_rows(
    db: PostgresDatabase,
    connection: Connection,
    tenant: UUID,
    rows: Sequence[Row],
    kept: frozenset[str],
) -> list[Row]:
    """Bring the stored ones of `rows` up to date in place, each part only if it differs.

    A stored chunk has the same text, so its postings and length stay; a
    row in `kept` keeps its vector, never read, and the model its body
    names. Returns the rows not stored (a kept one without a vector or model).
    """
    q = db.sql
    cursor = await connection.execute(
        q(
            "SELECT chunk_id, body FROM {schema}.chunk_rows"
            " WHERE tenant_id = %s AND chunk_id = ANY(%s)"
        ),
        (tenant, [row.chunk_id for row in rows]),
    )
    stored: dict[str, dict[str, Any]] = {}
    for chunk_id, body in await cursor.fetchall():
        where = {"table": "chunk_rows", "tenant": str(tenant), "row": f"chunk {chunk_id}"}
        with decoding(store=f"PostgresChunkStore(schema={db.schema})", **where):
            if not isinstance(body, dict):
                raise ValueError("its body is not a JSON object")
        stored[str(chunk_id)] = body
    absent: list[Row] = []
    bodies: list[tuple[object, ...]] = []
    regrouped: list[Row] = []
    vectors: list[tuple[object, ...]] = []
    for given in rows:
        old = stored.get(given.chunk_id)
        keep = given.chunk_id in kept
        if old is None:
            absent.append(_with_model(given, None) if keep else given)
            continue
        row = _with_model(given, old.get("embedding_model")) if keep else given
        if not keep:
            vectors.append((row.embedding, tenant, row.chunk_id, row.embedding))
        new = json.loads(row.body)
        if new != old:
            bodies.append((row.index, row.body, tenant, row.chunk_id))
        if new.get("entity_ids") != old.get("entity_ids"):
            regrouped.append(row)
    async with connection.cursor() as cursor:
        await cursor.executemany(
            q(
                "UPDATE {schema}.chunk_rows SET idx = %s, body = %s::jsonb"
                " WHERE tenant_id = %s AND chunk_id = %s"
            ),
            bodies,
        )
        await cursor.executemany(
            q(
                "UPDATE {schema}.chunk_rows SET embedding = %s"
                " WHERE tenant_id = %s AND chunk_id = %s"
                " AND embedding IS DISTINCT FROM %s::vector"
            ),
            vectors,
        )
    if regrouped:
        await connection.execute(
            q("DELETE FROM {schema}.chunk_entities WHERE tenant_id = %s AND chunk_id = ANY(%s)"),
            (tenant, [row.chunk_id for row in regrouped]),
        )
        await _insert_entities(db, connection, regrouped)
    return absent


async def _insert_entities(
    db: PostgresDatabase, connection: Connection, rows: Sequence[Row]
) -> None:
    entities = [(r.tenant, e, r.chunk_id) for r in rows for e in r.entity_ids]
    if entities:
        async with connection.cursor() as cursor:
            await cursor.executemany(
                db.sql(
                    "INSERT INTO {schema}.chunk_entities (tenant_id, entity_id, chunk_id)"
                    " VALUES (%s, %s, %s)"
                ),
                entities,
            )


async def remove_rows(
    db: PostgresDatabase, connection: Connection, tenant: UUID, ids: Sequence[str]
) -> None:
    """Delete these chunks of `tenant` (missing ones ignored) and take them out of the stats."""
    if not ids:
        return
    q = db.sql
    distinct = sorted(set(ids))
    cursor = await connection.execute(
        q(
            "DELETE FROM {schema}.chunk_rows WHERE tenant_id = %s AND chunk_id = ANY(%s)"
            " RETURNING length"
        ),
        (tenant, distinct),
    )
    lengths = [int(row[0]) for row in await cursor.fetchall()]
    if not lengths:
        return
    cursor = await connection.execute(
        q(
            "DELETE FROM {schema}.chunk_postings WHERE tenant_id = %s AND chunk_id = ANY(%s)"
            " RETURNING term"
        ),
        (tenant, distinct),
    )
    terms = Counter(str(row[0]) for row in await cursor.fetchall())
    await connection.execute(
        q("DELETE FROM {schema}.chunk_entities WHERE tenant_id = %s AND chunk_id = ANY(%s)"),
        (tenant, distinct),
    )
    names, counts = sorted(terms), [terms[t] for t in sorted(terms)]
    await connection.execute(
        q(
            "UPDATE {schema}.chunk_terms t SET document_frequency = t.document_frequency - d.n"
            " FROM unnest(%s::text[], %s::int[]) AS d(term, n)"
            " WHERE t.tenant_id = %s AND t.term = d.term"
        ),
        (names, counts, tenant),
    )
    await connection.execute(
        q(
            "DELETE FROM {schema}.chunk_terms WHERE tenant_id = %s AND term = ANY(%s)"
            " AND document_frequency <= 0"
        ),
        (tenant, names),
    )
    await connection.execute(
        q(
            "UPDATE {schema}.chunk_corpus SET document_count = document_count - %s,"
            " total_length = total_length - %s WHERE tenant_id = %s"
        ),
        (len(lengths), sum(lengths), tenant),
    )


async def insert_rows(db: PostgresDatabase, connection: Connection, rows: Sequence[Row]) -> None:
    """Insert rows known to be absent, with their postings, and add them to the stats."""
    if not rows:
        return
    q = db.sql
    async with connection.cursor() as cursor:
        await cursor.executemany(
            q(
                "INSERT INTO {schema}.chunk_rows"
                " (tenant_id, chunk_id, source_id, idx, length, body, embedding)"
                " VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s)"
            ),
            [
                (r.tenant, r.chunk_id, r.source_id, r.index, r.length, r.body, r.embedding)
                for r in rows
            ],
        )
        await _insert_entities(db, connection, rows)
        postings = [
            (r.tenant, t, r.chunk_id, tf, r.length) for r in rows for t, tf in r.counts.items()
        ]
        if postings:
            await cursor.executemany(
                q(
                    "INSERT INTO {schema}.chunk_postings"
                    " (tenant_id, term, chunk_id, tf, length) VALUES (%s, %s, %s, %s, %s)"
                ),
                postings,
            )
        frequencies = Counter((r.tenant, t) for r in rows for t in r.counts)
        if frequencies:
            await cursor.executemany(
                q(
                    "INSERT INTO {schema}.chunk_terms (tenant_id, term, document_frequency)"
                    " VALUES (%s, %s, %s) ON CONFLICT (tenant_id, term) DO UPDATE SET"
                    " document_frequency = {schema}.chunk_terms.document_frequency"
                    " + excluded.document_frequency"
                ),
                [(t, term, n) for (t, term), n in sorted(frequencies.items())],
            )
        totals: dict[UUID, tuple[int, int]] = {}
        for r in rows:
            count, total = totals.get(r.tenant, (0, 0))
            totals[r.tenant] = (count + 1, total + r.length)
        await cursor.executemany(
            q(
                "INSERT INTO {schema}.chunk_corpus (tenant_id, document_count, total_length)"
                " VALUES (%s, %s, %s) ON CONFLICT (tenant_id) DO UPDATE SET"
                " document_count = {schema}.chunk_corpus.document_count"
                " + excluded.document_count,"
                " total_length = {schema}.chunk_corpus.total_length + excluded.total_length"
            ),
            [(t, count, total) for t, (count, total) in sorted(totals.items())],
        )


def _with_model(row: Row, model: str | None) -> Row:
    """`row` with its body naming `model` as the embedding's model."""
    return replace(row, body=jsonb_text(naming_model(row.body, model)))


def chunk_of_body(body: Any, tenant: str, chunk_id: str, store: str) -> StoredChunk:
    """A chunk from its stored JSON (decoded by psycopg); `DamagedRowError` naming a damaged row."""
    with decoding(store=store, table="chunk_rows", tenant=tenant, row=f"chunk {chunk_id}"):
        chunk = StoredChunk.model_validate(body)
        if str(chunk.id) != chunk_id or str(chunk.tenant_id) != tenant:
            raise ValueError("its body holds another chunk's id or tenant")
    return chunk


def chunk_of_row(body: Any, embedding: Any, tenant: str, chunk_id: str, store: str) -> StoredChunk:
    """A chunk from its stored JSON and its pgvector value."""
    chunk = chunk_of_body(body, tenant, chunk_id, store)
    if embedding is not None:
        chunk.embedding = embedding.to_list()
    return chunk


async def source_chunk_ids(
    db: PostgresDatabase, connection: Connection, tenant: UUID, source_id: str
) -> list[str]:
    """The ids of `source_id`'s chunks in `tenant`, in no order."""
    cursor = await connection.execute(
        db.sql("SELECT chunk_id FROM {schema}.chunk_rows WHERE tenant_id = %s AND source_id = %s"),
        (tenant, source_id),
    )
    return [str(row[0]) for row in await cursor.fetchall()]
