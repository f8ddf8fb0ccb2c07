"""A crash between appending events and folding them is caught up from the recorded position."""

from __future__ import annotations

from pathlib import Path
from uuid import UUID

import pytest

from redstring import TenantId
from redstring.domain.events import DocumentExtracted, Event
from redstring.events.in_memory import InMemoryEventLog
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.ports.graph_store import GraphWriter
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink, catch_up
from redstring.stores import catch_up_stores, open_sqlite
from tests.factories import DEFAULT_TENANT, make_entity

OTHER_TENANT = TenantId(UUID("22222222-2222-4222-8222-222222222222"))


class Crash(BaseException):
    """Stands for the process dying: nothing after it runs."""


class CrashingProjection(GraphProjection):
    """Folds like the graph projection, except that the process 'dies' before its first fold."""

    def __init__(self, graph: GraphWriter) -> None:
        super().__init__(graph)
        self.crashed = False

    async def apply(self, event: Event) -> None:
        if not self.crashed:
            self.crashed = True
            raise Crash
        await super().apply(event)


def extracted(name: str, tenant: TenantId = DEFAULT_TENANT) -> DocumentExtracted:
    entity = make_entity(name, tenant_id=tenant)
    return DocumentExtracted(
        tenant_id=tenant, document_id=f"doc-{name}", entities=[entity], relationships=[]
    )


@pytest.mark.asyncio
async def test_a_crash_between_append_and_fold_is_caught_up_on_the_next_open(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.db"
    async with open_sqlite(path, dimension=4) as stores:
        await EventSink(stores.events, [GraphProjection(stores.graph)]).emit([extracted("Ada")])
        sink = EventSink(stores.events, [CrashingProjection(stores.graph)])
        with pytest.raises(Crash):
            await sink.emit([extracted("Grace")])
        assert await stores.events.last_sequence(DEFAULT_TENANT) == 2
        assert await stores.events.position(DEFAULT_TENANT, "graph") == 1
    async with open_sqlite(path, read_only=True) as stores:
        names = {e.name for e in await stores.graph.list_entities(DEFAULT_TENANT)}
        assert names == {"Ada"}  # the store fell behind the log; a read-only open cannot fold
        assert await stores.events.lagging_tenants(["graph"]) == [DEFAULT_TENANT]
    async with open_sqlite(path) as stores:  # a writable open catches up (ADR 0134)
        names = {e.name for e in await stores.graph.list_entities(DEFAULT_TENANT)}
        assert names == {"Ada", "Grace"}
        assert await stores.events.position(DEFAULT_TENANT, "graph") == 2
        positions = await catch_up_stores(stores.events, DEFAULT_TENANT, graph=stores.graph)
        assert positions == {"graph": 2}


@pytest.mark.asyncio
async def test_catching_up_folds_only_the_missing_events_and_only_its_tenants() -> None:
    log = InMemoryEventLog()
    graph = InMemoryGraphStore()
    await EventSink(log, [GraphProjection(graph)]).emit([extracted("Ada")])
    await log.append([extracted("Grace"), extracted("Ada", tenant=OTHER_TENANT)])
    await graph.delete_entities(
        [e.id for e in await graph.list_entities(DEFAULT_TENANT)], DEFAULT_TENANT
    )
    # Ada was folded (position 1), so catching up folds Grace alone.
    assert await catch_up(log, DEFAULT_TENANT, [GraphProjection(graph)]) == {"graph": 2}
    assert {e.name for e in await graph.list_entities(DEFAULT_TENANT)} == {"Grace"}
    assert await graph.list_entities(OTHER_TENANT) == []
    assert await catch_up(log, DEFAULT_TENANT, [GraphProjection(graph)]) == {"graph": 2}


@pytest.mark.asyncio
async def test_a_position_never_moves_back(tmp_path: Path) -> None:
    async with open_sqlite(tmp_path / "store.db", dimension=4) as stores:
        await stores.events.record_position(DEFAULT_TENANT, "graph", 5)
        await stores.events.record_position(DEFAULT_TENANT, "graph", 3)
        assert await stores.events.position(DEFAULT_TENANT, "graph") == 5
        assert await stores.events.position(OTHER_TENANT, "graph") == 0


@pytest.mark.asyncio
async def test_a_file_written_before_positions_starts_them_at_the_log_end(tmp_path: Path) -> None:
    path = tmp_path / "store.db"
    async with open_sqlite(path, dimension=4) as stores:
        await stores.events.append([extracted("Ada"), extracted("Grace")])
        stores.database.connection.execute("DROP TABLE projection_position")
        stores.database.connection.execute(
            "DELETE FROM redstring_schema WHERE component = 'projection_positions'"
        )
    async with open_sqlite(path) as stores:
        for name in ("graph", "vectors", "chunks"):
            assert await stores.events.position(DEFAULT_TENANT, name) == 2
