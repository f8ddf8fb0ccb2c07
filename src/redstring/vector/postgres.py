"""A vector store in PostgreSQL with pgvector: exact by default, HNSW on request."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Literal

from pgvector.psycopg import register_vector_async
from psycopg import sql

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.exact_search import stored_vector, unit_vector, validate_search_args
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.validation import require_tenant_id
from redstring.domain.vector import VectorMatch, VectorRecord, cosine_to_score
from redstring.storage.describe import DescribedStore
from redstring.storage.postgres import Connection, PostgresDatabase
from redstring.storage.schema import Schema
from redstring.storage.shared_transactions import SharedTransactions
from redstring.vector.postgres_exact import DISTANCE, KEEP, rank_exactly

#: The extension the vector store needs; create it before the pool opens.
EXTENSIONS = ("vector",)

type SearchMode = Literal["exact", "hnsw"]
type IterativeScan = Literal["relaxed_order", "strict_order"]

#: `hnsw.ef_search` unless the caller gives one: over three index builds at
#: 100k x 384 clustered, 160 held recall@10 >= 0.990 where 100 ranged
#: 0.9495-0.980 from build to build (ADR 0196, 0340).
DEFAULT_EF_SEARCH = 160
#: pgvector accepts `hnsw.ef_search` from 1 to 1000.
MAX_EF_SEARCH = 1000
#: In HNSW mode, fewer rows than this passing the tenant and type filters are
#: ranked exactly instead: faster than walking the graph for them (ADR 0196).
DEFAULT_EXACT_BELOW = 5000


async def configure_connection(connection: Connection) -> None:
    """Teach a new pooled connection the pgvector types (pass as the pool's `configure`)."""
    await register_vector_async(connection)


def schema_for(dimension: int) -> Schema:
    """The vector tables for `dimension`; the column type fixes it at creation."""
    return Schema(
        component="vector",
        migrations=[
            [
                "CREATE TABLE {schema}.vector_records ("
                " tenant_id uuid NOT NULL, entity_id uuid NOT NULL, entity_type text NOT NULL,"
                f" normalized_type text NOT NULL, embedding vector({int(dimension)}) NOT NULL,"
                " PRIMARY KEY (tenant_id, entity_id))",
                "CREATE INDEX vector_records_by_type ON {schema}.vector_records"
                " (tenant_id, normalized_type)",
            ],
            # Exact search ranks by inner product times this stored inverse norm:
            # cosine without recomputing every row's norm per query (ADR 0190).
            [
                "ALTER TABLE {schema}.vector_records ADD COLUMN inverse_norm double precision"
                " GENERATED ALWAYS AS (1.0 / vector_norm(embedding)) STORED",
            ],
            # Exact search scans this float16 unit vector and re-scores a pool from
            # float32 (ADR 0270). MAIN keeps it in the row (compressed or moved out
            # only when a row could not fit a page; PLAIN would refuse such rows);
            # the float32 vector stays EXTERNAL, moved out of the row when it is
            # large, so the scan reads half the bytes.
            [
                "ALTER TABLE {schema}.vector_records ADD COLUMN unit_half"
                f" halfvec({int(dimension)}) GENERATED ALWAYS AS"
                f" (l2_normalize(embedding)::halfvec({int(dimension)})) STORED,"
                " ALTER COLUMN unit_half SET STORAGE MAIN",
            ],
            # Each vector names the embedding model that made it, and whether a model
            # made any of a tenant's vectors is one index read (ADR 0655). A row
            # written before names none (NULL): not known, so not refused.
            [
                "ALTER TABLE {schema}.vector_records ADD COLUMN model text",
                "CREATE INDEX vector_records_by_model ON {schema}.vector_records"
                " (tenant_id, model)",
            ],
        ],
    )


class PgVectorStore(SharedTransactions[PostgresDatabase], DescribedStore):
    """A `VectorStore` in PostgreSQL + pgvector; scores on the 0..1 match scale.

    Build it with `await PgVectorStore.open(database, dimension=...)` over a
    database whose pool was configured with `configure_connection`.

    `search_mode="exact"` (the default) ranks every row of the tenant that
    passes the filters: correct under any filter. `"hnsw"` creates an HNSW
    index (cosine) if missing and searches it with pgvector's iterative index
    scan (`hnsw.iterative_scan`), so a tenant- and type-filtered query keeps
    scanning until it has `k` rows. Each HNSW search sets, in its own
    transaction, `hnsw.ef_search = min(1000, max(ef_search, k))`: the
    candidate list, where larger is slower and finds more of the true top
    `k`. When fewer than `exact_below` rows pass the tenant and type filters
    (counted with a bounded scan first, in the same snapshot), they are ranked
    exactly instead: exact answers, and faster than the graph walk a selective
    filter needs; `exact_below=0` always uses the index. HNSW answers are
    approximate; recall is measured by `python -m scripts.bench_pg_hnsw`,
    not promised.
    """

    def __init__(
        self,
        database: PostgresDatabase,
        *,
        dimension: int,
        search_mode: SearchMode = "exact",
        iterative_scan: IterativeScan = "relaxed_order",
        ef_search: int = DEFAULT_EF_SEARCH,
        exact_below: int = DEFAULT_EXACT_BELOW,
    ) -> None:
        if dimension <= 0:
            raise InvalidArgumentError(
                name="dimension",
                value=dimension,
                requirement="a positive whole number",
                message=f"dimension must be positive, got {dimension}",
            )
        if search_mode not in ("exact", "hnsw"):
            raise InvalidArgumentError(
                name="search_mode", value=search_mode, requirement="'exact' or 'hnsw'"
            )
        if iterative_scan not in ("relaxed_order", "strict_order"):
            raise InvalidArgumentError(
                name="iterative_scan",
                value=iterative_scan,
                requirement="'relaxed_order' or 'strict_order'",
            )
        if (
            isinstance(ef_search, bool)
            or not isinstance(ef_search, int)
            or not (1 <= ef_search <= MAX_EF_SEARCH)
        ):
            raise InvalidArgumentError(
                name="ef_search",
                value=ef_search,
                requirement=f"an integer from 1 to {MAX_EF_SEARCH}",
            )
        self._db = database
        self._dimension = dimension
        self._mode = search_mode
        self._iterative_scan = iterative_scan
        if isinstance(exact_below, bool) or not isinstance(exact_below, int) or exact_below < 0:
            raise InvalidArgumentError(
                name="exact_below", value=exact_below, requirement="an integer >= 0"
            )
        self._ef_search = ef_search
        self._exact_below = exact_below
        self._name = f"PgVectorStore(schema={database.schema})"

    @classmethod
    async def open(
        cls,
        database: PostgresDatabase,
        *,
        dimension: int,
        migrate: bool = False,
        search_mode: SearchMode = "exact",
        iterative_scan: IterativeScan = "relaxed_order",
        ef_search: int = DEFAULT_EF_SEARCH,
        exact_below: int = DEFAULT_EXACT_BELOW,
    ) -> PgVectorStore:
        """The store over `database`; raises `DimensionMismatchError` if it holds another size."""
        store = cls(
            database,
            dimension=dimension,
            search_mode=search_mode,
            iterative_scan=iterative_scan,
            ef_search=ef_search,
            exact_below=exact_below,
        )
        await database.ensure_schema(schema_for(dimension), migrate=migrate, store=store._name)
        await database.ensure_dimension("vector", dimension, store=store._name, holds="vectors")
        if search_mode == "hnsw":
            await store.create_hnsw_index()
        return store

    @property
    def dimension(self) -> int:
        return self._dimension

    async def create_hnsw_index(self) -> None:
        """Build the HNSW (cosine) index if it is missing; slow on a large table."""

        async def work(connection: Connection) -> None:
            await connection.execute(
                self._db.sql(
                    "CREATE INDEX IF NOT EXISTS vector_records_hnsw ON {schema}.vector_records"
                    " USING hnsw (embedding vector_cosine_ops)"
                )
            )

        await self._db.write(work, store=self._name)

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        rows = [
            (
                r.tenant_id,
                r.entity_id,
                r.entity_type,
                normalize_name(r.entity_type),
                stored_vector(
                    r.vector, dimension=self._dimension, context=f"vector of entity {r.entity_id}"
                ),
                r.model,
            )
            for r in records
        ]
        statement = self._db.sql(
            "INSERT INTO {schema}.vector_records"
            " (tenant_id, entity_id, entity_type, normalized_type, embedding, model)"
            " VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (tenant_id, entity_id) DO UPDATE SET"
            " entity_type = excluded.entity_type, normalized_type = excluded.normalized_type,"
            " embedding = excluded.embedding, model = excluded.model"
        )

        async def work(connection: Connection) -> None:
            if rows:
                async with connection.cursor() as cursor:
                    await cursor.executemany(statement, rows)

        await self._db.write(work, store=self._name)

    async def delete(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        await self._write(
            "DELETE FROM {schema}.vector_records WHERE tenant_id = %s AND entity_id = ANY(%s)",
            (tenant_id, list(entity_ids)),
        )

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        await self._write("DELETE FROM {schema}.vector_records WHERE tenant_id = %s", (tenant_id,))

    async def get(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> list[VectorRecord]:
        require_tenant_id(tenant_id)
        rows = await self._read(
            "SELECT entity_id, entity_type, embedding, model FROM {schema}.vector_records"
            " WHERE tenant_id = %s AND entity_id = ANY(%s)",
            (tenant_id, list(dict.fromkeys(entity_ids))),
        )
        return [
            VectorRecord(
                tenant_id=tenant_id,
                entity_id=EntityId(entity_id),
                entity_type=entity_type,
                vector=embedding.to_list(),
                model=model,
            )
            for entity_id, entity_type, embedding, model in rows
        ]

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        require_tenant_id(tenant_id)
        rows = await self._read(
            "SELECT model, count(*) FROM {schema}.vector_records WHERE tenant_id = %s"
            " GROUP BY model",
            (tenant_id,),
        )
        return {model: int(n) for model, n in rows}

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        require_tenant_id(tenant_id)
        named = sorted({model for model in models if model is not None})
        # Each branch a seek in (tenant_id, model) that stops at the first row.
        rows = await self._read(
            "SELECT EXISTS (SELECT 1 FROM {schema}.vector_records"
            " WHERE tenant_id = %s AND model = ANY(%s))"
            " OR (%s AND EXISTS (SELECT 1 FROM {schema}.vector_records"
            " WHERE tenant_id = %s AND model IS NULL))",
            (tenant_id, named, None in models, tenant_id),
        )
        return bool(rows[0][0])

    async def count(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        rows = await self._read(
            "SELECT count(*) FROM {schema}.vector_records WHERE tenant_id = %s", (tenant_id,)
        )
        return int(rows[0][0])

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
        parameters: dict[str, object] = {"q": query, "tenant": tenant_id, "k": k}
        filters = ["tenant_id = %(tenant)s"]
        if entity_types is not None:
            filters.append("normalized_type = ANY(%(types)s)")
            parameters["types"] = [normalize_name(t) for t in entity_types]
        passing = " AND ".join(filters)
        if min_score is not None:
            filters.append(KEEP.format(distance=DISTANCE))
            parameters["min_score"] = min_score
        where = " AND ".join(filters)

        async def exact(connection: Connection) -> list[tuple[Any, ...]]:
            return await rank_exactly(
                self._db,
                connection,
                passing=passing,
                parameters=parameters,
                k=k,
                min_score=min_score,
                dimension=self._dimension,
            )

        if self._mode == "exact":
            rows = await self._db.read(exact, store=self._name)
        else:
            rows = await self._hnsw(passing, where, parameters, exact)
        hits = sorted(
            ((cosine_to_score(1.0 - float(d)), str(i), i, t) for i, t, d in rows),
            key=lambda hit: (-hit[0], hit[1]),
        )
        return [
            VectorMatch(entity_id=EntityId(i), entity_type=t, score=s) for s, _, i, t in hits[:k]
        ]

    async def _hnsw(
        self,
        passing: str,
        where: str,
        parameters: dict[str, object],
        exact: Callable[[Connection], Awaitable[list[tuple[Any, ...]]]],
    ) -> list[tuple[Any, ...]]:
        """HNSW search, or `exact` when fewer than `exact_below` rows pass `passing`."""
        count = self._db.sql(
            f"SELECT count(*) FROM (SELECT 1 FROM {{schema}}.vector_records WHERE {passing}"
            " LIMIT %(cap)s) AS passing"
        )
        statement = self._db.sql(
            "SELECT entity_id, entity_type, embedding <=> %(q)s AS distance"
            f" FROM {{schema}}.vector_records WHERE {where}"
            " ORDER BY embedding <=> %(q)s LIMIT %(k)s"
        )
        ef_search = min(MAX_EF_SEARCH, max(self._ef_search, int(str(parameters["k"]))))
        # SET takes no bind parameters: the values are quoted client-side instead.
        # SET LOCAL lasts until this transaction ends, so no pooled connection keeps it.
        settings = (
            sql.SQL("SET LOCAL hnsw.iterative_scan = {}").format(sql.Literal(self._iterative_scan)),
            sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(ef_search)),
        )

        async def work(connection: Connection) -> list[tuple[Any, ...]]:
            if self._exact_below:
                counted = await connection.execute(count, {**parameters, "cap": self._exact_below})
                found = await counted.fetchone()
                if found is not None and found[0] < self._exact_below:
                    return await exact(connection)
            for setting in settings:
                await connection.execute(setting)
            cursor = await connection.execute(statement, parameters)
            return [tuple(row) for row in await cursor.fetchall()]

        return await self._db.read(work, store=self._name)

    async def _read(
        self, template: str, parameters: tuple[object, ...] | dict[str, object]
    ) -> list[tuple[Any, ...]]:
        statement = self._db.sql(template)

        async def work(connection: Connection) -> list[tuple[Any, ...]]:
            cursor = await connection.execute(statement, parameters)
            return [tuple(row) for row in await cursor.fetchall()]

        return await self._db.read(work, store=self._name)

    async def _write(self, template: str, parameters: tuple[object, ...]) -> None:
        statement = self._db.sql(template)

        async def work(connection: Connection) -> None:
            await connection.execute(statement, parameters)

        await self._db.write(work, store=self._name)
