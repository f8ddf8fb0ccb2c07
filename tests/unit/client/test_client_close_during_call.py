"""`AsyncRedstring.close()` during a call ends that call with `ClientClosedError`, as
`Redstring.close()` from another thread does, never with the closed store's error."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from redstring import AsyncRedstring, Redstring
from redstring.errors import ClientClosedError
from redstring.providers import FakeEmbeddingProvider


def _folder(tmp_path: Path, files: int) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    paragraph = "Ada Lovelace wrote notes on the analytical engine of Charles Babbage. "
    for number in range(files):
        (folder / f"doc{number:03}.md").write_text(f"# Doc {number}\n\n" + paragraph * 40)
    return folder


def test_close_during_an_index_ends_it_with_client_closed_error(tmp_path: Path) -> None:
    folder = _folder(tmp_path, 60)

    async def scenario() -> None:
        rs = await AsyncRedstring(tmp_path / "x.db", embeddings="none").open()
        started = asyncio.Event()
        task = asyncio.create_task(rs.index(folder, progress=lambda done, total: started.set()))
        await started.wait()  # some documents are written, most are still to come
        await rs.close()
        ended_with_close = task.done()
        with pytest.raises(ClientClosedError, match=r"^index\(\) was called on a closed") as ended:
            await task
        assert ended_with_close, "close() returned with the index still running"
        assert "AsyncRedstring(db)" in str(ended.value)
        assert "async with" in str(ended.value)
        with pytest.raises(ClientClosedError):
            await rs.stats()

    asyncio.run(scenario())


class _HeldQueries(FakeEmbeddingProvider):
    """Embeds documents at once; a query waits at `release` once `hold` is set."""

    def __init__(self) -> None:
        super().__init__(dimension=8)
        self.hold = False
        self.started = asyncio.Event()
        self.release = asyncio.Event()

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        if self.hold:
            self.started.set()
            await self.release.wait()
        return await self.embed(texts)


def test_close_racing_a_passage_search_ends_it_with_client_closed_error(tmp_path: Path) -> None:
    async def scenario() -> None:
        embeddings = _HeldQueries()
        rs = AsyncRedstring(tmp_path / "x.db", embeddings=embeddings)
        await rs.index(_folder(tmp_path, 3))
        assert (await rs.passages("Ada", mode="semantic")).matches
        embeddings.hold = True

        async def caller() -> str:
            try:
                await rs.passages("Ada engine", mode="semantic")
            except ClientClosedError as error:
                task = asyncio.current_task()
                assert task is not None
                assert task.cancelling() == 0  # close()'s cancel request was taken back
                await asyncio.sleep(0)
                return str(error)
            return "answered"

        task = asyncio.create_task(caller())
        await embeddings.started.wait()
        closing = asyncio.create_task(rs.close())
        await asyncio.sleep(0)
        embeddings.release.set()  # a search that went on would now read the closed stores
        await closing
        assert (await task).startswith("passages() was called on a closed redstring client")

    asyncio.run(scenario())


def test_a_callers_own_cancellation_of_a_call_stays_a_cancellation(tmp_path: Path) -> None:
    async def scenario() -> None:
        embeddings = _HeldQueries()
        async with AsyncRedstring(tmp_path / "x.db", embeddings=embeddings) as rs:
            await rs.index(_folder(tmp_path, 2))
            embeddings.hold = True
            task = asyncio.create_task(rs.passages("Ada", mode="semantic"))
            await embeddings.started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            embeddings.hold = False
            assert (await rs.passages("Ada", mode="semantic")).matches  # still open

    asyncio.run(scenario())


def test_the_closed_error_names_the_client_that_was_closed(tmp_path: Path) -> None:
    rs = Redstring(tmp_path / "x.db", embeddings="none")
    rs.close()
    with pytest.raises(ClientClosedError) as sync_error:
        rs.stats()
    assert "`Redstring(db)`" in str(sync_error.value)
    assert "`with` block" in str(sync_error.value)

    async def scenario() -> str:
        client = AsyncRedstring(tmp_path / "x.db", embeddings="none")
        await client.close()
        try:
            await client.stats()
        except ClientClosedError as error:
            return str(error)
        raise AssertionError("a closed client answered")

    message = asyncio.run(scenario())
    assert "`AsyncRedstring(db)`" in message
    assert "`async with` block" in message
