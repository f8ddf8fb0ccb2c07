"""A vector store in a SQLite file: float32 blobs, searched with numpy or an IVF index."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Literal

import numpy as np

from redstring.domain.damage import DamagedRow
from redstring.domain.errors import InvalidArgumentError, MissingExtraError
from redstring.domain.exact_search import (
    stored_vectors,
    unit_rows,
    unit_vector,
    validate_search_args,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_tenant_id
from redstring.domain.vector import VectorMatch, VectorRecord
from redstring.storage.damage import (
    DECODE_FAILURES,
    damage_of,
    decoding,
    float_vector,
    matrix_of,
)
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
)
from redstring.vector.ivf_settings import EXACT_BELOW, PROBES, check_ivf_settings
from redstring.vector.rows import ExactSearch, RowSearch, TenantRows

if TYPE_CHECKING:
    from redstring.vector.ivf_saved import SavedIvf, Snapshot

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
        ],
        # 2: each vector names the embedding model that made it, and whether a model
        # made any of a tenant's vectors is one index read (ADR 0655). A row written
        # before names none (NULL): not known, so not refused.
        [
            "ALTER TABLE vector_records ADD COLUMN model TEXT",
            "CREATE INDEX vector_records_by_model ON vector_records (tenant_id, model)",
        ],
    ],
)

#: A tenant's saved IVF index and each entity's list in it (ADR 0320): a
#: component of its own, created on a writable open, so a file from before
#: it opens without a migration.
SAVED_IVF_SCHEMA = Schema(
    component="vector_ivf",
    migrations=[
        [
            "CREATE TABLE vector_ivf ("
            " tenant_id TEXT PRIMARY KEY, token TEXT NOT NULL, training TEXT NOT NULL,"
            " trained INTEGER NOT NULL, changed INTEGER NOT NULL, centres BLOB NOT NULL)",
            "CREATE TABLE vector_ivf_lists ("
            " tenant_id TEXT NOT NULL, entity_id TEXT NOT NULL, list_no INTEGER NOT NULL,"
            " PRIMARY KEY (tenant_id, entity_id)) WITHOUT ROWID",
        ]
    ],
)


#: Every table holding a tenant's rows.
TENANT_TABLES = ("vector_records", "vector_generations", "vector_ivf", "vector_ivf_lists")

#: How a `SqliteVectorStore` searches a tenant: every row, or through an IVF index.
type SqliteSearchMode = Literal["exact", "ivf"]


def row_search(mode: object, exact_below: int, probes: int) -> tuple[RowSearch, SavedIvf | None]:
    """The search `mode` names, and the saved indexes it keeps; `"ivf"` loads faiss (`ann`)."""
    if mode == "exact":
        check_ivf_settings(exact_below, probes)
        return ExactSearch(), None
    if mode != "ivf":
        raise InvalidArgumentError(name="search_mode", value=mode, requirement="'exact' or 'ivf'")
    try:
        from redstring.vector.ivf import IvfSearch  # noqa: PLC0415 (the optional extra)
        from redstring.vector.ivf_saved import SavedIvf  # noqa: PLC0415
    except ModuleNotFoundError as error:
        raise MissingExtraError(extra="ann", missing=str(error.name)) from error
    return IvfSearch(exact_below=exact_below, probes=probes), SavedIvf()


class SqliteVectorStore(SharedTransactions[SqliteDatabase], DescribedStore):
    """A `VectorStore` in a SQLite file: cosine per tenant, scores on 0..1.

    Vectors are stored as float32 blobs keyed by (tenant, entity). A search
    loads the tenant's unit rows and ranks them with numpy; recently
    searched tenants' rows stay in memory, within `cache_bytes` (a number,
    or a `CacheBudget` shared with the chunk store; 0 caches nothing). A
    write through this store updates the cached rows in place; a write from
    another process (a changed generation token) makes the next search load
    them again. The file's dimension is recorded on first open; opening it
    with another raises `DimensionMismatchError`.

    `search_mode="exact"` (the default) scores every row. `"ivf"` (the `ann`
    extra) searches a tenant of at least `exact_below` rows (or the rows its
    type filter keeps) through a faiss IVF index scanning `probes` lists,
    as `ApproximateVectorStore` does: held in memory beside
    the cached rows and counted in `cache_bytes` (about twice the rows'
    bytes, so a large tenant needs a budget that holds both), trained on the
    first search and saved in the file: a later open reads it
    back instead of training while the tenant's generation token says it is
    current. This store's writes keep it and its saved copy up to date; it
    is trained again after a quarter of its rows changed, or when a write it
    did not follow (an `"exact"` store's) made the saved copy stale.
    """

    def __init__(
        self,
        database: SqliteDatabase,
        *,
        dimension: int,
        migrate: bool = False,
        cache_bytes: int | CacheBudget = DEFAULT_CACHE_BYTES,
        search_mode: SqliteSearchMode = "exact",
        exact_below: int = EXACT_BELOW,
        probes: int = PROBES,
    ) -> None:
        if dimension <= 0:
            raise InvalidArgumentError(
                name="dimension",
                value=dimension,
                requirement="a positive whole number",
                message=f"dimension must be positive, got {dimension}",
            )
        self._search, self._saved = row_search(search_mode, exact_below, probes)
        self._db = database
        self._name = f"SqliteVectorStore({database.path})"
        database.ensure_schema(SCHEMA, migrate=migrate, store=self._name)
        if not database.read_only:
            database.ensure_schema(SAVED_IVF_SCHEMA, migrate=migrate, store=self._name)
        elif database.schema_version(SAVED_IVF_SCHEMA.component, store=self._name) is None:
            self._saved = None  # a read-only file from before saved indexes: trained as before
        database.ensure_dimension("vector", dimension, store=self._name, holds="vectors")
        self._dimension = dimension
        self._cache = TenantCache[TenantRows](budget_of(cache_bytes), lambda rows: rows.nbytes)

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
                r.model,
            )
            for r, array in zip(records, arrays, strict=True)
        ]

        def work(connection: sqlite3.Connection) -> None:
            before = self._tokens(connection, {row[0] for row in rows})
            connection.executemany(
                "INSERT INTO vector_records"
                " (tenant_id, entity_id, entity_type, normalized_type, vector, model)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, entity_id) DO UPDATE SET"
                " entity_type = excluded.entity_type, normalized_type = excluded.normalized_type,"
                " vector = excluded.vector, model = excluded.model",
                rows,
            )
            after = bump_generations(connection, "vector_generations", before)
            by_tenant: dict[str, dict[str, int]] = {}
            for at, row in enumerate(rows):  # a repeated id keeps its last row
                by_tenant.setdefault(row[0], {})[row[1]] = at
            for tenant, token in after.items():
                ats = list(by_tenant[tenant].values())
                ids = [rows[at][1] for at in ats]
                unit = unit_rows(np.stack([arrays[at] for at in ats]))
                part = self._cache.update(
                    tenant,
                    before[tenant],
                    token,
                    lambda part, ats=ats, ids=ids, unit=unit: part.put(  # type: ignore[misc]
                        ids, [rows[at][2] for at in ats], [rows[at][3] for at in ats], unit
                    ),
                )
                if self._saved is not None:
                    self._saved.follow_put(
                        connection, tenant, (before[tenant], token), ids=ids, unit=unit, part=part
                    )

        await self._db.write(work, store=self._name)

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        ids = [str(i) for i in entity_ids]

        def work(connection: sqlite3.Connection) -> None:
            tenant = str(tenant_id)
            before = self._tokens(connection, {tenant})
            removed = 0
            for part in chunked(ids):
                removed += connection.execute(
                    "DELETE FROM vector_records WHERE tenant_id = ?"
                    f" AND entity_id IN ({placeholders(len(part))})",
                    (tenant, *part),
                ).rowcount
            after = bump_generations(connection, "vector_generations", before)
            self._cache.update(tenant, before[tenant], after[tenant], lambda rows: rows.remove(ids))
            if self._saved is not None:
                tokens = (before[tenant], after[tenant])
                self._saved.follow_delete(connection, tenant, tokens, ids, removed)

        await self._db.write(work, store=self._name)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            for table in TENANT_TABLES:
                connection.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (str(tenant_id),))

        await self._db.write(work, store=self._name)

    async def get(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[VectorRecord]:
        require_tenant_id(tenant_id)
        wanted = [str(i) for i in dict.fromkeys(entity_ids)]

        def work(connection: sqlite3.Connection) -> list[tuple[str, str, bytes, str | None]]:
            found: list[tuple[str, str, bytes, str | None]] = []
            for part in chunked(wanted):
                found.extend(
                    connection.execute(
                        "SELECT entity_id, entity_type, vector, model FROM vector_records"
                        f" WHERE tenant_id = ? AND entity_id IN ({placeholders(len(part))})",
                        (str(tenant_id), *part),
                    )
                )
            return found

        records: list[VectorRecord] = []
        for entity_id, entity_type, blob, model in await self._db.read(work, store=self._name):
            with decoding(
                store=self._name,
                table="vector_records",
                tenant=str(tenant_id),
                row=f"entity {entity_id}",
            ):
                vector = float_vector(blob, self._dimension).tolist()
            records.append(
                VectorRecord(
                    tenant_id=tenant_id,
                    entity_id=EntityId(uuid.UUID(entity_id)),
                    entity_type=entity_type,
                    vector=vector,
                    model=model,
                )
            )
        return records

    async def damaged_rows(self) -> list[DamagedRow]:
        """Every vector row that is not `dimension` finite float32s, of every tenant."""

        def work(connection: sqlite3.Connection) -> list[DamagedRow]:
            found: list[DamagedRow] = []
            for tenant, entity_id, blob in connection.execute(
                "SELECT tenant_id, entity_id, vector FROM vector_records ORDER BY tenant_id"
            ):
                try:
                    float_vector(blob, self._dimension)
                except DECODE_FAILURES as error:
                    row = f"entity {entity_id}"
                    found.append(
                        damage_of(table="vector_records", tenant=tenant, row=row, error=error)
                    )
            return found

        return await self._db.read(work, store=self._name)

    async def count(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> int:
            row = connection.execute(
                "SELECT count(*) FROM vector_records WHERE tenant_id = ?", (str(tenant_id),)
            ).fetchone()
            return int(row[0])

        return await self._db.read(work, store=self._name)

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> dict[str | None, int]:
            return {
                model: int(n)
                for model, n in connection.execute(
                    "SELECT model, count(*) FROM vector_records WHERE tenant_id = ? GROUP BY model",
                    (str(tenant_id),),
                )
            }

        return await self._db.read(work, store=self._name)

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        require_tenant_id(tenant_id)
        named = sorted({model for model in models if model is not None})
        unnamed = None in models

        def work(connection: sqlite3.Connection) -> bool:
            # Each a seek in (tenant_id, model) that stops at the first row.
            if (
                named
                and connection.execute(
                    "SELECT EXISTS (SELECT 1 FROM vector_records WHERE tenant_id = ?"
                    f" AND model IN ({placeholders(len(named))}))",
                    (str(tenant_id), *named),
                ).fetchone()[0]
            ):
                return True
            return bool(
                unnamed
                and connection.execute(
                    "SELECT EXISTS (SELECT 1 FROM vector_records"
                    " WHERE tenant_id = ? AND model IS NULL)",
                    (str(tenant_id),),
                ).fetchone()[0]
            )

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
        k, min_score = validate_search_args(k, min_score)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if k == 0 or (entity_types is not None and not entity_types):
            return []
        wanted = None if entity_types is None else [normalize_name(t) for t in entity_types]

        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> tuple[list[VectorMatch], Snapshot | None]:
            token = current_generation(connection, "vector_generations", tenant)
            part = self._cache.get(tenant, token, lambda: self._load(connection, tenant))
            saved = self._saved
            if saved is not None and part.index is None:
                part.index = saved.restore(connection, tenant, token, part)
            hits = self._search.search(part, query, k=k, wanted=wanted, min_score=min_score)
            self._cache.remeasure(tenant)  # an index built by the search counts too
            matches = [
                VectorMatch(
                    entity_id=EntityId(uuid.UUID(part.ids[slot])),
                    entity_type=part.types[slot],
                    score=score,
                )
                for slot, score in hits
            ]
            unsaved = None if saved is None or self._db.read_only else saved.unsaved(part, token)
            return matches, unsaved

        matches, unsaved = await self._db.read(work, store=self._name)
        if unsaved is not None and self._saved is not None:
            saved = self._saved
            await self._db.write(
                lambda connection: saved.save(connection, tenant, unsaved), store=self._name
            )
        return matches

    @staticmethod
    def _tokens(connection: sqlite3.Connection, tenants: set[str]) -> dict[str, str | None]:
        """Each tenant's generation token before a write, read inside the write."""
        return {
            tenant: current_generation(connection, "vector_generations", tenant)
            for tenant in sorted(tenants)
        }

    def _load(self, connection: sqlite3.Connection, tenant: str) -> TenantRows:
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
        raw = matrix_of(
            blobs,
            self._dimension,
            table="vector_records",
            tenant=tenant,
            rows=[f"entity {entity_id}" for entity_id in ids],
        )
        return TenantRows.of(ids, types, normalized, unit_rows(raw) if ids else raw)
