"""Indexing shows progress before the first embedding, and a stopped large file resumes.

Driven through the client on SQLite with a provider that records its calls
(the fake model's vectors) or stops the run at a chosen call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from redstring import AsyncRedstring
from redstring.client.embeddings import local_extra_installed
from redstring.errors import InvalidArgumentError
from redstring.providers import FakeEmbeddingProvider

DIMENSION = 16


class Stopped(Exception):
    """The run was stopped (what Ctrl-C is to the command)."""


class Recording(FakeEmbeddingProvider):
    """The fake model, recording each call in `events`, stopping the run at call `stop_at`."""

    def __init__(self, events: list[tuple[str, int]], stop_at: int | None = None) -> None:
        super().__init__(dimension=DIMENSION)
        self.events = events
        self.stop_at = stop_at
        self.calls = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == self.stop_at:
            raise Stopped
        self.events.append(("embed", len(texts)))
        return await super().embed(texts)


def _large_file(tmp_path: Path) -> Path:
    """One file of about 200 passages (1,000-character windows)."""
    folder = tmp_path / "big"
    folder.mkdir()
    sentences = [f"Sentence {n} tells of engine number {n * 7919 % 10007}." for n in range(4000)]
    (folder / "book.md").write_text(" ".join(sentences))
    return folder


def test_progress_is_reported_before_the_first_embedding(tmp_path: Path) -> None:
    folder = _large_file(tmp_path)
    events: list[tuple[str, int]] = []

    def progress(done: int, total: int) -> None:
        events.append(("progress", done))

    async def scenario() -> None:
        async with AsyncRedstring(tmp_path / "x.db", embeddings=Recording(events)) as rs:
            await rs.index(folder, progress=progress)

    asyncio.run(scenario())
    assert events[0] == ("progress", 0), events[:3]
    assert ("embed", 64) in events


def test_a_large_file_stopped_midway_keeps_its_finished_passages_and_resumes(
    tmp_path: Path,
) -> None:
    folder = _large_file(tmp_path)
    db = tmp_path / "x.db"

    async def scenario() -> None:
        stopped = Recording([], stop_at=3)  # two batches of 64 embedded, then stopped
        async with AsyncRedstring(db, embeddings=stopped) as rs:
            with pytest.raises(Stopped):
                await rs.index(folder)
            kept = (await rs.describe()).sources
        assert kept == {"big/book.md": 128}
        events: list[tuple[str, int]] = []
        async with AsyncRedstring(db, embeddings=Recording(events)) as rs:
            report = await rs.index(folder)
            total = (await rs.describe()).sources["big/book.md"]
            hits = await rs.passages("engine number 5", k=3, mode="semantic")
        assert total > 128
        assert report.embedded == total - 128  # only what the stopped run had not finished
        async with AsyncRedstring(tmp_path / "fresh.db", embeddings=Recording([])) as rs:
            await rs.index(folder)
            fresh = await rs.passages("engine number 5", k=3, mode="semantic")
        assert [(h.chunk_id, h.semantic) for h in hits] == [(h.chunk_id, h.semantic) for h in fresh]

    asyncio.run(scenario())


def test_the_client_takes_a_thread_count_for_its_local_model(tmp_path: Path) -> None:
    if local_extra_installed():
        rs = AsyncRedstring(tmp_path / "x.db", threads=1)
        assert rs.embeddings is not None
        assert getattr(rs.embeddings, "threads", None) == 1
    with pytest.raises(InvalidArgumentError, match="threads"):
        AsyncRedstring(tmp_path / "x.db", embeddings=FakeEmbeddingProvider(dimension=4), threads=2)
    with pytest.raises(InvalidArgumentError, match="threads"):
        AsyncRedstring(tmp_path / "x.db", embeddings="none", threads=0)
