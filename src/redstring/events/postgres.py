"""An event log in PostgreSQL: one row per event, sequenced per tenant."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from uuid import UUID

from redstring.domain.events import Event, event_from_json, event_to_json
from redstring.domain.ids import TenantId
from redstring.domain.validation import require_tenant_id
from redstring.events.reading import check_read_bounds, lagging
from redstring.storage.describe import DescribedStore
from redstring.storage.postgres import Connection, PostgresDatabase
from redstring.storage.schema import Schema
from redstring.storage.shared_transactions import SharedTransactions

SCHEMA = Schema(
    component="events",
    migrations=[
        [
            # body: the event's JSON (its `kind` names its type), sequence included;
            # text, not jsonb, so it reads back exactly as written.
            "CREATE TABLE {schema}.event_log ("
            " tenant_id uuid NOT NULL, sequence bigint NOT NULL, event_id uuid NOT NULL,"
            " kind text NOT NULL, body text NOT NULL, PRIMARY KEY (tenant_id, sequence),"
            " UNIQUE (tenant_id, event_id))",
            # One row per tenant holding its last sequence; locked by each append.
            "CREATE TABLE {schema}.event_heads ("
            " tenant_id uuid PRIMARY KEY, last_sequence bigint NOT NULL)",
        ]
    ],
)

#: Each projection's position per tenant (ADR 0132); a log that already holds
#: events starts every projection at its end (stores written before positions
#: existed were folded as they were appended).
POSITIONS = Schema(
    component="projection_positions",
    migrations=[
        [
            "CREATE TABLE {schema}.projection_position ("
            " tenant_id uuid NOT NULL, projection text NOT NULL, sequence bigint NOT NULL,"
            " PRIMARY KEY (tenant_id, projection))",
            # Every tenant by design: a one-time start at each log's end.
            "WITH every_tenant AS (SELECT tenant_id, last_sequence FROM {schema}.event_heads)"
            " INSERT INTO {schema}.projection_position (tenant_id, projection, sequence)"
            " SELECT tenant_id, name, last_sequence FROM every_tenant,"
            " (VALUES ('graph'), ('vectors'), ('chunks')) AS names (name)",
        ]
    ],
)

#: Model answers kept per tenant (`AnswerMemory`): a JSON object per key, as text.
ANSWERS = Schema(
    component="answer_memory",
    migrations=[
        [
            "CREATE TABLE {schema}.answer_memory ("
            " tenant_id uuid NOT NULL, key text NOT NULL, value text NOT NULL,"
            " PRIMARY KEY (tenant_id, key))",
        ]
    ],
)


class PostgresEventLog(SharedTransactions[PostgresDatabase], DescribedStore):
    """An `EventLog` (and `AnswerMemory`) in PostgreSQL, sharing a pool and schema with
    other stores.

    Build it with `await PostgresEventLog.open(database)`. Each `append` is one
    transaction that locks the head row of every tenant it writes (in tenant
    order, so concurrent appends neither interleave sequences nor deadlock).
    An event whose id the tenant's log (or the batch) holds is answered with
    the stored copy.
    """

    def __init__(self, database: PostgresDatabase) -> None:
        self._db = database
        self._name = f"PostgresEventLog(schema={database.schema})"

    @classmethod
    async def open(cls, database: PostgresDatabase, *, migrate: bool = False) -> PostgresEventLog:
        """The log over `database`, creating its tables if absent."""
        log = cls(database)
        await database.ensure_schema(SCHEMA, migrate=migrate, store=log._name)
        await database.ensure_schema(POSITIONS, migrate=migrate, store=log._name)
        await database.ensure_schema(ANSWERS, migrate=migrate, store=log._name)
        return log

    async def append(self, events: Sequence[Event]) -> list[Event]:
        given = [event.model_copy(deep=True) for event in events]
        q = self._db.sql

        async def work(connection: Connection) -> list[Event]:
            last: dict[UUID, int] = {}
            for tenant in sorted({event.tenant_id for event in given}):
                await connection.execute(
                    q(
                        "INSERT INTO {schema}.event_heads (tenant_id, last_sequence)"
                        " VALUES (%s, 0) ON CONFLICT (tenant_id) DO NOTHING"
                    ),
                    (tenant,),
                )
                cursor = await connection.execute(
                    q(
                        "SELECT last_sequence FROM {schema}.event_heads"
                        " WHERE tenant_id = %s FOR UPDATE"
                    ),
                    (tenant,),
                )
                row = await cursor.fetchone()
                assert row is not None  # inserted just above in this transaction
                last[tenant] = int(row[0])
            stored: list[Event] = []
            batch: dict[tuple[UUID, UUID], Event] = {}
            for event in given:
                key = (event.tenant_id, event.event_id)
                earlier = batch.get(key) or await self._by_id(connection, *key)
                if earlier is not None:
                    stored.append(earlier)
                    continue
                last[event.tenant_id] += 1
                copy = event.model_copy(update={"sequence": last[event.tenant_id]})
                await connection.execute(
                    q(
                        "INSERT INTO {schema}.event_log (tenant_id, sequence, event_id, kind, body)"
                        " VALUES (%s, %s, %s, %s, %s)"
                    ),
                    (
                        event.tenant_id,
                        copy.sequence,
                        event.event_id,
                        copy.kind,
                        event_to_json(copy),
                    ),
                )
                batch[key] = copy
                stored.append(copy)
            for head, sequence in last.items():
                await connection.execute(
                    q("UPDATE {schema}.event_heads SET last_sequence = %s WHERE tenant_id = %s"),
                    (sequence, head),
                )
            return [event.model_copy(deep=True) for event in stored]

        return await self._db.write(work, store=self._name)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[Event]:
        require_tenant_id(tenant_id)
        check_read_bounds(after, limit)
        statement = self._db.sql(
            "SELECT body FROM {schema}.event_log WHERE tenant_id = %s AND sequence > %s"
            " ORDER BY sequence LIMIT %s"
        )

        async def work(connection: Connection) -> list[Event]:
            cursor = await connection.execute(statement, (tenant_id, after, limit))
            return [event_from_json(body) for (body,) in await cursor.fetchall()]

        return await self._db.read(work, store=self._name)

    async def last_sequence(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "SELECT last_sequence FROM {schema}.event_heads WHERE tenant_id = %s"
        )

        async def work(connection: Connection) -> int:
            cursor = await connection.execute(statement, (tenant_id,))
            row = await cursor.fetchone()
            return 0 if row is None else int(row[0])

        return await self._db.read(work, store=self._name)

    async def position(self, tenant_id: TenantId, projection: str) -> int:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "SELECT sequence FROM {schema}.projection_position"
            " WHERE tenant_id = %s AND projection = %s"
        )

        async def work(connection: Connection) -> int:
            cursor = await connection.execute(statement, (tenant_id, projection))
            row = await cursor.fetchone()
            return 0 if row is None else int(row[0])

        return await self._db.read(work, store=self._name)

    async def record_position(self, tenant_id: TenantId, projection: str, sequence: int) -> None:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "INSERT INTO {schema}.projection_position (tenant_id, projection, sequence)"
            " VALUES (%s, %s, %s) ON CONFLICT (tenant_id, projection) DO UPDATE"
            " SET sequence = greatest({schema}.projection_position.sequence, excluded.sequence)"
        )

        async def work(connection: Connection) -> None:
            await connection.execute(statement, (tenant_id, projection, sequence))

        await self._db.write(work, store=self._name)

    async def lagging_tenants(self, projections: Sequence[str]) -> list[TenantId]:
        heads = self._db.sql(
            "WITH every_tenant AS (SELECT tenant_id, last_sequence FROM {schema}.event_heads)"
            " SELECT * FROM every_tenant"
        )
        positions = self._db.sql(
            "WITH every_tenant AS (SELECT tenant_id, projection, sequence"
            " FROM {schema}.projection_position) SELECT * FROM every_tenant"
        )

        async def work(connection: Connection) -> list[TenantId]:
            lasts = await (await connection.execute(heads)).fetchall()
            held = await (await connection.execute(positions)).fetchall()
            return lagging(lasts, held, projections)

        return await self._db.read(work, store=self._name)

    async def recall(self, tenant_id: TenantId, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "SELECT key, value FROM {schema}.answer_memory WHERE tenant_id = %s AND key = ANY(%s)"
        )

        async def work(connection: Connection) -> dict[str, dict[str, Any]]:
            cursor = await connection.execute(statement, (tenant_id, list(keys)))
            return {key: json.loads(value) for key, value in await cursor.fetchall()}

        return await self._db.read(work, store=self._name)

    async def remember(self, tenant_id: TenantId, key: str, value: dict[str, Any]) -> None:
        require_tenant_id(tenant_id)
        statement = self._db.sql(
            "INSERT INTO {schema}.answer_memory (tenant_id, key, value) VALUES (%s, %s, %s)"
            " ON CONFLICT (tenant_id, key) DO UPDATE SET value = excluded.value"
        )
        body = json.dumps(value)

        async def work(connection: Connection) -> None:
            await connection.execute(statement, (tenant_id, key, body))

        await self._db.write(work, store=self._name)

    async def _by_id(self, connection: Connection, tenant: UUID, event_id: UUID) -> Event | None:
        cursor = await connection.execute(
            self._db.sql(
                "SELECT body FROM {schema}.event_log WHERE tenant_id = %s AND event_id = %s"
            ),
            (tenant, event_id),
        )
        row = await cursor.fetchone()
        return None if row is None else event_from_json(str(row[0]))
