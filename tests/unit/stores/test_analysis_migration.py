"""Chunk indexes written before text analysis was a setting are analysed again on migration.

The old writer is today's store with the tokenizer of that time swapped in
(`legacy_terms`: words, a 49-word stopword list, no stemming) and the schema
cut at its last version without the setting (SQLite chunks 4, PostgreSQL 2).
Migrating must leave only postings of the language asked, never a mix.
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import psycopg
import pytest

import redstring.chunks.postgres as postgres_chunks
import redstring.chunks.sqlite as sqlite_chunks
from redstring import new_tenant_id
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.domain.tokenize import Analyzer
from redstring.errors import AnalysisMismatchError, SchemaMigrationRequiredError
from redstring.storage.schema import Schema
from tests.unit.stores.legacy_chunk_files import expected_postings, legacy_terms, stored_postings

TEXTS = [
    "The engines were running all night",
    "An engine runs; the engine ran",
    "Mills and rivers",
    "the of and",
]


def passages(tenant: TenantId, texts: Sequence[str] = TEXTS) -> list[StoredChunk]:
    """One chunk of each of `texts`, a source each, with a 2-dimensional vector."""
    return [
        StoredChunk(
            tenant_id=tenant,
            source_id=f"s{n}",
            text=text,
            index=0,
            start=0,
            end=len(text),
            embedding=[1.0, float(n)],
        )
        for n, text in enumerate(texts)
    ]


@contextlib.contextmanager
def old_code(monkeypatch: pytest.MonkeyPatch, **schemas: object) -> object:
    """Today's stores behaving as the version before the language setting."""
    with monkeypatch.context() as old:
        old.setattr(Analyzer, "terms", lambda _self, text: legacy_terms(text))
        old.setattr(sqlite_chunks, "open_language", lambda *_, **__: Analyzer())
        old.setattr(postgres_chunks, "open_language", _no_setting)
        for name, value in schemas.items():
            old.setattr(sqlite_chunks if name == "SCHEMA" else postgres_chunks, name, value)
        yield


async def _no_setting(*_: object, **__: object) -> Analyzer:
    return Analyzer()


def setting(path: Path) -> list[tuple[str]]:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        return raw.execute(
            "SELECT value FROM redstring_settings WHERE component = 'chunks' AND name = 'language'"
        ).fetchall()


@pytest.mark.asyncio
@pytest.mark.parametrize("language", [None, "none"])
async def test_a_version_four_file_is_analysed_again_in_the_language_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str | None
) -> None:
    path, tenant, other = tmp_path / "v4.db", new_tenant_id(), new_tenant_id()
    live = [*passages(tenant), *passages(other)[:2]]  # the same ids in two tenants
    with old_code(monkeypatch, SCHEMA=Schema("chunks", sqlite_chunks.SCHEMA.migrations[:4])):
        stores = open_sqlite(path, dimension=2)
        await stores.chunks.upsert_chunks(live)
        await stores.close()
    assert stored_postings(path) == expected_postings(live, _Legacy())
    with pytest.raises(SchemaMigrationRequiredError):
        open_sqlite(path)
    stores = open_sqlite(path, migrate=True, language=language)
    analyzer = Analyzer(language or "english")
    try:
        assert stores.chunks.analyzer == analyzer
        assert stored_postings(path) == expected_postings(live, analyzer)
        assert setting(path) == [(analyzer.language,)]
        found = await stores.chunks.lexical_candidates(analyzer.terms("engines"), tenant)
        assert found.stats.document_count == len(TEXTS)
        total = sum(len(analyzer.terms(text)) for text in TEXTS)
        assert found.stats.average_length == pytest.approx(total / len(TEXTS))
        holders = passages(tenant)[:2] if language is None else passages(tenant)[:1]
        assert {c.chunk_id: c.length for c in found.candidates} == {
            c.id: len(analyzer.terms(c.text)) for c in holders
        }
        matches = await stores.chunks.search_chunks([1.0, 0.0], tenant, k=10)
        assert len(matches) == len(TEXTS)  # the vectors stay
        await stores.chunks.upsert_chunks([passages(tenant)[0]])
        assert stored_postings(path) == expected_postings(live, analyzer)
    finally:
        await stores.close()
    again = open_sqlite(path)
    try:
        assert again.chunks.analyzer == analyzer
    finally:
        await again.close()
    other_language = "english" if language == "none" else "none"
    with pytest.raises(AnalysisMismatchError):
        open_sqlite(path, language=other_language)


class _Legacy(Analyzer):
    """`legacy_terms` as an analyzer, for `expected_postings`."""

    def terms(self, text: str) -> list[str]:
        return legacy_terms(text)


def postgres_postings(url: str, schema: str) -> tuple[list[tuple[str, str, str, int]], int]:
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            f"SELECT tenant_id::text, term, chunk_id, tf FROM {schema}.chunk_postings"
        ).fetchall()
        frequencies = dict(
            connection.execute(
                f"SELECT tenant_id::text || term, document_frequency FROM {schema}.chunk_terms"
            ).fetchall()
        )
        lengths = connection.execute(f"SELECT sum(length) FROM {schema}.chunk_rows").fetchone()
    counted = Counter(tenant + term for tenant, term, _, _ in rows)
    assert frequencies == dict(counted)
    return sorted(rows), int(lengths[0]) if lengths else 0


@pytest.mark.asyncio
async def test_a_version_two_postgres_schema_is_analysed_again_on_migration(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema, tenant, other = f"t_{uuid.uuid4().hex[:12]}", new_tenant_id(), new_tenant_id()
    live = [*passages(tenant), *passages(other)[:2]]
    current = postgres_chunks.schema_for

    def version_two(dimension: int) -> Schema:
        return Schema("chunks", current(dimension).migrations[:2])

    with old_code(monkeypatch, schema_for=version_two):
        stores = await open_postgres(postgres_url, dimension=2, schema=schema, max_size=2)
        await stores.chunks.upsert_chunks(live)
        await stores.close()
    assert postgres_postings(postgres_url, schema)[0] == expected_postings(live, _Legacy())
    with pytest.raises(SchemaMigrationRequiredError):
        await open_postgres(postgres_url, schema=schema, max_size=2)
    stores = await open_postgres(postgres_url, schema=schema, migrate=True, max_size=2)
    try:
        english = Analyzer()
        assert stores.chunks.analyzer == english
        postings, total = postgres_postings(postgres_url, schema)
        assert postings == expected_postings(live, english)
        assert total == sum(len(english.terms(c.text)) for c in live)
        found = await stores.chunks.lexical_candidates(english.terms("engine"), tenant)
        assert found.stats.average_length == pytest.approx(
            sum(len(english.terms(text)) for text in TEXTS) / len(TEXTS)
        )
        assert len(found.candidates) == 2
    finally:
        await stores.close()
    with pytest.raises(AnalysisMismatchError):
        await open_postgres(postgres_url, schema=schema, language="none", max_size=2)
