"""An `AsyncRedstring`'s stores belong to the event loop they opened in."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from redstring import AsyncRedstring, SourceDocument
from redstring.client.answers import PassageHit
from redstring.client.store_set import StoreSet
from redstring.client.stores import open_store_set
from redstring.errors import (
    ClientClosedError,
    ClientLoopError,
    DatabaseNotFoundError,
    InvalidUseError,
)
from tests.hang_guard import HANG_GUARD_SECONDS

_ADA = SourceDocument(id="ada", text="Ada Lovelace wrote the first program.")


def test_a_second_asyncio_run_is_refused_naming_the_loop_and_the_fixes(tmp_path: Path) -> None:
    rs = AsyncRedstring(tmp_path / "x.db", embeddings="none")
    asyncio.run(rs.index(_ADA))
    with pytest.raises(ClientLoopError) as refused:
        asyncio.run(rs.passages("Ada"))
    assert isinstance(refused.value, InvalidUseError)
    message = str(refused.value)
    assert message.startswith("passages() was called in another event loop")
    assert "asyncio.run" in message
    assert "async with AsyncRedstring" in message
    assert "`Redstring`" in message

    async def build_elsewhere() -> None:
        await rs.build(_ADA, model="m", base_url="http://127.0.0.1:9/v1")

    with pytest.raises(ClientLoopError, match=r"^build\(\)"):  # before any server is asked
        asyncio.run(build_elsewhere())
    asyncio.run(rs.close())  # harmless from the new loop: the first loop's end closed them
    with pytest.raises(ClientClosedError):
        asyncio.run(rs.stats())
    assert [match.source_id for match in asyncio.run(_fresh_passages(tmp_path / "x.db"))] == ["ada"]


async def _fresh_passages(db: Path) -> list[PassageHit]:
    async with AsyncRedstring(db, embeddings="none", create=False) as rs:
        return (await rs.passages("Ada")).matches


def test_a_call_whose_stores_never_opened_binds_no_loop(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    reader = AsyncRedstring(db, embeddings="none", create=False)
    with pytest.raises(DatabaseNotFoundError):
        asyncio.run(reader.stats())
    writer = AsyncRedstring(db, embeddings="none")
    asyncio.run(writer.index(_ADA))
    asyncio.run(writer.close())
    answer = asyncio.run(reader.passages("Ada"))  # another loop, and the first to open them
    assert [match.source_id for match in answer.matches] == ["ada"]
    asyncio.run(reader.close())


def test_close_from_another_loop_closes_the_stores_on_their_own_running_loop() -> None:
    closed_in: list[asyncio.AbstractEventLoop] = []

    @asynccontextmanager
    async def recording_opener(
        db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None
    ) -> AsyncIterator[StoreSet]:
        async with open_store_set(
            db, dimension=dimension, create=create, migrate=migrate, language=language
        ) as stores:
            yield stores
        closed_in.append(asyncio.get_running_loop())

    home = asyncio.new_event_loop()
    thread = threading.Thread(target=home.run_forever, daemon=True)
    thread.start()
    try:
        rs = AsyncRedstring(":memory:", embeddings="none", opener=recording_opener)
        opened = asyncio.run_coroutine_threadsafe(rs.index(_ADA), home)
        assert opened.result(HANG_GUARD_SECONDS).chunks_written == 1
        asyncio.run(rs.close())
        assert closed_in == [home]
    finally:
        home.call_soon_threadsafe(home.stop)
        thread.join(HANG_GUARD_SECONDS)
        home.close()
