"""Per-tenant values loaded from a database and kept while the tenant is unchanged.

A store that searches a tenant's rows in memory (a numpy matrix of vectors,
say) keeps the loaded value here. Each write to a tenant stores a fresh
random generation token in the same transaction; a cached value is served
only while the token it was loaded under is still the current one, so a
write through any connection or process invalidates it.
"""

from __future__ import annotations

import sqlite3
import sys
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from redstring.domain.errors import InvalidArgumentError


def generation_table(table: str) -> str:
    """The DDL of a generation-token table named `table` (one row per tenant)."""
    return f"CREATE TABLE {table} ( tenant_id TEXT PRIMARY KEY, token TEXT NOT NULL)"


def bump_generations(
    connection: sqlite3.Connection, table: str, tenants: Iterable[str]
) -> dict[str, str]:
    """Give each tenant a fresh token in `table` (returned by tenant); call inside the write."""
    tokens = {tenant: uuid.uuid4().hex for tenant in sorted(set(tenants))}
    connection.executemany(
        f"INSERT INTO {table} (tenant_id, token) VALUES (?, ?)"
        " ON CONFLICT (tenant_id) DO UPDATE SET token = excluded.token",
        list(tokens.items()),
    )
    return tokens


def current_generation(connection: sqlite3.Connection, table: str, tenant: str) -> str | None:
    """The tenant's current token in `table`; `None` if it was never written."""
    row = connection.execute(f"SELECT token FROM {table} WHERE tenant_id = ?", (tenant,)).fetchone()
    return None if row is None else str(row[0])


#: The default budget of the in-memory matrices of one database (ADR 0135):
#: about 170k vectors of 384 float32 dimensions.
DEFAULT_CACHE_BYTES = 256 * 1024 * 1024


class CacheBudget:
    """A byte budget shared by the `TenantCache`s of one database.

    The caches' entries together stay within `max_bytes`: admitting one
    evicts the least recently used entries of any cache first, and a value
    larger than the whole budget is not cached at all. `max_bytes == 0`
    caches nothing.
    """

    def __init__(self, max_bytes: int) -> None:
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise InvalidArgumentError(
                name="cache_bytes",
                value=max_bytes,
                requirement="a whole number of bytes, zero or more (0 caches nothing)",
            )
        self.max_bytes = max_bytes
        self.used = 0
        self._lock = threading.Lock()
        self._order: OrderedDict[tuple[int, str], int] = OrderedDict()
        self._caches: dict[int, TenantCache[Any]] = {}

    @property
    def free(self) -> int:
        """The bytes no cache holds now."""
        with self._lock:
            return self.max_bytes - self.used

    def _register(self, cache: TenantCache[Any]) -> int:
        with self._lock:
            number = len(self._caches)
            self._caches[number] = cache
            return number

    def _touch(self, key: tuple[int, str]) -> None:
        with self._lock:
            if key in self._order:
                self._order.move_to_end(key)

    def _release(self, key: tuple[int, str]) -> None:
        with self._lock:
            self.used -= self._order.pop(key, 0)

    def _admit(self, key: tuple[int, str], size: int) -> bool:
        """Make room for `size` bytes under `key`; `False` when they exceed the budget."""
        with self._lock:
            self.used -= self._order.pop(key, 0)
            if size > self.max_bytes:
                return False
            while self.used + size > self.max_bytes:
                (number, tenant), evicted = self._order.popitem(last=False)
                self.used -= evicted
                self._caches[number]._drop(tenant)
            self._order[key] = size
            self.used += size
            return True


@dataclass(frozen=True)
class _Entry[V]:
    token: str | None
    value: V


class TenantCache[V]:
    """The values of recently used tenants, each tagged with its token, within a byte budget.

    `sizeof(value)` is the bytes a value holds; the `budget` may be shared
    with other caches (the vector and chunk stores of one database share one).
    """

    def __init__(self, budget: CacheBudget, sizeof: Callable[[V], int]) -> None:
        self._budget = budget
        self._sizeof = sizeof
        self._number = budget._register(self)
        self._entries: dict[str, _Entry[V]] = {}

    def __len__(self) -> int:
        """How many tenants are cached now."""
        return len(self._entries)

    def get(self, tenant: str, token: str | None, load: Callable[[], V]) -> V:
        """The cached value of `tenant` if loaded under `token`, else `load()` (then cached).

        A value loaded under another token is never served: it is replaced.
        """
        entry = self._entries.get(tenant)
        if entry is not None and entry.token == token:
            self._budget._touch((self._number, tenant))
            return entry.value
        self._entries.pop(tenant, None)
        value = load()
        if self._budget._admit((self._number, tenant), self._sizeof(value)):
            self._entries[tenant] = _Entry(token, value)
        return value

    def peek(self, tenant: str) -> V | None:
        """The value cached for `tenant` under whatever token (none is checked), if any."""
        entry = self._entries.get(tenant)
        return None if entry is None else entry.value

    def update(
        self, tenant: str, before: str | None, after: str, change: Callable[[V], None]
    ) -> V | None:
        """Apply `change` to the value cached under token `before`, tag it `after`, return it.

        Call inside the write that moved the tenant's token from `before` to
        `after` (ADR 0265): a value cached under any other token is dropped
        instead, so the next `get` loads it again (and `None` is returned).
        Should the write roll back, `after` never becomes current and the
        value is never served.
        """
        entry = self._entries.pop(tenant, None)
        if entry is None:
            return None
        key = (self._number, tenant)
        if entry.token != before:
            self._budget._release(key)
            return None
        change(entry.value)
        if self._budget._admit(key, self._sizeof(entry.value)):
            self._entries[tenant] = _Entry(after, entry.value)
        return entry.value

    def remeasure(self, tenant: str) -> None:
        """Count the cached value's bytes again after it grew in place (dropped if now too big)."""
        entry = self._entries.get(tenant)
        if entry is not None and not self._budget._admit(
            (self._number, tenant), self._sizeof(entry.value)
        ):
            del self._entries[tenant]

    def _drop(self, tenant: str) -> None:
        self._entries.pop(tenant, None)


def budget_of(cache_bytes: int | CacheBudget) -> CacheBudget:
    """`cache_bytes` as a budget: a shared one as given, a number as a budget of its own."""
    return cache_bytes if isinstance(cache_bytes, CacheBudget) else CacheBudget(cache_bytes)


def held_bytes(*parts: object) -> int:
    """The bytes numpy arrays and lists of strings hold, for a cache's `sizeof`."""
    total = 0
    for part in parts:
        if isinstance(part, list):
            total += sys.getsizeof(part) + sum(sys.getsizeof(item) for item in part)
        else:
            total += int(getattr(part, "nbytes", sys.getsizeof(part)))
    return total
