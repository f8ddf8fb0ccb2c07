"""`AsyncRedstring.close()` awaited inside a call (by a provider the call awaits, in the
call's own task or in a task the call started) ends that call as a close from another
task does: with `ClientClosedError`, its task not left cancelled, and the stores closed
by the time it raises, never under the rest of the call."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from redstring import AsyncRedstring, SourceDocument
from redstring.client.store_set import StoreSet
from redstring.client.stores import open_store_set
from redstring.errors import ClientClosedError
from redstring.providers import FakeEmbeddingProvider, FakeLlmProvider
from tests.hang_guard import HANG_GUARD_SECONDS

_DOCS = [
    SourceDocument(id="a.md", text="Ada Lovelace wrote notes on the analytical engine."),
    SourceDocument(id="b.md", text="Grace Hopper wrote a compiler."),
]


class _Opened:
    """An opener of the real stores that counts how many it opened and closed."""

    def __init__(self) -> None:
        self.opened = 0
        self.closed = 0

    @asynccontextmanager
    async def __call__(self, db: str, **options: Any) -> AsyncIterator[StoreSet]:
        async with open_store_set(db, **options) as stores:
            self.opened += 1
            try:
                yield stores
            finally:
                self.closed += 1


class _ClosingEmbeddings(FakeEmbeddingProvider):
    """Embeds; once `armed`, embedding passages (in the call's own task, as `index`
    does) or a query (in a task a passage search starts) closes `client` first."""

    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.client: AsyncRedstring | None = None
        self.armed = False
        self.closed_in: asyncio.Task[Any] | None = None
        self.returned = asyncio.Event()  # set once the close() it awaited returned

    async def _close(self) -> None:
        if self.armed and self.client is not None:
            self.armed = False
            self.closed_in = asyncio.current_task()
            await self.client.close()
            self.returned.set()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        await self._close()
        return await super().embed(texts)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        await self._close()
        return await super().embed(texts)


def test_close_awaited_in_the_calls_own_task_ends_the_call_with_client_closed_error(
    tmp_path: Path,
) -> None:
    opener = _Opened()

    async def scenario() -> None:
        embeddings = _ClosingEmbeddings()
        rs = AsyncRedstring(tmp_path / "x.db", embeddings=embeddings, opener=opener)
        embeddings.client = rs
        await rs.index(_DOCS[:1])
        embeddings.armed = True
        call = asyncio.create_task(rs.index(_DOCS[1:]))
        with pytest.raises(ClientClosedError, match=r"^index\(\) was called on a closed"):
            await call
        assert embeddings.closed_in is call  # the path under test: close() in the call's task
        assert call.cancelling() == 0  # close()'s request was taken back
        assert (opener.opened, opener.closed) == (1, 1)
        with pytest.raises(ClientClosedError):
            await rs.stats()
        await rs.close()  # closing again is harmless
        assert opener.closed == 1
        async with AsyncRedstring(tmp_path / "x.db", embeddings="none") as again:
            assert (await again.check()).damaged == []  # the file was not closed mid-write
            found = (await again.passages("wrote", k=5, mode="lexical")).matches
            assert "a.md" in [passage.source_id for passage in found]

    asyncio.run(scenario())


def test_close_awaited_in_a_task_a_search_started_ends_the_search_with_client_closed_error(
    tmp_path: Path,
) -> None:
    opener = _Opened()

    async def scenario() -> None:
        embeddings = _ClosingEmbeddings()
        rs = AsyncRedstring(tmp_path / "x.db", embeddings=embeddings, opener=opener)
        embeddings.client = rs
        await rs.index(_DOCS)
        embeddings.armed = True
        call = asyncio.create_task(rs.passages("Ada", mode="semantic"))
        with pytest.raises(ClientClosedError, match=r"^passages\(\) was called on a closed"):
            await call
        assert embeddings.closed_in is not call  # a task of the search's own
        assert call.cancelling() == 0
        assert (opener.opened, opener.closed) == (1, 1)

    asyncio.run(scenario())


class _ClosingModel(FakeLlmProvider):
    """Answers every passage; the first answer closes `client` first (extraction runs
    each passage in a task of its own, started by the build's task)."""

    def __init__(self) -> None:
        super().__init__(by_substring={"wrote": {"entities": [{"name": "X", "type": "person"}]}})
        self.client: AsyncRedstring | None = None

    async def complete_json(self, *, system: str, user: str, schema: Any) -> Any:
        if self.client is not None:
            client, self.client = self.client, None
            await client.close()
        return await super().complete_json(system=system, user=user, schema=schema)


def test_close_awaited_in_a_task_the_call_started_ends_the_call_with_client_closed_error(
    tmp_path: Path,
) -> None:
    opener = _Opened()

    async def scenario() -> None:
        model = _ClosingModel()
        rs = AsyncRedstring(tmp_path / "x.db", embeddings="none", opener=opener)
        model.client = rs
        with pytest.raises(ClientClosedError, match=r"^build\(\) was called on a closed"):
            await asyncio.wait_for(
                rs.build(_DOCS, model=model, domain="general"), HANG_GUARD_SECONDS
            )
        assert (opener.opened, opener.closed) == (1, 1)
        with pytest.raises(ClientClosedError):
            await rs.search("Ada")

    asyncio.run(scenario())


def test_another_tasks_close_waits_for_a_close_the_call_began_to_finish(tmp_path: Path) -> None:
    opener = _Opened()

    async def scenario() -> None:
        embeddings = _ClosingEmbeddings()
        rs = AsyncRedstring(tmp_path / "x.db", embeddings=embeddings, opener=opener)
        embeddings.client = rs
        await rs.index(_DOCS)
        embeddings.armed = True
        call = asyncio.create_task(rs.passages("Ada", mode="semantic"))
        await embeddings.returned.wait()  # the call closed the client, and ends meanwhile
        await asyncio.wait_for(rs.close(), HANG_GUARD_SECONDS)  # a hang guard, not a measure
        assert opener.closed == 1  # not returned before the stores closed
        with pytest.raises(ClientClosedError):
            await call

    asyncio.run(scenario())


def test_close_awaited_by_the_opener_inside_the_first_call_ends_it(tmp_path: Path) -> None:
    opened = _Opened()

    async def scenario() -> None:
        rs: AsyncRedstring | None = None

        @asynccontextmanager
        async def closing(db: str, **options: Any) -> AsyncIterator[StoreSet]:
            assert rs is not None
            await rs.close()  # inside the open of the call that opens the stores
            async with opened(db, **options) as stores:
                yield stores

        rs = AsyncRedstring(tmp_path / "x.db", embeddings="none", opener=closing)
        with pytest.raises(ClientClosedError, match=r"^stats\(\) was called on a closed"):
            await asyncio.wait_for(rs.stats(), HANG_GUARD_SECONDS)
        assert (opened.opened, opened.closed) == (1, 1)

    asyncio.run(scenario())
