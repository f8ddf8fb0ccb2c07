"""The SQLite graph store's tables, as schema versions (migrations run in order)."""

from __future__ import annotations

from uuid import UUID

from redstring.storage.schema import Schema
from redstring.storage.tenant_cache import generation_table

#: The SQL name of `uuid_bytes`, which version 3's migration calls.
UUID_BYTES_FUNCTION = "redstring_uuid_bytes"


def uuid_bytes(text: str) -> bytes:
    """An id's 16 bytes, big-endian: they sort as its canonical text does."""
    return UUID(text).bytes


SCHEMA = Schema(
    component="graph",
    migrations=[
        [
            "CREATE TABLE graph_entities ("
            " tenant_id TEXT NOT NULL, id TEXT NOT NULL, normalized_type TEXT NOT NULL,"
            " body TEXT NOT NULL, PRIMARY KEY (tenant_id, id))",
            "CREATE INDEX graph_entities_by_type ON graph_entities"
            " (tenant_id, normalized_type, id)",
            "CREATE TABLE graph_blocking_keys ("
            " tenant_id TEXT NOT NULL, key TEXT NOT NULL, entity_id TEXT NOT NULL,"
            " PRIMARY KEY (tenant_id, key, entity_id),"
            " FOREIGN KEY (tenant_id, entity_id) REFERENCES graph_entities (tenant_id, id)"
            " ON DELETE CASCADE) WITHOUT ROWID",
            "CREATE INDEX graph_blocking_keys_by_entity ON graph_blocking_keys"
            " (tenant_id, entity_id)",
            "CREATE TABLE graph_relationships ("
            " tenant_id TEXT NOT NULL, id TEXT NOT NULL, source_id TEXT NOT NULL,"
            " target_id TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (tenant_id, id),"
            " FOREIGN KEY (tenant_id, source_id) REFERENCES graph_entities (tenant_id, id)"
            " ON DELETE CASCADE,"
            " FOREIGN KEY (tenant_id, target_id) REFERENCES graph_entities (tenant_id, id)"
            " ON DELETE CASCADE)",
            "CREATE INDEX graph_relationships_by_source ON graph_relationships"
            " (tenant_id, source_id)",
            "CREATE INDEX graph_relationships_by_target ON graph_relationships"
            " (tenant_id, target_id)",
        ],
        # Blocking key scheme versions (ADR 0070): rows written before this
        # migration were filed under version 1, the whole-name keys of ADR 0003.
        [
            "ALTER TABLE graph_entities ADD COLUMN key_version INTEGER NOT NULL DEFAULT 1",
        ],
        # 3: a narrow key table (ADR 0260): a per-file tenant number and the id's 16
        # bytes (which sort as its text), no by-entity index and no foreign key; each
        # entity row lists the keys it is filed under, so removal deletes by primary key.
        [
            "CREATE TABLE graph_tenants (number INTEGER PRIMARY KEY,"
            " tenant_id TEXT NOT NULL UNIQUE)",
            "INSERT INTO graph_tenants (tenant_id)"
            " SELECT DISTINCT tenant_id FROM graph_entities ORDER BY tenant_id",
            "ALTER TABLE graph_entities ADD COLUMN keys TEXT NOT NULL DEFAULT '[]'",
            "UPDATE graph_entities SET keys = (SELECT json_group_array(b.key)"
            " FROM graph_blocking_keys b"
            " WHERE b.tenant_id = graph_entities.tenant_id AND b.entity_id = graph_entities.id)",
            "CREATE TABLE graph_keys (tenant INTEGER NOT NULL, key TEXT NOT NULL,"
            " entity BLOB NOT NULL, PRIMARY KEY (tenant, key, entity)) WITHOUT ROWID",
            f"INSERT INTO graph_keys SELECT t.number, b.key, {UUID_BYTES_FUNCTION}(b.entity_id)"
            " FROM graph_blocking_keys b JOIN graph_tenants t ON t.tenant_id = b.tenant_id"
            " ORDER BY 1, 2, 3",
            "DROP TABLE graph_blocking_keys",
        ],
        # 4: a generation token per tenant, replaced by every write to it, so what a
        # store has read of the tenant is served only while it is current (ADR 0450).
        [
            generation_table("graph_generations"),
            "INSERT INTO graph_generations (tenant_id, token)"
            " SELECT tenant_id, lower(hex(randomblob(16)))"
            " FROM (SELECT DISTINCT tenant_id FROM graph_entities)",
        ],
    ],
)
