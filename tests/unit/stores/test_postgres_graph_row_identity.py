"""PostgreSQL graph rows whose JSON still validates but names another row (ADR 0360).

A body that parses is not yet the row's: its id, tenant and (for a relationship)
its ends must agree with the row's columns, or the row is damaged and named.
"""

from __future__ import annotations

import uuid

import pytest

from redstring import new_tenant_id
from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity, Relationship
from redstring.errors import DamagedRowError
from tests.unit.stores.test_damaged_row_scans import _compound_chunks

TENANT = new_tenant_id()
ADA = Entity(tenant_id=TENANT, entity_type="person", name="Ada Lovelace")
GRACE = Entity(tenant_id=TENANT, entity_type="person", name="Grace Hopper")
ALAN = Entity(tenant_id=TENANT, entity_type="person", name="Alan Turing")
KNOWS = Relationship(
    tenant_id=TENANT, source_id=ADA.id, target_id=GRACE.id, relationship_type="knows"
)
MET = Relationship(tenant_id=TENANT, source_id=ADA.id, target_id=ALAN.id, relationship_type="met")
CITED = Relationship(
    tenant_id=TENANT, source_id=GRACE.id, target_id=ALAN.id, relationship_type="cited"
)

CHUNKS = [
    StoredChunk(tenant_id=TENANT, source_id="notes", text=text, index=i, start=0, end=len(text))
    for i, text in enumerate(["Ada wrote notes", "Grace wrote a compiler"])
]


@pytest.mark.asyncio
async def test_a_body_naming_another_row_or_other_ends_is_a_damaged_row(
    postgres_url: str,
) -> None:
    import psycopg  # noqa: PLC0415 (the postgres extra)
    from psycopg import sql  # noqa: PLC0415

    from redstring.stores import open_postgres  # noqa: PLC0415

    schema = f"identity_{uuid.uuid4().hex[:8]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema)
    other = str(uuid.uuid4())
    try:
        await stores.graph.upsert([ADA, GRACE, ALAN], [KNOWS, MET, CITED])
        with psycopg.connect(postgres_url, autocommit=True) as admin:

            def damage(table: str, path: str, row_id: object) -> None:
                admin.execute(
                    sql.SQL(
                        "UPDATE {}.{} SET body = jsonb_set(body, %s, to_jsonb(%s::text))"
                        " WHERE id = %s"
                    ).format(sql.Identifier(schema), sql.Identifier(table)),
                    (path, other, str(row_id)),
                )

            damage("graph_entities", "{id}", ALAN.id)
            damage("graph_relationships", "{id}", MET.id)
            damage("graph_relationships", "{target_id}", KNOWS.id)
        with pytest.raises(DamagedRowError) as raised:
            await stores.graph.get_entities([ALAN.id], TENANT)
        assert (raised.value.table, raised.value.row) == ("graph_entities", f"entity {ALAN.id}")
        with pytest.raises(DamagedRowError) as raised:
            await stores.graph.relationships_of(ALAN.id, TENANT)
        assert raised.value.table == "graph_relationships"
        assert raised.value.row == f"relationship {MET.id}"
        assert await stores.graph.get_entities([ADA.id, GRACE.id], TENANT) == sorted(
            [ADA, GRACE], key=lambda entity: str(entity.id)
        )
        # `check` names each of the three rows, and reads the rest (CITED) as sound
        assert sorted(
            (r.table, r.tenant, r.row) for r in await stores.graph.damaged_rows()
        ) == sorted(
            [
                ("graph_entities", str(TENANT), f"entity {ALAN.id}"),
                ("graph_relationships", str(TENANT), f"relationship {MET.id}"),
                ("graph_relationships", str(TENANT), f"relationship {KNOWS.id}"),
            ]
        )
    finally:
        await stores.close()


@pytest.mark.asyncio
async def test_a_chunk_body_of_another_chunk_is_a_damaged_row(postgres_url: str) -> None:
    import psycopg  # noqa: PLC0415 (the postgres extra)
    from psycopg import sql  # noqa: PLC0415

    from redstring.stores import open_postgres  # noqa: PLC0415

    schema = f"identity_{uuid.uuid4().hex[:8]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema)
    try:
        await stores.chunks.upsert_chunks(CHUNKS)
        with psycopg.connect(postgres_url, autocommit=True) as admin:
            admin.execute(
                sql.SQL(
                    "UPDATE {0}.chunk_rows SET body = (SELECT body FROM {0}.chunk_rows"
                    " WHERE chunk_id = %s) WHERE chunk_id = %s"
                ).format(sql.Identifier(schema)),
                (str(CHUNKS[0].id), str(CHUNKS[1].id)),
            )
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.list_chunks(TENANT)
        assert (raised.value.table, raised.value.row) == ("chunk_rows", f"chunk {CHUNKS[1].id}")
    finally:
        await stores.close()


@pytest.mark.asyncio
async def test_a_sound_chunk_store_of_compound_terms_has_no_damaged_row(
    postgres_url: str,
) -> None:
    """The SQLite scan once counted compound terms (ADR 0490) into a chunk's length; this
    store's scan reads the JSON rows only, and stays clean on the same texts."""
    from redstring.stores import open_postgres  # noqa: PLC0415

    schema = f"identity_{uuid.uuid4().hex[:8]}"
    stores = await open_postgres(postgres_url, dimension=4, schema=schema)
    try:
        await stores.chunks.upsert_chunks(_compound_chunks(TENANT))
        assert await stores.chunks.damaged_rows() == []
    finally:
        await stores.close()
