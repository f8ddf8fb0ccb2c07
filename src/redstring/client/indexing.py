"""The client's `index`: the documents read are indexed, then the folders named are mirrored.

Indexing runs first and removal after it (ADR 0310), so a run stopped midway
removes nothing. A folder that now holds no file at all is still mirrored:
what it held is removed. What was indexed from a file or folder the walk
skipped (a folder's id ends in `/`) is kept: it was found, not gone. Only
when nothing was found and nothing was removed is the run an error
(`NoDocumentsError`): there was nothing to do. A run that embedded says when
the tenant's passages are left embedded by several models
(`IndexReport.mixed_models`).
"""

from __future__ import annotations

from redstring.client.documents import DocumentsRead
from redstring.client.removal import remove_missing
from redstring.composition.index_documents import (
    IndexProgressCallback,
    IndexReport,
    index_documents,
)
from redstring.domain.errors import NoDocumentsError
from redstring.domain.ids import TenantId
from redstring.ports.chunk_store import ChunkModels, ChunkStore
from redstring.ports.embedding_provider import EmbeddingProvider


async def index_and_mirror(
    read: DocumentsRead,
    *,
    chunks: ChunkStore,
    tenant_id: TenantId,
    embeddings: EmbeddingProvider | None,
    keep_missing: bool,
    progress: IndexProgressCallback | None,
) -> IndexReport:
    """Index `read.documents`, then remove what left `read.folders` unless `keep_missing`.

    The report carries the files skipped and the ids removed. Raises
    `NoDocumentsError` when `read` is empty and nothing was removed.
    """
    report = IndexReport(documents=0, unchanged=0, chunks_written=0, embedded=0)
    if read.documents:
        report = await index_documents(
            read.documents,
            chunks=chunks,
            tenant_id=tenant_id,
            embeddings=embeddings,
            progress=progress,
        )
    present = {document.id for document in read.documents}
    present.update(file.id for file in read.skipped)
    kept_under = tuple(file.id for file in read.skipped if file.id.endswith("/"))
    folders = [] if keep_missing else read.folders
    removed = await remove_missing(chunks, tenant_id, folders, present, kept_under=kept_under)
    if read.empty and not removed:
        raise NoDocumentsError(paths=read.paths)
    removed = sorted([*report.removed, *removed])  # emptied documents, and those that left
    mixed = await mixed_models(chunks, tenant_id) if report.embedded else {}
    return report.model_copy(
        update={"skipped": read.skipped, "removed": removed, "mixed_models": mixed}
    )


async def mixed_models(chunks: ChunkStore, tenant_id: TenantId) -> dict[str, int]:
    """`tenant_id`'s embedded passages by the model that embedded them, when more than one
    named model did (a query vector compares meaningfully with one model's only); else `{}`.

    Reads every embedded passage: asked only after a run that embedded.
    """
    if not isinstance(chunks, ChunkModels):
        return {}
    named = {m: n for m, n in (await chunks.embedding_models(tenant_id)).items() if m}
    return dict(sorted(named.items())) if len(named) > 1 else {}
