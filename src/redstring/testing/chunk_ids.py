"""Chunk ids in a store: a chunk is never replaced by another source's chunk.

Mixed into `ChunkStoreCompliance`. The cases pair a source id and a text
whose plain concatenation around a separator is the same (issue 14 item 3):
each pair must stay two chunks in every store.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import pytest

from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkStore
from redstring.testing._support import fresh_tenant

#: (source id, text) pairs that a separator-joined encoding would give one id.
_AMBIGUOUS = [
    (("notes\x1fdraft", "Ada wrote the program."), ("notes", "draft\x1fAda wrote the program.")),
    (("a:1", "b"), ("a", "1:b")),
    (("5:notes", "x"), ("5", ":notesx")),
]


def _chunk(tenant: TenantId, source_id: str, text: str) -> StoredChunk:
    # Validated as a stored row: a source id stored before control characters were
    # refused may hold one, and its chunk id must still be its own.
    row = {"tenant_id": tenant, "source_id": source_id, "text": text}
    return StoredChunk.model_validate({**row, "index": 0, "start": 0, "end": len(text)})


class ChunkIdCompliance(ABC):
    """Chunks whose source id and text only differ in where one ends stay apart."""

    @abstractmethod
    async def make_store(self, dimension: int) -> ChunkStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    @pytest.mark.parametrize("pair", _AMBIGUOUS)
    async def test_a_source_id_and_text_that_join_alike_stay_two_chunks(
        self, pair: tuple[tuple[str, str], tuple[str, str]]
    ) -> None:
        store = await self.make_store(8)
        tenant = fresh_tenant()
        first, second = (_chunk(tenant, source, text) for source, text in pair)
        assert first.id != second.id
        await store.replace_source(first.source_id, tenant, [first])
        await store.replace_source(second.source_id, tenant, [second])
        assert await store.chunks_of_source(first.source_id, tenant) == [first]
        assert await store.chunks_of_source(second.source_id, tenant) == [second]
        assert await store.get_chunks([first.id], tenant) == [first]
        assert (await store.chunk_summary(tenant)).chunks == 2
