"""Folding an `EntitiesEmbedded` writes the event's model onto each of its vectors.

The event names its model once; its records in the log name none (their
JSON is what it was before stores kept a model), so replaying a log written
before, into empty stores, records each vector's model too. Two tenants
share the entity ids and differ in model.
"""

from __future__ import annotations

import json
from uuid import UUID

import pytest

from redstring import EntityId, TenantId
from redstring.domain.events import EntitiesEmbedded, event_from_json, event_to_json
from redstring.domain.vector import VectorRecord
from redstring.events.in_memory import InMemoryEventLog
from redstring.projections.replay import replay
from redstring.projections.vectors import VectorProjection
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryVectorStore, SqliteVectorStore
from tests.factories import DEFAULT_TENANT

OTHER = TenantId(UUID("22222222-2222-4222-8222-222222222222"))
IDS = [EntityId(UUID(int=n)) for n in (1, 2)]


def _event(tenant: TenantId, model: str | None) -> EntitiesEmbedded:
    records = [
        VectorRecord(tenant_id=tenant, entity_id=i, entity_type="person", vector=[1.0, n, 0.0])
        for n, i in enumerate(IDS)
    ]
    return EntitiesEmbedded(tenant_id=tenant, records=records, model=model, dimension=3)


def test_a_logged_record_names_no_model_and_its_json_is_unchanged() -> None:
    written = json.loads(event_to_json(_event(DEFAULT_TENANT, "m-1")))
    assert written["model"] == "m-1"
    assert all("model" not in record for record in written["records"])


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_each_vector_names_its_events_model_in_its_own_tenant(
    backend: str, tmp_path: object
) -> None:
    database = None
    if backend == "memory":
        vectors: InMemoryVectorStore | SqliteVectorStore = InMemoryVectorStore(dimension=3)
    else:
        database = SqliteDatabase(f"{tmp_path}/v.db")
        vectors = SqliteVectorStore(database, dimension=3)
    try:
        projection = VectorProjection(vectors)
        await projection.apply(_event(DEFAULT_TENANT, "m-1"))
        await projection.apply(_event(OTHER, "m-2"))
        assert await vectors.embedding_models(DEFAULT_TENANT) == {"m-1": 2}
        assert await vectors.embedding_models(OTHER) == {"m-2": 2}
        assert {r.model for r in await vectors.get(IDS, OTHER)} == {"m-2"}
        await projection.apply(_event(DEFAULT_TENANT, None))  # an event naming no model
        assert await vectors.embedding_models(DEFAULT_TENANT) == {None: 2}
    finally:
        if database is not None:
            database.close()


@pytest.mark.asyncio
async def test_replaying_a_log_written_before_records_each_vectors_model() -> None:
    log = InMemoryEventLog()
    for tenant, model in ((DEFAULT_TENANT, "m-1"), (OTHER, "m-2")):
        text = json.dumps(json.loads(event_to_json(_event(tenant, model))))  # as logged then
        await log.append([event_from_json(text)])
    vectors = InMemoryVectorStore(dimension=3)
    for tenant in (DEFAULT_TENANT, OTHER):
        await replay(log, tenant, [VectorProjection(vectors)])
    assert await vectors.embedding_models(DEFAULT_TENANT) == {"m-1": 2}
    assert await vectors.embedding_models(OTHER) == {"m-2": 2}
