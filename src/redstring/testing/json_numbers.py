"""JSON numbers read back as the type they were written (B143).

Mixed into the graph and chunk store suites. A float Python prints in
exponent form (`1e+308`) once came back from PostgreSQL's `jsonb` as an
`int`; every store must give back equal values of equal types.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest
from pydantic import JsonValue

from redstring.domain.chunk import StoredChunk
from redstring.domain.entity import Relationship
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.testing._graph_entities import person
from redstring.testing._support import fresh_tenant

NUMBERS: dict[str, JsonValue] = {
    "largest": 1.7976931348623157e308,
    "big": 1e308,
    "negative": -1e16,
    "small": 1.5e-7,
    "subnormal": 5e-324,
    "one": 1.0,
    "integer": 10**20,
    "text": "1e308",
    "nested": [{"x": 2e20}],
}


def typed(value: JsonValue) -> object:
    """`value` with each leaf paired with its type, so `1e308 == 10**308` cannot pass."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    return (type(value).__name__, value)


class GraphJsonNumberCompliance(ABC):
    """Entity and relationship properties: see the module docstring."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_numbers_in_properties_read_back_with_their_types(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada", properties=NUMBERS)
        bob = person(tenant, "Bob")
        link = Relationship(
            tenant_id=tenant,
            source_id=ada.id,
            target_id=bob.id,
            relationship_type="knows",
            properties=NUMBERS,
        )
        await store.upsert([ada, bob], [link])
        [entity] = await store.get_entities([ada.id], tenant)
        [relationship] = await store.list_relationships(tenant)
        assert typed(entity.properties) == typed(NUMBERS)
        assert typed(relationship.properties) == typed(NUMBERS)


class ChunkJsonNumberCompliance(ABC):
    """Chunk metadata: see the module docstring."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_numbers_in_metadata_read_back_with_their_types(self) -> None:
        store = await self.make_store(4)
        tenant = fresh_tenant()
        chunk = StoredChunk(
            tenant_id=tenant, source_id="doc", text="ada", index=0, start=0, end=3, metadata=NUMBERS
        )
        await store.upsert_chunks([chunk])
        [stored] = await store.chunks_of_source("doc", tenant)
        assert typed(stored.metadata) == typed(NUMBERS)
