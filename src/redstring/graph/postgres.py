"""A graph store in PostgreSQL: entities, relationships and blocking keys as tables."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from contextlib import AbstractContextManager
from uuid import UUID

from redstring.domain.blocking import KEY_VERSION, MAX_BLOCK_MEMBERS, blocking_keys_for
from redstring.domain.damage import DamagedRow
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import DamagedRowError, UnknownEntityError
from redstring.domain.ids import ID_NUMBER_LIMIT, EntityId, RelationshipId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.summary import GraphSummary, graph_summary_of
from redstring.domain.validation import require_at_least_one, require_keys, require_tenant_id
from redstring.domain.writable_graph import require_writable_graph
from redstring.storage.damage import damage_of, decoding
from redstring.storage.describe import DescribedStore
from redstring.storage.postgres import Connection, PostgresDatabase
from redstring.storage.postgres_json import jsonb_text
from redstring.storage.schema import Schema
from redstring.storage.shared_transactions import SharedTransactions

# Every primary and foreign key leads with tenant_id, so each table can be
# distributed by tenant (Citus) and a tenant's rows are one index range.
SCHEMA = Schema(
    component="graph",
    migrations=[
        [
            "CREATE TABLE {schema}.graph_entities ("
            " tenant_id uuid NOT NULL, id uuid NOT NULL, normalized_type text NOT NULL,"
            " body jsonb NOT NULL, PRIMARY KEY (tenant_id, id))",
            "CREATE INDEX graph_entities_by_type ON {schema}.graph_entities"
            " (tenant_id, normalized_type, id)",
            "CREATE TABLE {schema}.graph_blocking_keys ("
            " tenant_id uuid NOT NULL, key text NOT NULL, entity_id uuid NOT NULL,"
            " PRIMARY KEY (tenant_id, key, entity_id),"
            " FOREIGN KEY (tenant_id, entity_id) REFERENCES {schema}.graph_entities (tenant_id, id)"
            " ON DELETE CASCADE)",
            "CREATE INDEX graph_blocking_keys_by_entity ON {schema}.graph_blocking_keys"
            " (tenant_id, entity_id)",
            "CREATE TABLE {schema}.graph_relationships ("
            " tenant_id uuid NOT NULL, id uuid NOT NULL, source_id uuid NOT NULL,"
            " target_id uuid NOT NULL, body jsonb NOT NULL, PRIMARY KEY (tenant_id, id),"
            " FOREIGN KEY (tenant_id, source_id) REFERENCES {schema}.graph_entities (tenant_id, id)"
            " ON DELETE CASCADE,"
            " FOREIGN KEY (tenant_id, target_id) REFERENCES {schema}.graph_entities (tenant_id, id)"
            " ON DELETE CASCADE)",
            "CREATE INDEX graph_relationships_by_source ON {schema}.graph_relationships"
            " (tenant_id, source_id)",
            "CREATE INDEX graph_relationships_by_target ON {schema}.graph_relationships"
            " (tenant_id, target_id)",
        ],
        # Blocking key scheme versions (ADR 0070): rows written before this
        # migration were filed under version 1, the whole-name keys of ADR 0003.
        [
            "ALTER TABLE {schema}.graph_entities ADD COLUMN key_version integer NOT NULL DEFAULT 1",
        ],
    ],
)


class PostgresGraphStore(SharedTransactions[PostgresDatabase], DescribedStore):
    """A `GraphStore` in PostgreSQL, sharing a pool and a schema with other stores.

    Build it with `await PostgresGraphStore.open(database)`. Entities and
    relationships are stored as JSON; blocking keys in an indexed table, so
    `find_by_blocking_keys` is an index range lookup. Each `upsert` or delete
    is one transaction. Raises `SchemaVersionError`s on opening and
    `StoreError`s when the server fails.
    """

    def __init__(self, database: PostgresDatabase) -> None:
        self._db = database
        self._name = f"PostgresGraphStore(schema={database.schema})"
        q = database.sql
        self._upsert_entity = q(
            "INSERT INTO {schema}.graph_entities"
            " (tenant_id, id, normalized_type, body, key_version)"
            " VALUES (%s, %s, %s, %s::jsonb, %s) ON CONFLICT (tenant_id, id) DO UPDATE SET"
            " normalized_type = excluded.normalized_type, body = excluded.body,"
            " key_version = excluded.key_version"
        )
        self._clear_keys = q(
            "DELETE FROM {schema}.graph_blocking_keys WHERE tenant_id = %s AND entity_id = %s"
        )
        self._insert_key = q(
            "INSERT INTO {schema}.graph_blocking_keys (tenant_id, key, entity_id)"
            " VALUES (%s, %s, %s)"
        )
        self._upsert_relationship = q(
            "INSERT INTO {schema}.graph_relationships"
            " (tenant_id, id, source_id, target_id, body) VALUES (%s, %s, %s, %s, %s::jsonb)"
            " ON CONFLICT (tenant_id, id) DO UPDATE SET source_id = excluded.source_id,"
            " target_id = excluded.target_id, body = excluded.body"
        )
        self._held = q(
            "SELECT id FROM {schema}.graph_entities WHERE tenant_id = %s AND id = ANY(%s)"
        )

    @classmethod
    async def open(cls, database: PostgresDatabase, *, migrate: bool = False) -> PostgresGraphStore:
        """The store over `database`, its tables created or (with `migrate`) upgraded."""
        store = cls(database)
        await database.ensure_schema(SCHEMA, migrate=migrate, store=store._name)
        return store

    async def upsert(
        self, entities: Sequence[Entity], relationships: Sequence[Relationship] = ()
    ) -> None:
        require_writable_graph(entities, relationships)
        # An id written twice in one batch is filed once, as its last version.
        latest = list({(e.tenant_id, e.id): e for e in entities}.values())
        entity_rows = [
            (
                e.tenant_id,
                e.id,
                normalize_name(e.entity_type),
                jsonb_text(e.model_dump_json()),
                KEY_VERSION,
            )
            for e in latest
        ]
        key_rows = [(e.tenant_id, key, e.id) for e in latest for key in blocking_keys_for(e)]
        relationship_rows = [
            (r.tenant_id, r.id, r.source_id, r.target_id, jsonb_text(r.model_dump_json()))
            for r in relationships
        ]
        batch: set[tuple[UUID, UUID]] = {(e.tenant_id, e.id) for e in entities}

        async def work(connection: Connection) -> None:
            await self._require_ends(connection, relationships, batch)
            async with connection.cursor() as cursor:
                if entity_rows:
                    await cursor.executemany(self._upsert_entity, entity_rows)
                    await cursor.executemany(self._clear_keys, [row[:2] for row in entity_rows])
                if key_rows:
                    await cursor.executemany(self._insert_key, key_rows)
                if relationship_rows:
                    await cursor.executemany(self._upsert_relationship, relationship_rows)

        await self._db.write(work, store=self._name)

    async def _require_ends(
        self,
        connection: Connection,
        relationships: Sequence[Relationship],
        batch: set[tuple[UUID, UUID]],
    ) -> None:
        wanted: defaultdict[UUID, set[UUID]] = defaultdict(set)
        for r in relationships:
            for end in (r.source_id, r.target_id):
                if (r.tenant_id, end) not in batch:
                    wanted[r.tenant_id].add(end)
        held: set[tuple[UUID, UUID]] = set()
        for tenant, ids in wanted.items():
            cursor = await connection.execute(self._held, (tenant, list(ids)))
            held.update((tenant, row[0]) for row in await cursor.fetchall())
        for r in relationships:
            for end in (r.source_id, r.target_id):
                if (r.tenant_id, end) not in batch and (r.tenant_id, end) not in held:
                    raise UnknownEntityError(entity_id=end, tenant_id=r.tenant_id)

    async def get_entities(
        self, entity_ids: Sequence[EntityId], tenant_id: TenantId
    ) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT body::text, tenant_id::text, id::text"
            " FROM {schema}.graph_entities WHERE tenant_id = %s AND id = ANY(%s)",
            (tenant_id, list(dict.fromkeys(entity_ids))),
        )

    async def get_names(self, numbers: Sequence[int], tenant_id: TenantId) -> dict[int, list[str]]:
        require_tenant_id(tenant_id)
        held = [UUID(int=n) for n in dict.fromkeys(numbers) if 0 <= n < ID_NUMBER_LIMIT]
        rows = await self._rows(
            "SELECT id::text, body->>'name', (body->'aliases')::text"
            " FROM {schema}.graph_entities WHERE tenant_id = %s AND id = ANY(%s)",
            (tenant_id, held),
        )
        names: dict[int, list[str]] = {}
        for entity_id, name, aliases in rows:
            with self._decoding("graph_entities", str(tenant_id), f"entity {entity_id}"):
                listed = json.loads(aliases) if isinstance(aliases, str) else None
                if not isinstance(name, str) or not isinstance(listed, list):
                    raise ValueError("its JSON holds no name or no list of aliases")
                names[UUID(entity_id).int] = [name, *map(str, listed)]
        return names

    async def find_by_type(self, entity_type: str, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT body::text, tenant_id::text, id::text FROM {schema}.graph_entities"
            " WHERE tenant_id = %s AND normalized_type = %s ORDER BY id",
            (tenant_id, normalize_name(entity_type)),
        )

    async def list_entities(self, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT body::text, tenant_id::text, id::text"
            " FROM {schema}.graph_entities WHERE tenant_id = %s ORDER BY id",
            (tenant_id,),
        )

    async def list_tenants(self) -> list[TenantId]:
        rows = await self._rows("SELECT DISTINCT tenant_id::text FROM {schema}.graph_entities", ())
        return sorted((TenantId(UUID(row[0])) for row in rows), key=str)

    async def damaged_rows(self) -> list[DamagedRow]:
        """Every entity and relationship row whose JSON does not read back, of every tenant."""
        found: list[DamagedRow] = []
        for table, read, extra in (
            ("graph_entities", self._entity, ""),
            ("graph_relationships", self._relationship, ", source_id::text, target_id::text"),
        ):
            rows = await self._rows(
                f"SELECT body::text, tenant_id::text, id::text{extra} FROM {{schema}}.{table}"
                " ORDER BY tenant_id, id",
                (),
            )
            for body, tenant, row_id, *ends in rows:
                try:
                    decoded = read(body, tenant, row_id)
                    if ends and isinstance(decoded, Relationship):
                        with self._decoding(table, tenant, f"relationship {row_id}"):
                            _require_ends(decoded, ends)
                except DamagedRowError as error:
                    found.append(damage_of(table=table, tenant=tenant, row=error.row, error=error))
        return found

    async def graph_summary(self, tenant_id: TenantId) -> GraphSummary:
        # One statement, so both counts come from one snapshot; index-only scans.
        require_tenant_id(tenant_id)
        rows = await self._rows(
            "SELECT normalized_type, COUNT(*), NULL FROM {schema}.graph_entities"
            " WHERE tenant_id = %(tenant)s GROUP BY normalized_type"
            " UNION ALL SELECT NULL, NULL, COUNT(*) FROM {schema}.graph_relationships"
            " WHERE tenant_id = %(tenant)s",
            {"tenant": tenant_id},
        )
        types = [(str(t), int(n)) for t, n, _ in rows if t is not None]
        [relationships] = [int(r) for t, _, r in rows if t is None]
        return graph_summary_of(types, relationships)

    async def list_relationships(self, tenant_id: TenantId) -> list[Relationship]:
        require_tenant_id(tenant_id)
        rows = await self._rows(
            "SELECT body::text, tenant_id::text, id::text"
            " FROM {schema}.graph_relationships WHERE tenant_id = %s ORDER BY id",
            (tenant_id,),
        )
        return [self._relationship(*row) for row in rows]

    async def relationships_of(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[Relationship]:
        require_tenant_id(tenant_id)
        rows = await self._rows(
            "SELECT body::text, tenant_id::text, id::text"
            " FROM {schema}.graph_relationships WHERE tenant_id = %s"
            " AND (source_id = %s OR target_id = %s) ORDER BY id",
            (tenant_id, entity_id, entity_id),
        )
        return [self._relationship(*row) for row in rows]

    async def neighbours(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[tuple[Relationship, Entity]]:
        require_tenant_id(tenant_id)
        rows = await self._rows(
            "SELECT r.body::text, r.tenant_id::text, r.id::text, e.body::text, e.id::text"
            " FROM {schema}.graph_relationships r"
            " JOIN {schema}.graph_entities e ON e.tenant_id = r.tenant_id"
            " AND e.id = CASE WHEN r.source_id = %(me)s THEN r.target_id ELSE r.source_id END"
            " WHERE r.tenant_id = %(tenant)s AND (r.source_id = %(me)s OR r.target_id = %(me)s)"
            " ORDER BY r.id",
            {"me": entity_id, "tenant": tenant_id},
        )
        return [
            (self._relationship(rel, tenant, r), self._entity(other, tenant, e))
            for rel, tenant, r, other, e in rows
        ]

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[Entity]]:
        require_keys(keys)
        require_tenant_id(tenant_id)
        require_at_least_one("limit", limit)
        # Per key, one index range cut at `limit` by LATERAL ... LIMIT: never a whole block.
        rows = await self._rows(
            "SELECT k.key, e.body::text, e.tenant_id::text, e.id::text"
            " FROM unnest(%(keys)s::text[]) AS k(key)"
            " CROSS JOIN LATERAL (SELECT b.entity_id FROM {schema}.graph_blocking_keys b"
            " WHERE b.tenant_id = %(tenant)s AND b.key = k.key"
            " ORDER BY b.entity_id LIMIT %(limit)s) b"
            " JOIN {schema}.graph_entities e ON e.tenant_id = %(tenant)s AND e.id = b.entity_id"
            " ORDER BY k.key, b.entity_id",
            {"keys": list(dict.fromkeys(keys)), "tenant": tenant_id, "limit": limit},
        )
        result: dict[str, list[Entity]] = {key: [] for key in keys}
        for key, *row in rows:
            result[key].append(self._entity(*row))
        return result

    async def find_ids_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[int]]:
        require_keys(keys)
        require_tenant_id(tenant_id)
        require_at_least_one("limit", limit)
        rows = await self._rows(
            "SELECT k.key, b.entity_id FROM unnest(%(keys)s::text[]) AS k(key)"
            " CROSS JOIN LATERAL (SELECT b.entity_id FROM {schema}.graph_blocking_keys b"
            " WHERE b.tenant_id = %(tenant)s AND b.key = k.key"
            " ORDER BY b.entity_id LIMIT %(limit)s) b ORDER BY k.key, b.entity_id",
            {"keys": list(dict.fromkeys(keys)), "tenant": tenant_id, "limit": limit},
        )
        result: dict[str, list[int]] = {key: [] for key in keys}
        for key, entity_id in rows:  # the id's hex digits are its number's
            result[key].append(int(str(entity_id).replace("-", ""), 16))
        return result

    async def count_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, int]:
        require_tenant_id(tenant_id)
        require_at_least_one("limit", limit)
        # Per key, a count over one index range cut at `limit`: never a whole block.
        rows = await self._rows(
            "SELECT k.key, (SELECT count(*) FROM (SELECT 1 FROM {schema}.graph_blocking_keys b"
            " WHERE b.tenant_id = %(tenant)s AND b.key = k.key LIMIT %(limit)s) c)"
            " FROM unnest(%(keys)s::text[]) AS k(key)",
            {"keys": list(dict.fromkeys(keys)), "tenant": tenant_id, "limit": limit},
        )
        counts = {str(key): int(count) for key, count in rows}
        return {key: counts[key] for key in keys}

    async def blocking_key_version(self, tenant_id: TenantId) -> int | None:
        require_tenant_id(tenant_id)
        rows = await self._rows(
            "SELECT MIN(key_version) FROM {schema}.graph_entities WHERE tenant_id = %s",
            (tenant_id,),
        )
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    async def rebuild_blocking_index(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        q = self._db.sql

        async def work(connection: Connection) -> int:
            cursor = await connection.execute(
                q(
                    "SELECT body::text, tenant_id::text, id::text"
                    " FROM {schema}.graph_entities WHERE tenant_id = %s"
                ),
                (tenant_id,),
            )
            entities = [self._entity(*row) for row in await cursor.fetchall()]
            await connection.execute(
                q("DELETE FROM {schema}.graph_blocking_keys WHERE tenant_id = %s"), (tenant_id,)
            )
            rows = [(tenant_id, key, e.id) for e in entities for key in blocking_keys_for(e)]
            async with connection.cursor() as keys:
                if rows:
                    await keys.executemany(self._insert_key, rows)
            await connection.execute(
                q("UPDATE {schema}.graph_entities SET key_version = %s WHERE tenant_id = %s"),
                (KEY_VERSION, tenant_id),
            )
            return len(entities)

        return await self._db.write(work, store=self._name)

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        await self._execute(
            "DELETE FROM {schema}.graph_entities WHERE tenant_id = %s AND id = ANY(%s)",
            (tenant_id, list(entity_ids)),
        )

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        require_tenant_id(tenant_id)
        await self._execute(
            "DELETE FROM {schema}.graph_relationships WHERE tenant_id = %s AND id = ANY(%s)",
            (tenant_id, list(relationship_ids)),
        )

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        async def work(connection: Connection) -> None:
            for table in ("graph_relationships", "graph_blocking_keys", "graph_entities"):
                await connection.execute(
                    self._db.sql(f"DELETE FROM {{schema}}.{table} WHERE tenant_id = %s"),
                    (tenant_id,),
                )

        await self._db.write(work, store=self._name)

    async def _execute(self, template: str, parameters: tuple[object, ...]) -> None:
        async def work(connection: Connection) -> None:
            await connection.execute(self._db.sql(template), parameters)

        await self._db.write(work, store=self._name)

    async def _rows(
        self, template: str, parameters: tuple[object, ...] | dict[str, object]
    ) -> list[tuple[str, ...]]:
        async def work(connection: Connection) -> list[tuple[str, ...]]:
            cursor = await connection.execute(self._db.sql(template), parameters)
            return [tuple(row) for row in await cursor.fetchall()]

        return await self._db.read(work, store=self._name)

    async def _entities(self, template: str, parameters: tuple[object, ...]) -> list[Entity]:
        return [self._entity(*row) for row in await self._rows(template, parameters)]

    def _entity(self, body: str, tenant: str, entity_id: str) -> Entity:
        """An entity from its stored JSON; `DamagedRowError` naming the row for a damaged one."""
        with self._decoding("graph_entities", tenant, f"entity {entity_id}"):
            entity = Entity.model_validate_json(body)
            if str(entity.id) != entity_id or str(entity.tenant_id) != tenant:
                raise ValueError("its JSON holds another row's id or tenant")
        return entity

    def _relationship(self, body: str, tenant: str, relationship_id: str) -> Relationship:
        """A relationship from its stored JSON, as `_entity`."""
        with self._decoding("graph_relationships", tenant, f"relationship {relationship_id}"):
            found = Relationship.model_validate_json(body)
            if str(found.id) != relationship_id or str(found.tenant_id) != tenant:
                raise ValueError("its JSON holds another row's id or tenant")
        return found

    def _decoding(self, table: str, tenant: str, row: str) -> AbstractContextManager[None]:
        return decoding(store=self._name, table=table, tenant=tenant, row=row)


def _require_ends(relationship: Relationship, ends: list[str]) -> None:
    if [str(relationship.source_id), str(relationship.target_id)] != ends:
        raise ValueError("its JSON joins other entities than its row's columns")
