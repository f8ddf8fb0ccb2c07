"""SQLite chunk files of older schemas migrate their postings on open.

Version 3 (ADR 0187) gave each row its posted terms and dropped the by-chunk
index; version 4 (ADR 0220) numbers chunks and terms per tenant and packs the
postings per (tenant, term, block).
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

import redstring.chunks.sqlite as sqlite_chunks
from redstring import new_tenant_id
from redstring.chunks.sqlite_codec import sql_block, sql_body, sql_terms
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.bm25 import rank_chunks
from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.tokenize import Analyzer
from redstring.errors import SchemaMigrationRequiredError
from redstring.ports.chunk_store import ChunkStore
from redstring.storage.schema import Schema
from redstring.storage.sqlite import SqliteDatabase
from tests.unit.stores.legacy_chunk_files import (
    create_file,
    expected_postings,
    legacy_terms,
    stored_postings,
    write_chunks,
)

ADA = EntityId(new_tenant_id())


def chunk(
    tenant: TenantId, source: str, text: str, index: int = 0, vector: float = 0.0
) -> StoredChunk:
    return StoredChunk(
        tenant_id=tenant,
        source_id=source,
        text=text,
        index=index,
        start=0,
        end=len(text),
        entity_ids=[ADA],
        embedding=[1.0, vector],
    )


def v3_postings(path: Path) -> list[tuple[str, str, str, int]]:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        return sorted(raw.execute("SELECT tenant_id, term, chunk_id, tf FROM chunk_postings"))


@pytest.mark.asyncio
async def test_a_version_two_file_gains_each_rows_terms_and_loses_the_by_chunk_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, tenant, other = tmp_path / "v2.db", new_tenant_id(), new_tenant_id()
    old = [chunk(tenant, "notes", "the engine engine ran", 0), chunk(tenant, "notes", "mill", 1)]
    kept = [chunk(tenant, "b", "engine notes"), chunk(other, "notes", "the engine engine ran")]
    create_file(path, 2, dimension=2)
    write_chunks(path, [*old, *kept], terms_column=False)
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path)
    before = v3_postings(path)
    with monkeypatch.context() as version_three:
        version_three.setattr(
            sqlite_chunks, "SCHEMA", Schema("chunks", sqlite_chunks.SCHEMA.migrations[:3])
        )
        # that version had no language setting (nor the chunk_texts table it reads)
        version_three.setattr(sqlite_chunks, "open_language", lambda *_, **__: Analyzer())
        await open_sqlite(path, migrate=True).close()
    assert v3_postings(path) == before  # the postings themselves are untouched
    with contextlib.closing(sqlite3.connect(path)) as raw:
        indexes = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
        listed = dict(raw.execute("SELECT chunk_id, terms FROM chunk_rows WHERE tenant_id = ?",
                                  (str(tenant),)))  # fmt: skip
    assert "chunk_postings_by_chunk" not in indexes
    assert sorted(listed) == sorted(str(c.id) for c in [*old, kept[0]])
    for c in [*old, kept[0]]:
        assert sorted(json.loads(listed[str(c.id)])) == sorted(set(legacy_terms(c.text)))
    stores = open_sqlite(path, migrate=True)  # on to version 4
    try:
        replacement = chunk(tenant, "notes", "engine once")
        await stores.chunks.replace_source("notes", tenant, [replacement])
        assert stored_postings(path) == expected_postings([replacement, *kept])
        engine, mill, ran = stores.chunks.analyzer.terms("engine mill ran")
        found = await stores.chunks.lexical_candidates([engine, mill, ran], tenant)
        assert found.stats.document_frequencies == {engine: 2, mill: 0, ran: 0}
        assert found.stats.document_count == 2
    finally:
        await stores.close()


async def answers(store: ChunkStore, tenant: TenantId) -> list[object]:
    """What every read of the chunk store says about `tenant`."""
    terms = store.analyzer.terms("engine mill ran notes absent")
    found = await store.lexical_candidates(terms, tenant)
    filtered = await store.lexical_candidates(terms, tenant, source_ids=["b"])
    every = await store.list_chunks(tenant)
    return [
        found.stats,
        rank_chunks(found, k=10),
        filtered.stats,
        rank_chunks(filtered, k=10),
        every,
        await store.get_chunks([c.id for c in every], tenant),
        await store.chunks_of_source("notes", tenant),
        await store.chunks_of_entity(ADA, tenant),
        [(m.chunk.id, m.score) for m in await store.search_chunks([1.0, 0.5], tenant, k=10)],
        await store.chunk_summary(tenant),
    ]


@pytest.mark.asyncio
async def test_a_version_three_file_migrates_to_packed_postings_tenant_by_tenant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two tenants hold the same chunk ids and terms; each keeps exactly its own."""
    path, tenant, other = tmp_path / "v3.db", new_tenant_id(), new_tenant_id()
    shared = [chunk(t, "notes", "the engine engine ran", 0, 0.5) for t in (tenant, other)]
    mine = [chunk(tenant, "notes", "mill notes", 1, 1.0), chunk(tenant, "b", "engine notes")]
    theirs = [chunk(other, "b", "ran ran ran", 0, 2.0)]
    assert shared[0].id == shared[1].id  # the same id in both tenants
    many = [chunk(tenant, "bulk", f"engine part {n} mill", n, n / 7) for n in range(300)]
    live = [*shared, *mine, *theirs, *many]  # 300 chunks: the packed blocks split at 256
    expected = open_sqlite(tmp_path / "fresh.db", dimension=2)
    try:
        await expected.chunks.upsert_chunks(live)
        wanted = {t: await answers(expected.chunks, t) for t in (tenant, other)}
    finally:
        await expected.close()
    create_file(path, 3, dimension=2)
    write_chunks(path, live, terms_column=True)
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path)
    stores = open_sqlite(path, migrate=True)
    try:
        assert stored_postings(path) == expected_postings(live)
        for t in (tenant, other):
            assert await answers(stores.chunks, t) == wanted[t]
        replacement = chunk(tenant, "notes", "engine once", 0, 0.25)
        await stores.chunks.replace_source("notes", tenant, [replacement])
        await stores.chunks.upsert_chunks([chunk(tenant, "new", "fresh engine words")])
        after = [replacement, mine[1], *many, chunk(tenant, "new", "fresh engine words")]
        assert stored_postings(path) == expected_postings([*after, shared[1], *theirs])
        assert await answers(stores.chunks, other) == wanted[other]
    finally:
        await stores.close()
    with contextlib.closing(sqlite3.connect(path)) as raw:
        tables = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
    assert not tables & {"chunk_rows", "chunk_postings", "chunk_terms"}


