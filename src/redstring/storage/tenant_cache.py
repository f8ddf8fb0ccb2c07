"""Per-tenant values loaded from a database and kept while the tenant is unchanged.

A store that searches a tenant's rows in memory (a numpy matrix of vectors,
say) keeps the loaded value here. Each write to a tenant stores a fresh
random generation token in the same transaction; a cached value is served
only while the token it was loaded under is still the current one, so a
write through any connection or process invalidates it.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass


def generation_table(table: str) -> str:
    """The DDL of a generation-token table named `table` (one row per tenant)."""
    return f"CREATE TABLE {table} ( tenant_id TEXT PRIMARY KEY, token TEXT NOT NULL)"


def bump_generations(connection: sqlite3.Connection, table: str, tenants: Iterable[str]) -> None:
    """Give each tenant a fresh token in `table`; call inside the write transaction."""
    connection.executemany(
        f"INSERT INTO {table} (tenant_id, token) VALUES (?, ?)"
        " ON CONFLICT (tenant_id) DO UPDATE SET token = excluded.token",
        [(tenant, uuid.uuid4().hex) for tenant in sorted(set(tenants))],
    )


def current_generation(connection: sqlite3.Connection, table: str, tenant: str) -> str | None:
    """The tenant's current token in `table`; `None` if it was never written."""
    row = connection.execute(f"SELECT token FROM {table} WHERE tenant_id = ?", (tenant,)).fetchone()
    return None if row is None else str(row[0])


@dataclass(frozen=True)
class _Entry[V]:
    token: str | None
    value: V


class TenantCache[V]:
    """The values of the `capacity` most recently used tenants, each tagged with its token.

    `capacity == 0` caches nothing: every `get` loads.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 0:
            raise ValueError(f"the cache capacity must be zero or more, got {capacity}")
        self._capacity = capacity
        self._entries: OrderedDict[str, _Entry[V]] = OrderedDict()

    def __len__(self) -> int:
        """How many tenants are cached now."""
        return len(self._entries)

    def get(self, tenant: str, token: str | None, load: Callable[[], V]) -> V:
        """The cached value of `tenant` if loaded under `token`, else `load()` (then cached)."""
        entry = self._entries.get(tenant)
        if entry is not None and entry.token == token:
            self._entries.move_to_end(tenant)
            return entry.value
        value = load()
        if self._capacity > 0:
            self._entries[tenant] = _Entry(token, value)
            self._entries.move_to_end(tenant)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)
        return value
