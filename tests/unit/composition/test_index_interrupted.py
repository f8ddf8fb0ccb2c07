"""An interrupted `index_documents` keeps the documents it finished (B166, ADR 0162).

The run is stopped inside the embedding provider after a number of batches,
as Ctrl-C would stop it, over a real SQLite file; the file is reopened, the
finished documents are there, and a second run embeds only what is missing
and leaves no passage twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from redstring import SourceDocument, index_documents
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.ids import tenant_id_for
from redstring.providers import FakeEmbeddingProvider

DIMENSION = 8
TENANT = tenant_id_for("interrupted")
CHUNKER = SlidingWindowChunker(size=40, overlap=0)
#: Six documents of two chunks each (40-character windows, no overlap).
DOCUMENTS = [
    SourceDocument(id=f"doc{n}.txt", text=f"document {n} first half".ljust(40) + f"second half {n}")
    for n in range(6)
]


class Stop(Exception):
    """Stands for the KeyboardInterrupt Ctrl-C raises inside the running call."""


class CountingEmbeddings(FakeEmbeddingProvider):
    """Counts the texts it embeds; raises `Stop` at batch `stop_at` (1-based), if given."""

    def __init__(self, *, stop_at: int | None = None) -> None:
        super().__init__(dimension=DIMENSION)
        self.stop_at = stop_at
        self.batches = 0
        self.texts = 0

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches += 1
        if self.batches == self.stop_at:
            raise Stop
        self.texts += len(texts)
        return await super().embed(texts)


async def _index(path: Path, embeddings: CountingEmbeddings) -> None:
    stores = open_sqlite(path, dimension=DIMENSION)
    try:
        await index_documents(
            DOCUMENTS,
            chunks=stores.chunks,
            tenant_id=TENANT,
            embeddings=embeddings,
            chunker=CHUNKER,
            batch_size=3,
        )
    finally:
        await stores.close()


async def _stored(path: Path) -> dict[str, int]:
    stores = open_sqlite(path)
    try:
        counts = {}
        for document in DOCUMENTS:
            chunks = await stores.chunks.chunks_of_source(document.id, TENANT)
            assert all(chunk.embedding is not None for chunk in chunks)
            if chunks:
                counts[document.id] = len(chunks)
        return counts
    finally:
        await stores.close()


@pytest.mark.asyncio
async def test_an_interrupted_run_keeps_finished_documents_and_a_rerun_completes(
    tmp_path: Path,
) -> None:
    assert all(len(CHUNKER.split(document.text)) == 2 for document in DOCUMENTS)
    db = tmp_path / "x.db"
    first = CountingEmbeddings(stop_at=4)  # batches 1-3 embed 9 chunks, batch 4 is stopped
    with pytest.raises(Stop):
        await _index(db, first)
    # 9 chunks embedded: doc0..doc3 whole (8 chunks) and half of doc4, kept as it is new
    assert await _stored(db) == {**{f"doc{n}.txt": 2 for n in range(4)}, "doc4.txt": 1}
    again = CountingEmbeddings()
    await _index(db, again)
    assert again.texts == 3  # doc4's other half and doc5: nothing finished is embedded twice
    assert await _stored(db) == {f"doc{n}.txt": 2 for n in range(6)}
    stores = open_sqlite(db)
    try:
        assert (await stores.chunks.chunk_summary(TENANT)).chunks == 12  # nothing twice
    finally:
        await stores.close()
