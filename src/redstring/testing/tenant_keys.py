"""Every store method refuses a tenant id that is not a `TenantId`.

Mixed into the four store suites. A tenant's UUID *text* is the likeliest
mistake: a store that accepted it would find nothing in memory and the rows
on SQLite and PostgreSQL. Every public method of the store that takes `tenant_id` is
called with `str(tenant)`, found by signature so a new method is covered
without editing this file; each must raise `InvalidArgumentError` naming
`tenant_id`, and nothing stored may change (`purge_tenant` included).
"""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from collections.abc import Callable
from uuid import UUID

import pytest

from redstring.domain.chunk import StoredChunk
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.events import DocumentExtracted
from redstring.domain.ids import TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.testing._graph_entities import person
from redstring.testing._support import fixed_id, fresh_tenant

_DIMENSION = 4
_ENTITY = fixed_id(1)
_UNIT = [1.0] + [0.0] * (_DIMENSION - 1)

#: A value for each required argument a tenant-keyed method may take.
_SAMPLES: dict[str, object] = {
    "entity_ids": [_ENTITY],
    "numbers": [_ENTITY.int],
    "relationship_ids": [UUID(int=2)],
    "chunk_ids": ["c:0"],
    "chunks": [],
    "keys": ["ada"],
    "key": "ada",
    "value": {"ada": 1},
    "terms": ["ada"],
    "entity_type": "person",
    "entity_id": _ENTITY,
    "source_id": "doc",
    "vector": _UNIT,
    "k": 1,
    "projection": "graph",
    "sequence": 1,
    "query": "ada",
    "text": "ada",
    "models": ["a-model"],
}


async def assert_every_tenant_method_refuses_a_str(store: object, tenant: TenantId) -> None:
    """Call each public `tenant_id` method of `store` with `str(tenant)`; all must refuse."""
    called = []
    for name, method in inspect.getmembers(store, inspect.ismethod):
        parameters = inspect.signature(method).parameters
        if name.startswith("_") or "tenant_id" not in parameters:
            continue
        arguments: dict[str, object] = {"tenant_id": str(tenant)}
        for parameter in parameters.values():
            if parameter.name != "tenant_id" and parameter.default is inspect.Parameter.empty:
                assert parameter.name in _SAMPLES, f"{name}: no sample for {parameter.name!r}"
                arguments[parameter.name] = _SAMPLES[parameter.name]
        with pytest.raises(InvalidArgumentError) as refused:
            await _call(method, arguments)
        assert refused.value.name == "tenant_id", name
        called.append(name)
    assert "purge_tenant" in called or "read" in called


async def _call(method: Callable[..., object], arguments: dict[str, object]) -> None:
    result = method(**arguments)
    if inspect.isawaitable(result):
        await result


class GraphTenantKeyCompliance(ABC):
    """Graph stores: see the module docstring."""

    @abstractmethod
    async def make_store(self) -> GraphStore:
        """A new, empty store."""

    @pytest.mark.asyncio
    async def test_every_tenant_method_refuses_a_tenant_ids_text(self) -> None:
        store = await self.make_store()
        tenant = fresh_tenant()
        ada = person(tenant, "Ada", entity_id=_ENTITY)
        await store.upsert([ada])
        await assert_every_tenant_method_refuses_a_str(store, tenant)
        assert await store.list_entities(tenant) == [ada]


class VectorTenantKeyCompliance(ABC):
    """Vector stores: see the module docstring."""

    @abstractmethod
    async def make_store(self, dimension: int) -> VectorStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_every_tenant_method_refuses_a_tenant_ids_text(self) -> None:
        store = await self.make_store(_DIMENSION)
        tenant = fresh_tenant()
        record = VectorRecord(
            tenant_id=tenant, entity_id=_ENTITY, entity_type="person", vector=_UNIT
        )
        await store.upsert([record])
        await assert_every_tenant_method_refuses_a_str(store, tenant)
        assert await store.count(tenant) == 1


class ChunkTenantKeyCompliance(ABC):
    """Chunk stores: see the module docstring."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_every_tenant_method_refuses_a_tenant_ids_text(self) -> None:
        store = await self.make_store(_DIMENSION)
        tenant = fresh_tenant()
        chunk = StoredChunk(tenant_id=tenant, source_id="doc", text="ada", index=0, start=0, end=3)
        await store.upsert_chunks([chunk])
        await assert_every_tenant_method_refuses_a_str(store, tenant)
        assert await store.list_chunks(tenant) == [chunk]


class EventLogTenantKeyCompliance(ABC):
    """Event logs: see the module docstring."""

    @abstractmethod
    async def make_log(self) -> EventLog:
        """A new, empty log."""

    @pytest.mark.asyncio
    async def test_every_tenant_method_refuses_a_tenant_ids_text(self) -> None:
        log = await self.make_log()
        tenant = fresh_tenant()
        event = DocumentExtracted(
            tenant_id=tenant, document_id="doc", entities=[], relationships=[]
        )
        await log.append([event])
        await assert_every_tenant_method_refuses_a_str(log, tenant)
        assert await log.last_sequence(tenant) == 1
