"""Indexing documents into the chunk corpus: chunker, optional embedding provider, chunk store.

Composes a `ChunkStore` with an optional `EmbeddingProvider`; calls no
language model. Each document becomes the chunks of its source (its id), and
a source is replaced atomically, so re-running on an unchanged document writes
nothing and a changed one never shows a mix of old and new chunks. Each
document is written as soon as its embeddings are in (the embedding batches
run across documents), so an interrupted run keeps every document it
finished and a re-run embeds only the rest (ADR 0162). A document still
waiting on later batches has the passages a batch finished stored at once
when nothing else of its source is stored, so a stopped large file keeps
them too (ADR 0325); with no provider, such a document's new passages are
stored a step at a time, so progress moves while it is written (ADR 0535),
and a changed one's are too, its old ones deleted first, all inside one
transaction with its `replace_source` where the store offers one (ADR 0550).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from redstring.composition.transactions import one_transaction
from redstring.domain.chunk import ChunkId, ChunkManifest, StoredChunk
from redstring.domain.chunking import SlidingWindowChunker
from redstring.domain.document import SourceDocument
from redstring.domain.errors import (
    DimensionMismatchError,
    DuplicateDocumentError,
    ModelError,
)
from redstring.domain.ids import TenantId
from redstring.domain.validation import (
    require_at_least_one,
    require_callback,
    require_documents,
    require_tenant_id,
)
from redstring.ports.chunk_store import ChunkPurge, ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider
from redstring.ports.transactions import SharedTransaction
from redstring.projections.vectors import embedding_model

#: Called as `progress(chunks_done, chunks_total)` once the documents are
#: split (before anything is embedded), then after each batch of
#: embeddings, each step of passages written ahead (`WRITE_STEP`) and each
#: document settled (written or found unchanged); a chunk is done once it
#: needs nothing but its write, or once a step wrote it.
IndexProgressCallback = Callable[[int, int], None]

#: How many new passages of a document indexed without a provider are stored
#: at a time before its `replace_source`, so progress moves while a large
#: file is written (a write of this many takes about a second in SQLite).
WRITE_STEP = 512

#: The chunker used when none is given: 1000-character windows, 150 overlapping.
DEFAULT_CHUNKER = SlidingWindowChunker()


class SkippedFile(BaseModel):
    """A file the caller's reader found but did not index: its document id and why; or a
    folder it did not read, whose id is its path ending in `/`."""

    id: str
    reason: str


class IndexReport(BaseModel):
    """What one `index_documents` call did.

    `documents` were given; `empty` of them had no text to index (empty or
    whitespace only); `unchanged` of the others already had exactly these
    chunks stored (embedded, if a provider was given) and were not written;
    `chunks_written` chunks were written for the rest (every chunk of each
    changed source); `embedded` chunks were sent to the provider. `skipped`
    lists the files a reader could not read (the client fills it). `removed`
    lists the ids of the documents taken out: here, those given with no text
    to split (an emptied file) whose passages were stored, and, from the
    client, those whose files left a folder indexed again. `mixed_models`
    (the client fills it) counts the tenant's embedded passages by model when
    a run that embedded leaves them embedded by more than one model.
    """

    documents: int = Field(ge=0)
    unchanged: int = Field(ge=0)
    chunks_written: int = Field(ge=0)
    embedded: int = Field(ge=0)
    empty: int = Field(default=0, ge=0)
    skipped: list[SkippedFile] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    mixed_models: dict[str, int] = Field(default_factory=dict)


@dataclass
class _Plan:
    source_id: str
    chunks: list[StoredChunk]
    write: bool
    #: The ids of the chunks that keep their stored vector, and the positions of the others.
    keep: frozenset[ChunkId] = frozenset()
    fresh: list[int] = field(default_factory=list)
    waiting: int = 0
    #: Whether every chunk stored of the source is one of `chunks`, so those a batch
    #: finishes can be stored before the others without showing an old passage beside them.
    partial: bool = False
    #: How many of `chunks` were counted done by writes ahead of the source's
    #: `replace_source` (a changed document's: in proportion to its steps).
    ahead: int = 0
    #: The ids stored of the source and not among `chunks` (none when `partial`).
    gone: list[ChunkId] = field(default_factory=list)


@dataclass
class _Run:
    documents: int
    chunks: int
    progress: IndexProgressCallback | None
    queue: deque[_Plan] = field(default_factory=deque)
    pending: list[tuple[_Plan, int]] = field(default_factory=list)
    chunks_done: int = 0
    #: The count last told `progress` (it is told 0 first).
    reported: int = 0
    unchanged: int = 0
    empty: int = 0
    written: int = 0
    embedded: int = 0
    removed: list[str] = field(default_factory=list)


async def index_documents(
    documents: Sequence[SourceDocument],
    *,
    chunks: ChunkStore,
    tenant_id: TenantId,
    embeddings: EmbeddingProvider | None = None,
    chunker: SlidingWindowChunker = DEFAULT_CHUNKER,
    batch_size: int = 64,
    progress: IndexProgressCallback | None = None,
) -> IndexReport:
    """Split `documents` into chunks of `tenant_id` in `chunks`, embedding them if asked.

    Documents are split by `chunker` (frozen, so the shared default is safe); each
    chunk carries its document's metadata. A passage occurring twice in one
    document has one id, so it is stored once, at its first occurrence. A
    chunk whose id is already stored keeps its embedding and entity ids (the
    id is derived from the text, so they were computed from the same text),
    unless its embedding was made by another model than `embeddings` (or by an
    unrecorded one): that chunk is embedded again. Each embedded chunk
    records the model (`StoredChunk.embedding_model`). Missing embeddings
    are computed with `embeddings.embed` in batches of `batch_size` texts,
    across documents. Sources are written in document
    order, each with one `replace_source`; documents not given are untouched.
    A document with no text to split takes its stored passages out, and the
    report lists it in `removed`.

    Raises before anything is embedded or written: `InvalidArgumentError` for
    `batch_size < 1` or a `progress` that is not callable, `InvalidArgumentError`
    naming a tenant id that is not a UUID or a document field that is not
    encodable text or finite JSON,
    `DuplicateDocumentError` for two documents with one id,
    `DimensionMismatchError` when the provider and the store disagree.
    """
    require_at_least_one("batch_size", batch_size)
    require_index_progress(progress)
    require_tenant_id(tenant_id)
    require_documents(documents)
    _require_distinct_ids(documents)
    if embeddings is not None and embeddings.dimension != chunks.dimension:
        raise DimensionMismatchError(
            expected=chunks.dimension,
            actual=embeddings.dimension,
            context="index_documents: the chunk store's dimension against the embedding provider's",
        )
    model = None if embeddings is None else embedding_model(embeddings)
    wanted = [_wanted(document, chunker, tenant_id) for document in documents]  # split once
    run = _Run(documents=len(documents), chunks=sum(map(len, wanted)), progress=progress)
    if progress is not None:
        progress(0, run.chunks)
    for document, passages in zip(documents, wanted, strict=True):
        plan = await _plan(document.id, passages, chunks, tenant_id, model=model)
        run.queue.append(plan)
        if plan.write:
            for position in plan.fresh if embeddings is not None else ():
                run.pending.append((plan, position))
                plan.waiting += 1
        if embeddings is None:
            changed = _changed_in_steps(plan, chunks)
            async with one_transaction(chunks) if changed else nullcontext():  # one commit
                if changed:
                    await _change_ahead(run, plan, chunks, tenant_id)
                else:
                    await _write_ahead(run, plan, chunks)
                run.chunks_done += len(plan.chunks) - plan.waiting - plan.ahead
                await _settle_ready(run, chunks, tenant_id)
            continue
        run.chunks_done += len(plan.chunks) - plan.waiting - plan.ahead
        while len(run.pending) >= batch_size:
            await _embed_batch(run, embeddings, batch_size, model, chunks)
            await _settle_ready(run, chunks, tenant_id)  # what a batch finished is kept
        await _settle_ready(run, chunks, tenant_id)
    while embeddings is not None and run.pending:
        await _embed_batch(run, embeddings, batch_size, model, chunks)
        await _settle_ready(run, chunks, tenant_id)
    await _settle_ready(run, chunks, tenant_id)
    return IndexReport(
        documents=run.documents,
        unchanged=run.unchanged,
        empty=run.empty,
        chunks_written=run.written,
        embedded=run.embedded,
        removed=sorted(run.removed),
    )


def require_index_progress(progress: object) -> None:
    """Refuse a `progress` that is neither `None` nor callable as
    `progress(chunks_done, chunks_total)`: `InvalidArgumentError` naming `progress`."""
    require_callback(
        "progress", progress, called_as="progress(chunks_done, chunks_total)", arguments=2
    )


def _require_distinct_ids(documents: Sequence[SourceDocument]) -> None:
    seen: set[str] = set()
    for document in documents:
        if document.id in seen:
            raise DuplicateDocumentError(document_id=document.id)
        seen.add(document.id)


async def _plan(
    source_id: str,
    wanted: dict[ChunkId, StoredChunk],
    store: ChunkStore,
    tenant_id: TenantId,
    *,
    model: str | None,
) -> _Plan:
    """The chunks `wanted` of source `source_id` (`_wanted`; changed here), and whether the
    stored ones differ.

    `model` is the embedding model of this run (`None`: nothing is embedded).
    A stored vector is kept unless this run embeds with another model (B20).
    Planned from the source's manifest alone (B100): a kept chunk takes its
    entity ids from it, and its vector is kept in the store, never read
    (`keep_embeddings`, ADR 0255).
    """
    stored = {m.id: m for m in await store.source_manifest(source_id, tenant_id)}
    same = stored.keys() == wanted.keys() and all(
        _same_place(stored[chunk_id], chunk) and _keeps(stored[chunk_id], model)
        for chunk_id, chunk in wanted.items()
    )
    if same:
        return _Plan(source_id=source_id, chunks=list(wanted.values()), write=False)
    keep: set[ChunkId] = set()
    fresh: list[int] = []
    for position, (chunk_id, chunk) in enumerate(wanted.items()):
        previous = stored.get(chunk_id)
        if previous is not None and _keeps(previous, model):
            keep.add(chunk_id)
            wanted[chunk_id] = chunk.model_copy(
                update={
                    "entity_ids": previous.entity_ids,
                    "embedding_model": previous.embedding_model,
                }
            )
            continue
        if previous is not None:
            wanted[chunk_id] = chunk.model_copy(update={"entity_ids": previous.entity_ids})
        fresh.append(position)
    return _Plan(
        source_id=source_id,
        chunks=list(wanted.values()),
        write=True,
        keep=frozenset(keep),
        fresh=fresh,
        partial=stored.keys() <= wanted.keys(),
        gone=[chunk_id for chunk_id in stored if chunk_id not in wanted],
    )


def _keeps(stored: ChunkManifest, model: str | None) -> bool:
    """Whether a stored chunk's vector (or its lack of one) stays for a run embedding with
    `model`: always when nothing is embedded, else when it holds one of `model`."""
    return model is None or (stored.embedded and stored.embedding_model == model)


def _wanted(
    document: SourceDocument, chunker: SlidingWindowChunker, tenant_id: TenantId
) -> dict[ChunkId, StoredChunk]:
    """The distinct chunks of `document`, in order: a repeated passage at its first place."""
    wanted: dict[ChunkId, StoredChunk] = {}
    for span in chunker.split(document.text):
        chunk = StoredChunk(
            tenant_id=tenant_id,
            source_id=document.id,
            text=span.text,
            index=len(wanted),
            start=span.start,
            end=span.end,
            metadata=document.metadata,
        )
        wanted.setdefault(chunk.id, chunk)
    return wanted


def _same_place(stored: ChunkManifest, wanted: StoredChunk) -> bool:
    return (stored.index, stored.start, stored.end, stored.metadata) == (
        wanted.index,
        wanted.start,
        wanted.end,
        wanted.metadata,
    )


async def _embed_batch(
    run: _Run, embeddings: EmbeddingProvider, batch_size: int, model: str | None, store: ChunkStore
) -> None:
    batch, run.pending = run.pending[:batch_size], run.pending[batch_size:]
    vectors = await embeddings.embed([plan.chunks[position].text for plan, position in batch])
    if len(vectors) != len(batch):
        raise ModelError(
            f"the embedding provider returned {len(vectors)} vectors for {len(batch)} texts; "
            "a provider must return one vector per text"
        )
    for (plan, position), vector in zip(batch, vectors, strict=True):
        plan.chunks[position] = plan.chunks[position].model_copy(
            update={"embedding": vector, "embedding_model": model}
        )
        plan.waiting -= 1
    await _store_unfinished(batch, store)
    run.embedded += len(batch)
    run.chunks_done += len(batch)
    _report(run)


async def _store_unfinished(batch: list[tuple[_Plan, int]], store: ChunkStore) -> None:
    """Store the chunks `batch` embedded of each `partial` document still waiting on others."""
    finished: dict[int, tuple[_Plan, list[StoredChunk]]] = {}
    for plan, position in batch:
        if plan.partial and plan.waiting > 0:
            finished.setdefault(id(plan), (plan, []))[1].append(plan.chunks[position])
    for _, chunks in finished.values():
        await store.upsert_chunks(chunks)


def _changed_in_steps(plan: _Plan, store: ChunkStore) -> bool:
    """Whether a changed document met with no provider is written in steps: only inside
    one transaction with its `replace_source`, so a reader never sees a new passage
    beside the ones it replaces and a stop midway leaves the old document whole
    (ADR 0550). A store offering no transaction (`SharedTransaction`) writes it once."""
    return (
        plan.write
        and bool(plan.gone)
        and bool(plan.chunks)
        and len(plan.gone) + len(plan.fresh) > WRITE_STEP
        and isinstance(store, SharedTransaction)
        and isinstance(store, ChunkPurge)  # `delete_chunks`: a store before it has none
    )


async def _change_ahead(run: _Run, plan: _Plan, store: ChunkStore, tenant_id: TenantId) -> None:
    """Delete the gone chunks of a changed `plan`, then store its new ones, `WRITE_STEP` at
    a time, inside the transaction of its `replace_source` (`_changed_in_steps`).

    Progress is reported after each step, the document's chunks counted done
    in proportion to the steps' share of its deletions and new chunks. The
    last new step is left to `replace_source`, as for a new document.
    """
    ahead = plan.fresh[: max(0, len(plan.fresh) - 1) // WRITE_STEP * WRITE_STEP]
    steps: list[tuple[list[ChunkId], list[StoredChunk]]] = [
        (plan.gone[start : start + WRITE_STEP], [])
        for start in range(0, len(plan.gone), WRITE_STEP)
    ]
    steps += [
        ([], [plan.chunks[position] for position in ahead[start : start + WRITE_STEP]])
        for start in range(0, len(ahead), WRITE_STEP)
    ]
    work, done = len(plan.gone) + len(plan.fresh), 0
    for gone, new in steps:
        if gone:
            await store.delete_chunks(gone, tenant_id)
        if new:
            await store.upsert_chunks(new)
        done += len(gone) + len(new)
        counted = len(plan.chunks) * done // work
        run.chunks_done += counted - plan.ahead
        plan.ahead = counted
        _report(run)


async def _write_ahead(run: _Run, plan: _Plan, store: ChunkStore) -> None:
    """Store the new chunks of `plan`, met with no provider, `WRITE_STEP` at a time.

    Only when `partial`: nothing else of its source is stored, so no old
    passage is shown beside a new one (a changed document is written ahead by
    `_change_ahead`, inside one transaction, or not at all). The last step is
    left to `replace_source`, so a document of one step or less is written
    once; a new document stopped midway keeps the steps written, and a re-run
    finds them stored (ADR 0535).
    """
    if not (plan.write and plan.partial):
        return
    ahead = plan.fresh[: max(0, len(plan.fresh) - 1) // WRITE_STEP * WRITE_STEP]
    for start in range(0, len(ahead), WRITE_STEP):
        step = [plan.chunks[position] for position in ahead[start : start + WRITE_STEP]]
        await store.upsert_chunks(step)
        plan.ahead += len(step)
        run.chunks_done += len(step)
        _report(run)


async def _settle_ready(run: _Run, store: ChunkStore, tenant_id: TenantId) -> None:
    """Write (or skip) every plan at the head of the queue whose embeddings are all in."""
    while run.queue and run.queue[0].waiting == 0:
        plan = run.queue.popleft()
        if plan.write:
            await store.replace_source(
                plan.source_id, tenant_id, plan.chunks, keep_embeddings=plan.keep
            )
            run.written += len(plan.chunks)
            if not plan.chunks:  # its stored passages are gone, and nothing took their place
                run.removed.append(plan.source_id)
        if not plan.chunks:
            run.empty += 1
        elif not plan.write:
            run.unchanged += 1
    _report(run)


def _report(run: _Run) -> None:
    """Tell `run.progress` the count done, unless it was the last count told: settling a
    document moves no count, and a progress bar redrew each repeat."""
    if run.progress is not None and run.chunks_done != run.reported:
        run.reported = run.chunks_done
        run.progress(run.chunks_done, run.chunks)
