"""`AsyncRedstring`: one object for the whole job (ADR 0160).

Opened from a SQLite path or a `postgresql://` URL, with one tenant and one embedding
provider, it indexes documents, builds the graph with a model, ranks entities and
passages, fetches an entity with its neighbours and counts what each tenant holds. The
stores open on first use (or on `async with`), once however many calls arrive together,
and close with `close()`. `Redstring` (`redstring.client.sync`) is the same object for
code without an event loop.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Self
from uuid import UUID

from redstring.client import queries, upkeep
from redstring.client.answers import (
    EntityAnswer,
    EntitySearchAnswer,
    PassageSearchAnswer,
    StatsAnswer,
)
from redstring.client.catalogue import TenantCatalogue, describe_tenant, read_passage
from redstring.client.check import CheckReport
from redstring.client.check import check as check_stores
from redstring.client.documents import Documents, gather_documents
from redstring.client.embeddings import EmbeddingChoice, resolve_embeddings
from redstring.client.errors import EMBEDDINGS_ARGUMENT
from redstring.client.hints import empty_hint
from redstring.client.indexing import index_and_mirror
from redstring.client.removal import remove_document, require_document_id_argument
from redstring.client.store_set import (
    HeldStores,
    StoreOpener,
    StoreSet,
    held_call,
    require_opener,
)
from redstring.client.stored_models import TenantModels
from redstring.client.stores import open_store_set, require_db
from redstring.client.tenants import client_tenant
from redstring.client.upkeep import RebuildReport
from redstring.composition.build_graph import (
    GraphBuildReport,
    build_graph,
    require_build_progress,
)
from redstring.composition.build_policy import (
    DEFAULT_MAX_FAILED_SHARE,
    check_build_arguments,
    check_build_model,
    preflight,
)
from redstring.composition.index_documents import (
    IndexProgressCallback,
    IndexReport,
    require_index_progress,
)
from redstring.composition.rekey import RekeyReport
from redstring.domain.chunk import StoredChunk
from redstring.domain.document import SourceDocument
from redstring.domain.errors import (
    ChunkStoreUnavailableError,
)
from redstring.domain.events import MergeUndone
from redstring.domain.ids import TenantId
from redstring.domain.retrieval import ModeName
from redstring.domain.search_request import SearchRequest
from redstring.domain.tokenize import Analyzer
from redstring.domain.validation import require_bool, require_lookup_text
from redstring.extraction.domains import AUTO, DomainSpec
from redstring.extraction.extractor import ProgressCallback
from redstring.llm.openai_compatible import OpenAICompatibleLlmProvider
from redstring.ports.chunk_store import ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.llm_provider import LlmProvider

#: The database a client opens when none is named: a SQLite file in the working directory.
DEFAULT_DB = "redstring.db"


_log = logging.getLogger("redstring")


class AsyncRedstring:
    """A redstring database, one tenant of it, and one embedding provider.

    `db` is a SQLite file path (created on first use), a `postgresql://`
    URL, or `":memory:"` for a database that lives as long as the client;
    `tenant` a name or UUID (default: the command line's `default` tenant);
    `embeddings` is `"local"`, `"multilingual"`, `"none"`, an
    `EmbeddingProvider`, or `None` for the local model when its extra is
    installed. `threads` is how many cores the local model embeds on (`None`:
    all this process may use; one thread gives the same vectors). A new database is
    made at the provider's dimension. `migrate=True` upgrades a database
    written by an older redstring in place. `create=False` is for a client
    that only reads: the database must exist (`DatabaseNotFoundError`) and a
    SQLite file opens read-only, without the write lock. `language` is the
    text analysis of passages (a Snowball language such as `"english"` or
    `"german"`, or `"none"`): `None` keeps the one the database records,
    English for a new one; another than a database holding passages records
    raises `AnalysisMismatchError`. `opener` replaces
    how the stores open (`open_store_set`), e.g. with in-memory stores.

    Use `async with AsyncRedstring(...) as rs:`, or call `close()`; a closed
    client raises `ClientClosedError`. The stores belong to the event loop
    they opened in: a call from another loop (a second `asyncio.run`) raises
    `ClientLoopError`.
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
        self._db = require_db(db)
        self._tenant = client_tenant(tenant)
        self._embeddings = resolve_embeddings(embeddings, threads=threads)
        self._migrate = require_bool("migrate", migrate)
        self._language = None if language is None else Analyzer(language).language
        self._create = require_bool("create", create)
        self._opener: StoreOpener = open_store_set if opener is None else require_opener(opener)
        self._held = HeldStores(self._open_stores, client=type(self).__name__)
        self._models = TenantModels()  # read on the first search that embeds

    @property
    def db(self) -> str:
        """The database path or URL."""
        return self._db

    @property
    def tenant_id(self) -> TenantId:
        """The tenant every call reads and writes."""
        return self._tenant

    @property
    def embeddings(self) -> EmbeddingProvider | None:
        """The embedding provider, `None` when nothing is embedded."""
        return self._embeddings

    def __repr__(self) -> str:
        provider = "none" if self._embeddings is None else type(self._embeddings).__name__
        state = " closed" if self._held.closed else ""
        return (
            f"<{type(self).__name__} {self._db!r} tenant={self._tenant} "
            f"embeddings={provider}{state}>"
        )

    @held_call
    async def open(self) -> Self:
        """Open the stores now (they open on first use otherwise); returns the client."""
        await self._open("open")
        return self

    def _open_stores(self) -> AbstractAsyncContextManager[StoreSet]:
        dimension = None if self._embeddings is None else self._embeddings.dimension
        return self._opener(
            self._db,
            dimension=dimension,
            create=self._create,
            migrate=self._migrate,
            language=self._language,
        )

    async def _open(self, method: str) -> StoreSet:
        return await self._held.stores(method)

    async def close(self) -> None:
        """Close the stores. Closing twice is harmless; any other call then raises.

        A call still opening them is waited for; the calls in flight are cancelled,
        and end with `ClientClosedError`, before the stores close (a call that
        awaits this closes them as it ends). From another event loop than theirs,
        the stores close on their own loop while it runs, else here (an ended
        `asyncio.run` closed them).
        """
        await self._held.close()

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    @held_call
    async def index(
        self,
        documents: Documents,
        *,
        root: str | os.PathLike[str] | None = None,
        encoding: str = "utf-8",
        keep_missing: bool = False,
        progress: IndexProgressCallback | None = None,
    ) -> IndexReport:
        """Split `documents` into passages of the tenant, embedded when there is a provider.

        `documents` is a path (file or folder of .txt/.md files), a
        `SourceDocument`, or a list of either. A file's document id is its
        path relative to `root`, by default to the folder holding the path
        named; files are decoded with `encoding` (a leading byte-order mark
        dropped), and one that does not decode, or that is no regular file (a
        pipe, a socket, a device), is skipped and listed in the report's
        `skipped`.
        Indexing a document again writes only what changed; each document is
        stored as soon as it is done, so an interrupted run keeps them.
        A folder indexed again is mirrored: the documents read from files
        under it that are no longer there are removed (listed in the report's
        `removed`) unless `keep_missing`; a folder that is its own `root`
        removes only ids of a file directly in it or under a subfolder it
        still has, never another folder's. A folder left with no file is
        mirrored too: what it held is removed.
        `progress(chunks_done, chunks_total)` follows the chunks. Raises
        `DocumentPathError` for a path that does not exist or cannot be read,
        and `NoDocumentsError` when the paths hold nothing to read and nothing
        indexed from them was removed: there was nothing to do.
        """
        require_bool("keep_missing", keep_missing)
        require_index_progress(progress)
        read = gather_documents(
            documents, encoding=encoding, root=root, allow_empty=not keep_missing
        )
        async with self._models.writing():
            return await index_and_mirror(
                read,
                chunks=await self._chunks("index"),
                tenant_id=self._tenant,
                embeddings=self._embeddings,
                keep_missing=keep_missing,
                progress=progress,
            )

    @held_call
    async def remove(self, document_id: str) -> int:
        """Remove the document `document_id` (a passage's `source_id`) from the tenant.

        Its passages go with their vectors, in one transaction; returns how
        many there were. Raises `InvalidArgumentError` when the tenant holds
        no such document, or for an id holding a NUL (no store holds one).
        """
        checked = require_document_id_argument(document_id)
        async with self._models.writing():
            chunks = await self._chunks("remove")
            return await remove_document(chunks, self._tenant, checked)

    async def _chunks(self, method: str) -> ChunkStore:
        stores = await self._open(method)
        if stores.chunks is None:
            raise ChunkStoreUnavailableError(backend=stores.backend, command=method)
        return stores.chunks

    @held_call
    async def build(
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
        """Extract entities and relationships of `documents` into the tenant's graph.

        `documents`, `root` and `encoding` as for `index` (the same files get
        the same ids); a file that does not decode, or that is no regular
        file, is skipped with a warning on the `redstring` log.

        `model` is a model name served at `base_url` over the OpenAI chat
        protocol (`api_key` if it needs one), or an `LlmProvider`. Before any
        chunk `build_graph` checks the server: an unreachable server, an
        unknown model or a missing `openai` extra raises. When more than
        `max_failed_share` of the chunks fail, raises `BuildFailedError`
        carrying the report; pass `max_failed_share=1.0` to take partial
        results. `pair_questions` above 0 asks about up to that many pairs of
        a passage's entities, one question each, when its answer states no
        relationship (small models leave them out). Every argument is checked
        before the server is: `InvalidArgumentError` names a wrong one.
        """
        require_build_progress(progress)
        check_build_model(model, base_url)
        check_build_arguments(
            max_failed_share=max_failed_share, pair_questions=pair_questions, domain=domain
        )
        read = gather_documents(documents, encoding=encoding, root=root)
        for skipped in read.skipped:
            _log.warning("skipped %s: %s", skipped.id, skipped.reason)
        docs = read.documents
        if isinstance(model, str):
            assert base_url is not None  # check_build_model
            async with OpenAICompatibleLlmProvider(
                base_url=base_url, model=model, api_key=api_key
            ) as provider:
                return await self._build(
                    docs,
                    provider,
                    domain=domain,
                    max_failed_share=max_failed_share,
                    progress=progress,
                    pair_questions=pair_questions,
                )
        return await self._build(
            docs,
            model,
            domain=domain,
            max_failed_share=max_failed_share,
            progress=progress,
            pair_questions=pair_questions,
        )

    async def _build(
        self,
        documents: list[SourceDocument],
        provider: LlmProvider,
        *,
        domain: DomainSpec,
        max_failed_share: float,
        progress: ProgressCallback | None,
        pair_questions: int,
    ) -> GraphBuildReport:
        self._held.check("build")
        await preflight(provider)  # before the database is opened (or created)
        stores = await self._open("build")
        concurrency = getattr(provider, "max_concurrency", 4)
        async with self._models.writing():  # a build writes passages too
            return await build_graph(
                documents,
                provider=provider,
                graph=stores.graph,
                tenant_id=self._tenant,
                embeddings=self._embeddings,
                vectors=stores.vectors if self._embeddings is not None else None,
                chunks=stores.chunks,
                log=stores.events,
                domain=domain,
                progress=progress,
                concurrency=concurrency if isinstance(concurrency, int) else 4,
                max_failed_share=max_failed_share,
                pair_questions=pair_questions,
            )

    @held_call
    async def search(
        self,
        query: str,
        *,
        k: int = 10,
        mode: ModeName | None = None,
        types: Sequence[str] | None = None,
        min_confidence: float | None = None,
    ) -> EntitySearchAnswer:
        """The `k` entities best matching `query`, best first.

        `mode` is "hybrid" (the default with a provider), "semantic" or
        "lexical" (the default without); `types` keeps only those entity types;
        `min_confidence` (0..1, `None`: no threshold) answers empty when no
        candidate's `confidence` reaches it: "nothing here matches". A candidate
        is any ranked result, returned or not, and it does not filter rows: with
        `k=1` the one row can be below it when one ranked after it reaches it.
        """
        resolved = queries.resolve_mode(mode, self._embeddings, fix=EMBEDDINGS_ARGUMENT)
        request = SearchRequest.of(query, self._tenant, k=k, mode=resolved, only=types,
                                   only_name="types", min_confidence=min_confidence)  # fmt: skip
        stores = await self._open("search")
        answer = await queries.search_entities(stores, self._embeddings, request, self._models)
        if answer.matches or k == 0:
            return answer
        why = empty_hint(stores, self._tenant, passages=False, mode=resolved,
                         min_confidence=min_confidence, only=types)  # fmt: skip
        return answer.model_copy(update={"hint": await why})

    @held_call
    async def passages(
        self,
        query: str,
        *,
        k: int = 5,
        mode: ModeName | None = None,
        sources: Sequence[str] | None = None,
        min_confidence: float | None = None,
    ) -> PassageSearchAnswer:
        """The `k` passages best matching `query`, best first.

        `mode` as for `search`; `min_confidence` answers empty when no
        candidate passage (returned or not) reaches it, and does not filter
        rows; `sources` keeps only passages of those document ids. A `types` or
        `sources` value holding a NUL, which no type or id holds, raises
        `InvalidArgumentError`.
        """
        resolved = queries.resolve_mode(mode, self._embeddings, fix=EMBEDDINGS_ARGUMENT)
        request = SearchRequest.of(query, self._tenant, k=k, mode=resolved, only=sources,
                                   only_name="sources", min_confidence=min_confidence)  # fmt: skip
        stores = await self._open("passages")
        answer = await queries.search_passages(stores, self._embeddings, request, self._models)
        if answer.matches or k == 0:
            return answer
        why = empty_hint(stores, self._tenant, passages=True, mode=resolved,
                         min_confidence=min_confidence, only=sources)  # fmt: skip
        return answer.model_copy(update={"hint": await why})

    @held_call
    async def entity(self, entity_id: str | UUID) -> EntityAnswer:
        """The entity `entity_id` (an `id` from `search`) with its neighbours.

        Raises `UnknownEntityError` when the tenant holds no such entity.
        """
        parsed = queries.parse_entity_id(entity_id)
        stores = await self._open("entity")
        return await queries.get_entity(stores, self._tenant, parsed)

    @held_call
    async def stats(self) -> StatsAnswer:
        """What every tenant of the database holds, and the client's tenant whatever it holds."""
        stores = await self._open("stats")
        return await queries.stats(stores, self._tenant)

    @held_call
    async def describe(self) -> TenantCatalogue:
        """What the client's tenant holds: entity types and sources with their counts.

        Also names the other tenants holding data, and the embedding models that
        embedded its passages; an unknown tenant gives zeros.
        """
        stores = await self._open("describe")
        return await describe_tenant(stores, self._tenant, self._models)

    @held_call
    async def passage(self, passage_id: str) -> StoredChunk:
        """The whole stored passage `passage_id` (a `chunk_id` from `passages`).

        Raises `InvalidArgumentError` when the tenant holds no such passage, or
        for an id holding a NUL.
        """
        checked = require_lookup_text("passage_id", passage_id)
        stores = await self._open("passage")
        return await read_passage(stores, self._tenant, checked)

    @held_call
    async def check(self) -> CheckReport:
        """Every damaged row of the database, of every tenant, read and reported; nothing changes.

        A row that would raise `DamagedRowError` when read is listed with its
        table, tenant and what is wrong (`redstring check` from the command line).
        """
        stores = await self._open("check")
        return await check_stores(stores, self._db)

    @held_call
    async def rekey(self, *, force: bool = False) -> RekeyReport:
        """Re-file the tenant's blocking index under the current key version.

        Needed after opening an older file with `migrate=True`; a current
        index is left alone unless `force`.
        """
        require_bool("force", force)
        stores = await self._open("rekey")
        return await upkeep.rekey(stores, self._tenant, force=force)

    @held_call
    async def undo(self, merge_event_id: str | UUID) -> MergeUndone:
        """Reverse the merge `merge_event_id` (the `event_id` of a build report's merge).

        Raises `MergeNotFoundError`, `MergeAlreadyUndoneError` or
        `MergeNotUndoableError` (`MergeRetiredError` when a later build retired
        what the merge involves; nothing changes then), and
        `EventLogUnavailableError` for stores without an event log.
        """
        merge = upkeep.parse_merge_id(merge_event_id)
        stores = await self._open("undo")
        return await upkeep.undo(stores, self._tenant, merge, self._embeddings, self._models)

    @held_call
    async def rebuild(self) -> RebuildReport:
        """Empty the tenant's graph and vectors and replay its event log into them.

        Passages are untouched; no model is called. Safe to run again after an
        interruption.
        """
        stores = await self._open("rebuild")
        return await upkeep.rebuild(stores, self._tenant, self._models)
