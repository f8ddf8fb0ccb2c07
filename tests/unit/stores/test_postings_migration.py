"""SQLite chunk files of schema 2 gain each row's posted terms and lose the by-chunk index (3)."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest

import redstring.chunks.sqlite as sqlite_chunks
from redstring import new_tenant_id
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.domain.tokenize import tokenize
from redstring.errors import SchemaMigrationRequiredError
from redstring.storage.schema import Schema
from tests.unit.stores.test_chunk_id_migration import as_of_version_one


def chunk(tenant: TenantId, source: str, text: str, index: int = 0) -> StoredChunk:
    return StoredChunk(
        tenant_id=tenant, source_id=source, text=text, index=index, start=0, end=len(text)
    )


def postings(path: Path) -> list[tuple[str, str, str, int]]:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        return sorted(raw.execute("SELECT tenant_id, term, chunk_id, tf FROM chunk_postings"))


@pytest.mark.asyncio
async def test_a_version_two_file_migrates_and_then_removes_postings_by_their_terms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, tenant, other = tmp_path / "v2.db", new_tenant_id(), new_tenant_id()
    old = [chunk(tenant, "notes", "the engine engine ran", 0), chunk(tenant, "notes", "mill", 1)]
    kept = [chunk(tenant, "b", "engine notes"), chunk(other, "notes", "the engine engine ran")]
    with monkeypatch.context() as old_code:
        two = Schema("chunks", sqlite_chunks.SCHEMA.migrations[:2])
        old_code.setattr(sqlite_chunks, "SCHEMA", two)
        stores = open_sqlite(path, dimension=2)
        with as_of_version_one(path):
            await stores.chunks.upsert_chunks([*old, *kept])
        await stores.close()
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path)
    before = postings(path)
    stores = open_sqlite(path, migrate=True)
    try:
        assert postings(path) == before  # the postings themselves are untouched
        with contextlib.closing(sqlite3.connect(path)) as raw:
            indexes = {row[0] for row in raw.execute("SELECT name FROM sqlite_master")}
            listed = dict(raw.execute("SELECT chunk_id, terms FROM chunk_rows WHERE tenant_id = ?",
                                      (str(tenant),)))  # fmt: skip
        assert "chunk_postings_by_chunk" not in indexes
        assert sorted(listed) == sorted(str(c.id) for c in [*old, kept[0]])
        for c in [*old, kept[0]]:
            assert sorted(json.loads(listed[str(c.id)])) == sorted(set(tokenize(c.text)))
        replacement = chunk(tenant, "notes", "engine once")
        await stores.chunks.replace_source("notes", tenant, [replacement])
        live = [replacement, *kept]
        expected = sorted(
            (str(c.tenant_id), term, str(c.id), n)
            for c in live
            for term, n in Counter(tokenize(c.text)).items()
        )
        assert postings(path) == expected  # no posting of a removed chunk is left
        found = await stores.chunks.lexical_candidates(["engine", "mill", "ran"], tenant)
        assert found.stats.document_frequencies == {"engine": 2, "mill": 0, "ran": 0}
        assert found.stats.document_count == 2
    finally:
        await stores.close()
