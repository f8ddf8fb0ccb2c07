"""A client opener that hands every client the same in-memory stores, as one database."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redstring.chunks.in_memory import InMemoryChunkStore
from redstring.client.store_set import StoreOpener, StoreSet
from redstring.events.in_memory import InMemoryEventLog
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.vector.in_memory import InMemoryVectorStore


def memory_opener(dimension: int) -> StoreOpener:
    """An `opener` whose every call yields one in-memory `StoreSet` of `dimension`."""
    stores = StoreSet(
        backend="memory",
        graph=InMemoryGraphStore(),
        vectors=InMemoryVectorStore(dimension=dimension),
        chunks=InMemoryChunkStore(dimension=dimension),
        events=InMemoryEventLog(),
    )

    @asynccontextmanager
    async def opener(
        db: str,
        *,
        dimension: int | None,
        create: bool,
        migrate: bool,
        language: str | None = None,
    ) -> AsyncIterator[StoreSet]:
        yield stores

    return opener
