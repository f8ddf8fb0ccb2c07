"""Writes of several adapters committed as one transaction, when they share a database."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Protocol, runtime_checkable


@runtime_checkable
class SharedTransaction(Protocol):
    """An adapter whose writes can share one transaction with other adapters of its scope."""

    @property
    def transaction_scope(self) -> object:
        """The same object for every adapter whose writes can share a transaction."""
        ...

    def transaction(self) -> AbstractAsyncContextManager[None]:
        """Every write the calling task makes inside, through any adapter of this scope,
        committed as one when the block ends, none of it when it raises."""
        ...
