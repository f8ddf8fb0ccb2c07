"""PostgreSQL stores fail loudly and atomically when the server goes away."""

from __future__ import annotations

import asyncio
import socket
import uuid
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from redstring import Entity, Relationship, StoredChunk, new_tenant_id
from redstring.domain.blocking import prefix_key_for_name
from redstring.errors import DimensionMismatchError, StoreOperationError, StoreUnavailableError
from redstring.ports import DocumentChunked
from redstring.stores import open_postgres
from tests.hang_guard import HANG_GUARD_SECONDS


@pytest.mark.asyncio
async def test_an_unreachable_server_raises_unavailable(tmp_path: Path) -> None:
    # A socket folder with no server behind it.
    url = f"postgresql://postgres@/postgres?host={tmp_path}"
    with pytest.raises(StoreUnavailableError) as caught:
        await open_postgres(url, dimension=4, connect_timeout=2)
    assert "PostgresDatabase" in str(caught.value)
    assert "OperationalError" in caught.value.cause


@pytest.mark.asyncio
async def test_a_server_that_never_answers_is_given_up_after_connect_timeout() -> None:
    # The kernel accepts the connection into the backlog; nothing ever replies, so only
    # connect_timeout ends the wait (without it the hang guard does, and the test fails).
    with socket.create_server(("127.0.0.1", 0)) as silent:
        port = silent.getsockname()[1]
        url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
        with pytest.raises(StoreUnavailableError) as caught:
            await asyncio.wait_for(
                open_postgres(url, dimension=4, connect_timeout=1), HANG_GUARD_SECONDS
            )
    assert "timeout" in caught.value.cause.lower()


@pytest.mark.asyncio
async def test_a_backend_killed_mid_batch_writes_nothing(postgres_url: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema, max_size=2)
    try:
        tenant = new_tenant_id()
        ada = Entity(tenant_id=tenant, entity_type="person", name="Ada Lovelace")
        await stores.graph.upsert([ada])
        # A trigger that kills its own backend when the poison edge arrives: the
        # batch's entities and blocking keys went in by then, as earlier statements.
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL(
                    "CREATE FUNCTION {s}.die() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    " IF NEW.body->>'relationship_type' = 'poisons' THEN"
                    " PERFORM pg_terminate_backend(pg_backend_pid()); END IF;"
                    " RETURN NEW; END $$"
                ).format(s=sql.Identifier(schema))
            )
            admin.execute(
                sql.SQL(
                    "CREATE TRIGGER die BEFORE INSERT ON {s}.graph_relationships"
                    " FOR EACH ROW EXECUTE FUNCTION {s}.die()"
                ).format(s=sql.Identifier(schema))
            )
        grace = Entity(tenant_id=tenant, entity_type="person", name="Grace Hopper")
        entities = [ada.model_copy(update={"description": "edited"}), grace]

        def edge(kind: str) -> Relationship:
            return Relationship(
                tenant_id=tenant, source_id=ada.id, target_id=grace.id, relationship_type=kind
            )

        with pytest.raises(StoreUnavailableError) as caught:
            await stores.graph.upsert(entities, [edge("knows"), edge("poisons")])
        assert caught.value.store.startswith("PostgresGraphStore")
        assert await stores.graph.list_entities(tenant) == [ada]
        assert await stores.graph.list_relationships(tenant) == []
        key = prefix_key_for_name("Grace Hopper")
        assert (await stores.graph.find_by_blocking_keys([key], tenant))[key] == []
        # The pool replaced the dead connection: the store keeps working.
        await stores.graph.upsert(entities, [edge("knows")])
        assert len(await stores.graph.list_relationships(tenant)) == 1
    finally:
        await stores.close()


@pytest.mark.asyncio
async def test_the_dimension_is_recorded_and_checked(postgres_url: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema)
    await stores.close()
    with pytest.raises(DimensionMismatchError) as caught:
        await open_postgres(postgres_url, dimension=8, schema=schema)
    assert (caught.value.expected, caught.value.actual) == (4, 8)


@pytest.mark.asyncio
async def test_a_closed_pool_raises_unavailable(postgres_url: str) -> None:
    stores = await open_postgres(postgres_url, dimension=4, schema=f"t_{uuid.uuid4().hex[:12]}")
    await stores.close()
    tenant = new_tenant_id()
    with pytest.raises(StoreUnavailableError):
        await stores.vectors.count(tenant)
    with pytest.raises(StoreUnavailableError) as chunks:
        await stores.chunks.lexical_candidates(["ada"], tenant)
    with pytest.raises(StoreUnavailableError) as events:
        await stores.events.read(tenant)
    assert chunks.value.store.startswith("PostgresChunkStore")
    assert events.value.store.startswith("PostgresEventLog")


@pytest.mark.asyncio
async def test_a_nul_in_a_chunk_is_refused_whole_but_an_event_keeps_it(postgres_url: str) -> None:
    tenant = new_tenant_id()
    fine = StoredChunk(tenant_id=tenant, source_id="doc", text="fine", index=0, start=0, end=4)
    nul = StoredChunk(tenant_id=tenant, source_id="doc", text="a\x00b", index=1, start=5, end=8)
    schema = f"t_{uuid.uuid4().hex[:12]}"
    async with await open_postgres(postgres_url, dimension=4, schema=schema) as stores:
        with pytest.raises(StoreOperationError) as caught:
            await stores.chunks.upsert_chunks([fine, nul])
        assert caught.value.store.startswith("PostgresChunkStore")
        assert await stores.chunks.list_chunks(tenant) == []
        event = DocumentChunked(tenant_id=tenant, document_id="doc", chunks=[nul])
        [stored] = await stores.events.append([event])
        assert await stores.events.read(tenant) == [stored]
        assert stored.model_copy(update={"sequence": None}) == event
