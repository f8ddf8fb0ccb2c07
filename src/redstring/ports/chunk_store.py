"""Storing the passages documents were split into, per tenant."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId


@runtime_checkable
class ChunkWriter(Protocol):
    """Writes chunks."""

    async def upsert_chunks(self, chunks: Sequence[StoredChunk]) -> None:
        """Insert or replace each chunk, keyed by (tenant, chunk id), as one atomic batch."""
        ...

    async def replace_source(
        self, source_id: str, tenant_id: TenantId, chunks: Sequence[StoredChunk]
    ) -> None:
        """Make `chunks` the whole of `source_id` in `tenant_id`, atomically.

        Chunks of that source not in `chunks` are removed; every chunk given
        must belong to `source_id` and `tenant_id`, or `ValueError` is raised
        and nothing changes.
        """
        ...
