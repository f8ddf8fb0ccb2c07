"""Stores and records print briefly: where and how wide, never their rows or floats (issue 15)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace

from redstring import Redstring, tenant_id_for
from redstring.domain.events import EntitiesEmbedded
from redstring.domain.vector import VectorRecord
from redstring.storage.describe import DescribedStore
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryEventLog,
    InMemoryGraphStore,
    InMemoryVectorStore,
    open_sqlite,
)
from tests.factories import make_entity

FLOAT = 0.123456789


def test_stores_print_their_kind_place_and_dimension(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    stores = open_sqlite(db, dimension=8)
    try:
        assert repr(stores) == f"<SqliteStores {str(db)!r} dimension=8>"
        assert repr(stores.chunks) == f"<SqliteChunkStore {str(db)!r} dimension=8>"
        assert repr(stores.graph) == f"<SqliteGraphStore {str(db)!r}>"
        assert repr(stores.events) == f"<SqliteEventLog {str(db)!r}>"
    finally:
        asyncio.run(stores.close())
    assert repr(InMemoryVectorStore(dimension=4)) == "<InMemoryVectorStore dimension=4>"
    assert repr(InMemoryChunkStore(dimension=4)) == "<InMemoryChunkStore dimension=4>"
    assert repr(InMemoryGraphStore()) == "<InMemoryGraphStore>"
    assert repr(InMemoryEventLog()) == "<InMemoryEventLog>"


def test_a_postgres_store_names_its_schema_and_never_the_url() -> None:
    class Adapter(DescribedStore):
        dimension = 384

        def __init__(self) -> None:
            self._db = SimpleNamespace(schema="redstring", url="postgresql://u:secret@h/db")

    assert repr(Adapter()) == "<Adapter schema=redstring dimension=384>"


def test_records_and_events_print_without_embedding_floats(tmp_path: Path) -> None:
    entity = make_entity("Ada Lovelace")
    record = VectorRecord(
        tenant_id=entity.tenant_id,
        entity_id=entity.id,
        entity_type=entity.entity_type,
        vector=[FLOAT] * 384,
    )
    event = EntitiesEmbedded(tenant_id=entity.tenant_id, records=[record], model="m", dimension=384)
    for shown in (repr(record), str(record), repr(event), str(event)):
        assert str(FLOAT) not in shown
    assert record.vector[0] == FLOAT  # still held, only not printed
    with Redstring(tmp_path / "x.db", tenant="t", embeddings="none") as rs:
        assert repr(rs) == (
            f"<Redstring {str(tmp_path / 'x.db')!r} tenant={tenant_id_for('t')} embeddings=none>"
        )
