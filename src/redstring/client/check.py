"""`check`: every damaged row of the stores one client opened, reported, nothing changed.

A store that can scan itself has `damaged_rows()` (the SQLite stores, and
the PostgreSQL graph and chunk stores, do); the others are named in the
report's `unchecked`. Each tenant whose name index was built under an older
key scheme is reported too: until it is re-keyed, names spelled in the newer
scheme's way are not found by their keys.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from redstring.client.store_set import StoreSet
from redstring.domain.blocking import KEY_VERSION
from redstring.domain.damage import DamagedRow
from redstring.domain.ids import TenantId
from redstring.ports.graph_store import GraphStore


@runtime_checkable
class _Scanned(Protocol):
    async def damaged_rows(self) -> list[DamagedRow]: ...


class StaleNameIndex(BaseModel):
    """A tenant whose name index was built with `key_version`, not the library's `current`;
    `rekey()` (`redstring rekey --tenant ...`) re-files it."""

    model_config = ConfigDict(frozen=True)

    tenant_id: TenantId
    key_version: int
    current: int = KEY_VERSION


class CheckReport(BaseModel):
    """What `check()` found: each damaged row of every tenant, and which stores it scanned.

    `damaged` is empty for a sound database (`ok`); `checked` and `unchecked`
    name the stores scanned and those that cannot scan themselves; `stale`
    lists the tenants whose name index needs `rekey()` (not damage: `ok`
    does not read it).
    """

    model_config = ConfigDict(frozen=True)

    db: str
    checked: list[str]
    unchecked: list[str]
    damaged: list[DamagedRow]
    stale: list[StaleNameIndex] = []

    @property
    def ok(self) -> bool:
        """Whether no damaged row was found."""
        return not self.damaged


async def check(stores: StoreSet, db: str) -> CheckReport:
    """Scan each store of `stores` that can scan itself; report every damaged row and every
    tenant whose name index another key scheme built."""
    checked: list[str] = []
    unchecked: list[str] = []
    damaged: list[DamagedRow] = []
    for store in (stores.graph, stores.vectors, stores.chunks, stores.events):
        if store is None:
            continue
        name = type(store).__name__
        if isinstance(store, _Scanned):
            checked.append(name)
            damaged.extend(await store.damaged_rows())
        else:
            unchecked.append(name)
    stale = await _stale_name_indexes(stores.graph)
    return CheckReport(db=db, checked=checked, unchecked=unchecked, damaged=damaged, stale=stale)


async def _stale_name_indexes(graph: GraphStore) -> list[StaleNameIndex]:
    stale = []
    for tenant_id in await graph.list_tenants():
        version = await graph.blocking_key_version(tenant_id)
        if version is not None and version != KEY_VERSION:
            stale.append(StaleNameIndex(tenant_id=tenant_id, key_version=version))
    return stale
