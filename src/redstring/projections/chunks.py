"""Folding chunked documents into a chunk store."""

from __future__ import annotations

from redstring.domain.events import DocumentChunked, Event
from redstring.ports.chunk_store import ChunkWriter


class ChunkProjection:
    """Makes each `DocumentChunked`'s chunks the whole of its document in `chunks`."""

    name = "chunks"

    def __init__(self, chunks: ChunkWriter) -> None:
        self._chunks = chunks

    async def apply(self, event: Event) -> None:
        """Replace the document's chunks; other events are ignored."""
        if isinstance(event, DocumentChunked):
            await self._chunks.replace_source(event.document_id, event.tenant_id, event.chunks)
