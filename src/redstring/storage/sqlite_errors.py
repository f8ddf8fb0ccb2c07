"""SQLite's errors in the library's words: one translation for every connection.

A lock another connection holds past the busy timeout is `DatabaseBusyError`;
a constraint or a value SQLite rejects is `StoreOperationError`; anything else
the driver raises is `StoreUnavailableError`.
"""

from __future__ import annotations

import sqlite3

from redstring.domain.errors import DatabaseBusyError, StoreOperationError, StoreUnavailableError


def translate_sqlite_error(error: sqlite3.Error, *, store: str) -> Exception:
    """The `StoreError` a sqlite3 exception stands for."""
    cause = f"{type(error).__name__}: {error}"
    if isinstance(error, sqlite3.IntegrityError | sqlite3.DataError):
        return StoreOperationError(store=store, cause=cause)
    if _busy(error):
        return DatabaseBusyError(store=store, cause=cause)
    return StoreUnavailableError(store=store, cause=cause)


def _busy(error: sqlite3.Error) -> bool:
    """Whether `error` is SQLite's "another connection holds the lock" (SQLITE_BUSY or
    SQLITE_LOCKED, extended codes included), after the busy timeout ran out."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    return isinstance(error, sqlite3.OperationalError) and "database is locked" in str(error)
