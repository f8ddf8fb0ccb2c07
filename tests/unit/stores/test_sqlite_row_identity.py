"""SQLite rows whose stored body still reads but belongs to another row (ADR 0360).

A body copied onto another row's key parses cleanly; only comparing its id and
tenant with the row's columns finds it, and the row must then be named damaged.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from redstring import new_tenant_id
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Entity
from redstring.errors import DamagedRowError

TENANT = new_tenant_id()
ADA = Entity(tenant_id=TENANT, entity_type="person", name="Ada Lovelace")
GRACE = Entity(tenant_id=TENANT, entity_type="person", name="Grace Hopper")
ALAN = Entity(tenant_id=TENANT, entity_type="person", name="Alan Turing")
CHUNKS = [
    StoredChunk(tenant_id=TENANT, source_id="notes", text=text, index=i, start=0, end=len(text))
    for i, text in enumerate(["Ada wrote notes", "Grace wrote a compiler"])
]


def _run(path: Path, statement: str, *parameters: object) -> None:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        raw.execute(statement, parameters)
        raw.commit()


@pytest.mark.asyncio
async def test_a_body_of_another_row_or_a_name_without_aliases_is_a_damaged_row(
    tmp_path: Path,
) -> None:
    path = tmp_path / "identity.db"
    async with open_sqlite(path, dimension=4) as stores:
        await stores.graph.upsert([ADA, GRACE, ALAN])
        await stores.chunks.upsert_chunks(CHUNKS)
    _run(
        path,
        "UPDATE graph_entities SET body = (SELECT body FROM graph_entities WHERE id = ?)"
        " WHERE id = ?",
        str(GRACE.id),
        str(ALAN.id),
    )
    _run(
        path,
        "UPDATE graph_entities SET body = json_set(body, '$.aliases', json('{}')) WHERE id = ?",
        str(ADA.id),
    )
    _run(
        path,
        "UPDATE chunk_texts SET body = (SELECT body FROM chunk_texts WHERE chunk_id = ?)"
        " WHERE chunk_id = ?",
        str(CHUNKS[0].id),
        str(CHUNKS[1].id),
    )
    async with open_sqlite(path) as stores:
        with pytest.raises(DamagedRowError) as raised:
            await stores.graph.get_entities([ALAN.id], TENANT)
        assert (raised.value.table, raised.value.row) == ("graph_entities", f"entity {ALAN.id}")
        with pytest.raises(DamagedRowError) as raised:
            await stores.graph.get_names([ADA.id.int], TENANT)
        assert (raised.value.table, raised.value.row) == ("graph_entities", f"entity {ADA.id}")
        assert await stores.graph.get_names([GRACE.id.int], TENANT) == {
            GRACE.id.int: ["Grace Hopper"]
        }
        with pytest.raises(DamagedRowError) as raised:
            await stores.chunks.list_chunks(TENANT)
        assert (raised.value.table, raised.value.row) == ("chunk_texts", f"chunk {CHUNKS[1].id}")
        found = sorted((r.table, r.row) for r in await stores.graph.damaged_rows())
        assert found == sorted(("graph_entities", f"entity {e.id}") for e in (ADA, ALAN))
