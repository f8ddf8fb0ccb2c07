"""index_documents without an embedding provider: progress moves while a large document is written.

With no batches of embeddings to report after, a large new document was one
`replace_source`, and progress went from 0 to the total in one step however
long the write took. Its new passages are now stored a step at a time
before it; a changed document, which must never show an old passage beside
a new one, is still replaced in one write in memory, which offers no
transaction to step in (SQLite and PostgreSQL:
`test_index_progress_of_a_changed_document.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from redstring import SourceDocument, StoredChunk, index_documents, new_tenant_id
from redstring.building import SlidingWindowChunker
from redstring.composition.index_documents import WRITE_STEP
from redstring.stores import InMemoryChunkStore

DIMENSION = 16
TINY = SlidingWindowChunker(size=40, overlap=10)


class Stopped(Exception):
    """The run was stopped (what Ctrl-C is to the command)."""


class StepRecordingStore(InMemoryChunkStore):
    """The in-memory store, recording each `upsert_chunks` size; stopping at call `stop_at`."""

    def __init__(self, *, stop_at: int | None = None) -> None:
        super().__init__(dimension=DIMENSION)
        self.upserts: list[int] = []
        self.stop_at = stop_at

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        if len(self.upserts) + 1 == self.stop_at:
            raise Stopped
        self.upserts.append(len(chunks))
        await super().upsert_chunks(chunks)


def _book(word: str = "word") -> SourceDocument:
    """One document of about 2.8 write steps of distinct passages under `TINY`."""
    return SourceDocument(id="book.md", text=" ".join(f"{word}{n}" for n in range(WRITE_STEP * 9)))


@pytest.mark.asyncio
async def test_progress_moves_while_a_large_new_document_is_written() -> None:
    store = StepRecordingStore()
    tenant = new_tenant_id()
    seen: list[tuple[int, int]] = []
    report = await index_documents(
        [_book()],
        chunks=store,
        tenant_id=tenant,
        chunker=TINY,
        progress=lambda done, total: seen.append((done, total)),
    )
    total = report.chunks_written
    assert total > 2 * WRITE_STEP
    assert seen[0] == (0, total)
    assert seen[-1] == (total, total)
    between = [done for done, _ in seen if 0 < done < total]
    assert between, seen  # progress moved before the document was done
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert len(seen) <= total // WRITE_STEP + 3  # a step at a time, not a call per passage
    stored = await store.chunks_of_source("book.md", tenant)
    assert [chunk.text for chunk in stored] == [span.text for span in TINY.split(_book().text)]
    assert [chunk.index for chunk in stored] == list(range(total))


@pytest.mark.asyncio
async def test_a_large_document_stopped_while_written_keeps_its_steps_and_resumes() -> None:
    tenant = new_tenant_id()
    stopping = StepRecordingStore(stop_at=2)
    with pytest.raises(Stopped):
        await index_documents([_book()], chunks=stopping, tenant_id=tenant, chunker=TINY)
    kept = await stopping.chunks_of_source("book.md", tenant)
    assert len(kept) == WRITE_STEP
    stopping.stop_at = None
    report = await index_documents([_book()], chunks=stopping, tenant_id=tenant, chunker=TINY)
    whole = InMemoryChunkStore(dimension=DIMENSION)
    await index_documents([_book()], chunks=whole, tenant_id=tenant, chunker=TINY)
    resumed = await stopping.chunks_of_source("book.md", tenant)
    assert resumed == await whole.chunks_of_source("book.md", tenant)
    assert report.chunks_written == len(resumed)


@pytest.mark.asyncio
async def test_a_changed_large_document_is_still_replaced_in_one_write() -> None:
    store = StepRecordingStore()
    tenant = new_tenant_id()
    await index_documents([_book()], chunks=store, tenant_id=tenant, chunker=TINY)
    store.upserts.clear()
    seen: list[tuple[int, int]] = []
    changed = _book(word="term")  # every passage new, and every stored one gone
    report = await index_documents(
        [changed],
        chunks=store,
        tenant_id=tenant,
        chunker=TINY,
        progress=lambda done, total: seen.append((done, total)),
    )
    assert store.upserts == []  # nothing new shown beside the old passages before the swap
    total = report.chunks_written
    assert seen == [(0, total), (total, total)]
    stored = await store.chunks_of_source("book.md", tenant)
    assert [chunk.text for chunk in stored] == [span.text for span in TINY.split(changed.text)]
