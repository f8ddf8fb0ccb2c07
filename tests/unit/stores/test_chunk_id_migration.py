"""Chunk ids written under the old separator encoding migrate to ADR 0133's (schema 2)."""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from pathlib import Path

import pytest

import redstring.chunks.postgres as postgres_chunks
import redstring.domain.chunk as chunk_module
from redstring import new_tenant_id
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import ChunkId, StoredChunk, chunk_id_for
from redstring.domain.ids import EntityId, TenantId
from redstring.errors import SchemaMigrationRequiredError
from redstring.ports.chunk_store import ChunkStore
from redstring.storage.schema import Schema
from tests.unit.stores.legacy_chunk_files import create_file, write_chunks

ADA = EntityId(uuid.UUID(int=7))


def old_chunk_id(source_id: str, text: str) -> ChunkId:
    """The id version-1 stores hold: SHA-256 over `source_id + "\\x1f" + text`."""
    return ChunkId("c:" + hashlib.sha256(f"{source_id}\x1f{text}".encode()).hexdigest()[:32])


def chunks_of(tenant: TenantId) -> list[StoredChunk]:
    texts = [("notes", "Ada wrote the program."), ("notes", "Zoë kept é and ü."), ("b", "x")]
    return [
        StoredChunk(
            tenant_id=tenant,
            source_id=source,
            text=text,
            index=n,
            start=0,
            end=len(text),
            entity_ids=[ADA],
            embedding=[1.0, 0.0, 0.0, float(n)],
        )
        for n, (source, text) in enumerate(texts)
    ]


async def assert_rekeyed(store: ChunkStore, tenant: TenantId, chunks: list[StoredChunk]) -> None:
    """Every read finds the chunks under their new ids, and no old id is left."""
    new_ids = sorted(chunk_id_for(c.source_id, c.text) for c in chunks)
    old_ids = [old_chunk_id(c.source_id, c.text) for c in chunks]
    assert [c.id for c in await store.get_chunks(new_ids, tenant)] == new_ids
    assert await store.get_chunks(old_ids, tenant) == []
    assert sorted(c.id for c in await store.chunks_of_entity(ADA, tenant)) == new_ids
    found = await store.lexical_candidates(["ada", "x"], tenant)
    assert {c.chunk_id for c in found.candidates} == {
        chunk_id_for("notes", "Ada wrote the program."),
        chunk_id_for("b", "x"),
    }
    matches = await store.search_chunks([1.0, 0.0, 0.0, 0.0], tenant, k=3)
    assert sorted(m.chunk.id for m in matches) == new_ids


@pytest.mark.asyncio
async def test_a_version_one_sqlite_file_refuses_then_migrates_its_chunk_ids(
    tmp_path: Path,
) -> None:
    path, tenant = tmp_path / "old.db", new_tenant_id()
    create_file(path, 1, dimension=4)
    write_chunks(path, chunks_of(tenant), terms_column=False, chunk_id=old_chunk_id)
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path)
    stores = open_sqlite(path, migrate=True)
    try:
        await assert_rekeyed(stores.chunks, tenant, chunks_of(tenant))
    finally:
        await stores.close()
    with sqlite3.connect(path) as raw:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
        assert "chunk_id_moves" not in tables
        stored = {row[0] for t in ("chunk_texts", "chunk_entities")
                  for row in raw.execute(f"SELECT chunk_id FROM {t}")}  # fmt: skip
    assert stored == {c.id for c in chunks_of(tenant)}


@pytest.mark.asyncio
async def test_a_version_one_postgres_schema_refuses_then_migrates_its_chunk_ids(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema, tenant = f"t_{uuid.uuid4().hex[:12]}", new_tenant_id()
    current = postgres_chunks.schema_for

    def version_one(dimension: int) -> Schema:
        return Schema("chunks", [current(dimension).migrations[0]])

    with monkeypatch.context() as old_code:
        old_code.setattr(chunk_module, "chunk_id_for", old_chunk_id)
        old_code.setattr(postgres_chunks, "schema_for", version_one)
        stores = await open_postgres(postgres_url, dimension=4, schema=schema, max_size=2)
        await stores.chunks.upsert_chunks(chunks_of(tenant))
        await stores.close()
    with pytest.raises(SchemaMigrationRequiredError):
        await open_postgres(postgres_url, schema=schema, max_size=2)
    stores = await open_postgres(postgres_url, schema=schema, migrate=True, max_size=2)
    try:
        await assert_rekeyed(stores.chunks, tenant, chunks_of(tenant))
    finally:
        await stores.close()
