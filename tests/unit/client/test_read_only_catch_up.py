"""A command that only reads still sees what a crashed writer's log committed (B132)."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring.client import stores as client_stores
from redstring.client.stores import open_store_set
from redstring.composition.sqlite_stores import open_sqlite
from redstring.errors import ReadOnlyDatabaseError
from redstring.projections.graph import GraphProjection
from redstring.projections.replay import EventSink
from tests.factories import DEFAULT_TENANT, make_entity
from tests.unit.composition.test_catch_up import Crash, CrashingProjection, extracted


async def lagging_file(path: Path) -> None:
    """A file whose log holds Ada and Grace but whose graph folded Ada only."""
    async with open_sqlite(path, dimension=4) as stores:
        await EventSink(stores.events, [GraphProjection(stores.graph)]).emit([extracted("Ada")])
        with pytest.raises(Crash):
            await EventSink(stores.events, [CrashingProjection(stores.graph)]).emit(
                [extracted("Grace")]
            )
        assert await stores.events.lagging_tenants(["graph"]) == [DEFAULT_TENANT]


@pytest.mark.asyncio
async def test_a_read_only_open_of_a_lagging_writable_file_catches_it_up(tmp_path: Path) -> None:
    path = tmp_path / "lag.db"
    await lagging_file(path)
    async with open_store_set(str(path), dimension=None, create=False, migrate=False) as stores:
        names = {e.name for e in await stores.graph.list_entities(DEFAULT_TENANT)}
        assert names == {"Ada", "Grace"}
    async with open_sqlite(path, read_only=True) as stores:  # the fold was written to the file
        assert await stores.events.lagging_tenants(["graph", "vectors", "chunks"]) == []


@pytest.mark.asyncio
async def test_an_up_to_date_file_stays_opened_read_only(tmp_path: Path) -> None:
    path = tmp_path / "current.db"
    async with open_sqlite(path, dimension=4) as stores:
        await EventSink(stores.events, [GraphProjection(stores.graph)]).emit([extracted("Ada")])
    async with open_sqlite(path) as stores:  # folds the vector and chunk positions too
        assert await stores.events.lagging_tenants(["graph", "vectors", "chunks"]) == []
    async with open_store_set(str(path), dimension=None, create=False, migrate=False) as stores:
        with pytest.raises(ReadOnlyDatabaseError):  # no write lock was taken for a reader
            await stores.graph.upsert([make_entity("Grace")], [])


@pytest.mark.asyncio
async def test_a_lagging_file_this_process_cannot_write_is_read_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "lag.db"
    await lagging_file(path)
    # Root may write any file whatever its mode, so the permission answer is what is replaced.
    monkeypatch.setattr(client_stores.os, "access", lambda *_args: False)
    async with open_store_set(str(path), dimension=None, create=False, migrate=False) as stores:
        names = {e.name for e in await stores.graph.list_entities(DEFAULT_TENANT)}
        assert names == {"Ada"}
