"""The PostgreSQL chunk store's tables, as schema migrations (ADR 0041)."""

from __future__ import annotations

from redstring.storage.schema import Schema


def schema_for(dimension: int) -> Schema:
    """The chunk tables for `dimension`; every key leads with `tenant_id`."""
    return Schema(
        component="chunks",
        migrations=[
            [
                # body: the chunk's JSON without its embedding; length: its term count.
                "CREATE TABLE {schema}.chunk_rows ("
                ' tenant_id uuid NOT NULL, chunk_id text COLLATE "C" NOT NULL,'
                " source_id text NOT NULL, idx integer NOT NULL, length integer NOT NULL,"
                f" body jsonb NOT NULL, embedding vector({int(dimension)}),"
                " PRIMARY KEY (tenant_id, chunk_id))",
                # Keep embeddings in the row (a wide row would push them out to
                # TOAST, and every exact search would then detoast each one).
                "ALTER TABLE {schema}.chunk_rows ALTER COLUMN embedding SET STORAGE MAIN",
                "CREATE INDEX chunk_rows_by_source ON {schema}.chunk_rows"
                " (tenant_id, source_id, idx, chunk_id)",
                "CREATE TABLE {schema}.chunk_entities ("
                " tenant_id uuid NOT NULL, entity_id uuid NOT NULL,"
                ' chunk_id text COLLATE "C" NOT NULL,'
                " PRIMARY KEY (tenant_id, entity_id, chunk_id))",
                "CREATE INDEX chunk_entities_by_chunk ON {schema}.chunk_entities"
                " (tenant_id, chunk_id)",
                "CREATE TABLE {schema}.chunk_postings ("
                ' tenant_id uuid NOT NULL, term text NOT NULL, chunk_id text COLLATE "C" NOT NULL,'
                " tf integer NOT NULL, length integer NOT NULL,"
                " PRIMARY KEY (tenant_id, term, chunk_id))",
                "CREATE INDEX chunk_postings_by_chunk ON {schema}.chunk_postings"
                " (tenant_id, chunk_id)",
                "CREATE TABLE {schema}.chunk_terms ("
                " tenant_id uuid NOT NULL, term text NOT NULL,"
                " document_frequency integer NOT NULL, PRIMARY KEY (tenant_id, term))",
                "CREATE TABLE {schema}.chunk_corpus ("
                " tenant_id uuid PRIMARY KEY, document_count integer NOT NULL,"
                " total_length bigint NOT NULL)",
            ],
            _REKEY_CHUNK_IDS,
            # 3: the postings of a schema holding chunks were written before text analysis
            # was a setting; marked, they are analysed again by the store on open (ADR 0345).
            [
                "INSERT INTO {schema}.redstring_settings (component, name, value)"
                " SELECT 'chunks', 'language', 'unanalysed'"
                " WHERE EXISTS (SELECT 1 FROM {schema}.chunk_rows)"
                " ON CONFLICT (component, name) DO NOTHING",
            ],
        ],
    )


def _utf8_field(expression: str) -> str:
    """SQL for `length_prefixed`'s encoding of one text field (ADR 0133)."""
    return f"octet_length(convert_to({expression}, 'UTF8')) || ':' || {expression}"


#: The id `chunk_id_for` gives the chunk_rows row aliased `r` (ADR 0133), in SQL.
_NEW_ID = (
    "'c:' || left(encode(sha256(convert_to('5:chunk' || "
    + _utf8_field("r.source_id")
    + " || "
    + _utf8_field("(r.body->>'text')")
    + ", 'UTF8')), 'hex'), 32)"
)

#: 2: chunk ids re-derived with the injective encoding; the rows referring to a
#: chunk first (they find it by its old id), then the chunk rows.
_REKEY_CHUNK_IDS = [
    *(
        f"UPDATE {{schema}}.{table} t SET chunk_id = {_NEW_ID} FROM {{schema}}.chunk_rows r"
        " WHERE r.tenant_id = t.tenant_id AND r.chunk_id = t.chunk_id"
        for table in ("chunk_entities", "chunk_postings")
    ),
    f"UPDATE {{schema}}.chunk_rows r SET chunk_id = {_NEW_ID}",
]
