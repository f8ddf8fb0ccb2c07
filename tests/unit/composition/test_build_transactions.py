"""`build_graph` over one SQLite file writes each document in one transaction (ADR 0256).

Counted from the statements the connection runs, not timed: one `BEGIN
IMMEDIATE` per document and per merge, where the events' append, the graph,
vector and chunk folds and the three projection positions each took one.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from pathlib import Path
from uuid import UUID

import pytest

from redstring import StoredChunk, TenantId, build_graph
from redstring.chunks.postgres import PostgresChunkStore
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import ChunkId
from redstring.providers import FakeEmbeddingProvider
from redstring.stores import InMemoryGraphStore
from tests.unit.composition.test_build_graph import CHUNKER, DIMENSION, DOCS, provider

TENANT = TenantId(UUID("33333333-3333-4333-8333-333333333333"))


@pytest.mark.asyncio
async def test_each_document_and_each_merge_is_one_write_transaction(tmp_path: Path) -> None:
    async with open_sqlite(tmp_path / "g.db", dimension=DIMENSION) as stores:
        executed: list[str] = []
        stores.database.connection.set_trace_callback(executed.append)
        report = await build_graph(
            DOCS,
            provider=provider(),
            graph=stores.graph,
            tenant_id=TENANT,
            embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
            vectors=stores.vectors,
            chunks=stores.chunks,
            log=stores.events,
            chunker=CHUNKER,
            max_failed_share=1.0,
        )
        stores.database.connection.set_trace_callback(None)
        assert report.merges
        writes = [s for s in executed if s.startswith("BEGIN IMMEDIATE")]
        assert len(writes) == len(DOCS) + len(report.merges)
        last = await stores.events.last_sequence(TENANT)
        assert last == report.last_sequence
        for projection in ("graph", "vectors", "chunks"):
            assert await stores.events.position(TENANT, projection) == last


@pytest.mark.asyncio
async def test_stores_on_another_database_keep_their_own_transactions(tmp_path: Path) -> None:
    async with open_sqlite(tmp_path / "g.db", dimension=DIMENSION) as stores:
        executed: list[str] = []
        stores.database.connection.set_trace_callback(executed.append)
        graph = InMemoryGraphStore()  # not on the file: no shared transaction
        await build_graph(
            DOCS[:1],
            provider=provider(),
            graph=graph,
            tenant_id=TENANT,
            chunks=stores.chunks,
            log=stores.events,
            chunker=CHUNKER,
        )
        stores.database.connection.set_trace_callback(None)
        assert len([s for s in executed if s.startswith("BEGIN IMMEDIATE")]) > 1
        assert await graph.list_entities(TENANT)


class Boom(Exception):
    """A fold failing on the second document."""


def failing[StoreT: (SqliteChunkStore, PostgresChunkStore)](store: type[StoreT]) -> type[StoreT]:
    """`store`, failing to fold source "news-2"."""

    class Failing(store):
        async def replace_source(
            self,
            source_id: str,
            tenant_id: TenantId,
            chunks: Sequence[StoredChunk],
            *,
            keep_embeddings: Collection[ChunkId] = (),
        ) -> None:
            if source_id == "news-2":
                raise Boom
            await super().replace_source(
                source_id, tenant_id, chunks, keep_embeddings=keep_embeddings
            )

    return Failing


@pytest.mark.asyncio
async def test_a_fold_failing_midway_leaves_that_document_wholly_unwritten(tmp_path: Path) -> None:
    async with open_sqlite(tmp_path / "g.db", dimension=DIMENSION) as stores:
        chunks = failing(SqliteChunkStore)(stores.database, dimension=DIMENSION)
        with pytest.raises(Boom):
            await build_graph(
                DOCS,
                provider=provider(),
                graph=stores.graph,
                tenant_id=TENANT,
                embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
                vectors=stores.vectors,
                chunks=chunks,
                log=stores.events,
                chunker=CHUNKER,
            )
        events = await stores.events.read(TENANT)
        assert {getattr(e, "document_id", "news-1") for e in events} == {"news-1"}
        names = {e.name for e in await stores.graph.list_entities(TENANT)}
        assert names == {"Acme Corporation", "Leeds", "Jane Roe"}
        assert {c.source_id for c in await stores.chunks.list_chunks(TENANT)} == {"news-1"}
        last = await stores.events.last_sequence(TENANT)
        assert await stores.events.lagging_tenants(["graph", "vectors", "chunks"]) == []
        assert await stores.events.position(TENANT, "graph") == last


@pytest.mark.asyncio
async def test_a_fold_failing_midway_leaves_that_document_unwritten_in_postgres(
    postgres_url: str,
) -> None:
    # PostgreSQL numbers each savepoint's rows apart (`xmin`), so the one transaction
    # is shown by what a failure leaves: all of a document, or none of it.
    schema = f"t_{uuid.uuid4().hex[:12]}"
    stores = await open_postgres(postgres_url, dimension=DIMENSION, schema=schema, max_size=2)
    other = TenantId(uuid.uuid4())
    try:
        chunks = failing(PostgresChunkStore)(stores.database, dimension=DIMENSION)
        for tenant in (other, TENANT):  # the same documents, so the same ids, in two tenants
            with pytest.raises(Boom):
                await build_graph(
                    DOCS,
                    provider=provider(),
                    graph=stores.graph,
                    tenant_id=tenant,
                    embeddings=FakeEmbeddingProvider(dimension=DIMENSION),
                    vectors=stores.vectors,
                    chunks=chunks,
                    log=stores.events,
                    chunker=CHUNKER,
                )
        for tenant in (other, TENANT):
            events = await stores.events.read(tenant)
            assert {getattr(e, "document_id", "news-1") for e in events} == {"news-1"}
            names = {e.name for e in await stores.graph.list_entities(tenant)}
            assert names == {"Acme Corporation", "Leeds", "Jane Roe"}
            assert {c.source_id for c in await stores.chunks.list_chunks(tenant)} == {"news-1"}
            last = await stores.events.last_sequence(tenant)
            assert await stores.events.position(tenant, "chunks") == last
        assert await stores.events.lagging_tenants(["graph", "vectors", "chunks"]) == []
    finally:
        await stores.close()
