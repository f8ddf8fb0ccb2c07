"""A vector store in a SQLite file: float32 blobs, searched exactly with numpy."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from redstring.domain.exact_search import (
    FloatMatrix,
    stored_vectors,
    top_k,
    unit_rows,
    unit_vector,
    validate_search_args,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_tenant_id
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.storage.describe import DescribedStore
from redstring.storage.schema import Schema
from redstring.storage.shared_transactions import SharedTransactions
from redstring.storage.sqlite import SqliteDatabase, chunked, placeholders
from redstring.storage.tenant_cache import (
    DEFAULT_CACHE_BYTES,
    CacheBudget,
    TenantCache,
    budget_of,
    bump_generations,
    current_generation,
    generation_table,
    held_bytes,
)

SCHEMA = Schema(
    component="vector",
    migrations=[
        [
            "CREATE TABLE vector_records ("
            " tenant_id TEXT NOT NULL, entity_id TEXT NOT NULL, entity_type TEXT NOT NULL,"
            " normalized_type TEXT NOT NULL, vector BLOB NOT NULL,"
            " PRIMARY KEY (tenant_id, entity_id))",
            # A fresh random token per write of a tenant: a cached matrix is
            # valid while its token is current, across processes too.
            generation_table("vector_generations"),
        ]
    ],
)


@dataclass(frozen=True)
class _Matrix:
    ids: list[str]
    types: list[str]
    normalized_types: npt.NDArray[np.str_]
    rows: FloatMatrix


class SqliteVectorStore(SharedTransactions[SqliteDatabase], DescribedStore):
    """A `VectorStore` in a SQLite file: exact cosine per tenant, scores on 0..1.

    Vectors are stored as float32 blobs keyed by (tenant, entity). A search
    loads the tenant's unit-row matrix and ranks it with numpy; recently
    searched tenants' matrices stay in memory, within `cache_bytes` (a number,
    or a `CacheBudget` shared with the chunk store; 0 caches nothing), until a
    write to the tenant (from any process) changes its generation token. The
    file's dimension is recorded on first open; opening it with another
    raises `DimensionMismatchError`.
    """

    def __init__(
        self,
        database: SqliteDatabase,
        *,
        dimension: int,
        migrate: bool = False,
        cache_bytes: int | CacheBudget = DEFAULT_CACHE_BYTES,
    ) -> None:
        if dimension <= 0:
            raise ValueError(f"dimension must be positive, got {dimension}")
        self._db = database
        self._name = f"SqliteVectorStore({database.path})"
        database.ensure_schema(SCHEMA, migrate=migrate, store=self._name)
        database.ensure_dimension("vector", dimension, store=self._name, holds="vectors")
        self._dimension = dimension
        self._cache = TenantCache[_Matrix](
            budget_of(cache_bytes), lambda m: held_bytes(m.ids, m.types, m.normalized_types, m.rows)
        )

    @property
    def dimension(self) -> int:
        return self._dimension

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        arrays = stored_vectors(
            [r.vector for r in records],
            dimension=self._dimension,
            context_of=lambda i: f"vector of entity {records[i].entity_id}",
        )
        rows = [
            (
                str(r.tenant_id),
                str(r.entity_id),
                r.entity_type,
                normalize_name(r.entity_type),
                array.tobytes(),
            )
            for r, array in zip(records, arrays, strict=True)
        ]

        def work(connection: sqlite3.Connection) -> None:
            connection.executemany(
                "INSERT INTO vector_records"
                " (tenant_id, entity_id, entity_type, normalized_type, vector)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, entity_id) DO UPDATE SET"
                " entity_type = excluded.entity_type,"
                " normalized_type = excluded.normalized_type, vector = excluded.vector",
                rows,
            )
            bump_generations(connection, "vector_generations", {row[0] for row in rows})

        await self._db.write(work, store=self._name)

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        ids = [str(i) for i in entity_ids]

        def work(connection: sqlite3.Connection) -> None:
            for part in chunked(ids):
                connection.execute(
                    "DELETE FROM vector_records WHERE tenant_id = ?"
                    f" AND entity_id IN ({placeholders(len(part))})",
                    (str(tenant_id), *part),
                )
            bump_generations(connection, "vector_generations", {str(tenant_id)})

        await self._db.write(work, store=self._name)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            for table in ("vector_records", "vector_generations"):
                connection.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (str(tenant_id),))

        await self._db.write(work, store=self._name)

    async def get(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[VectorRecord]:
        require_tenant_id(tenant_id)
        wanted = [str(i) for i in dict.fromkeys(entity_ids)]

        def work(connection: sqlite3.Connection) -> list[tuple[str, str, bytes]]:
            found: list[tuple[str, str, bytes]] = []
            for part in chunked(wanted):
                found.extend(
                    connection.execute(
                        "SELECT entity_id, entity_type, vector FROM vector_records"
                        f" WHERE tenant_id = ? AND entity_id IN ({placeholders(len(part))})",
                        (str(tenant_id), *part),
                    )
                )
            return found

        return [
            VectorRecord(
                tenant_id=tenant_id,
                entity_id=EntityId(uuid.UUID(entity_id)),
                entity_type=entity_type,
                vector=np.frombuffer(blob, dtype=np.float32).tolist(),
            )
            for entity_id, entity_type, blob in await self._db.read(work, store=self._name)
        ]

    async def count(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> int:
            row = connection.execute(
                "SELECT count(*) FROM vector_records WHERE tenant_id = ?", (str(tenant_id),)
            ).fetchone()
            return int(row[0])

        return await self._db.read(work, store=self._name)

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
        min_score: float | None = None,
    ) -> list[VectorMatch]:
        require_tenant_id(tenant_id)
        validate_search_args(k, min_score)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if k == 0 or (entity_types is not None and not entity_types):
            return []
        wanted = None if entity_types is None else [normalize_name(t) for t in entity_types]

        def work(connection: sqlite3.Connection) -> list[VectorMatch]:
            matrix = self._matrix(connection, str(tenant_id))
            eligible = None if wanted is None else np.isin(matrix.normalized_types, wanted)
            hits = top_k(
                matrix.rows, query, matrix.ids, k=k, eligible=eligible, min_score=min_score
            )
            return [
                VectorMatch(
                    entity_id=EntityId(uuid.UUID(matrix.ids[row])),
                    entity_type=matrix.types[row],
                    score=score,
                )
                for row, score in hits
            ]

        return await self._db.read(work, store=self._name)

    def _matrix(self, connection: sqlite3.Connection, tenant: str) -> _Matrix:
        """The tenant's matrix, from the cache while its generation token is current."""
        token = current_generation(connection, "vector_generations", tenant)
        return self._cache.get(tenant, token, lambda: self._load(connection, tenant))

    def _load(self, connection: sqlite3.Connection, tenant: str) -> _Matrix:
        ids: list[str] = []
        types: list[str] = []
        normalized: list[str] = []
        blobs: list[bytes] = []
        for entity_id, entity_type, normalized_type, blob in connection.execute(
            "SELECT entity_id, entity_type, normalized_type, vector FROM vector_records"
            " WHERE tenant_id = ?",
            (tenant,),
        ):
            ids.append(entity_id)
            types.append(entity_type)
            normalized.append(normalized_type)
            blobs.append(blob)
        raw = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(ids), self._dimension)
        return _Matrix(
            ids=ids,
            types=types,
            normalized_types=np.array(normalized, dtype=np.str_),
            rows=unit_rows(raw) if ids else raw,
        )
