"""The language a SQLite chunk index is analysed in: recorded in the file, settled on open.

The file records it as the setting `chunks language`, and the analysis's
revision as `chunks analysis`. Postings written before the language setting
existed are marked `UNANALYSED` by migration 5; they, and a writable file's
postings of another revision, are analysed again here, all in one write
transaction, before the file is used.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter, defaultdict

import numpy as np

from redstring.chunks.sqlite_codec import BLOCK, decode_body, encode_block, encode_terms
from redstring.domain.tokenize import (
    ANALYSIS_REVISION,
    LEGACY_REVISION,
    UNANALYSED,
    Analyzer,
    document_length,
    settled_language,
)
from redstring.storage.damage import decoding
from redstring.storage.sqlite import SqliteDatabase
from redstring.storage.tenant_cache import bump_generations

_SETTING = ("chunks", "language")
_REVISION = ("chunks", "analysis")


def open_language(database: SqliteDatabase, asked: str | None, *, store: str) -> Analyzer:
    """The analyzer of the file's chunk index (`settled_language`), recorded in the file.

    A file marked `UNANALYSED`, or a writable one holding chunks analysed at
    another revision (`ANALYSIS_REVISION`), is analysed again in it first. A
    read-only file holding chunks of an older revision is searched as it is, its
    queries analysed as revision 2 analysed (`LEGACY_REVISION`: words of letters and
    digits, no hyphen compound), so they meet the terms it holds; revision 1's
    chunks hold no compound term, so a compound query term finds none there.
    """
    stored = database.stored_setting(*_SETTING, store=store)
    revision = database.stored_setting(*_REVISION, store=store)
    holds = database.read_now(_holds_chunks, store=store)
    language = settled_language(
        asked, stored, holds_chunks=holds, store=store, path=str(database.path)
    )
    if database.read_only and holds and stored != UNANALYSED and revision != ANALYSIS_REVISION:
        return Analyzer(language, revision=LEGACY_REVISION)
    analyzer = Analyzer(language)
    if stored == UNANALYSED or (holds and revision != ANALYSIS_REVISION and not database.read_only):
        database.write_now(lambda c: _analyse_again(c, analyzer), store=store)
    elif (analyzer.language != stored or revision != ANALYSIS_REVISION) and not database.read_only:
        database.write_now(lambda c: _record(c, analyzer.language), store=store)
    return analyzer


def _holds_chunks(connection: sqlite3.Connection) -> bool:
    return connection.execute("SELECT 1 FROM chunk_texts LIMIT 1").fetchone() is not None


def _record(connection: sqlite3.Connection, language: str) -> None:
    connection.executemany(
        "INSERT INTO redstring_settings (component, name, value) VALUES (?, ?, ?)"
        " ON CONFLICT (component, name) DO UPDATE SET value = excluded.value",
        [(*_SETTING, language), (*_REVISION, ANALYSIS_REVISION)],
    )


def _analyse_again(connection: sqlite3.Connection, analyzer: Analyzer) -> None:
    """Post every chunk of every tenant again under `analyzer`'s terms, then record it.

    Chunk numbers (and so the vectors keyed by them) stay; terms are numbered
    afresh; lengths, term lists, postings blocks and corpus totals are rewritten.
    """
    tenants = [
        (str(tenant), int(number))
        for tenant, number in connection.execute("SELECT tenant_id, number FROM chunk_tenants")
    ]
    for tenant, number in tenants:
        _analyse_tenant(connection, tenant, number, analyzer)
    bump_generations(connection, "chunk_generations", [tenant for tenant, _ in tenants])
    _record(connection, analyzer.language)


def _analyse_tenant(
    connection: sqlite3.Connection, tenant: str, number: int, analyzer: Analyzer
) -> None:
    chunks = [
        (str(chunk_id), int(chunk_number), Counter(analyzer.terms(_text(tenant, chunk_id, body))))
        for chunk_id, chunk_number, body in connection.execute(
            "SELECT chunk_id, number, body FROM chunk_texts WHERE tenant_id = ?", (tenant,)
        )
    ]
    terms = sorted({term for _, _, counts in chunks for term in counts})
    words = {term: n for n, term in enumerate(terms)}
    blocks: dict[tuple[int, int], tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    texts: list[tuple[int, bytes, str, str]] = []
    for chunk_id, chunk_number, counts in chunks:
        block, slot = divmod(chunk_number, BLOCK)
        for term, tf in counts.items():
            slots, tfs = blocks[(words[term], block)]
            slots.append(slot)
            tfs.append(tf)
        posted = np.array([words[term] for term in counts], dtype=np.int64)
        texts.append((document_length(counts), encode_terms(posted), tenant, chunk_id))
    connection.execute("DELETE FROM chunk_posting_blocks WHERE tenant = ?", (number,))
    connection.execute("DELETE FROM chunk_words WHERE tenant_id = ?", (tenant,))
    connection.executemany(
        "INSERT INTO chunk_words (tenant_id, term, number) VALUES (?, ?, ?)",
        [(tenant, term, n) for term, n in words.items()],
    )
    connection.executemany(
        "UPDATE chunk_texts SET length = ?, terms = ? WHERE tenant_id = ? AND chunk_id = ?", texts
    )
    connection.executemany(
        "INSERT INTO chunk_posting_blocks (tenant, term, block, postings) VALUES (?, ?, ?, ?)",
        [
            (number, term, block, encode_block(np.array(s, np.int64), np.array(c, np.int64)))
            for (term, block), (s, c) in sorted(blocks.items())
        ],
    )
    connection.execute(
        "UPDATE chunk_tenants SET next_term = ? WHERE tenant_id = ?", (len(words), tenant)
    )
    connection.execute(
        "UPDATE chunk_corpus SET total_length = ? WHERE tenant_id = ?",
        (sum(length for length, *_ in texts), tenant),
    )


def _text(tenant: str, chunk_id: str, body: bytes) -> str:
    with decoding(table="chunk_texts", tenant=tenant, row=f"chunk {chunk_id}"):
        return str(json.loads(decode_body(body))["text"])
