"""An index analysed before compounds were terms is analysed again when opened to write.

Each store records the analysis's revision beside its language. A SQLite file
or PostgreSQL schema holding chunks of an older revision (no revision
recorded) has its postings rewritten from the chunks' text on open, in the
language it records; a SQLite file opened read-only is searched as it is.
"""

from __future__ import annotations

import contextlib
import sqlite3
import uuid
from collections import Counter
from pathlib import Path

import psycopg
import pytest

from redstring import new_tenant_id
from redstring.composition.postgres_stores import open_postgres
from redstring.composition.sqlite_stores import open_sqlite
from redstring.domain.chunk import StoredChunk
from redstring.domain.ids import TenantId
from redstring.domain.tokenize import (
    ANALYSIS_REVISION,
    COMPOUND_JOINER,
    LEGACY_REVISION,
    Analyzer,
    document_length,
)
from tests.unit.stores.legacy_chunk_files import expected_postings, stored_postings
from tests.unit.stores.test_analysis_migration import passages as migration_passages
from tests.unit.stores.test_analysis_migration import postgres_postings

TEXTS = [
    "Raise max_connections in os.path.join",
    "the max of open connections",
    "kube-proxy routes services, see docs/how-to/max_connections.md",
]
QUERY = "max_connections"


def passages(tenant: TenantId) -> list[StoredChunk]:
    return migration_passages(tenant, TEXTS)


_CURRENT_TERMS = Analyzer.terms


def _revision_one_terms(analyzer: Analyzer, text: str) -> list[str]:
    """The analysis of revision 1: the same words, no compound terms."""
    return [term for term in _CURRENT_TERMS(analyzer, text) if COMPOUND_JOINER not in term]


class _Words(Analyzer):
    terms = _revision_one_terms


