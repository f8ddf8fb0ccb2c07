"""Taking documents out of a tenant: one named, or those whose files left a folder indexed.

A document is removed whole (its passages with their postings and vectors)
by the chunk store's `delete_source`, one transaction per document, so an
interrupted removal leaves every document either whole or gone. Entities a
build extracted from it stay in the graph.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from redstring.client.mirrored import MirroredFolder
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.ids import TenantId
from redstring.domain.validation import require_lookup_text
from redstring.ports.chunk_store import ChunkStore


def require_document_id_argument(document_id: object) -> str:
    """`document_id` if `remove` can look it up, checked before any store opens.

    Raises `InvalidArgumentError` naming `document_id` when it is not one string (a list
    of ids is refused whole, never read as one id the database cannot bind) or holds
    what no stored id holds (`require_lookup_text`).
    """
    if not isinstance(document_id, str):
        raise InvalidArgumentError(
            name="document_id",
            value=document_id,
            requirement="one id, a string; call remove once per id",
        )
    return require_lookup_text("document_id", document_id)


async def remove_document(chunks: ChunkStore, tenant_id: TenantId, document_id: str) -> int:
    """Remove `document_id` (checked by `require_document_id_argument`) from `tenant_id`;
    the number of passages it had.

    Raises `InvalidArgumentError` naming `document_id` when the tenant holds no such
    document.
    """
    held = await chunks.source_manifest(document_id, tenant_id)
    if not held:
        raise InvalidArgumentError(
            name="document_id",
            value=document_id,
            requirement="the id of a document indexed in this tenant, as a passage's "
            "`source_id` shows it; `describe()` shows them",
        )
    await chunks.delete_source(document_id, tenant_id)
    return len(held)


async def remove_missing(
    chunks: ChunkStore,
    tenant_id: TenantId,
    folders: Sequence[MirroredFolder],
    present: Collection[str],
    *,
    kept_under: tuple[str, ...] = (),
) -> list[str]:
    """Remove the documents read from files that one of `folders` claims and are not `present`
    nor under a folder of `kept_under` (ids ending in `/`: folders found but not read).

    A document counts as read from a file when its passages carry the file's
    path as their `path` metadata (what reading a folder records), so
    documents given as `SourceDocument`s are never removed here; a folder
    claims only the ids its walk could give (`MirroredFolder.claims`), so the
    documents of other folders stay. Returns the removed ids, sorted.
    """
    if not folders:
        return []
    summary = await chunks.chunk_summary(tenant_id)
    removed: list[str] = []
    for source_id in sorted(summary.sources):
        if source_id in present or source_id.startswith(kept_under):
            continue
        if not any(folder.claims(source_id) for folder in folders):
            continue
        manifest = await chunks.source_manifest(source_id, tenant_id)
        if manifest and manifest[0].metadata.get("path") == source_id:
            await chunks.delete_source(source_id, tenant_id)
            removed.append(source_id)
    return removed
