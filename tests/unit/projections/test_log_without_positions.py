"""A log that records no projection positions still folds; replay reads it in batches."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from redstring.composition.rebuild import lagging_tenants
from redstring.domain.events import DocumentExtracted, Event
from redstring.domain.ids import TenantId
from redstring.events.in_memory import InMemoryEventLog
from redstring.projections import replay as replay_module
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink, catch_up, replay
from redstring.stores import InMemoryGraphStore
from tests.factories import DEFAULT_TENANT, make_entity


class PlainLog:
    """An `EventLog` and nothing more: no `ProjectionPositions`."""

    def __init__(self) -> None:
        self._log = InMemoryEventLog()

    async def append(self, events: Sequence[Event]) -> list[Event]:
        return await self._log.append(events)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[Event]:
        return await self._log.read(tenant_id, after=after, limit=limit)

    async def last_sequence(self, tenant_id: TenantId) -> int:
        return await self._log.last_sequence(tenant_id)


def _extracted(name: str) -> DocumentExtracted:
    entity = make_entity(name)
    return DocumentExtracted(
        tenant_id=entity.tenant_id, document_id=name, entities=[entity], relationships=[]
    )


@pytest.mark.asyncio
async def test_a_log_without_positions_folds_and_reports_nothing_to_catch_up() -> None:
    log, graph = PlainLog(), InMemoryGraphStore()
    stored = await EventSink(log, [GraphProjection(graph)]).emit([_extracted("Ada Lovelace")])
    assert [e.sequence for e in stored] == [1]
    assert [e.name for e in await graph.list_entities(DEFAULT_TENANT)] == ["Ada Lovelace"]
    await log.append([_extracted("Grace Hopper")])  # appended, never folded
    other = InMemoryGraphStore()
    assert await catch_up(log, DEFAULT_TENANT, [GraphProjection(other)]) == {}
    assert await other.list_entities(DEFAULT_TENANT) == []
    assert await lagging_tenants(log, graph=graph) == []


@pytest.mark.asyncio
async def test_replay_reads_past_a_full_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay_module, "REPLAY_BATCH", 2)
    log, graph = InMemoryEventLog(), InMemoryGraphStore()
    names = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Emmy Noether", "Kurt Goedel"]
    await log.append([_extracted(name) for name in names])
    assert await replay(log, DEFAULT_TENANT, [GraphProjection(graph)]) == 5
    assert sorted(e.name for e in await graph.list_entities(DEFAULT_TENANT)) == sorted(names)
