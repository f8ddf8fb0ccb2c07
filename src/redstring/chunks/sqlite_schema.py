"""The SQLite chunk store's tables, as schema migrations (ADR 0041)."""

from __future__ import annotations

from redstring.storage.schema import Schema
from redstring.storage.tenant_cache import generation_table

SCHEMA = Schema(
    component="chunks",
    migrations=[
        [
            # body: the chunk's JSON without its embedding; length: its term count.
            "CREATE TABLE chunk_rows ("
            " tenant_id TEXT NOT NULL, chunk_id TEXT NOT NULL, source_id TEXT NOT NULL,"
            " idx INTEGER NOT NULL, length INTEGER NOT NULL, body TEXT NOT NULL,"
            " embedding BLOB, PRIMARY KEY (tenant_id, chunk_id))",
            "CREATE INDEX chunk_rows_by_source ON chunk_rows (tenant_id, source_id, idx, chunk_id)",
            "CREATE TABLE chunk_entities ("
            " tenant_id TEXT NOT NULL, entity_id TEXT NOT NULL, chunk_id TEXT NOT NULL,"
            " PRIMARY KEY (tenant_id, entity_id, chunk_id)) WITHOUT ROWID",
            "CREATE INDEX chunk_entities_by_chunk ON chunk_entities (tenant_id, chunk_id)",
            # One posting per (term, chunk); the chunk's length rides along so
            # ranking needs no second lookup per candidate.
            "CREATE TABLE chunk_postings ("
            " tenant_id TEXT NOT NULL, term TEXT NOT NULL, chunk_id TEXT NOT NULL,"
            " tf INTEGER NOT NULL, length INTEGER NOT NULL,"
            " PRIMARY KEY (tenant_id, term, chunk_id)) WITHOUT ROWID",
            "CREATE INDEX chunk_postings_by_chunk ON chunk_postings (tenant_id, chunk_id)",
            "CREATE TABLE chunk_terms ("
            " tenant_id TEXT NOT NULL, term TEXT NOT NULL, document_frequency INTEGER NOT NULL,"
            " PRIMARY KEY (tenant_id, term)) WITHOUT ROWID",
            "CREATE TABLE chunk_corpus ("
            " tenant_id TEXT PRIMARY KEY, document_count INTEGER NOT NULL,"
            " total_length INTEGER NOT NULL)",
            generation_table("chunk_generations"),
        ],
        # 2: chunk ids re-derived with the injective encoding (ADR 0133).
        [
            "CREATE TABLE chunk_id_moves (tenant_id TEXT NOT NULL, old_id TEXT NOT NULL,"
            " new_id TEXT NOT NULL, PRIMARY KEY (tenant_id, old_id)) WITHOUT ROWID",
            "INSERT INTO chunk_id_moves SELECT tenant_id, chunk_id,"
            " redstring_chunk_id(source_id, json_extract(body, '$.text')) FROM chunk_rows",
            *(
                f"UPDATE {table} SET chunk_id = (SELECT m.new_id FROM chunk_id_moves m"
                f" WHERE m.tenant_id = {table}.tenant_id AND m.old_id = {table}.chunk_id)"
                f" WHERE EXISTS (SELECT 1 FROM chunk_id_moves m"
                f" WHERE m.tenant_id = {table}.tenant_id AND m.old_id = {table}.chunk_id)"
                for table in ("chunk_rows", "chunk_entities", "chunk_postings")
            ),
            "DROP TABLE chunk_id_moves",
            "UPDATE chunk_generations SET token = lower(hex(randomblob(16)))",
        ],
        # 3: each row lists the terms it was posted under, so removing a chunk deletes
        # its postings by primary key and the by-chunk index (half the file) goes (ADR 0187).
        [
            "ALTER TABLE chunk_rows ADD COLUMN terms TEXT NOT NULL DEFAULT '[]'",
            "UPDATE chunk_rows SET terms = (SELECT json_group_array(p.term) FROM chunk_postings p"
            " WHERE p.tenant_id = chunk_rows.tenant_id AND p.chunk_id = chunk_rows.chunk_id)",
            "DROP INDEX chunk_postings_by_chunk",
        ],
        # 4: numbered chunks and terms; postings packed per (tenant, term, block of 256
        # chunk numbers); term lists, bodies and embeddings packed (ADR 0220).
        [
            "CREATE TABLE chunk_tenants (tenant_id TEXT PRIMARY KEY, number INTEGER NOT NULL"
            " UNIQUE, next_chunk INTEGER NOT NULL, next_term INTEGER NOT NULL)",
            "INSERT INTO chunk_tenants SELECT tenant_id,"
            " ROW_NUMBER() OVER (ORDER BY tenant_id) - 1,"
            " (SELECT COUNT(*) FROM chunk_rows r WHERE r.tenant_id = t.tenant_id),"
            " (SELECT COUNT(*) FROM chunk_terms d WHERE d.tenant_id = t.tenant_id)"
            " FROM (SELECT tenant_id FROM chunk_rows UNION SELECT tenant_id FROM chunk_corpus) t",
            "CREATE TABLE chunk_words (tenant_id TEXT NOT NULL, term TEXT NOT NULL,"
            " number INTEGER NOT NULL, PRIMARY KEY (tenant_id, term)) WITHOUT ROWID",
            "INSERT INTO chunk_words SELECT tenant_id, term,"
            " ROW_NUMBER() OVER (PARTITION BY tenant_id ORDER BY term) - 1 FROM chunk_terms",
            "CREATE TABLE chunk_texts (tenant_id TEXT NOT NULL, chunk_id TEXT NOT NULL,"
            " source_id TEXT NOT NULL, idx INTEGER NOT NULL, number INTEGER NOT NULL,"
            " length INTEGER NOT NULL, terms BLOB NOT NULL, body BLOB NOT NULL,"
            " PRIMARY KEY (tenant_id, chunk_id))",
            "INSERT INTO chunk_texts SELECT r.tenant_id, r.chunk_id, r.source_id, r.idx,"
            " ROW_NUMBER() OVER (PARTITION BY r.tenant_id ORDER BY r.source_id, r.idx, r.chunk_id)"
            " - 1, r.length, redstring_terms((SELECT json_group_array(w.number)"
            " FROM json_each(r.terms) j CROSS JOIN chunk_words w"  # each term by its key
            " ON w.tenant_id = r.tenant_id AND w.term = j.value)), redstring_body(r.body)"
            " FROM chunk_rows r",
            "CREATE TABLE chunk_vectors (key INTEGER PRIMARY KEY, embedding BLOB NOT NULL)",
            "INSERT INTO chunk_vectors SELECT (t.number << 40) + x.number, r.embedding"
            " FROM chunk_rows r JOIN chunk_texts x"
            " ON x.tenant_id = r.tenant_id AND x.chunk_id = r.chunk_id"
            " JOIN chunk_tenants t ON t.tenant_id = r.tenant_id WHERE r.embedding IS NOT NULL",
            "CREATE TABLE chunk_posting_blocks (tenant INTEGER NOT NULL, term INTEGER NOT NULL,"
            " block INTEGER NOT NULL, postings BLOB NOT NULL,"
            " PRIMARY KEY (tenant, term, block)) WITHOUT ROWID",
            "INSERT INTO chunk_posting_blocks SELECT t.number, w.number, x.number >> 8,"
            " redstring_block(json_group_array(x.number & 255), json_group_array(p.tf))"
            " FROM chunk_postings p JOIN chunk_tenants t ON t.tenant_id = p.tenant_id"
            " JOIN chunk_words w ON w.tenant_id = p.tenant_id AND w.term = p.term"
            " JOIN chunk_texts x ON x.tenant_id = p.tenant_id AND x.chunk_id = p.chunk_id"
            " GROUP BY t.number, w.number, x.number >> 8",
            "DROP TABLE chunk_postings",
            "DROP TABLE chunk_terms",
            "DROP TABLE chunk_rows",
            "CREATE INDEX chunk_texts_by_source"
            " ON chunk_texts (tenant_id, source_id, idx, chunk_id, number, length)",
            "UPDATE chunk_generations SET token = lower(hex(randomblob(16)))",
        ],
        # 5: the postings of a file holding chunks were written before text analysis was
        # a setting; marked, they are analysed again by the store on open (ADR 0345).
        [
            "INSERT INTO redstring_settings (component, name, value)"
            " SELECT 'chunks', 'language', 'unanalysed' WHERE EXISTS (SELECT 1 FROM chunk_texts)"
            " ON CONFLICT (component, name) DO NOTHING",
        ],
        # 6: each postings block records how many postings it holds, so a blob cut
        # short is told by its length instead of read as fewer postings (ADR 0360).
        [
            "UPDATE chunk_posting_blocks SET postings = redstring_counted_block(postings)",
            "UPDATE chunk_generations SET token = lower(hex(randomblob(16)))",
        ],
    ],
)