def test_migration_four_finds_each_term_number_by_its_whole_key(tmp_path: Path) -> None:
    """A term looked up by tenant alone makes the migration scan a vocabulary per row."""
    path, tenant = tmp_path / "v3.db", new_tenant_id()
    create_file(path, 3, dimension=2)
    write_chunks(path, [chunk(tenant, "notes", "the engine ran")], terms_column=True)
    database = SqliteDatabase(path)
    try:
        for name, function, arity in (
            ("redstring_block", sql_block, 2),
            ("redstring_terms", sql_terms, 1),
            ("redstring_body", sql_body, 1),
        ):
            database.define_function(name, function, arity=arity)
        raw = database.connection
        raw.execute("BEGIN")
        lookups = []
        for statement in sqlite_chunks.SCHEMA.migrations[3]:
            if statement.startswith("INSERT"):
                plan = [row[3] for row in raw.execute(f"EXPLAIN QUERY PLAN {statement}")]
                lookups += [step for step in plan if step.startswith("SEARCH w ")]
            raw.execute(statement)
        raw.execute("ROLLBACK")
    finally:
        database.close()
    assert lookups
    assert all("term=?" in step for step in lookups), lookups


@pytest.mark.asyncio
async def test_a_version_five_file_gains_each_blocks_count_and_ranks_the_same(
    tmp_path: Path,
) -> None:
    """Version 6 (ADR 0360): each postings block records its count, so a cut one is found."""
    path, tenant = tmp_path / "v5.db", new_tenant_id()
    chunks = [chunk(tenant, "notes", f"the engine {word} ran", i) for i, word in enumerate("abc")]
    async with open_sqlite(path, dimension=2) as stores:
        await stores.chunks.upsert_chunks(chunks)
        before = await stores.chunks.lexical_candidates(["engin", "ran", "b"], tenant)
    with contextlib.closing(sqlite3.connect(path)) as raw:  # back to version 5's layout
        blocks = raw.execute("SELECT tenant, term, block, postings FROM chunk_posting_blocks")
        raw.executemany(
            "UPDATE chunk_posting_blocks SET postings = ? WHERE tenant = ? AND term = ?"
            " AND block = ?",
            [(blob[:1] + blob[2:], t, term, b) for t, term, b, blob in blocks.fetchall()],
        )
        raw.execute("UPDATE redstring_schema SET version = 5 WHERE component = 'chunks'")
        raw.commit()
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path)
    async with open_sqlite(path, migrate=True) as stores:
        after = await stores.chunks.lexical_candidates(["engin", "ran", "b"], tenant)
        assert await stores.chunks.damaged_rows() == []
    assert after.candidates == before.candidates
    assert after.stats == before.stats
