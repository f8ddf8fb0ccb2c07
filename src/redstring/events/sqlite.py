"""An event log in a SQLite file: one row per event, sequenced per tenant."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from redstring.domain.damage import DamagedRow
from redstring.domain.errors import DamagedRowError
from redstring.domain.events import Event, event_from_json, event_to_json
from redstring.domain.ids import TenantId
from redstring.domain.validation import require_tenant_id
from redstring.events.reading import check_read_bounds, lagging
from redstring.storage.damage import DECODE_FAILURES, damage_of, decoding
from redstring.storage.describe import DescribedStore
from redstring.storage.schema import Schema
from redstring.storage.shared_transactions import SharedTransactions
from redstring.storage.sqlite import SqliteDatabase

SCHEMA = Schema(
    component="events",
    migrations=[
        [
            # body: the event's JSON (its `kind` names its type), sequence included.
            "CREATE TABLE event_log ("
            " tenant_id TEXT NOT NULL, sequence INTEGER NOT NULL, event_id TEXT NOT NULL,"
            " kind TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (tenant_id, sequence),"
            " UNIQUE (tenant_id, event_id))",
        ]
    ],
)

#: Each projection's position per tenant (ADR 0132). Created on a file that
#: already holds events, it starts every projection at the log's end: stores
#: written before positions existed were folded as they were appended.
POSITIONS = Schema(
    component="projection_positions",
    migrations=[
        [
            "CREATE TABLE projection_position ("
            " tenant_id TEXT NOT NULL, projection TEXT NOT NULL, sequence INTEGER NOT NULL,"
            " PRIMARY KEY (tenant_id, projection))",
            "INSERT INTO projection_position (tenant_id, projection, sequence)"
            " SELECT tenant_id, name, max(sequence) FROM event_log,"
            " (SELECT 'graph' AS name UNION ALL SELECT 'vectors' UNION ALL SELECT 'chunks')"
            " GROUP BY tenant_id, name",
        ]
    ],
)

#: Model answers kept per tenant (`AnswerMemory`): a JSON object per key.
ANSWERS = Schema(
    component="answer_memory",
    migrations=[
        [
            "CREATE TABLE answer_memory ("
            " tenant_id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,"
            " PRIMARY KEY (tenant_id, key))",
        ]
    ],
)

#: Keys recalled per statement, below SQLite's bound on parameters.
_KEYS_PER_READ = 500


class SqliteEventLog(SharedTransactions[SqliteDatabase], DescribedStore):
    """An `EventLog` (and `AnswerMemory`) in a SQLite file shared with other stores.

    Each `append` is one write transaction: it numbers each tenant's new
    events after that tenant's last one, and an event whose id the tenant's
    log (or the batch) already holds is answered with the stored copy. An
    event or remembered answer that does not read back raises
    `DamagedRowError` naming it; `damaged_rows()` lists every one.
    """

    def __init__(self, database: SqliteDatabase, *, migrate: bool = False) -> None:
        self._db = database
        self._name = f"SqliteEventLog({database.path})"
        database.ensure_schema(SCHEMA, migrate=migrate, store=self._name)
        if not database.read_only:
            database.ensure_schema(POSITIONS, migrate=migrate, store=self._name)
            database.ensure_schema(ANSWERS, migrate=migrate, store=self._name)

    async def append(self, events: Sequence[Event]) -> list[Event]:
        given = [event.model_copy(deep=True) for event in events]

        def work(connection: sqlite3.Connection) -> list[Event]:
            stored: list[Event] = []
            batch: dict[tuple[str, str], Event] = {}
            last: dict[str, int] = {}
            for event in given:
                tenant, event_id = str(event.tenant_id), str(event.event_id)
                earlier = batch.get((tenant, event_id)) or _by_id(connection, tenant, event_id)
                if earlier is not None:
                    stored.append(earlier)
                    continue
                if tenant not in last:
                    last[tenant] = _last(connection, tenant)
                last[tenant] += 1
                copy = event.model_copy(update={"sequence": last[tenant]})
                connection.execute(
                    "INSERT INTO event_log (tenant_id, sequence, event_id, kind, body)"
                    " VALUES (?, ?, ?, ?, ?)",
                    (tenant, last[tenant], event_id, copy.kind, event_to_json(copy)),
                )
                batch[(tenant, event_id)] = copy
                stored.append(copy)
            return [event.model_copy(deep=True) for event in stored]

        return await self._db.write(work, store=self._name)

    async def read(
        self, tenant_id: TenantId, *, after: int = 0, limit: int | None = None
    ) -> list[Event]:
        require_tenant_id(tenant_id)
        check_read_bounds(after, limit)

        def work(connection: sqlite3.Connection) -> list[Event]:
            rows = connection.execute(
                "SELECT sequence, body FROM event_log WHERE tenant_id = ? AND sequence > ?"
                " ORDER BY sequence LIMIT ?",
                (str(tenant_id), after, -1 if limit is None else limit),
            )
            return [_event(str(tenant_id), sequence, body) for sequence, body in rows]

        return await self._db.read(work, store=self._name)

    async def last_sequence(self, tenant_id: TenantId) -> int:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> int:
            return _last(connection, str(tenant_id))

        return await self._db.read(work, store=self._name)

    async def position(self, tenant_id: TenantId, projection: str) -> int:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> int:
            row = connection.execute(
                "SELECT sequence FROM projection_position WHERE tenant_id = ? AND projection = ?",
                (str(tenant_id), projection),
            ).fetchone()
            return 0 if row is None else int(row[0])

        return await self._db.read(work, store=self._name)

    async def record_position(self, tenant_id: TenantId, projection: str, sequence: int) -> None:
        require_tenant_id(tenant_id)

        def work(connection: sqlite3.Connection) -> None:
            connection.execute(
                "INSERT INTO projection_position (tenant_id, projection, sequence)"
                " VALUES (?, ?, ?) ON CONFLICT (tenant_id, projection)"
                " DO UPDATE SET sequence = max(sequence, excluded.sequence)",
                (str(tenant_id), projection, sequence),
            )

        await self._db.write(work, store=self._name)

    async def lagging_tenants(self, projections: Sequence[str]) -> list[TenantId]:
        def work(connection: sqlite3.Connection) -> list[TenantId]:
            lasts = connection.execute(
                "WITH every_tenant AS (SELECT tenant_id, max(sequence) FROM event_log"
                " GROUP BY tenant_id) SELECT * FROM every_tenant"
            ).fetchall()
            has_positions = connection.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'projection_position'"
            ).fetchone()
            if not lasts or has_positions is None:  # no table: folded as appended (ADR 0132)
                return []
            held = connection.execute(
                "WITH every_tenant AS (SELECT tenant_id, projection, sequence"
                " FROM projection_position) SELECT * FROM every_tenant"
            ).fetchall()
            return lagging(lasts, held, projections)

        return await self._db.read(work, store=self._name)

    async def damaged_rows(self) -> list[DamagedRow]:
        """Every event and remembered answer that does not read back, of every tenant."""
        return await self._db.read(damaged_event_rows, store=self._name)

    async def recall(self, tenant_id: TenantId, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        require_tenant_id(tenant_id)
        wanted = list(dict.fromkeys(keys))

        def work(connection: sqlite3.Connection) -> dict[str, dict[str, Any]]:
            found: dict[str, dict[str, Any]] = {}
            for start in range(0, len(wanted), _KEYS_PER_READ):
                part = wanted[start : start + _KEYS_PER_READ]
                rows = connection.execute(
                    "SELECT key, value FROM answer_memory WHERE tenant_id = ?"
                    f" AND key IN ({', '.join('?' * len(part))})",
                    (str(tenant_id), *part),
                )
                for key, value in rows:
                    with decoding(table="answer_memory", tenant=str(tenant_id), row=f"key {key}"):
                        found[key] = _answer(value)
            return found

        return await self._db.read(work, store=self._name)

    async def remember(self, tenant_id: TenantId, key: str, value: dict[str, Any]) -> None:
        require_tenant_id(tenant_id)
        body = json.dumps(value)

        def work(connection: sqlite3.Connection) -> None:
            connection.execute(
                "INSERT INTO answer_memory (tenant_id, key, value) VALUES (?, ?, ?)"
                " ON CONFLICT (tenant_id, key) DO UPDATE SET value = excluded.value",
                (str(tenant_id), key, body),
            )

        await self._db.write(work, store=self._name)


def _last(connection: sqlite3.Connection, tenant: str) -> int:
    row = connection.execute(
        "SELECT max(sequence) FROM event_log WHERE tenant_id = ?", (tenant,)
    ).fetchone()
    return 0 if row[0] is None else int(row[0])


def _by_id(connection: sqlite3.Connection, tenant: str, event_id: str) -> Event | None:
    row = connection.execute(
        "SELECT sequence, body FROM event_log WHERE tenant_id = ? AND event_id = ?",
        (tenant, event_id),
    ).fetchone()
    return None if row is None else _event(tenant, row[0], row[1])


def _event(tenant: str, sequence: object, body: object) -> Event:
    """An event from its stored JSON; `DamagedRowError` naming the row for a damaged one."""
    with decoding(table="event_log", tenant=tenant, row=f"event {sequence}"):
        event = event_from_json(body if isinstance(body, str) else str(body))
        if str(event.tenant_id) != tenant or event.sequence != sequence:
            raise ValueError("its JSON holds another tenant or sequence than its row")
    return event


def _answer(value: object) -> dict[str, Any]:
    answer = json.loads(value if isinstance(value, str | bytes) else str(value))
    if not isinstance(answer, dict):
        raise ValueError("a remembered answer that is not a JSON object")
    return answer


def damaged_event_rows(connection: sqlite3.Connection) -> list[DamagedRow]:
    """Every event and remembered answer that does not read back; gaps in a tenant's sequence."""
    found: list[DamagedRow] = []
    expected: dict[str, int] = {}
    for tenant, sequence, body in connection.execute(
        "SELECT tenant_id, sequence, body FROM event_log ORDER BY tenant_id, sequence"
    ):
        row = f"event {sequence}"
        expected[tenant] = expected.get(tenant, 0) + 1
        try:
            _event(tenant, sequence, body)
            if sequence != expected[tenant]:
                raise ValueError(f"the tenant's log skips from {expected[tenant] - 1}")
        except (DamagedRowError, ValueError) as error:  # _event raises the first, a gap the other
            found.append(damage_of(table="event_log", tenant=tenant, row=row, error=error))
        expected[tenant] = sequence
    for tenant, key, value in connection.execute(
        "SELECT tenant_id, key, value FROM answer_memory ORDER BY tenant_id, key"
    ):
        try:
            _answer(value)
        except DECODE_FAILURES as error:
            row = f"key {key}"
            found.append(damage_of(table="answer_memory", tenant=tenant, row=row, error=error))
    return found
