"""`Redstring`: `AsyncRedstring` for code without an event loop.

It runs one `AsyncRedstring` on a `LoopThread` (an event loop in a daemon
thread) and waits for each call, so the two share every contract (ADR 0160).
Calls may come from any thread and run concurrently on that loop. A call
from inside a callback of a running call (`progress`) raises
`ReentrantCallError`; `close()` from another thread ends the calls in flight
with `ClientClosedError`; a client dropped without `close()` is closed when
it is garbage-collected.
"""

from __future__ import annotations

import os
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
from redstring.client.check import CheckReport
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
from redstring.domain.events import MergeUndone
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import ModeName
from redstring.extraction.domains import AUTO, DomainSpec
from redstring.extraction.extractor import ProgressCallback
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.llm_provider import LlmProvider
from redstring.storage.loop_thread import LoopThread


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
        language: str | None = None,
    ) -> None:
        self._client = AsyncRedstring(
            db,
            tenant=tenant,
            embeddings=embeddings,
            threads=threads,
            migrate=migrate,
            create=create,
            opener=opener,
            language=language,
        )
        self._bridge = LoopThread("redstring-client")
        self._bridge.stop_when_collected(self, self._client.close)
        try:
            self._run(self._client.open())
        except BaseException:
            self._bridge.stop(self._client.close)
            raise

    def _run[T](self, call: Coroutine[Any, Any, T]) -> T:
        return self._bridge.run(call, method=getattr(call, "__name__", "call"))

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
        """Close the stores and stop the loop thread. Closing twice is harmless.

        Calls still running (from other threads) end with `ClientClosedError`.
        """
        self._bridge.stop(self._client.close)

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
        pair_questions: int = 0,
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
                pair_questions=pair_questions,
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

    def check(self) -> CheckReport:
        """See `AsyncRedstring.check`."""
        return self._run(self._client.check())

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
for _name in (*_METHODS, "check", "rekey", "undo", "rebuild"):
    getattr(Redstring, _name).__doc__ = getattr(AsyncRedstring, _name).__doc__
