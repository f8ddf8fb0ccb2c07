"""A dict-backed `ChunkWriter`: a real implementation of that one capability, for tests.

The lead switches these tests to `InMemoryChunkStore` when the chunk store lands.
"""

from __future__ import annotations

from collections.abc import Sequence

from redstring import TenantId
from redstring.domain.chunk import ChunkId, StoredChunk


class DictChunkWriter:
    """Stores chunks keyed by (tenant, chunk id); `rows(tenant)` reads them back by id."""

    def __init__(self) -> None:
        self._rows: dict[tuple[TenantId, ChunkId], StoredChunk] = {}

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        for chunk in chunks:
            self._rows[(chunk.tenant_id, chunk.id)] = chunk.model_copy(deep=True)

    async def replace_source(
        self, source_id: str, tenant_id: TenantId, chunks: Sequence[StoredChunk]
    ) -> None:
        for chunk in chunks:
            if chunk.source_id != source_id or chunk.tenant_id != tenant_id:
                raise ValueError(f"chunk {chunk.id} does not belong to {source_id}/{tenant_id}")
        for key in [
            k for k, row in self._rows.items() if k[0] == tenant_id and row.source_id == source_id
        ]:
            del self._rows[key]
        await self.upsert_chunks(chunks)

    def rows(self, tenant_id: TenantId) -> list[StoredChunk]:
        held = [row for (tenant, _), row in self._rows.items() if tenant == tenant_id]
        return sorted(held, key=lambda row: str(row.id))
