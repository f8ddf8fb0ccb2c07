"""The in-memory and PostgreSQL chunk stores write a one-paragraph edit by difference (ADR 0255).

The document and edit are `test_sqlite_replace_by_difference`'s: forty
paragraphs, one word of paragraph 20 lengthened, so one to three chunks are
new and every later chunk moves. What each store rewrites is counted.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from types import SimpleNamespace

import psycopg
import pytest

from redstring.composition.index_documents import index_documents
from redstring.composition.postgres_stores import open_postgres
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.document import SourceDocument
from redstring.domain.ids import TenantId
from redstring.llm.fake_embedding import FakeEmbeddingProvider
from redstring.ports import ChunkStore
from redstring.stores import InMemoryChunkStore
from tests.unit.stores.test_sqlite_replace_by_difference import document, ids_of, places

OLD, NEW = ids_of(document()), ids_of(document(edited=True))
ADDED, REMOVED, KEPT = NEW.keys() - OLD.keys(), OLD.keys() - NEW.keys(), OLD.keys() & NEW.keys()
MOVED = {i for i in KEPT if places(document())[i] != places(document(edited=True))[i]}


async def _index(store: ChunkStore, tenant: TenantId, text: str) -> None:
    await index_documents(
        [SourceDocument(id="doc", text=text)],
        chunks=store,
        tenant_id=tenant,
        embeddings=FakeEmbeddingProvider(dimension=8),
    )


def test_the_edit_adds_moves_and_keeps_chunks() -> None:
    assert 1 <= len(ADDED) <= 3
    assert len(REMOVED) >= 1
    assert len(KEPT) >= 10
    assert 1 <= len(MOVED) < len(KEPT)


@pytest.mark.asyncio
async def test_in_memory_an_edit_tokenizes_and_files_only_the_added_chunks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store, tenant, other = (
        InMemoryChunkStore(dimension=8),
        TenantId(uuid.uuid4()),
        TenantId(uuid.uuid4()),
    )
    await _index(store, other, document(edited=True))  # the same chunk ids in another tenant
    await _index(store, tenant, document())
    part = store._tenants[tenant]
    slots, units, next_slot = (
        dict(part.slot_of),
        {i: r.unit for i, r in part.rows.items()},
        part.next_slot,
    )
    tokenized: list[str] = []
    real: Callable[[str], list[str]] = store.analyzer.terms
    recording = SimpleNamespace(terms=lambda text: tokenized.append(text) or real(text))
    monkeypatch.setattr(store, "_analyzer", recording)
    await _index(store, tenant, document(edited=True))
    assert sorted(tokenized) == sorted(NEW[i] for i in ADDED)
    assert {i: part.slot_of[ChunkId(i)] for i in KEPT} == {i: slots[ChunkId(i)] for i in KEPT}
    assert part.next_slot == next_slot + len(ADDED)
    assert all(part.rows[ChunkId(i)].unit is units[ChunkId(i)] for i in KEPT)
    live = await store.chunks_of_source("doc", tenant)
    assert sorted(str(c.id) for c in live) == sorted(NEW)
    assert await store.chunks_of_source("doc", other) == live_in(other, live)


def live_in(tenant: TenantId, chunks: list[StoredChunk]) -> list[StoredChunk]:
    """`chunks` as another tenant holds them."""
    return [c.model_copy(update={"tenant_id": tenant}) for c in chunks]


def _versions(
    url: str, schema: str, tenant: TenantId
) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """Each chunk row's and posting's `xmin` in `tenant`: the transaction that last wrote it."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            f"SELECT chunk_id, xmin::text FROM {schema}.chunk_rows WHERE tenant_id = %s",
            (tenant,),
        )
        chunk_rows = {str(i): str(x) for i, x in rows.fetchall()}
        rows = connection.execute(
            f"SELECT term, chunk_id, xmin::text FROM {schema}.chunk_postings WHERE tenant_id = %s",
            (tenant,),
        )
        postings = {(str(t), str(i)): str(x) for t, i, x in rows.fetchall()}
    return chunk_rows, postings


@pytest.mark.asyncio
async def test_postgres_an_edit_rewrites_only_the_rows_it_changed(postgres_url: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:12]}"
    stores = await open_postgres(postgres_url, dimension=8, schema=schema, min_size=1, max_size=2)
    tenant, other = TenantId(uuid.uuid4()), TenantId(uuid.uuid4())
    try:
        await _index(stores.chunks, other, document(edited=True))
        await _index(stores.chunks, tenant, document())
        before = {c.id: c.embedding for c in await stores.chunks.chunks_of_source("doc", tenant)}
        rows_before, postings_before = _versions(postgres_url, schema, tenant)
        theirs_before = _versions(postgres_url, schema, other)
        await _index(stores.chunks, tenant, document(edited=True))
        rows_after, postings_after = _versions(postgres_url, schema, tenant)
        assert _versions(postgres_url, schema, other) == theirs_before
        live = await stores.chunks.chunks_of_source("doc", tenant)
        theirs = await stores.chunks.chunks_of_source("doc", other)
    finally:
        await stores.close()
    rewritten = {i for i in rows_after if rows_before.get(i) != rows_after[i]}
    # Both tenants hold the edit's ids: only this tenant's moved and added rows changed.
    assert rewritten == {*MOVED, *ADDED}
    changed_postings = {
        key for key in postings_before.keys() | postings_after.keys()
        if postings_before.get(key) != postings_after.get(key)
    }  # fmt: skip
    assert {chunk_id for _, chunk_id in changed_postings} == {*ADDED, *REMOVED}
    assert {str(c.id) for c in live} == set(NEW)
    assert all(c.embedding == before[c.id] for c in live if str(c.id) in KEPT)
    assert live_in(other, live) == theirs
