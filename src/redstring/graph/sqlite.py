"""A graph store in a SQLite file: entities, relationships and blocking keys as tables."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from uuid import UUID

from redstring.domain.blocking import KEY_VERSION, MAX_BLOCK_MEMBERS, blocking_keys_for
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import UnknownEntityError
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.summary import GraphSummary, graph_summary_of
from redstring.domain.validation import require_tenant_id, require_writable_graph
from redstring.storage.describe import DescribedStore
from redstring.storage.schema import Schema
from redstring.storage.shared_transactions import SharedTransactions
from redstring.storage.sqlite import SqliteDatabase, chunked, placeholders, rows_in

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
    ],
)

#: Keys per statement: each is one capped subquery of a compound SELECT.
_KEYS_PER_STATEMENT = 100


class SqliteGraphStore(SharedTransactions[SqliteDatabase], DescribedStore):
    """A `GraphStore` in a SQLite file shared with other stores.

    Every key starts with `tenant_id`. Entities and relationships are stored
    as their JSON, so what is read back equals what was written. Blocking keys
    live in an indexed table, so `find_by_blocking_keys` is an index range
    lookup. Each `upsert` or delete is one transaction. Raises
    `SchemaVersionError`s on opening and `StoreError`s when the file fails.
    """

    def __init__(self, database: SqliteDatabase, *, migrate: bool = False) -> None:
        self._db = database
        self._name = f"SqliteGraphStore({database.path})"
        database.ensure_schema(SCHEMA, migrate=migrate, store=self._name)

    async def upsert(
        self, entities: Sequence[Entity], relationships: Sequence[Relationship] = ()
    ) -> None:
        require_writable_graph(entities, relationships)
        entity_rows = [
            (
                str(e.tenant_id),
                str(e.id),
                normalize_name(e.entity_type),
                e.model_dump_json(),
                sorted(blocking_keys_for(e)),
            )
            for e in entities
        ]
        relationship_rows = [
            (str(r.tenant_id), str(r.id), str(r.source_id), str(r.target_id), r.model_dump_json())
            for r in relationships
        ]
        batch = {(row[0], row[1]) for row in entity_rows}

        def work(connection: sqlite3.Connection) -> None:
            _require_ends(connection, relationships, batch)
            for tenant, entity_id, normalized_type, body, keys in entity_rows:
                connection.execute(
                    "INSERT INTO graph_entities (tenant_id, id, normalized_type, body, key_version)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, id) DO UPDATE SET"
                    " normalized_type = excluded.normalized_type, body = excluded.body,"
                    " key_version = excluded.key_version",
                    (tenant, entity_id, normalized_type, body, KEY_VERSION),
                )
                _file(connection, tenant, entity_id, keys)
            connection.executemany(
                "INSERT INTO graph_relationships (tenant_id, id, source_id, target_id, body)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (tenant_id, id) DO UPDATE SET"
                " source_id = excluded.source_id, target_id = excluded.target_id,"
                " body = excluded.body",
                relationship_rows,
            )

        await self._db.write(work, store=self._name)

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        require_tenant_id(tenant_id)
        wanted = [str(i) for i in dict.fromkeys(entity_ids)]

        def work(connection: sqlite3.Connection) -> list[tuple[object, ...]]:
            statement = "SELECT body FROM graph_entities WHERE tenant_id = ? AND id"
            return rows_in(connection, statement, str(tenant_id), wanted)

        return [Entity.model_validate_json(str(body)) for (body,) in await self._read(work)]

    async def get_names(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> dict[EntityId, list[str]]:
        require_tenant_id(tenant_id)
        wanted = [str(i) for i in dict.fromkeys(entity_ids)]

        def work(connection: sqlite3.Connection) -> list[tuple[object, ...]]:
            statement = (
                "SELECT id, json_extract(body, '$.name'), json_extract(body, '$.aliases')"
                " FROM graph_entities WHERE tenant_id = ? AND id"
            )
            return rows_in(connection, statement, str(tenant_id), wanted)

        return {
            EntityId(UUID(str(entity_id))): [str(name), *json.loads(str(aliases))]
            for entity_id, name, aliases in await self._read(work)
        }

    async def find_by_type(self, entity_type: str, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT body FROM graph_entities WHERE tenant_id = ? AND normalized_type = ?"
            " ORDER BY id",
            (str(tenant_id), normalize_name(entity_type)),
        )

    async def list_entities(self, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT body FROM graph_entities WHERE tenant_id = ? ORDER BY id", (str(tenant_id),)
        )

    async def list_tenants(self) -> list[TenantId]:
        # DISTINCT over the primary key's leading column: an index walk, not a table scan.
        tenants = await self._read(
            lambda c: [row[0] for row in c.execute("SELECT DISTINCT tenant_id FROM graph_entities")]
        )
        return sorted((TenantId(UUID(tenant)) for tenant in tenants), key=str)

    async def graph_summary(self, tenant_id: TenantId) -> GraphSummary:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> GraphSummary:
            # Both are covering-index scans of the tenant's range; no body is read.
            types = connection.execute(
                "SELECT normalized_type, COUNT(*) FROM graph_entities"
                " WHERE tenant_id = ? GROUP BY normalized_type",
                (tenant,),
            ).fetchall()
            [(relationships,)] = connection.execute(
                "SELECT COUNT(*) FROM graph_relationships WHERE tenant_id = ?", (tenant,)
            ).fetchall()
            return graph_summary_of(((t, int(n)) for t, n in types), int(relationships))

        return await self._read(work)

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        require_tenant_id(tenant_id)
        return await self._relationships(
            "SELECT body FROM graph_relationships WHERE tenant_id = ? ORDER BY id",
            (str(tenant_id),),
        )

    async def relationships_of(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[Relationship]:
        # A UNION of two index lookups: with OR, SQLite may walk the tenant's whole range.
        require_tenant_id(tenant_id)
        return await self._relationships(
            "SELECT body FROM (SELECT id, body FROM graph_relationships"
            " WHERE tenant_id = :tenant AND source_id = :me UNION SELECT id, body"
            " FROM graph_relationships WHERE tenant_id = :tenant AND target_id = :me) ORDER BY id",
            {"tenant": str(tenant_id), "me": str(entity_id)},
        )

    async def neighbours(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[tuple[Relationship, Entity]]:
        require_tenant_id(tenant_id)
        me = str(entity_id)

        def work(connection: sqlite3.Connection) -> list[tuple[str, str]]:
            return [
                (row[0], row[1])
                for row in connection.execute(
                    "SELECT r.body, e.body FROM (SELECT id, body, target_id AS other"
                    " FROM graph_relationships WHERE tenant_id = :tenant AND source_id = :me"
                    " UNION SELECT id, body, source_id AS other FROM graph_relationships"
                    " WHERE tenant_id = :tenant AND target_id = :me) r"
                    " JOIN graph_entities e ON e.tenant_id = :tenant AND e.id = r.other"
                    " ORDER BY r.id",
                    {"tenant": str(tenant_id), "me": me},
                )
            ]

        return [
            (Relationship.model_validate_json(rel), Entity.model_validate_json(other))
            for rel, other in await self._read(work)
        ]

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[Entity]]:
        require_tenant_id(tenant_id)
        rows = await self._capped_blocks(keys, tenant_id, limit, with_bodies=True)
        result: dict[str, list[Entity]] = {key: [] for key in keys}
        for key, body in rows:
            result[key].append(Entity.model_validate_json(body))
        return result

    async def find_ids_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[EntityId]]:
        require_tenant_id(tenant_id)
        rows = await self._capped_blocks(keys, tenant_id, limit, with_bodies=False)
        result: dict[str, list[EntityId]] = {key: [] for key in keys}
        for key, entity_id in rows:
            result[key].append(EntityId(UUID(entity_id)))
        return result

    async def count_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, int]:
        require_tenant_id(tenant_id)
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        wanted = list(dict.fromkeys(keys))
        tenant = str(tenant_id)
        # Per key, a count over an index range cut at `limit`: never a whole block.
        one = (
            "SELECT ?, count(*) FROM (SELECT 1 FROM graph_blocking_keys"
            " WHERE tenant_id = ? AND key = ? LIMIT ?)"
        )

        def work(connection: sqlite3.Connection) -> dict[str, int]:
            counts: dict[str, int] = {}
            for start in range(0, len(wanted), _KEYS_PER_STATEMENT):
                part = wanted[start : start + _KEYS_PER_STATEMENT]
                parameters = [value for key in part for value in (key, tenant, key, limit)]
                statement = " UNION ALL ".join([one] * len(part))
                rows = connection.execute(statement, parameters)
                counts.update((row[0], int(row[1])) for row in rows)
            return counts

        counts = await self._read(work)
        return {key: counts[key] for key in keys}

    async def _capped_blocks(
        self, keys: Sequence[str], tenant_id: TenantId, limit: int, *, with_bodies: bool
    ) -> list[tuple[str, str]]:
        """(key, body or id) rows: per key its first `limit` entity ids, by key then id.

        One statement per `_KEYS_PER_STATEMENT` keys: a compound SELECT of one
        `ORDER BY entity_id LIMIT` index range per key, so a large block is cut
        in the index, never read whole.
        """
        if limit < 1:
            raise ValueError(f"limit must be at least 1, got {limit}")
        wanted = list(dict.fromkeys(keys))
        tenant = str(tenant_id)
        one = (
            "SELECT * FROM (SELECT key, entity_id FROM graph_blocking_keys"
            " WHERE tenant_id = ? AND key = ? ORDER BY entity_id LIMIT ?)"
        )

        def work(connection: sqlite3.Connection) -> list[tuple[str, str]]:
            rows: list[tuple[str, str]] = []
            for start in range(0, len(wanted), _KEYS_PER_STATEMENT):
                part = wanted[start : start + _KEYS_PER_STATEMENT]
                blocks = " UNION ALL ".join([one] * len(part))
                parameters = [value for key in part for value in (tenant, key, limit)]
                if with_bodies:
                    statement = (
                        f"SELECT b.key, e.body FROM ({blocks}) b JOIN graph_entities e"
                        " ON e.tenant_id = ? AND e.id = b.entity_id ORDER BY b.key, b.entity_id"
                    )
                    parameters.append(tenant)
                else:
                    statement = f"SELECT key, entity_id FROM ({blocks}) ORDER BY key, entity_id"
                rows.extend((row[0], row[1]) for row in connection.execute(statement, parameters))
            return rows

        return await self._read(work)

    async def blocking_key_version(self, tenant_id: TenantId) -> int | None:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> int | None:
            row = connection.execute(
                "SELECT MIN(key_version) FROM graph_entities WHERE tenant_id = ?",
                (str(tenant_id),),
            ).fetchone()
            return None if row is None or row[0] is None else int(row[0])

        return await self._read(work)

    async def rebuild_blocking_index(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> int:
            rows = connection.execute(
                "SELECT id, body FROM graph_entities WHERE tenant_id = ?", (tenant,)
            ).fetchall()
            for entity_id, body in rows:
                keys = sorted(blocking_keys_for(Entity.model_validate_json(body)))
                _file(connection, tenant, entity_id, keys)
            connection.execute(
                "UPDATE graph_entities SET key_version = ? WHERE tenant_id = ?",
                (KEY_VERSION, tenant),
            )
            return len(rows)

        return await self._db.write(work, store=self._name)

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        await self._delete("graph_entities", [str(i) for i in entity_ids], tenant_id)

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        require_tenant_id(tenant_id)
        await self._delete("graph_relationships", [str(i) for i in relationship_ids], tenant_id)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            for table in ("graph_relationships", "graph_blocking_keys", "graph_entities"):
                connection.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (str(tenant_id),))

        await self._db.write(work, store=self._name)

    async def _delete(self, table: str, ids: list[str], tenant_id: TenantId) -> None:
        def work(connection: sqlite3.Connection) -> None:
            for part in chunked(ids):
                connection.execute(
                    f"DELETE FROM {table} WHERE tenant_id = ?"
                    f" AND id IN ({placeholders(len(part))})",
                    (str(tenant_id), *part),
                )

        await self._db.write(work, store=self._name)

    async def _entities(self, query: str, parameters: tuple[str, ...]) -> list[Entity]:
        bodies = await self._read(lambda c: [row[0] for row in c.execute(query, parameters)])
        return [Entity.model_validate_json(body) for body in bodies]

    async def _relationships(
        self, query: str, parameters: tuple[str, ...] | dict[str, str]
    ) -> list[Relationship]:
        bodies = await self._read(lambda c: [row[0] for row in c.execute(query, parameters)])
        return [Relationship.model_validate_json(body) for body in bodies]

    async def _read[R](self, work: Callable[[sqlite3.Connection], R]) -> R:
        return await self._db.read(work, store=self._name)


def _file(connection: sqlite3.Connection, tenant: str, entity_id: str, keys: list[str]) -> None:
    """Replace the blocking keys one entity is filed under."""
    connection.execute(
        "DELETE FROM graph_blocking_keys WHERE tenant_id = ? AND entity_id = ?",
        (tenant, entity_id),
    )
    connection.executemany(
        "INSERT INTO graph_blocking_keys (tenant_id, key, entity_id) VALUES (?, ?, ?)",
        [(tenant, key, entity_id) for key in keys],
    )


def _require_ends(
    connection: sqlite3.Connection,
    relationships: Sequence[Relationship],
    batch: set[tuple[str, str]],
) -> None:
    """Raise `UnknownEntityError` for the first relationship end held neither here nor in batch."""
    for relationship in relationships:
        tenant = str(relationship.tenant_id)
        for end in (relationship.source_id, relationship.target_id):
            if (tenant, str(end)) in batch:
                continue
            held = connection.execute(
                "SELECT 1 FROM graph_entities WHERE tenant_id = ? AND id = ?", (tenant, str(end))
            ).fetchone()
            if held is None:
                raise UnknownEntityError(entity_id=end, tenant_id=relationship.tenant_id)
