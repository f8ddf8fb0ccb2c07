"""A chunk store in PostgreSQL: chunk rows, postings and corpus statistics as tables."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any
from uuid import UUID

from redstring.chunks import postgres_models
from redstring.chunks.postgres_analysis import open_language
from redstring.chunks.postgres_rows import (
    chunk_of_body,
    chunk_of_row,
    insert_rows,
    place_rows,
    remove_rows,
    rows_of,
    source_chunk_ids,
)
from redstring.chunks.postgres_schema import schema_for
from redstring.domain.bm25 import CorpusStats, LexicalCandidates
from redstring.domain.chunk import (
    ChunkId,
    ChunkManifest,
    StoredChunk,
    kept_embeddings,
    require_chunks_of_source,
)
from redstring.domain.chunk_retrieval import ChunkMatch
from redstring.domain.damage import DamagedRow
from redstring.domain.errors import DamagedRowError, InvalidArgumentError
from redstring.domain.exact_search import unit_vector, validate_search_args
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.summary import ChunkSummary, chunk_summary_of
from redstring.domain.tokenize import DEFAULT_LANGUAGE, Analyzer
from redstring.domain.validation import require_str, require_tenant_id, require_writable_chunks
from redstring.domain.vector import cosine_to_score
from redstring.storage.damage import damage_of
from redstring.storage.describe import DescribedStore
from redstring.storage.postgres import Connection, PostgresDatabase
from redstring.storage.shared_transactions import SharedTransactions

_TENANT_TABLES = ("chunk_rows", "chunk_entities", "chunk_postings", "chunk_terms", "chunk_corpus")


class PostgresChunkStore(SharedTransactions[PostgresDatabase], DescribedStore):
    """A `ChunkStore` in PostgreSQL + pgvector, sharing a pool and schema with other stores.

    Build it with `await PostgresChunkStore.open(database, dimension=...)` over
    a database whose pool was configured for pgvector. Postings, per-term
    document frequencies and per-tenant totals are tables updated in the
    chunk rows' transaction. `search_chunks` is exact cosine over the
    tenant's embedded rows (a nullable `vector` column); scores on 0..1.
    The schema records the `language` passages are analysed in, as the
    SQLite store's file does.
    """

    def __init__(
        self, database: PostgresDatabase, *, dimension: int, language: str = DEFAULT_LANGUAGE
    ) -> None:
        if dimension <= 0:
            raise InvalidArgumentError(
                name="dimension",
                value=dimension,
                requirement="a positive whole number",
                message=f"dimension must be positive, got {dimension}",
            )
        self._db = database
        self._dimension = dimension
        self._analyzer = Analyzer(language)
        self._name = f"PostgresChunkStore(schema={database.schema})"

    @classmethod
    async def open(
        cls,
        database: PostgresDatabase,
        *,
        dimension: int,
        migrate: bool = False,
        language: str | None = None,
    ) -> PostgresChunkStore:
        """The store over `database`; raises `DimensionMismatchError` if it holds another size.

        `language=None` opens it in the language the schema records (English
        for a new one); another than a schema holding chunks records raises
        `AnalysisMismatchError`.
        """
        name = f"PostgresChunkStore(schema={database.schema})"
        await database.ensure_schema(schema_for(dimension), migrate=migrate, store=name)
        await database.ensure_dimension("chunks", dimension, store=name, holds="embeddings")
        analyzer = await open_language(database, language, store=name)
        return cls(database, dimension=dimension, language=analyzer.language)

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    # -- writing -----------------------------------------------------------

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        require_writable_chunks(chunks)
        rows = rows_of(chunks, self._dimension, self._analyzer)

        async def work(connection: Connection) -> None:
            by_tenant: dict[UUID, list[str]] = {}
            for row in rows:
                by_tenant.setdefault(row.tenant, []).append(row.chunk_id)
            for tenant, ids in sorted(by_tenant.items()):
                await remove_rows(self._db, connection, tenant, ids)
            await insert_rows(self._db, connection, rows)

        await self._db.write(work, store=self._name)

    async def replace_source(
        self,
        source_id: str,
        tenant_id: TenantId,
        chunks: Sequence[StoredChunk],
        *,
        keep_embeddings: Collection[ChunkId] = (),
    ) -> None:
        """By difference: a chunk stored already keeps its row and postings."""
        require_tenant_id(tenant_id)
        require_str("source_id", source_id)
        require_writable_chunks(chunks)
        require_chunks_of_source(chunks, source_id, tenant_id)
        kept = kept_embeddings(chunks, keep_embeddings)
        rows = rows_of(chunks, self._dimension, self._analyzer)

        async def work(connection: Connection) -> None:
            given = {row.chunk_id for row in rows}
            old = await source_chunk_ids(self._db, connection, tenant_id, source_id)
            await remove_rows(self._db, connection, tenant_id, [i for i in old if i not in given])
            absent = await place_rows(self._db, connection, tenant_id, rows, kept)
            await insert_rows(self._db, connection, absent)

        await self._db.write(work, store=self._name)

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        async def work(connection: Connection) -> None:
            old = await source_chunk_ids(self._db, connection, tenant_id, source_id)
            await remove_rows(self._db, connection, tenant_id, old)

        await self._db.write(work, store=self._name)

    async def delete_chunks(self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        ids = [str(chunk_id) for chunk_id in chunk_ids]
        await self._db.write(lambda c: remove_rows(self._db, c, tenant_id, ids), store=self._name)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        async def work(connection: Connection) -> None:
            for table in _TENANT_TABLES:
                await connection.execute(
                    self._db.sql(f"DELETE FROM {{schema}}.{table} WHERE tenant_id = %s"),
                    (tenant_id,),
                )

        await self._db.write(work, store=self._name)

    # -- reading -----------------------------------------------------------

    async def get_chunks(
        self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId
    ) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            "SELECT body, embedding, tenant_id::text, chunk_id FROM {schema}.chunk_rows"
            " WHERE tenant_id = %s AND chunk_id = ANY(%s) ORDER BY chunk_id",
            (tenant_id, sorted({str(c) for c in chunk_ids})),
        )

    async def chunks_of_source(self, source_id: str, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            "SELECT body, embedding, tenant_id::text, chunk_id FROM {schema}.chunk_rows"
            " WHERE tenant_id = %s AND source_id = %s ORDER BY idx, chunk_id",
            (tenant_id, source_id),
        )

    async def source_manifest(self, source_id: str, tenant_id: TenantId) -> list[ChunkManifest]:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "SELECT body, embedding IS NOT NULL, tenant_id::text, chunk_id FROM {schema}.chunk_rows"
            " WHERE tenant_id = %s AND source_id = %s ORDER BY idx, chunk_id"
        )

        async def work(connection: Connection) -> list[ChunkManifest]:
            cursor = await connection.execute(statement, (tenant_id, source_id))
            return [
                ChunkManifest.of(
                    chunk_of_body(body, tenant, chunk_id, self._name), embedded=bool(embedded)
                )
                for body, embedded, tenant, chunk_id in await cursor.fetchall()
            ]

        return await self._db.read(work, store=self._name)

    async def chunks_of_entity(self, entity_id: EntityId, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            "SELECT r.body, r.embedding, r.tenant_id::text, r.chunk_id"
            " FROM {schema}.chunk_entities e"
            " JOIN {schema}.chunk_rows r ON r.tenant_id = e.tenant_id AND r.chunk_id = e.chunk_id"
            " WHERE e.tenant_id = %s AND e.entity_id = %s"
            ' ORDER BY r.source_id COLLATE "C", r.idx, r.chunk_id',
            (tenant_id, entity_id),
        )

    async def list_chunks(self, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            "SELECT body, embedding, tenant_id::text, chunk_id FROM {schema}.chunk_rows"
            " WHERE tenant_id = %s"
            ' ORDER BY source_id COLLATE "C", idx, chunk_id',
            (tenant_id,),
        )

    async def list_tenants(self) -> list[TenantId]:
        statement = self._db.sql("SELECT DISTINCT tenant_id::text FROM {schema}.chunk_rows")

        async def work(connection: Connection) -> list[str]:
            return [str(row[0]) for row in await (await connection.execute(statement)).fetchall()]

        tenants = await self._db.read(work, store=self._name)
        return sorted((TenantId(UUID(tenant)) for tenant in tenants), key=str)

    async def chunk_summary(self, tenant_id: TenantId) -> ChunkSummary:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "SELECT source_id, COUNT(*), COUNT(embedding) FROM {schema}.chunk_rows"
            " WHERE tenant_id = %s GROUP BY source_id"
        )

        async def work(connection: Connection) -> ChunkSummary:
            cursor = await connection.execute(statement, (tenant_id,))
            rows = await cursor.fetchall()
            return chunk_summary_of(
                ((str(s), int(n)) for s, n, _ in rows), embedded=sum(int(e) for _, _, e in rows)
            )

        return await self._db.read(work, store=self._name)

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        require_tenant_id(tenant_id)
        return await postgres_models.embedding_models(self._db, tenant_id, store=self._name)

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        require_tenant_id(tenant_id)
        return await postgres_models.embeds_with(self._db, tenant_id, models, store=self._name)

    async def damaged_rows(self) -> list[DamagedRow]:
        """Every chunk row whose JSON does not read back as its chunk, of every tenant."""
        statement = self._db.sql(
            "SELECT body, tenant_id::text, chunk_id FROM {schema}.chunk_rows"
            " ORDER BY tenant_id, chunk_id"
        )

        async def work(connection: Connection) -> list[DamagedRow]:
            found: list[DamagedRow] = []
            cursor = await connection.execute(statement)
            for body, tenant, chunk_id in await cursor.fetchall():
                try:
                    chunk_of_body(body, tenant, chunk_id, self._name)
                except DamagedRowError as error:
                    row = error.row
                    found.append(damage_of(table="chunk_rows", tenant=tenant, row=row, error=error))
            return found

        return await self._db.read(work, store=self._name)

    # -- searching ---------------------------------------------------------

    async def lexical_candidates(
        self,
        terms: Sequence[str],
        tenant_id: TenantId,
        *,
        source_ids: Sequence[str] | None = None,
    ) -> LexicalCandidates:
        require_tenant_id(tenant_id)
        asked = list(dict.fromkeys(terms))
        q = self._db.sql

        async def work(connection: Connection) -> LexicalCandidates:
            cursor = await connection.execute(
                q(
                    "SELECT document_count, total_length FROM {schema}.chunk_corpus"
                    " WHERE tenant_id = %s"
                ),
                (tenant_id,),
            )
            row = await cursor.fetchone()
            count, total = (0, 0) if row is None else (int(row[0]), int(row[1]))
            cursor = await connection.execute(
                q(
                    "SELECT term, document_frequency FROM {schema}.chunk_terms"
                    " WHERE tenant_id = %s AND term = ANY(%s)"
                ),
                (tenant_id, asked),
            )
            frequencies = dict.fromkeys(asked, 0)
            frequencies.update({str(t): int(n) for t, n in await cursor.fetchall()})
            stats = CorpusStats.from_totals(
                document_count=count,
                total_length=total,
                document_frequencies=frequencies,
            )
            if source_ids is not None and not source_ids:
                return LexicalCandidates.empty(asked, stats)
            if source_ids is None:
                cursor = await connection.execute(
                    q(
                        "SELECT chunk_id, term, tf, length FROM {schema}.chunk_postings"
                        " WHERE tenant_id = %s AND term = ANY(%s)"
                    ),
                    (tenant_id, asked),
                )
            else:
                cursor = await connection.execute(
                    q(
                        "SELECT p.chunk_id, p.term, p.tf, p.length FROM {schema}.chunk_postings p"
                        " JOIN {schema}.chunk_rows r"
                        " ON r.tenant_id = p.tenant_id AND r.chunk_id = p.chunk_id"
                        " WHERE p.tenant_id = %s AND p.term = ANY(%s) AND r.source_id = ANY(%s)"
                    ),
                    (tenant_id, asked, list(source_ids)),
                )
            return LexicalCandidates.from_postings(asked, await cursor.fetchall(), stats)

        return await self._db.read(work, store=self._name)

    def _ranked_rows(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        k: int,
        source_ids: Sequence[str] | None,
    ) -> tuple[str, dict[str, object]] | None:
        """The checked search's `best` clause (the `k` nearest embedded rows of the
        tenant by exact distance, ties by chunk id) and its parameters; `None` when
        nothing can match (`k == 0`, or no source kept)."""
        require_tenant_id(tenant_id)
        k, _ = validate_search_args(k, None)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if k == 0 or (source_ids is not None and not source_ids):
            return None
        parameters: dict[str, object] = {"q": query, "tenant": tenant_id, "k": k}
        where = "tenant_id = %(tenant)s AND embedding IS NOT NULL"
        if source_ids is not None:
            where += " AND source_id = ANY(%(sources)s)"
            parameters["sources"] = list(source_ids)
        # MATERIALIZED: rank every embedded row of the tenant, never an approximate index.
        best = (
            "scored AS MATERIALIZED (SELECT chunk_id, embedding <=> %(q)s AS distance"
            f" FROM {{schema}}.chunk_rows WHERE {where}),"
            " best AS (SELECT chunk_id, distance FROM scored ORDER BY distance, chunk_id"
            " LIMIT %(k)s)"
        )
        return best, parameters

    async def search_chunks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        ranked = self._ranked_rows(vector, tenant_id, k, source_ids)
        if ranked is None:
            return []
        best, parameters = ranked
        # Only the k winners' bodies are read.
        statement = self._db.sql(
            f"WITH {best} SELECT r.body, r.embedding, r.tenant_id::text, r.chunk_id,"
            " best.distance FROM best JOIN {schema}.chunk_rows r"
            " ON r.tenant_id = %(tenant)s AND r.chunk_id = best.chunk_id"
        )
        rows = await self._fetch(statement, parameters)
        hits = [
            (cosine_to_score(1.0 - float(d)), chunk_of_row(body, e, tenant, chunk_id, self._name))
            for body, e, tenant, chunk_id, d in rows
        ]
        hits.sort(key=lambda hit: (-hit[0], str(hit[1].id)))
        return [ChunkMatch(chunk=chunk, score=score) for score, chunk in hits[:k]]

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        ranked = self._ranked_rows(vector, tenant_id, k, source_ids)
        if ranked is None:
            return []
        best, parameters = ranked
        # As `search_chunks` ranks; no body is read.
        statement = self._db.sql(f"WITH {best} SELECT chunk_id, distance FROM best")
        rows = await self._fetch(statement, parameters)
        hits = [(ChunkId(str(i)), cosine_to_score(1.0 - float(d))) for i, d in rows]
        hits.sort(key=lambda hit: (-hit[1], str(hit[0])))
        return hits

    async def semantic_ranks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, tuple[int, float]]:
        asked = {str(c) for c in chunk_ids}
        # Every embedded row scored exactly, as `semantic_ranking` orders them.
        scored = await self._scored(vector, tenant_id, chunk_ids, source_ids, every_row=True)
        scored.sort(key=lambda hit: (-hit[1], hit[0]))
        return {
            ChunkId(chunk_id): (rank, score)
            for rank, (chunk_id, score) in enumerate(scored, start=1)
            if chunk_id in asked
        }

    async def semantic_scores(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, float]:
        scored = await self._scored(vector, tenant_id, chunk_ids, source_ids, every_row=False)
        return {ChunkId(chunk_id): score for chunk_id, score in scored}

    async def _scored(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        source_ids: Sequence[str] | None,
        *,
        every_row: bool,
    ) -> list[tuple[str, float]]:
        """`(chunk id, score)` of the tenant's embedded rows of `source_ids`:
        every one, or only those of `chunk_ids`."""
        require_tenant_id(tenant_id)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if not chunk_ids or (source_ids is not None and not source_ids):
            return []
        parameters: dict[str, object] = {"q": query, "tenant": tenant_id}
        where = "tenant_id = %(tenant)s AND embedding IS NOT NULL"
        if not every_row:
            where += " AND chunk_id = ANY(%(ids)s)"
            parameters["ids"] = [str(c) for c in dict.fromkeys(chunk_ids)]
        if source_ids is not None:
            where += " AND source_id = ANY(%(sources)s)"
            parameters["sources"] = list(source_ids)
        statement = self._db.sql(
            "WITH scored AS MATERIALIZED (SELECT chunk_id, embedding <=> %(q)s AS distance"
            f" FROM {{schema}}.chunk_rows WHERE {where})"
            " SELECT chunk_id, distance FROM scored"
        )
        rows = await self._fetch(statement, parameters)
        return [(str(i), cosine_to_score(1.0 - float(d))) for i, d in rows]

    # -- helpers -----------------------------------------------------------

    async def _fetch(self, statement: Any, parameters: dict[str, object]) -> list[tuple[Any, ...]]:
        async def work(connection: Connection) -> list[tuple[Any, ...]]:
            cursor = await connection.execute(statement, parameters)
            return [tuple(row) for row in await cursor.fetchall()]

        return await self._db.read(work, store=self._name)

    async def _select(self, template: str, parameters: tuple[object, ...]) -> list[StoredChunk]:
        statement = self._db.sql(template)

        async def work(connection: Connection) -> list[StoredChunk]:
            cursor = await connection.execute(statement, parameters)
            return [
                chunk_of_row(body, embedding, tenant, chunk_id, self._name)
                for body, embedding, tenant, chunk_id in await cursor.fetchall()
            ]

        return await self._db.read(work, store=self._name)
