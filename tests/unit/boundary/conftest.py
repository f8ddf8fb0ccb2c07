"""The three store families a boundary test runs against: memory, SQLite and PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio

from redstring.composition.postgres_stores import open_postgres
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore
from redstring.stores import (
    InMemoryChunkStore,
    InMemoryGraphStore,
    InMemoryVectorStore,
    open_sqlite,
)

DIMENSION = 8


@dataclass
class Stores:
    """One family's graph, vector and chunk stores."""

    kind: str
    graph: GraphStore
    vectors: VectorStore
    chunks: ChunkStore


@pytest_asyncio.fixture(params=["memory", "sqlite", "postgres"])
async def stores(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Stores]:
    """Fresh stores of each family in turn (PostgreSQL on the embedded server)."""
    kind = request.param
    if kind == "memory":
        yield Stores(
            kind,
            InMemoryGraphStore(),
            InMemoryVectorStore(dimension=DIMENSION),
            InMemoryChunkStore(dimension=DIMENSION),
        )
    elif kind == "sqlite":
        async with open_sqlite(tmp_path / "boundary.db", dimension=DIMENSION) as opened:
            yield Stores(kind, opened.graph, opened.vectors, opened.chunks)
    else:
        url = request.getfixturevalue("postgres_url")
        opened = await open_postgres(
            url, dimension=DIMENSION, schema=f"b_{uuid.uuid4().hex[:12]}", min_size=1, max_size=2
        )
        try:
            yield Stores(kind, opened.graph, opened.vectors, opened.chunks)
        finally:
            await opened.close()
