"""Reading SQLite chunk rows back: a row's body and vector as a `StoredChunk`, by id or source.

Shared by `SqliteChunkStore`'s reads; a damaged row raises `DamagedRowError`
naming it (ADR 0360).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Collection, Generator, Sequence
from contextlib import closing

import numpy as np

from redstring.chunks.matrix import ChunkMatrix
from redstring.chunks.sqlite_codec import decode_body
from redstring.chunks.sqlite_rows import CHUNK_BITS
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.exact_search import unit_rows
from redstring.storage.damage import decoding, float_vector, matrix_of
from redstring.storage.sqlite import chunked, placeholders

# Columns of chunk rows `r` with their vectors `v`, found by the key of the tenant's number.
CHUNK = "r.tenant_id, r.chunk_id, r.body, v.embedding"
BODY = (
    "SELECT {what} FROM {source}"
    " JOIN chunk_tenants t ON t.tenant_id = r.tenant_id"
    f" LEFT JOIN chunk_vectors v ON v.key = (t.number << {CHUNK_BITS}) + r.number"
)


def chunk_of_body(tenant: str, chunk_id: str, body: bytes) -> StoredChunk:
    """A chunk from its stored body; `DamagedRowError` naming the row for a damaged one."""
    with decoding(table="chunk_texts", tenant=tenant, row=f"chunk {chunk_id}"):
        chunk = StoredChunk.model_validate_json(decode_body(body))
        if str(chunk.id) != chunk_id or str(chunk.tenant_id) != tenant:
            raise ValueError("its body holds another chunk's id or tenant")
    return chunk


def chunk_of_row(
    tenant: str, chunk_id: str, body: bytes, blob: bytes | None, *, dimension: int
) -> StoredChunk:
    chunk = chunk_of_body(tenant, chunk_id, body)
    if blob is not None:
        with decoding(table="chunk_vectors", tenant=tenant, row=f"chunk {chunk_id}"):
            chunk.embedding = float_vector(blob, dimension).tolist()
    return chunk


def fetch_chunks(
    connection: sqlite3.Connection, tenant: str, ids: Sequence[str], dimension: int
) -> list[StoredChunk]:
    """The chunks of `ids` (distinct) in `tenant`, ordered by id string."""
    found: list[tuple[str, str, bytes, bytes | None]] = []
    for part in chunked(ids):
        found.extend(
            connection.execute(
                BODY.format(what=CHUNK, source="chunk_texts r")
                + f" WHERE r.tenant_id = ? AND r.chunk_id IN ({placeholders(len(part))})",
                (tenant, *part),
            )
        )
    return [
        chunk_of_row(*row, dimension=dimension) for row in sorted(found, key=lambda row: row[1])
    ]


def source_chunk_ids(connection: sqlite3.Connection, tenant: str, source_id: str) -> list[str]:
    return [
        str(row[0])
        for row in connection.execute(
            "SELECT chunk_id FROM chunk_texts WHERE tenant_id = ? AND source_id = ?",
            (tenant, source_id),
        )
    ]


def embedding_models(connection: sqlite3.Connection, tenant: str) -> dict[str | None, int]:
    """How many of `tenant`'s chunks holding a vector each model made (every such body read)."""
    return dict(Counter(_models_of(connection, tenant)))


def embeds_with(
    connection: sqlite3.Connection, tenant: str, models: Collection[str | None]
) -> bool:
    """Whether a chunk of `tenant` holding a vector names one of `models`; reading stops there."""
    wanted = set(models)
    with closing(_models_of(connection, tenant)) as found:
        return any(model in wanted for model in found)


def _models_of(connection: sqlite3.Connection, tenant: str) -> Generator[str | None]:
    """The model each of `tenant`'s chunks holding a vector names (`None`: none), body by body."""
    cursor = connection.execute(
        "SELECT r.chunk_id, r.body FROM chunk_texts r"
        " JOIN chunk_tenants t ON t.tenant_id = r.tenant_id"
        f" JOIN chunk_vectors v ON v.key = (t.number << {CHUNK_BITS}) + r.number"
        " WHERE r.tenant_id = ?",
        (tenant,),
    )
    try:
        for chunk_id, body in cursor:
            with decoding(table="chunk_texts", tenant=tenant, row=f"chunk {chunk_id}"):
                model = json.loads(decode_body(body)).get("embedding_model")
            yield model if isinstance(model, str) else None
    finally:
        cursor.close()  # a caller stopping early leaves no statement running


def load_matrix(connection: sqlite3.Connection, tenant: str, dimension: int) -> ChunkMatrix:
    """`tenant`'s embedded chunks as unit rows, with their ids and sources."""
    ids: list[ChunkId] = []
    sources: list[str] = []
    blobs: list[bytes] = []
    for chunk_id, source_id, blob in connection.execute(
        "SELECT r.chunk_id, r.source_id, v.embedding FROM chunk_texts r"
        " JOIN chunk_tenants t ON t.tenant_id = r.tenant_id"
        f" JOIN chunk_vectors v ON v.key = (t.number << {CHUNK_BITS}) + r.number"
        " WHERE r.tenant_id = ?",
        (tenant,),
    ):
        ids.append(ChunkId(chunk_id))
        sources.append(source_id)
        blobs.append(blob)
    raw = matrix_of(
        blobs, dimension, table="chunk_vectors", tenant=tenant,
        rows=[f"chunk {chunk_id}" for chunk_id in ids],
    )  # fmt: skip
    return ChunkMatrix(
        ids=ids, sources=np.array(sources, dtype=np.str_), rows=unit_rows(raw) if ids else raw
    )
