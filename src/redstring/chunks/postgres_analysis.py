"""The language a PostgreSQL chunk index is analysed in: recorded in the schema, settled on open.

The schema records it as the setting `chunks language`, and the analysis's
revision as `chunks analysis`. Postings written before the language setting
existed are marked `UNANALYSED` by migration 3; they, and postings of another
revision, are analysed again here, all in one transaction, before the store
is used.
"""

from __future__ import annotations

from collections import Counter

from redstring.domain.tokenize import (
    ANALYSIS_REVISION,
    UNANALYSED,
    Analyzer,
    document_length,
    settled_language,
)
from redstring.storage.postgres import Connection, PostgresDatabase

_SETTING = ("chunks", "language")
_REVISION = ("chunks", "analysis")


async def open_language(database: PostgresDatabase, asked: str | None, *, store: str) -> Analyzer:
    """The analyzer of the schema's chunk index (`settled_language`), recorded in the schema.

    A schema marked `UNANALYSED`, or holding chunks analysed at another
    revision (`ANALYSIS_REVISION`), is analysed again in it first.
    """
    stored = await database.stored_setting(*_SETTING, store=store)
    revision = await database.stored_setting(*_REVISION, store=store)

    async def holds(connection: Connection) -> bool:
        cursor = await connection.execute(
            database.sql(
                "WITH every_tenant AS (SELECT 1 FROM {schema}.chunk_rows LIMIT 1)"
                " SELECT count(*) FROM every_tenant"
            )
        )
        row = await cursor.fetchone()
        return row is not None and int(row[0]) > 0

    path = f"schema {database.schema!r}"
    held = await database.read(holds, store=store)
    language = settled_language(asked, stored, holds_chunks=held, store=store, path=path)
    analyzer = Analyzer(language)

    async def record(connection: Connection) -> None:
        if stored == UNANALYSED or (held and revision != ANALYSIS_REVISION):
            await _analyse_again(database, connection, analyzer)
        async with connection.cursor() as many:
            await many.executemany(
                database.sql(
                    "INSERT INTO {schema}.redstring_settings (component, name, value)"
                    " VALUES (%s, %s, %s)"
                    " ON CONFLICT (component, name) DO UPDATE SET value = excluded.value"
                ),
                [(*_SETTING, language), (*_REVISION, ANALYSIS_REVISION)],
            )

    if language != stored or revision != ANALYSIS_REVISION:
        await database.write(record, store=store)
    return analyzer


async def _analyse_again(
    database: PostgresDatabase, connection: Connection, analyzer: Analyzer
) -> None:
    """Post every chunk of every tenant again under `analyzer`'s terms.

    Postings, document frequencies, chunk lengths and corpus totals are
    rewritten from the rows' text.
    """
    q = database.sql
    cursor = await connection.execute(
        q("SELECT tenant_id, chunk_id, body->>'text' FROM {schema}.chunk_rows")
    )
    postings: list[tuple[object, str, str, int, int]] = []
    lengths: list[tuple[int, object, str]] = []
    frequencies: Counter[tuple[object, str]] = Counter()
    totals: Counter[object] = Counter()
    for tenant, chunk_id, text in await cursor.fetchall():
        counts = Counter(analyzer.terms(str(text)))
        length = document_length(counts)
        postings.extend((tenant, term, chunk_id, tf, length) for term, tf in counts.items())
        lengths.append((length, tenant, chunk_id))
        frequencies.update((tenant, term) for term in counts)
        totals[tenant] += length
    await connection.execute(q("DELETE FROM {schema}.chunk_postings"))
    await connection.execute(q("DELETE FROM {schema}.chunk_terms"))
    async with connection.cursor() as many:
        await many.executemany(
            q("UPDATE {schema}.chunk_rows SET length = %s WHERE tenant_id = %s AND chunk_id = %s"),
            lengths,
        )
        await many.executemany(
            q(
                "INSERT INTO {schema}.chunk_postings (tenant_id, term, chunk_id, tf, length)"
                " VALUES (%s, %s, %s, %s, %s)"
            ),
            postings,
        )
        await many.executemany(
            q(
                "INSERT INTO {schema}.chunk_terms (tenant_id, term, document_frequency)"
                " VALUES (%s, %s, %s)"
            ),
            [(tenant, term, n) for (tenant, term), n in frequencies.items()],
        )
        await many.executemany(
            q("UPDATE {schema}.chunk_corpus SET total_length = %s WHERE tenant_id = %s"),
            [(total, tenant) for tenant, total in totals.items()],
        )
