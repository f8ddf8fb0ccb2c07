"""`check`: every damaged row of the stores one client opened, reported, nothing changed.

A store that can scan itself has `damaged_rows()` (the SQLite stores, and
the PostgreSQL graph and chunk stores, do); the others are named in the
report's `unchecked`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from redstring.client.store_set import StoreSet
from redstring.domain.damage import DamagedRow


@runtime_checkable
class _Scanned(Protocol):
    async def damaged_rows(self) -> list[DamagedRow]: ...


class CheckReport(BaseModel):
    """What `check()` found: each damaged row of every tenant, and which stores it scanned.

    `damaged` is empty for a sound database (`ok`); `checked` and `unchecked`
    name the stores scanned and those that cannot scan themselves.
    """

    model_config = ConfigDict(frozen=True)

    db: str
    checked: list[str]
    unchecked: list[str]
    damaged: list[DamagedRow]

    @property
    def ok(self) -> bool:
        """Whether no damaged row was found."""
        return not self.damaged


async def check(stores: StoreSet, db: str) -> CheckReport:
    """Scan each store of `stores` that can scan itself; report every damaged row."""
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
    return CheckReport(db=db, checked=checked, unchecked=unchecked, damaged=damaged)
