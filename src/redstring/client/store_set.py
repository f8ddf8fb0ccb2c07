"""The stores one `--db` value opens, as the commands see them."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from redstring.ports.chunk_store import ChunkStore
from redstring.ports.event_log import EventLog
from redstring.ports.graph_store import GraphStore
from redstring.ports.vector_store import VectorStore


@dataclass(frozen=True)
class StoreSet:
    """The graph, vector and chunk stores and the event log of one database.

    `chunks` is `None` for a backend without a chunk store, and `events` for
    one without an event log (`build` then logs in memory only). `backend`
    names the kind of database ("SQLite", "PostgreSQL") for messages.
    """

    backend: str
    graph: GraphStore
    vectors: VectorStore
    chunks: ChunkStore | None
    events: EventLog | None = None


class StoreOpener(Protocol):
    """Opens the stores of one `--db` value for the length of an `async with`."""

    def __call__(
        self,
        db: str,
        *,
        dimension: int | None,
        create: bool,
        migrate: bool,
        language: str | None = None,
    ) -> AbstractAsyncContextManager[StoreSet]:
        """`dimension=None` takes the one the database records; `create=False`
        raises `DatabaseNotFoundError` for a database that does not exist;
        `language` is the passages' text analysis (`None`: the database's)."""
        ...
