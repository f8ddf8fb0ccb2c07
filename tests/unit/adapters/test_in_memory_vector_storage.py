"""The in-memory vector store keeps vectors as float32, as the SQLite store does."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from redstring import EntityId, TenantId
from redstring.domain.errors import InvalidVectorError
from redstring.ports import VectorRecord
from redstring.stores import InMemoryVectorStore

TENANT = TenantId(uuid.UUID(int=5))


def _record(entity: int, vector: list[float]) -> VectorRecord:
    return VectorRecord(
        tenant_id=TENANT,
        entity_id=EntityId(uuid.UUID(int=entity)),
        entity_type="person",
        vector=vector,
    )


@pytest.mark.asyncio
async def test_get_returns_the_vector_as_given_rounded_to_float32() -> None:
    store = InMemoryVectorStore(dimension=3)
    given = [0.1, 2.0 / 3.0, 3.0]  # not exact in float32, and not of unit length
    await store.upsert([_record(1, given)])
    [got] = await store.get([EntityId(uuid.UUID(int=1))], TENANT)
    assert got.vector == np.asarray(given, dtype=np.float32).tolist()
    assert got.entity_type == "person"


@pytest.mark.asyncio
async def test_a_vector_that_overflows_float32_is_refused_and_nothing_is_written() -> None:
    store = InMemoryVectorStore(dimension=2)
    with pytest.raises(InvalidVectorError, match="float32"):
        await store.upsert([_record(1, [1.0, 0.0]), _record(2, [1e39, 0.0])])
    assert await store.count(TENANT) == 0


@pytest.mark.asyncio
async def test_search_scores_the_stored_vectors_at_unit_length() -> None:
    store = InMemoryVectorStore(dimension=2)
    await store.upsert([_record(1, [3.0, 0.0]), _record(2, [0.0, -5.0])])
    first, second = await store.search([2.0, 0.0], TENANT, k=2)
    assert first.entity_id == EntityId(uuid.UUID(int=1))
    assert first.score == pytest.approx(1.0, abs=1e-6)
    assert second.score == pytest.approx(0.5, abs=1e-6)
