"""An `AsyncRedstring` opens its stores once, however many calls arrive before they are open.

Calls gathered on a fresh client each reach the first open; all but one must
wait for it and use the stores it opened, since a second set would be opened
beside the first and never closed. The openers here count how often the real
stores are opened and closed; the gated one holds the first open until the
test lets it go, so the other calls arrive while it is under way whether or
not the real opener would have paused.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from redstring import AsyncRedstring, SourceDocument
from redstring.client.store_set import StoreSet
from redstring.client.stores import open_store_set
from redstring.errors import ClientClosedError, ClientLoopError
from tests.hang_guard import HANG_GUARD_SECONDS

_ADA = SourceDocument(id="ada", text="Ada Lovelace wrote the first program.")


class CountingOpener:
    """`open_store_set`, counting each open and close; with `gated`, the first open
    waits inside until `release` is set (`arrived` says it got there)."""

    def __init__(self, *, gated: bool = False) -> None:
        self.gated = gated
        self.opened = 0
        self.closed = 0
        self.arrived = threading.Event()
        self.release = threading.Event()

    @asynccontextmanager
    async def __call__(
        self, db: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None
    ) -> AsyncIterator[StoreSet]:
        self.opened += 1
        if self.gated and self.opened == 1:
            self.arrived.set()
            assert await asyncio.to_thread(self.release.wait, HANG_GUARD_SECONDS)
        async with open_store_set(
            db, dimension=dimension, create=create, migrate=migrate, language=language
        ) as stores:
            try:
                yield stores
            finally:
                self.closed += 1


async def _indexed(db: Path | str) -> None:
    async with AsyncRedstring(db, embeddings="none") as rs:
        await rs.index(_ADA)


@pytest.mark.asyncio
async def test_calls_gathered_on_a_fresh_client_open_the_stores_once(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    await _indexed(db)
    opener = CountingOpener(gated=True)
    rs = AsyncRedstring(db, embeddings="none", opener=opener)

    async def let_the_first_open_go() -> None:
        # Gathered last, so it runs once each call before it has reached the open.
        opener.release.set()

    try:
        passages, entities, _ = await asyncio.gather(
            rs.passages("Ada"), rs.search("Ada"), let_the_first_open_go()
        )
        stats = await rs.stats()
    finally:
        await rs.close()
    assert [hit.source_id for hit in passages.matches] == ["ada"]
    assert entities.matches == []
    assert [tenant.chunks for tenant in stats.tenants] == [1]
    assert (opener.opened, opener.closed) == (1, 1)


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["read-only SQLite", "PostgreSQL"])
async def test_calls_gathered_on_real_stores_all_answer_and_close_what_opened(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    # Both real openers pause while they open (a read-only file checks its
    # event log on a worker thread; PostgreSQL connects), so the race is real.
    if backend == "PostgreSQL":
        db: str = request.getfixturevalue("postgres_url")
    else:
        db = str(tmp_path / "x.db")
    await _indexed(db)
    opener = CountingOpener()
    rs = AsyncRedstring(db, embeddings="none", create=False, opener=opener)
    try:
        answers = await asyncio.gather(rs.passages("Ada"), rs.passages("program"), rs.stats())
    finally:
        await rs.close()
    assert [[hit.source_id for hit in answer.matches] for answer in answers[:2]] == [["ada"]] * 2
    assert (opener.opened, opener.closed) == (1, 1)


@pytest.mark.asyncio
async def test_a_close_while_the_stores_open_closes_them_once_they_are(tmp_path: Path) -> None:
    opener = CountingOpener(gated=True)
    rs = AsyncRedstring(tmp_path / "x.db", embeddings="none", opener=opener)
    opening = asyncio.create_task(rs.open())
    assert await asyncio.to_thread(opener.arrived.wait, HANG_GUARD_SECONDS)

    async def let_the_open_go() -> None:
        opener.release.set()

    await asyncio.gather(rs.close(), let_the_open_go())
    assert (opener.opened, opener.closed) == (1, 1)  # close() waited for the open to end
    with pytest.raises(ClientClosedError, match=r"^open\(\)"):
        await opening
    with pytest.raises(ClientClosedError):
        await rs.stats()


@pytest.mark.asyncio
async def test_a_call_waiting_on_a_cancelled_open_opens_the_stores_itself(
    tmp_path: Path,
) -> None:
    db = tmp_path / "x.db"
    await _indexed(db)
    opener = CountingOpener(gated=True)
    rs = AsyncRedstring(db, embeddings="none", opener=opener)
    try:
        first = asyncio.create_task(rs.stats())
        assert await asyncio.to_thread(opener.arrived.wait, HANG_GUARD_SECONDS)
        waiting = asyncio.create_task(rs.passages("Ada"))

        async def cancel_the_first() -> None:
            # Created after `waiting`, so it runs once `waiting` waits on the open.
            first.cancel()
            opener.release.set()

        await asyncio.create_task(cancel_the_first())
        with pytest.raises(asyncio.CancelledError):
            await first
        assert [hit.source_id for hit in (await waiting).matches] == ["ada"]
    finally:
        await rs.close()
    assert (opener.opened, opener.closed) == (2, 1)  # the cancelled open opened nothing


def test_a_call_from_another_loop_while_the_stores_open_is_refused(tmp_path: Path) -> None:
    opener = CountingOpener(gated=True)
    home = asyncio.new_event_loop()
    thread = threading.Thread(target=home.run_forever, daemon=True)
    thread.start()
    try:
        rs = AsyncRedstring(tmp_path / "x.db", embeddings="none", opener=opener)
        opening = asyncio.run_coroutine_threadsafe(rs.index(_ADA), home)
        assert opener.arrived.wait(HANG_GUARD_SECONDS)
        with pytest.raises(ClientLoopError, match=r"^stats\(\)"):
            asyncio.run(rs.stats())
        opener.release.set()
        assert opening.result(HANG_GUARD_SECONDS).chunks_written == 1
        asyncio.run_coroutine_threadsafe(rs.close(), home).result(HANG_GUARD_SECONDS)
        assert (opener.opened, opener.closed) == (1, 1)
    finally:
        opener.release.set()  # never left waiting, should the refusal not come
        home.call_soon_threadsafe(home.stop)
        thread.join(HANG_GUARD_SECONDS)
        home.close()