@contextlib.contextmanager
def revision_one(monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as old:
        old.setattr(Analyzer, "terms", _revision_one_terms)
        yield


def revision(path: Path) -> list[tuple[str]]:
    with contextlib.closing(sqlite3.connect(path)) as raw:
        return raw.execute(
            "SELECT value FROM redstring_settings WHERE component = 'chunks' AND name = 'analysis'"
        ).fetchall()


def forget_revision(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as raw, raw:
        raw.execute(
            "DELETE FROM redstring_settings WHERE component = 'chunks' AND name = 'analysis'"
        )


def test_an_identifier_is_a_term_of_its_own_beside_its_words() -> None:
    english = Analyzer()
    assert english.terms("Set max_connections; see docs/build_policy.md") == [
        "set",
        "max",
        "connect",
        "see",
        "doc",
        "build",
        "polici",
        "md",
        "max_connect",
        "build_polici",
        "doc_build_polici_md",
    ]
    assert english.terms("kube-proxy os.path.join docs/how-to/a_b.md") == [
        *["kube", "proxi", "os", "path", "join", "doc", "how", "b", "md"],
        *["a_b", "os_path_join", "doc_how_to_a_b_md"],
    ]  # a hyphen of letters joins words only inside a path: prose writes "silver-white"
    assert Analyzer("none").terms("The max_connections") == [
        "the",
        "max",
        "connections",
        "max_connections",
    ]
    assert english.terms("max connections") == ["max", "connect"]
    assert english.terms("max_connections") == english.terms("MAX__CONNECTIONS")


@pytest.mark.asyncio
@pytest.mark.parametrize("language", ["english", "none"])
async def test_a_sqlite_file_of_revision_one_is_analysed_again_in_its_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: str
) -> None:
    path, tenant, other = tmp_path / "r1.db", new_tenant_id(), new_tenant_id()
    live = [*passages(tenant), *passages(other)[:2]]  # the same ids in two tenants
    with revision_one(monkeypatch):
        stores = open_sqlite(path, dimension=2, language=language)
        await stores.chunks.upsert_chunks(live)
        await stores.close()
    forget_revision(path)
    analyzer = Analyzer(language)
    assert stored_postings(path) == expected_postings(live, _Words(language))

    read_only = open_sqlite(path, read_only=True)
    try:
        assert read_only.chunks.analyzer == Analyzer(language, revision=LEGACY_REVISION)
        found = await read_only.chunks.lexical_candidates(analyzer.terms(QUERY), tenant)
        assert len(found.candidates) == 3  # by its words alone; nothing rewritten
    finally:
        await read_only.close()
    assert stored_postings(path) == expected_postings(live, _Words(language))
    assert revision(path) == []

    stores = open_sqlite(path)
    try:
        assert stores.chunks.analyzer == analyzer
        assert stored_postings(path) == expected_postings(live, analyzer)
        assert revision(path) == [(ANALYSIS_REVISION,)]
        terms = analyzer.terms(QUERY)
        found = await stores.chunks.lexical_candidates(terms, tenant)
        holders = [c.chunk_id for c in found.candidates if c.term_frequencies.get(terms[-1])]
        assert sorted(holders) == sorted(passages(tenant)[n].id for n in (0, 2))
        words = {c.id: len(_revision_one_terms(analyzer, c.text)) for c in passages(tenant)}
        assert {c.chunk_id: c.length for c in found.candidates} == words
        assert found.stats.average_length == pytest.approx(sum(words.values()) / len(TEXTS))
    finally:
        await stores.close()


def test_a_compound_term_adds_nothing_to_the_length() -> None:
    """BM25's length counts words: a compound repeats words already counted."""
    counts = Counter(Analyzer().terms("set max_connections in os.path.join"))
    assert counts["max_connect"] == counts["os_path_join"] == 1
    assert document_length(counts) == len(["set", "max", "connect", "os", "path", "join"])


@pytest.mark.asyncio
async def test_a_new_sqlite_file_records_the_revision(tmp_path: Path) -> None:
    stores = open_sqlite(tmp_path / "new.db", dimension=2)
    await stores.close()
    assert revision(tmp_path / "new.db") == [(ANALYSIS_REVISION,)]


@pytest.mark.asyncio
async def test_a_postgres_schema_of_revision_one_is_analysed_again_on_open(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    schema, tenant, other = f"t_{uuid.uuid4().hex[:12]}", new_tenant_id(), new_tenant_id()
    live = [*passages(tenant), *passages(other)[:2]]
    with revision_one(monkeypatch):
        stores = await open_postgres(postgres_url, dimension=2, schema=schema, max_size=2)
        await stores.chunks.upsert_chunks(live)
        await stores.close()
    with psycopg.connect(postgres_url, autocommit=True) as connection:
        connection.execute(
            f"DELETE FROM {schema}.redstring_settings"
            " WHERE component = 'chunks' AND name = 'analysis'"
        )
    assert postgres_postings(postgres_url, schema)[0] == expected_postings(live, _Words())
    stores = await open_postgres(postgres_url, schema=schema, max_size=2)
    try:
        english = Analyzer()
        postings, total = postgres_postings(postgres_url, schema)
        assert postings == expected_postings(live, english)
        assert total == sum(document_length(Counter(english.terms(c.text))) for c in live)
        terms = english.terms(QUERY)
        found = await stores.chunks.lexical_candidates(terms, tenant)
        holders = [c.chunk_id for c in found.candidates if c.term_frequencies.get(terms[-1])]
        assert sorted(holders) == sorted(passages(tenant)[n].id for n in (0, 2))
    finally:
        await stores.close()


#: Passages whose revision-2 terms differ from the current ones: a word with vowel signs
#: (cut at each sign), a hyphenated identifier holding a digit (no compound).
SCRIPTS = ["मैं हर दिन एक किताब पढ़ता हूँ", "कबूतर तालाब के पास", "build for x86-64", "x86 and 64"]


def _revision_two_terms(analyzer: Analyzer, text: str) -> list[str]:
    return _CURRENT_TERMS(Analyzer(analyzer.language, revision=LEGACY_REVISION), text)


class _RevisionTwo(Analyzer):
    terms = _revision_two_terms


@pytest.mark.asyncio
async def test_a_sqlite_file_of_revision_two_is_searched_as_it_is_then_analysed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read-only, its queries meet the terms it holds; opened to write, it holds the new ones."""
    path, tenant = tmp_path / "r2.db", new_tenant_id()
    live = migration_passages(tenant, SCRIPTS)
    with monkeypatch.context() as old:
        old.setattr(Analyzer, "terms", _revision_two_terms)
        stores = open_sqlite(path, dimension=2)
        await stores.chunks.upsert_chunks(live)
        await stores.close()
    with contextlib.closing(sqlite3.connect(path)) as raw, raw:
        raw.execute(
            "UPDATE redstring_settings SET value = ?"
            " WHERE component = 'chunks' AND name = 'analysis'",
            (LEGACY_REVISION,),
        )
    assert stored_postings(path) == expected_postings(live, _RevisionTwo())

    read_only = open_sqlite(path, read_only=True)
    try:
        analyzer = read_only.chunks.analyzer
        assert analyzer == Analyzer(revision=LEGACY_REVISION)
        found = await read_only.chunks.lexical_candidates(analyzer.terms("किताब"), tenant)
        assert sorted(c.chunk_id for c in found.candidates) == sorted(c.id for c in live[:2])
    finally:
        await read_only.close()
    assert revision(path) == [(LEGACY_REVISION,)]

    stores = open_sqlite(path)
    try:
        english = Analyzer()
        assert stores.chunks.analyzer == english
        assert revision(path) == [(ANALYSIS_REVISION,)]
        assert stored_postings(path) == expected_postings(live, english)
        found = await stores.chunks.lexical_candidates(english.terms("किताब"), tenant)
        assert [c.chunk_id for c in found.candidates] == [live[0].id]
        terms = english.terms("x86-64")
        found = await stores.chunks.lexical_candidates(terms, tenant)
        holders = [c.chunk_id for c in found.candidates if c.term_frequencies.get(terms[-1])]
        assert holders == [live[2].id]
    finally:
        await stores.close()
