"""A chunk store in a SQLite file: chunk rows, postings and corpus statistics as tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Collection, Sequence
from uuid import UUID

from redstring.chunks.matrix import ChunkMatrix
from redstring.chunks.sqlite_analysis import open_language
from redstring.chunks.sqlite_check import damaged_chunk_rows
from redstring.chunks.sqlite_codec import (
    sql_block,
    sql_body,
    sql_counted_block,
    sql_terms,
)
from redstring.chunks.sqlite_lexical import Lexicon, lexical_candidates, load_lexicon
from redstring.chunks.sqlite_reads import (
    BODY,
    CHUNK,
    chunk_of_body,
    chunk_of_row,
    embedding_models,
    embeds_with,
    fetch_chunks,
    load_matrix,
    source_chunk_ids,
)
from redstring.chunks.sqlite_rows import (
    CHUNK_BITS,
    Row,
    insert_rows,
    place_rows,
    remove_rows,
    tenant_number,
)
from redstring.chunks.sqlite_schema import SCHEMA
from redstring.domain.bm25 import LexicalCandidates
from redstring.domain.chunk import (
    ChunkId,
    ChunkManifest,
    StoredChunk,
    chunk_id_for,
    kept_embeddings,
    require_chunks_of_source,
)
from redstring.domain.chunk_retrieval import ChunkMatch
from redstring.domain.damage import DamagedRow
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.exact_search import (
    stored_vector,
    unit_vector,
    validate_search_args,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.summary import ChunkSummary, chunk_summary_of
from redstring.domain.tokenize import Analyzer
from redstring.domain.validation import require_str, require_tenant_id, require_writable_chunks
from redstring.storage.describe import DescribedStore
from redstring.storage.shared_transactions import SharedTransactions
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import (
    DEFAULT_CACHE_BYTES,
    CacheBudget,
    TenantCache,
    budget_of,
    bump_generations,
    current_generation,
    held_bytes,
)

_TENANT_TABLES = (
    "chunk_texts",
    "chunk_entities",
    "chunk_words",
    "chunk_corpus",
    "chunk_generations",
    "chunk_tenants",
)


class SqliteChunkStore(SharedTransactions[SqliteDatabase], DescribedStore):
    """A `ChunkStore` in a SQLite file shared with other stores.

    Every key starts with the tenant (its id, or its number in this file).
    Postings are packed per term and block of chunk numbers and
    per-tenant totals are a table, all kept in the same transaction as the
    chunk rows, so `lexical_candidates` is index lookups. Embeddings are
    float32 blobs searched exactly with numpy; recently searched tenants'
    unit-row matrices, and their chunk-number maps, stay in memory within
    `cache_bytes` (a number, or a `CacheBudget` shared with the vector store;
    0 caches nothing), until a write to the tenant changes its generation
    token. The file records the embedding dimension on first open; another
    raises `DimensionMismatchError`. It records the `language` its passages
    are analysed in too (`open_language`): `None` opens it in the recorded one
    (English for a new file), and another than a file holding chunks records
    raises `AnalysisMismatchError`.
    """

    def __init__(
        self,
        database: SqliteDatabase,
        *,
        dimension: int,
        migrate: bool = False,
        cache_bytes: int | CacheBudget = DEFAULT_CACHE_BYTES,
        language: str | None = None,
    ) -> None:
        if dimension <= 0:
            raise InvalidArgumentError(
                name="dimension",
                value=dimension,
                requirement="a positive whole number",
                message=f"dimension must be positive, got {dimension}",
            )
        self._db = database
        self._name = f"SqliteChunkStore({database.path})"
        database.define_function("redstring_chunk_id", chunk_id_for)
        database.define_function("redstring_block", sql_block)
        database.define_function("redstring_terms", sql_terms, arity=1)
        database.define_function("redstring_body", sql_body, arity=1)
        database.define_function("redstring_counted_block", sql_counted_block, arity=1)
        database.ensure_schema(SCHEMA, migrate=migrate, store=self._name)
        database.ensure_dimension("chunks", dimension, store=self._name, holds="embeddings")
        self._analyzer = open_language(database, language, store=self._name)
        self._dimension = dimension
        budget = budget_of(cache_bytes)
        self._cache = TenantCache[ChunkMatrix](
            budget, lambda m: held_bytes(m.ids, m.sources, m.rows)
        )
        self._lexicons = TenantCache[Lexicon](budget, lambda lexicon: lexicon.nbytes)

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def analyzer(self) -> Analyzer:
        return self._analyzer

    # -- writing -----------------------------------------------------------

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        require_writable_chunks(chunks)
        rows = self._rows(chunks)

        def work(connection: sqlite3.Connection) -> None:
            by_tenant: dict[str, list[Row]] = {}
            for row in rows:
                by_tenant.setdefault(row.tenant, []).append(row)
            for tenant, group in by_tenant.items():
                insert_rows(connection, place_rows(connection, tenant, group))
            bump_generations(connection, "chunk_generations", by_tenant)

        await self._db.write(work, store=self._name)

    async def replace_source(
        self,
        source_id: str,
        tenant_id: TenantId,
        chunks: Sequence[StoredChunk],
        *,
        keep_embeddings: Collection[ChunkId] = (),
    ) -> None:
        require_tenant_id(tenant_id)
        require_str("source_id", source_id)
        require_writable_chunks(chunks)
        require_chunks_of_source(chunks, source_id, tenant_id)
        rows = self._rows(chunks, kept_embeddings(chunks, keep_embeddings))
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            # By difference: chunks kept by id keep their postings (B100).
            kept = {row.chunk_id for row in rows}
            gone = [i for i in source_chunk_ids(connection, tenant, source_id) if i not in kept]
            remove_rows(connection, tenant, gone)
            insert_rows(connection, place_rows(connection, tenant, rows))
            bump_generations(connection, "chunk_generations", [tenant])

        await self._db.write(work, store=self._name)

    async def delete_source(self, source_id: str, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            old = source_chunk_ids(connection, tenant, source_id)
            if old:
                remove_rows(connection, tenant, old)
                bump_generations(connection, "chunk_generations", [tenant])

        await self._db.write(work, store=self._name)

    async def delete_chunks(self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        tenant, ids = str(tenant_id), [str(chunk_id) for chunk_id in chunk_ids]

        def work(connection: sqlite3.Connection) -> None:
            remove_rows(connection, tenant, ids)
            bump_generations(connection, "chunk_generations", [tenant])

        await self._db.write(work, store=self._name)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            number = tenant_number(connection, tenant)
            if number is not None:
                connection.execute("DELETE FROM chunk_posting_blocks WHERE tenant = ?", (number,))
                connection.execute(
                    "DELETE FROM chunk_vectors WHERE key >= ? AND key < ?",
                    (number << CHUNK_BITS, (number + 1) << CHUNK_BITS),
                )
            for table in _TENANT_TABLES:
                connection.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (tenant,))

        await self._db.write(work, store=self._name)

    # -- reading -----------------------------------------------------------

    async def get_chunks(
        self, chunk_ids: Sequence[ChunkId], tenant_id: TenantId
    ) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        wanted = sorted({str(chunk_id) for chunk_id in chunk_ids})

        def work(connection: sqlite3.Connection) -> list[StoredChunk]:
            return fetch_chunks(connection, str(tenant_id), wanted, self._dimension)

        return await self._db.read(work, store=self._name)

    async def chunks_of_source(self, source_id: str, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            BODY.format(what=CHUNK, source="chunk_texts r")
            + " WHERE r.tenant_id = ? AND r.source_id = ? ORDER BY r.idx, r.chunk_id",
            (str(tenant_id), source_id),
        )

    async def source_manifest(self, source_id: str, tenant_id: TenantId) -> list[ChunkManifest]:
        require_tenant_id(tenant_id)
        statement = (
            BODY.format(what="r.tenant_id, r.chunk_id, r.body, v.key", source="chunk_texts r")
            + " WHERE r.tenant_id = ? AND r.source_id = ? ORDER BY r.idx, r.chunk_id"
        )

        def work(connection: sqlite3.Connection) -> list[ChunkManifest]:
            return [
                ChunkManifest.of(chunk_of_body(tenant, chunk_id, body), embedded=key is not None)
                for tenant, chunk_id, body, key in connection.execute(
                    statement, (str(tenant_id), source_id)
                )
            ]

        return await self._db.read(work, store=self._name)

    async def chunks_of_entity(self, entity_id: EntityId, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            # CROSS JOIN keeps the entity's postings outermost: the planner would
            # otherwise walk the tenant's rows in output order to save a sort.
            BODY.format(
                what=CHUNK,
                source="chunk_entities e CROSS JOIN chunk_texts r"
                " ON r.tenant_id = e.tenant_id AND r.chunk_id = e.chunk_id",
            )
            + " WHERE e.tenant_id = ? AND e.entity_id = ?"
            " ORDER BY r.source_id, r.idx, r.chunk_id",
            (str(tenant_id), str(entity_id)),
        )

    async def list_chunks(self, tenant_id: TenantId) -> list[StoredChunk]:
        require_tenant_id(tenant_id)
        return await self._select(
            BODY.format(what=CHUNK, source="chunk_texts r")
            + " WHERE r.tenant_id = ? ORDER BY r.source_id, r.idx, r.chunk_id",
            (str(tenant_id),),
        )

    async def list_tenants(self) -> list[TenantId]:
        sql = "SELECT DISTINCT tenant_id FROM chunk_texts"  # the key's leading column
        rows = await self._db.read(lambda c: c.execute(sql).fetchall(), store=self._name)
        return sorted((TenantId(UUID(row[0])) for row in rows), key=str)

    async def chunk_summary(self, tenant_id: TenantId) -> ChunkSummary:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> ChunkSummary:
            # A covering scan of chunk_texts_by_source over the tenant's range.
            rows = connection.execute(
                "SELECT source_id, COUNT(*) FROM chunk_texts WHERE tenant_id = ?"
                " GROUP BY source_id",
                (str(tenant_id),),
            ).fetchall()
            number = tenant_number(connection, str(tenant_id))
            embedded = (
                0
                if number is None
                else connection.execute(
                    "SELECT COUNT(*) FROM chunk_vectors WHERE key >= ? AND key < ?",
                    (number << CHUNK_BITS, (number + 1) << CHUNK_BITS),
                ).fetchone()[0]
            )
            return chunk_summary_of(((source, int(n)) for source, n in rows), embedded=embedded)

        return await self._db.read(work, store=self._name)

    async def embedding_models(self, tenant_id: TenantId) -> dict[str | None, int]:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)
        return await self._db.read(lambda c: embedding_models(c, tenant), store=self._name)

    async def embeds_with(self, tenant_id: TenantId, models: Collection[str | None]) -> bool:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)
        return await self._db.read(lambda c: embeds_with(c, tenant, models), store=self._name)

    async def damaged_rows(self) -> list[DamagedRow]:
        """Every damaged row of the store's tables, of every tenant; nothing is written."""
        return await self._db.read(
            lambda c: damaged_chunk_rows(c, self._dimension), store=self._name
        )

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
        tenant = str(tenant_id)
        allowed = None if source_ids is None else list(dict.fromkeys(source_ids))

        def work(connection: sqlite3.Connection) -> LexicalCandidates:
            def lexicon() -> Lexicon:
                token = current_generation(connection, "chunk_generations", tenant)
                return self._lexicons.get(tenant, token, lambda: load_lexicon(connection, tenant))

            return lexical_candidates(connection, tenant, asked, allowed, lexicon)

        return await self._db.read(work, store=self._name)

    async def search_chunks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        require_tenant_id(tenant_id)
        k, _ = validate_search_args(k, None)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if k == 0 or (source_ids is not None and not source_ids):
            return []
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> list[ChunkMatch]:
            ranked = self._matrix(connection, tenant).ranking(query, k=k, source_ids=source_ids)
            found = fetch_chunks(connection, tenant, [i for i, _ in ranked], self._dimension)
            chunks = {str(c.id): c for c in found}
            return [ChunkMatch(chunk=chunks[chunk_id], score=score) for chunk_id, score in ranked]

        return await self._db.read(work, store=self._name)

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        require_tenant_id(tenant_id)
        k, _ = validate_search_args(k, None)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if k == 0 or (source_ids is not None and not source_ids):
            return []
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> list[tuple[ChunkId, float]]:
            return self._matrix(connection, tenant).ranking(query, k=k, source_ids=source_ids)

        return await self._db.read(work, store=self._name)

    async def semantic_ranks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, tuple[int, float]]:
        require_tenant_id(tenant_id)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if not chunk_ids:
            return {}
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> dict[ChunkId, tuple[int, float]]:
            return self._matrix(connection, tenant).ranks(query, chunk_ids, source_ids=source_ids)

        return await self._db.read(work, store=self._name)

    async def semantic_scores(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, float]:
        require_tenant_id(tenant_id)
        query = unit_vector(vector, dimension=self._dimension, context="query vector")
        if not chunk_ids:
            return {}
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> dict[ChunkId, float]:
            return self._matrix(connection, tenant).scores(query, chunk_ids, source_ids=source_ids)

        return await self._db.read(work, store=self._name)

    def _matrix(self, connection: sqlite3.Connection, tenant: str) -> ChunkMatrix:
        """`tenant`'s embedded chunks, cached until a write changes its generation."""
        token = current_generation(connection, "chunk_generations", tenant)
        return self._cache.get(
            tenant, token, lambda: load_matrix(connection, tenant, self._dimension)
        )

    # -- helpers -----------------------------------------------------------

    def _rows(self, chunks: Sequence[StoredChunk], kept: frozenset[str] = frozenset()) -> list[Row]:
        """Validated rows, the last of each (tenant, id) winning; touches no state.

        A row whose id is in `kept` keeps the stored vector (ADR 0255).
        """
        rows: dict[tuple[str, str], Row] = {}
        for chunk in chunks:
            chunk_id = str(chunk.id)
            blob = None
            if chunk.embedding is not None:
                blob = stored_vector(
                    chunk.embedding,
                    dimension=self._dimension,
                    context=f"embedding of chunk {chunk_id}",
                ).tobytes()
            row = Row(
                tenant=str(chunk.tenant_id),
                chunk_id=chunk_id,
                source_id=chunk.source_id,
                index=chunk.index,
                body=chunk.model_dump_json(exclude={"embedding"}),
                embedding=blob,
                text=chunk.text,
                analyzer=self._analyzer,
                entity_ids=sorted({str(e) for e in chunk.entity_ids}),
                keep=chunk_id in kept,
            )
            rows.pop((row.tenant, row.chunk_id), None)
            rows[(row.tenant, row.chunk_id)] = row
        return list(rows.values())

    async def _select(self, statement: str, parameters: tuple[str, ...]) -> list[StoredChunk]:
        def work(connection: sqlite3.Connection) -> list[StoredChunk]:
            return [
                chunk_of_row(*row, dimension=self._dimension)
                for row in connection.execute(statement, parameters)
            ]

        return await self._db.read(work, store=self._name)
