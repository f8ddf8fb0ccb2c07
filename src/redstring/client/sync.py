"""`Redstring`: `AsyncRedstring` for code without an event loop.

It runs one `AsyncRedstring` on a private event loop in a daemon thread and
waits for each call, so the two share every contract (ADR 0160). Calls may
come from any thread; they run one at a time on that loop.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine, Sequence
from types import TracebackType
from typing import Any, Self
from uuid import UUID

from redstring.client.answers import (
    EntityAnswer,
    EntitySearchAnswer,
    PassageSearchAnswer,
    StatsAnswer,
)
from redstring.client.catalogue import TenantCatalogue
from redstring.client.client import DEFAULT_DB, AsyncRedstring
from redstring.client.documents import Documents
from redstring.client.embeddings import EmbeddingChoice
from redstring.client.store_set import StoreOpener
from redstring.client.upkeep import RebuildReport
from redstring.composition.build_graph import GraphBuildReport
from redstring.composition.build_policy import DEFAULT_MAX_FAILED_SHARE
from redstring.composition.index_documents import IndexProgressCallback, IndexReport
from redstring.composition.rekey import RekeyReport
from redstring.domain.chunk import StoredChunk
from redstring.domain.errors import ClientClosedError
from redstring.domain.events import MergeUndone
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import ModeName
from redstring.extraction.domains import AUTO, DomainSpec
from redstring.extraction.extractor import ProgressCallback
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.llm_provider import LlmProvider


class Redstring:
    """A redstring database, one tenant of it, and one embedding provider (blocking calls).

    Takes the arguments of `AsyncRedstring` and opens the stores at once.
    Use `with Redstring(...) as rs:`, or call `close()`; a closed client
    raises `ClientClosedError`.
    """

    def __init__(
        self,
        db: str | os.PathLike[str] = DEFAULT_DB,
        *,
        tenant: str | UUID | None = None,
        embeddings: EmbeddingChoice = None,
        threads: int | None = None,
        migrate: bool = False,
        create: bool = True,
        opener: StoreOpener | None = None,
    ) -> None:
        self._client = AsyncRedstring(
            db,
            tenant=tenant,
            embeddings=embeddings,
            threads=threads,
            migrate=migrate,
            create=create,
            opener=opener,
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="redstring-client", daemon=True
        )
        self._thread.start()
        try:
            self._run(self._client.open())
        except BaseException:
            self._stop()
            raise

    def _run[T](self, call: Coroutine[Any, Any, T]) -> T:
        if not self._thread.is_alive():
            call.close()
            raise ClientClosedError(method=getattr(call, "__name__", "call"))
        return asyncio.run_coroutine_threadsafe(call, self._loop).result()

    def _stop(self) -> None:
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
        self._loop.close()

    @property
    def db(self) -> str:
        """The database path or URL."""
        return self._client.db

    @property
    def tenant_id(self) -> TenantId:
        """The tenant every call reads and writes."""
        return self._client.tenant_id

    @property
    def embeddings(self) -> EmbeddingProvider | None:
        """The embedding provider, `None` when nothing is embedded."""
        return self._client.embeddings

    def __repr__(self) -> str:
        return repr(self._client).replace(type(self._client).__name__, type(self).__name__, 1)

    def close(self) -> None:
        """Close the stores and stop the loop thread. Closing twice is harmless."""
        if self._thread.is_alive():
            try:
                self._run(self._client.close())
            finally:
                self._stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def index(
        self,
        documents: Documents,
        *,
        root: str | os.PathLike[str] | None = None,
        encoding: str = "utf-8",
        keep_missing: bool = False,
        progress: IndexProgressCallback | None = None,
    ) -> IndexReport:
        """See `AsyncRedstring.index`."""
        return self._run(
            self._client.index(
                documents,
                root=root,
                encoding=encoding,
                keep_missing=keep_missing,
                progress=progress,
            )
        )

    def remove(self, document_id: str) -> int:
        """See `AsyncRedstring.remove`."""
        return self._run(self._client.remove(document_id))

    def build(
        self,
        documents: Documents,
        *,
        model: str | LlmProvider,
        base_url: str | None = None,
        api_key: str | None = None,
        domain: DomainSpec = AUTO,
        max_failed_share: float = DEFAULT_MAX_FAILED_SHARE,
        root: str | os.PathLike[str] | None = None,
        encoding: str = "utf-8",
        progress: ProgressCallback | None = None,
    ) -> GraphBuildReport:
        """See `AsyncRedstring.build`."""
        return self._run(
            self._client.build(
                documents,
                model=model,
                base_url=base_url,
                api_key=api_key,
                domain=domain,
                max_failed_share=max_failed_share,
                root=root,
                encoding=encoding,
                progress=progress,
            )
        )

    def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: ModeName | None = None,
        types: Sequence[str] | None = None,
        min_confidence: float | None = None,
    ) -> EntitySearchAnswer:
        """See `AsyncRedstring.search`."""
        return self._run(
            self._client.search(query, k=k, mode=mode, types=types, min_confidence=min_confidence)
        )

    def passages(
        self,
        query: str,
        *,
        k: int = 5,
        mode: ModeName | None = None,
        sources: Sequence[str] | None = None,
        min_confidence: float | None = None,
    ) -> PassageSearchAnswer:
        """See `AsyncRedstring.passages`."""
        return self._run(
            self._client.passages(
                query, k=k, mode=mode, sources=sources, min_confidence=min_confidence
            )
        )

    def entity(self, entity_id: str | UUID) -> EntityAnswer:
        """See `AsyncRedstring.entity`."""
        return self._run(self._client.entity(entity_id))

    def stats(self) -> StatsAnswer:
        """See `AsyncRedstring.stats`."""
        return self._run(self._client.stats())

    def describe(self) -> TenantCatalogue:
        """See `AsyncRedstring.describe`."""
        return self._run(self._client.describe())

    def passage(self, passage_id: str) -> StoredChunk:
        """See `AsyncRedstring.passage`."""
        return self._run(self._client.passage(passage_id))

    def rekey(self, *, force: bool = False) -> RekeyReport:
        """See `AsyncRedstring.rekey`."""
        return self._run(self._client.rekey(force=force))

    def undo(self, merge_event_id: str | UUID) -> MergeUndone:
        """See `AsyncRedstring.undo`."""
        return self._run(self._client.undo(merge_event_id))

    def rebuild(self) -> RebuildReport:
        """See `AsyncRedstring.rebuild`."""
        return self._run(self._client.rebuild())


_METHODS = ("index", "build", "search", "passages", "entity", "stats", "describe", "passage")
for _name in (*_METHODS, "rekey", "undo", "rebuild"):
    getattr(Redstring, _name).__doc__ = getattr(AsyncRedstring, _name).__doc__
