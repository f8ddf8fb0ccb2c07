"""A graph store in a SQLite file: entities, relationships and blocking keys as tables."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from uuid import UUID

from redstring.domain.blocking import KEY_VERSION, MAX_BLOCK_MEMBERS, blocking_keys_for
from redstring.domain.damage import DamagedRow
from redstring.domain.entity import Entity, Relationship
from redstring.domain.errors import UnknownEntityError
from redstring.domain.ids import EntityId, RelationshipId, TenantId
from redstring.domain.normalization import normalize_name
from redstring.domain.summary import GraphSummary, graph_summary_of
from redstring.domain.validation import require_at_least_one, require_keys, require_tenant_id
from redstring.domain.writable_graph import require_writable_graph
from redstring.graph.sqlite_check import damaged_graph_rows
from redstring.graph.sqlite_keys import (
    Filing,
    capped_bodies,
    capped_ids,
    counted_blocks,
    forget_tenant,
    rebuild,
    refile,
    unfile,
)
from redstring.graph.sqlite_loads import MirrorLoads
from redstring.graph.sqlite_mirror import NAMES, entity_rows, id_texts, names_from
from redstring.graph.sqlite_reads import TenantReads
from redstring.graph.sqlite_schema import SCHEMA, UUID_BYTES_FUNCTION, uuid_bytes
from redstring.storage.damage import DECODE_FAILURES, decoding
from redstring.storage.describe import DescribedStore
from redstring.storage.shared_transactions import SharedTransactions
from redstring.storage.sqlite import SqliteDatabase, chunked, placeholders, rows_in
from redstring.storage.tenant_cache import (
    DEFAULT_CACHE_BYTES,
    CacheBudget,
    TenantCache,
    budget_of,
    bump_generations,
    current_generation,
)

__all__ = ["SCHEMA", "SqliteGraphStore"]

#: The table of each tenant's generation token (`storage.tenant_cache`), replaced by every write.
_GENERATIONS = "graph_generations"
#: The most entities `get_entities` reads on the caller's thread (`read_quick`): a lexical
#: answer's candidates (60) are read there, a larger read in a worker thread.
QUICK_ENTITIES = 64
type Ids = dict[str, list[int]]
type Counts = dict[str, int]


class SqliteGraphStore(SharedTransactions[SqliteDatabase], DescribedStore):
    """A `GraphStore` in a SQLite file shared with other stores.

    Every key starts with the tenant (its id, or in the key table its number
    in this file). Entities and relationships are stored as their JSON, so
    what is read back equals what was written. Blocking keys live in a narrow
    indexed table (`sqlite_keys`), so `find_by_blocking_keys` is an
    index range lookup. Each `upsert` or delete is one transaction, and
    replaces the generation token of each tenant it writes: block
    counts, capped blocks and names read of a tenant (`TenantReads`) are kept
    within `cache_bytes` (a number, or a `CacheBudget` shared with the other
    stores of the file; 0 keeps nothing) and served while its token is the one
    they were read under, so a write through any connection retires them.
    Raises `SchemaVersionError`s on opening and `StoreError`s when the file fails.
    """

    def __init__(
        self,
        database: SqliteDatabase,
        *,
        migrate: bool = False,
        cache_bytes: int | CacheBudget = DEFAULT_CACHE_BYTES,
    ) -> None:
        self._db = database
        self._name = f"SqliteGraphStore({database.path})"
        budget = budget_of(cache_bytes)
        self._reads = TenantCache[TenantReads](budget, lambda r: r.nbytes)
        self._loads = MirrorLoads(
            database, store=self._name, generations=_GENERATIONS, budget=budget
        )
        database.define_function(UUID_BYTES_FUNCTION, uuid_bytes, arity=1)
        database.ensure_schema(SCHEMA, migrate=migrate, store=self._name)

    async def upsert(
        self, entities: Sequence[Entity], relationships: Sequence[Relationship] = ()
    ) -> None:
        require_writable_graph(entities, relationships)
        latest = {(str(e.tenant_id), str(e.id)): e for e in entities}  # the last one wins
        filings: list[Filing] = []
        entity_rows: list[tuple[str, str, str, str, int, str]] = []
        for (tenant, entity_id), entity in sorted(latest.items()):
            filing = Filing(tenant, entity_id, _keys_of(entity))
            filings.append(filing)
            entity_rows.append(
                (
                    tenant,
                    entity_id,
                    normalize_name(entity.entity_type),
                    entity.model_dump_json(),
                    KEY_VERSION,
                    filing.listed(),
                )
            )
        relationship_rows = [
            (str(r.tenant_id), str(r.id), str(r.source_id), str(r.target_id), r.model_dump_json())
            for r in relationships
        ]

        def work(connection: sqlite3.Connection) -> None:
            _require_ends(connection, relationships, set(latest))
            written = [t for t, *_ in entity_rows] + [t for t, *_ in relationship_rows]
            bump_generations(connection, _GENERATIONS, written)
            refile(connection, filings)
            connection.executemany(
                "INSERT INTO graph_entities"
                " (tenant_id, id, normalized_type, body, key_version, keys)"
                " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, id) DO UPDATE SET"
                " normalized_type = excluded.normalized_type, body = excluded.body,"
                " key_version = excluded.key_version, keys = excluded.keys",
                entity_rows,
            )
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
        asked = {str(i): i for i in entity_ids}  # each id once, by its text
        tenant = str(tenant_id)

        def use(connection: sqlite3.Connection, reads: TenantReads) -> list[tuple[object, ...]]:
            if reads.mirror is not None:  # by row number: one B-tree, not the id's index too
                rowids = reads.mirror.rowids_of(asked.values())
                rows = entity_rows(connection, tenant, rowids, asked.keys())
                if rows is not None:
                    return rows
            statement = "SELECT tenant_id, id, body FROM graph_entities WHERE tenant_id = ? AND id"
            return rows_in(connection, statement, tenant, list(asked))

        # A few point lookups take about as long as a hop to the worker thread (ADR 0455).
        rows = await self._recall(tenant, use, short=len(asked) <= QUICK_ENTITIES)
        return [self._asked_entity(tenant_id, asked, i, body) for _, i, body in rows]

    async def get_names(self, numbers: Sequence[int], tenant_id: TenantId) -> dict[int, list[str]]:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)

        def use(connection: sqlite3.Connection, reads: TenantReads) -> dict[int, list[str]]:
            def fresh(missing: list[int]) -> dict[int, list[str]]:
                return self._read_names(connection, tenant, missing)

            return reads.names_of(numbers, fresh)

        return await self._recall(tenant, use)

    def _read_names(
        self, connection: sqlite3.Connection, tenant: str, numbers: list[int]
    ) -> dict[int, list[str]]:
        """The name and aliases of each of `numbers` the tenant holds, by id number."""
        texts = id_texts(numbers)
        names: dict[int, list[str]] = {}
        for entity_id, name, aliases in rows_in(connection, f"{NAMES} AND id", tenant, list(texts)):
            with self._decoding("graph_entities", tenant, f"entity {entity_id}"):
                names[texts[str(entity_id)]] = names_from(name, aliases)
        return names

    async def find_by_type(self, entity_type: str, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT tenant_id, id, body FROM graph_entities"
            " WHERE tenant_id = ? AND normalized_type = ?"
            " ORDER BY id",
            (str(tenant_id), normalize_name(entity_type)),
        )

    async def list_entities(self, tenant_id: TenantId) -> list[Entity]:
        require_tenant_id(tenant_id)
        return await self._entities(
            "SELECT tenant_id, id, body FROM graph_entities WHERE tenant_id = ? ORDER BY id",
            (str(tenant_id),),
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
            "SELECT tenant_id, id, body FROM graph_relationships WHERE tenant_id = ? ORDER BY id",
            (str(tenant_id),),
        )

    async def relationships_of(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[Relationship]:
        # A UNION of two index lookups: with OR, SQLite may walk the tenant's whole range.
        require_tenant_id(tenant_id)
        return await self._relationships(
            "SELECT :tenant, id, body FROM (SELECT id, body FROM graph_relationships"
            " WHERE tenant_id = :tenant AND source_id = :me UNION SELECT id, body"
            " FROM graph_relationships WHERE tenant_id = :tenant AND target_id = :me) ORDER BY id",
            {"tenant": str(tenant_id), "me": str(entity_id)},
        )

    async def neighbours(
        self, entity_id: EntityId, tenant_id: TenantId
    ) -> list[tuple[Relationship, Entity]]:
        require_tenant_id(tenant_id)
        me = str(entity_id)

        def work(connection: sqlite3.Connection) -> list[tuple[str, str, str, str]]:
            return [
                (row[0], row[1], row[2], row[3])
                for row in connection.execute(
                    "SELECT r.id, r.body, e.id, e.body FROM (SELECT id, body, target_id AS other"
                    " FROM graph_relationships WHERE tenant_id = :tenant AND source_id = :me"
                    " UNION SELECT id, body, source_id AS other FROM graph_relationships"
                    " WHERE tenant_id = :tenant AND target_id = :me) r"
                    " JOIN graph_entities e ON e.tenant_id = :tenant AND e.id = r.other"
                    " ORDER BY r.id",
                    {"tenant": str(tenant_id), "me": me},
                )
            ]

        tenant = str(tenant_id)
        return [
            (self._relationship(tenant, r, rel), self._entity(tenant, e, other))
            for r, rel, e, other in await self._read(work)
        ]

    async def find_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[Entity]]:
        require_keys(keys)
        require_tenant_id(tenant_id)
        wanted, tenant = _distinct(keys, limit), str(tenant_id)
        bodies = await self._read(lambda c: capped_bodies(c, tenant, wanted, limit))
        return {key: [self._entity(tenant, *row) for row in bodies[key]] for key in keys}

    async def find_ids_by_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, list[int]]:
        require_keys(keys)
        require_tenant_id(tenant_id)
        wanted, tenant = _distinct(keys, limit), str(tenant_id)

        def use(connection: sqlite3.Connection, reads: TenantReads) -> Ids:
            def fresh(missing: list[str]) -> dict[str, bytes]:
                return capped_ids(connection, tenant, missing, limit)

            return reads.blocks_of(wanted, limit, fresh)

        ids = await self._recall(tenant, use)
        return {key: ids[key] for key in keys}

    async def count_blocking_keys(
        self, keys: Sequence[str], tenant_id: TenantId, *, limit: int = MAX_BLOCK_MEMBERS
    ) -> dict[str, int]:
        require_tenant_id(tenant_id)
        wanted, tenant = _distinct(keys, limit), str(tenant_id)

        # Per key, a count over an index range cut at `limit`: never a whole block.
        def use(connection: sqlite3.Connection, reads: TenantReads) -> Counts:
            def fresh(missing: list[str]) -> dict[str, int]:
                return counted_blocks(connection, tenant, missing, limit)

            return reads.counts_of(wanted, limit, fresh)

        return await self._recall(tenant, use)

    async def _recall[V](
        self,
        tenant: str,
        use: Callable[[sqlite3.Connection, TenantReads], V],
        *,
        short: bool = False,
    ) -> V:
        """`use` of what this store keeps of `tenant` under its current generation token (a
        fresh `TenantReads`, never kept, for a tenant with none), in one read transaction.

        When the tenant's mirror is held, or `use` is `short` whatever is held, on this
        thread (`read_quick`: only the token is read of the file, unless it moved); else in
        a worker thread, which starts reading a tenant whose token has stood long enough
        whole in the background (`MirrorLoads`; `use` is served per key meanwhile).
        """
        held = self._reads.peek(tenant)
        quick = short or (held is not None and held.mirror is not None)

        def work(connection: sqlite3.Connection) -> V:
            token = current_generation(connection, _GENERATIONS, tenant)
            if token is None:
                return use(connection, TenantReads())
            reads = self._reads.get(tenant, token, TenantReads)
            if reads.wants_mirror() and not quick:
                self._loads.start(tenant, token, reads)
            if self._loads.settle(tenant, token, reads):
                self._reads.remeasure(tenant)
            before = reads.nbytes
            value = use(connection, reads)
            if reads.nbytes != before:
                self._reads.remeasure(tenant)
            return value

        if quick:
            return await self._db.read_quick(work, store=self._name)
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

    async def damaged_rows(self) -> list[DamagedRow]:
        """Every damaged entity and relationship row, of every tenant; nothing is written."""
        return await self._read(damaged_graph_rows)

    async def rebuild_blocking_index(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        tenant = str(tenant_id)

        def work(connection: sqlite3.Connection) -> int:
            rows = connection.execute(
                "SELECT id, body FROM graph_entities WHERE tenant_id = ?", (tenant,)
            ).fetchall()
            filings = [
                Filing(tenant, entity_id, _keys_of(self._entity(tenant, entity_id, body)))
                for entity_id, body in rows
            ]
            bump_generations(connection, _GENERATIONS, [tenant])
            rebuild(connection, tenant, filings)
            connection.executemany(
                "UPDATE graph_entities SET keys = ?, key_version = ?"
                " WHERE tenant_id = ? AND id = ?",
                [(f.listed(), KEY_VERSION, tenant, f.entity_id) for f in filings],
            )
            return len(rows)

        return await self._db.write(work, store=self._name)

    async def delete_entities(self, entity_ids: Sequence[EntityId], tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)
        ids = [str(i) for i in dict.fromkeys(entity_ids)]
        await self._delete("graph_entities", ids, tenant_id, unfiled=True)

    async def delete_relationships(
        self, relationship_ids: Sequence[RelationshipId], tenant_id: TenantId
    ) -> None:
        require_tenant_id(tenant_id)
        await self._delete("graph_relationships", [str(i) for i in relationship_ids], tenant_id)

    async def purge_tenant(self, tenant_id: TenantId) -> None:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            forget_tenant(connection, str(tenant_id))
            for table in ("graph_relationships", "graph_entities", _GENERATIONS):
                connection.execute(f"DELETE FROM {table} WHERE tenant_id = ?", (str(tenant_id),))

        await self._db.write(work, store=self._name)

    async def _delete(
        self, table: str, ids: list[str], tenant_id: TenantId, *, unfiled: bool = False
    ) -> None:
        def work(connection: sqlite3.Connection) -> None:
            bump_generations(connection, _GENERATIONS, [str(tenant_id)])
            if unfiled:  # the key rows go first: they are found through the entity rows
                unfile(connection, str(tenant_id), ids)
            for part in chunked(ids):
                connection.execute(
                    f"DELETE FROM {table} WHERE tenant_id = ?"
                    f" AND id IN ({placeholders(len(part))})",
                    (str(tenant_id), *part),
                )

        await self._db.write(work, store=self._name)

    async def _entities(self, query: str, parameters: tuple[str, ...]) -> list[Entity]:
        rows = await self._read(lambda c: c.execute(query, parameters).fetchall())
        return [self._entity(*row) for row in rows]

    async def _relationships(
        self, query: str, parameters: tuple[str, ...] | dict[str, str]
    ) -> list[Relationship]:
        rows = await self._read(lambda c: c.execute(query, parameters).fetchall())
        return [self._relationship(*row) for row in rows]

    def _entity(self, tenant: object, entity_id: object, body: object) -> Entity:
        """An entity from its stored JSON; `DamagedRowError` naming the row for a damaged one."""
        with self._decoding("graph_entities", str(tenant), f"entity {entity_id}"):
            return _checked(Entity.model_validate_json(_text(body)), tenant, entity_id)

    def _asked_entity(
        self, tenant_id: TenantId, asked: Mapping[str, EntityId], entity_id: object, body: object
    ) -> Entity:
        """`_entity` of a row of `tenant_id` whose id text is a key of `asked`, checked by
        comparing ids rather than their texts; any failure is decoded again by `_entity`,
        which raises the `DamagedRowError` naming the row."""
        try:
            decoded = Entity.model_validate_json(_text(body))
            if decoded.id == asked[str(entity_id)] and decoded.tenant_id == tenant_id:
                return decoded
        except DECODE_FAILURES:
            pass
        return self._entity(tenant_id, entity_id, body)

    def _relationship(self, tenant: object, relationship_id: object, body: object) -> Relationship:
        """A relationship from its stored JSON, as `_entity`."""
        with self._decoding("graph_relationships", str(tenant), f"relationship {relationship_id}"):
            return _checked(Relationship.model_validate_json(_text(body)), tenant, relationship_id)

    def _decoding(self, table: str, tenant: str, row: str) -> AbstractContextManager[None]:
        return decoding(store=self._name, table=table, tenant=tenant, row=row)

    async def _read[R](self, work: Callable[[sqlite3.Connection], R]) -> R:
        return await self._db.read(work, store=self._name)


def _distinct(keys: Sequence[str], limit: int) -> list[str]:
    """Each of `keys` once, in order, once `limit` is checked."""
    require_at_least_one("limit", limit)
    return list(dict.fromkeys(keys))


def _text(body: object) -> str | bytes:
    return body if isinstance(body, str | bytes) else str(body)


def _checked[T: (Entity, Relationship)](decoded: T, tenant: object, row_id: object) -> T:
    """`decoded`, unless its JSON names another id or tenant than its row."""
    if str(decoded.id) != str(row_id) or str(decoded.tenant_id) != str(tenant):
        raise ValueError("its JSON holds another row's id or tenant")
    return decoded


def _keys_of(entity: Entity) -> tuple[str, ...]:
    return tuple(sorted(blocking_keys_for(entity)))


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
