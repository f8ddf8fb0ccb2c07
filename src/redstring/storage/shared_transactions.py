"""`SharedTransaction` for adapters over one database object: its `batch` (ADR 0256)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Generic, Protocol, TypeVar


class Batching(Protocol):
    """A database whose `batch` makes one task's writes, by any adapter on it, one transaction."""

    def batch(self, *, store: str) -> AbstractAsyncContextManager[None]:
        """The calling task's writes inside, as one transaction."""
        ...


#: Module-level, not PEP 695's: the public API test resolves the adapters' annotations.
DatabaseT = TypeVar("DatabaseT", bound=Batching)


class SharedTransactions(Generic[DatabaseT]):  # noqa: UP046 (see DatabaseT)
    """Mixed into an adapter holding `_db` and `_name`: adapters on one database share scope."""

    _db: DatabaseT
    _name: str

    @property
    def transaction_scope(self) -> object:
        """The database: adapters on it share transactions."""
        return self._db

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """The database's `batch`: this task's writes there, as one transaction."""
        return self._db.batch(store=self._name)
