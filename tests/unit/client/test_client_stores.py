"""What the client opens: the stores an opener hands it, or the database it names (B161)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest

from redstring import AsyncRedstring, Redstring
from redstring.client.store_set import StoreSet
from redstring.errors import (
    DatabaseNotFoundError,
    EventLogUnavailableError,
    InvalidArgumentError,
    ModelServerUnreachableError,
)
from tests.unit.cli.mcp_fixture_server import opener_of
from tests.unit.cli.world import ADA, HOME, populated_stores

DOCS = Path(__file__).resolve().parents[3] / "src" / "redstring" / "sample_docs"


def test_in_memory_stores_plug_into_both_clients() -> None:
    stores, embeddings = asyncio.run(populated_stores())
    with Redstring(tenant=str(HOME), embeddings=embeddings, opener=opener_of(stores)) as rs:
        [top, *_] = rs.search("Ada Lovelace", k=2).matches
        assert top.id == str(ADA)

    async def scenario() -> list[str]:
        async with AsyncRedstring(
            tenant=str(HOME), embeddings="none", opener=opener_of(stores)
        ) as rs:
            answer = await rs.passages("first program")
        return [hit.source_id for hit in answer.matches]

    assert asyncio.run(scenario()) == ["notes.md"]


def test_an_opener_gets_the_db_the_dimension_and_whether_to_create() -> None:
    stores, embeddings = asyncio.run(populated_stores())
    calls: list[dict[str, Any]] = []
    closed: list[str] = []

    @asynccontextmanager
    async def opener(
        db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None = None
    ) -> AsyncIterator[StoreSet]:
        calls.append(
            {
                "db": db,
                "dimension": dimension,
                "create": create,
                "migrate": migrate,
                "language": language,
            }
        )
        yield stores
        closed.append(db)

    with Redstring("a.db", embeddings=embeddings, create=False, opener=opener) as rs:
        rs.stats()
        rs.stats()  # one opening per client
    with Redstring("b.db", embeddings="none", migrate=True, opener=opener, language="German") as rs:
        rs.stats()
    assert calls == [
        {"db": "a.db", "dimension": embeddings.dimension, "create": False, "migrate": False,
         "language": None},
        {"db": "b.db", "dimension": None, "create": True, "migrate": True, "language": "german"},
    ]  # fmt: skip
    assert closed == ["a.db", "b.db"]
    with pytest.raises(InvalidArgumentError, match="language"):
        Redstring("c.db", embeddings="none", opener=opener, language="klingon")


def test_a_reading_client_refuses_a_missing_database_and_creates_nothing(
    tmp_path: Path,
) -> None:
    db = tmp_path / "missing.db"
    with pytest.raises(DatabaseNotFoundError) as refused:
        Redstring(db, embeddings="none", create=False)
    assert str(refused.value) == (  # the client's arguments, not the command line's flags
        f"no database at {db}. Check `db`, or open the client with `create=True` (the "
        "default) to make a new database there."
    )
    assert not db.exists()


def test_bad_queries_are_refused_before_the_database_is_opened(tmp_path: Path) -> None:
    async def scenario() -> None:
        rs = AsyncRedstring(tmp_path / "missing.db", embeddings="none", create=False)
        with pytest.raises(ValueError, match="query must not be blank"):
            await rs.search("  ")
        with pytest.raises(ValueError, match="k must be"):
            await rs.passages("Ada", k=-1)
        with pytest.raises(ValueError, match="entity_id must be a UUID"):
            await rs.entity("not-an-id")
        await rs.close()

    asyncio.run(scenario())
    assert not (tmp_path / "missing.db").exists()


def test_a_build_the_server_refuses_creates_no_database(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def scenario() -> None:
        rs = AsyncRedstring(tmp_path / "g.db", embeddings="none")
        try:
            await rs.build(DOCS, model="m", base_url=f"http://127.0.0.1:{port}/v1")
        finally:
            await rs.close()

    with pytest.raises(ModelServerUnreachableError):
        asyncio.run(scenario())
    assert not (tmp_path / "g.db").exists()


def test_undo_and_rebuild_need_an_event_log_and_rekey_reports_the_version() -> None:
    stores, _ = asyncio.run(populated_stores())  # in-memory stores, no event log
    with Redstring(tenant=str(HOME), embeddings="none", opener=opener_of(stores)) as rs:
        with pytest.raises(EventLogUnavailableError, match="`undo` needs the database's event"):
            rs.undo("00000000-0000-4000-8000-000000000001")
        with pytest.raises(EventLogUnavailableError, match="`rebuild` needs"):
            rs.rebuild()
        with pytest.raises(EventLogUnavailableError):
            rs.undo(UUID("00000000-0000-4000-8000-000000000002"))  # a UUID is taken as is
        report = rs.rekey()
    assert (report.rekeyed, report.version_before) == (0, report.version_after)

    async def forced() -> int:
        async with AsyncRedstring(
            tenant=str(HOME), embeddings="none", opener=opener_of(stores)
        ) as rs:
            return (await rs.rekey(force=True)).rekeyed

    assert asyncio.run(forced()) == 4  # HOME's four entities re-filed
