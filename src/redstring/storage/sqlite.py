"""One SQLite database file shared by several stores.

`SqliteDatabase` owns the only connection to the file, in WAL mode with
foreign keys on. Work runs in a worker thread (`asyncio.to_thread`) under a
lock, because a sqlite3 connection must not be used by two threads at once.
`write` runs its work as one `BEGIN IMMEDIATE` transaction, so a batch is all
or nothing, also when the process dies mid-batch. Driver errors leave as
`StoreUnavailableError` or `StoreOperationError`.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from redstring.domain.errors import (
    DimensionMismatchError,
    StoreOperationError,
    StoreUnavailableError,
)
from redstring.storage.schema import Schema, pending_migrations

#: SQLite refuses statements with more host parameters than this (3.32+ allows 32766).
MAX_PARAMETERS = 900

_META = (
    "CREATE TABLE IF NOT EXISTS redstring_schema ("
    " component TEXT PRIMARY KEY, version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS redstring_settings ("
    " component TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (component, name))",
)


def chunked[T](items: Sequence[T], size: int = MAX_PARAMETERS) -> Iterator[Sequence[T]]:
    """`items` in consecutive slices of at most `size`."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def placeholders(count: int) -> str:
    """`?, ?, ...` with `count` marks, for an `IN (...)` list."""
    return ", ".join("?" * count)


class SqliteDatabase:
    """The connection to one database file, shared by every store opened on it.

    `busy_timeout` is how long a write waits for another process's lock
    before `StoreUnavailableError`. Raises `StoreUnavailableError` when the
    file cannot be opened or is not a SQLite database.
    """

    def __init__(self, path: str | Path, *, busy_timeout: float = 5.0) -> None:
        self.path = Path(path)
        self.name = f"SqliteDatabase({self.path})"
        self._lock = threading.Lock()
        try:
            self._connection = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise translate_sqlite_error(error, store=self.name) from error
        try:
            self._configure()
        except sqlite3.Error as error:
            self._connection.close()
            raise translate_sqlite_error(error, store=self.name) from error

    def _configure(self) -> None:
        mode = self._connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if str(mode).lower() != "wal":
            raise sqlite3.OperationalError(f"could not switch to WAL mode (got {mode})")
        self._connection.execute("PRAGMA foreign_keys=ON")
        # WAL + NORMAL survives a process crash; only power loss can lose the last commits.
        self._connection.execute("PRAGMA synchronous=NORMAL")

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for tests and diagnostics only."""
        return self._connection

    def close(self) -> None:
        """Close the connection; later calls raise `StoreUnavailableError`."""
        with self._lock:
            self._connection.close()

    def read_now[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """Run `work` in one read transaction (one consistent snapshot), blocking."""
        with self._lock, self._translated(store):
            self._connection.execute("BEGIN")
            try:
                return work(self._connection)
            finally:
                self._connection.execute("COMMIT")

    def write_now[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """Run `work` as one write transaction, blocking; any exception rolls it all back."""
        with self._lock, self._translated(store):
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                result = work(self._connection)
                self._connection.execute("COMMIT")
            except BaseException:
                if self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                raise
            return result

    async def read[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """`read_now` in a worker thread."""
        return await asyncio.to_thread(self.read_now, work, store=store)

    async def write[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """`write_now` in a worker thread."""
        return await asyncio.to_thread(self.write_now, work, store=store)

    def ensure_schema(self, schema: Schema, *, migrate: bool, store: str) -> None:
        """Create `schema`'s tables, or upgrade them when `migrate`; see `pending_migrations`."""

        def work(connection: sqlite3.Connection) -> None:
            for statement in _META:
                connection.execute(statement)
            row = connection.execute(
                "SELECT version FROM redstring_schema WHERE component = ?", (schema.component,)
            ).fetchone()
            found = None if row is None else int(row[0])
            for migration in pending_migrations(schema, found, migrate=migrate, store=store):
                for statement in migration:
                    connection.execute(statement)
            connection.execute(
                "INSERT INTO redstring_schema (component, version) VALUES (?, ?) "
                "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                (schema.component, schema.version),
            )

        self.write_now(work, store=store)

    def ensure_setting(self, component: str, name: str, value: str, *, store: str) -> str:
        """The stored value of a setting, recording `value` first if there is none."""

        def work(connection: sqlite3.Connection) -> str:
            connection.execute(
                "INSERT INTO redstring_settings (component, name, value) VALUES (?, ?, ?) "
                "ON CONFLICT (component, name) DO NOTHING",
                (component, name, value),
            )
            row = connection.execute(
                "SELECT value FROM redstring_settings WHERE component = ? AND name = ?",
                (component, name),
            ).fetchone()
            return str(row[0])

        return self.write_now(work, store=store)

    def ensure_dimension(self, component: str, dimension: int, *, store: str, holds: str) -> int:
        """Record `component`'s vector `dimension` on first open; refuse another later.

        Raises `DimensionMismatchError` when the file already records a
        different one.
        """
        stored = int(self.ensure_setting(component, "dimension", str(dimension), store=store))
        if stored != dimension:
            raise DimensionMismatchError(
                expected=stored, actual=dimension, context=f"{store} holds {holds} of"
            )
        return dimension

    def stored_setting(self, component: str, name: str, *, store: str) -> str | None:
        """A setting's stored value, or `None` when the file holds none."""

        def work(connection: sqlite3.Connection) -> str | None:
            exists = connection.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'redstring_settings'"
            ).fetchone()
            if exists is None:
                return None
            row = connection.execute(
                "SELECT value FROM redstring_settings WHERE component = ? AND name = ?",
                (component, name),
            ).fetchone()
            return None if row is None else str(row[0])

        return self.read_now(work, store=store)

    @contextmanager
    def _translated(self, store: str) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as error:
            raise translate_sqlite_error(error, store=store) from error


def translate_sqlite_error(error: sqlite3.Error, *, store: str) -> Exception:
    """The `StoreError` a sqlite3 exception stands for."""
    cause = f"{type(error).__name__}: {error}"
    if isinstance(error, sqlite3.IntegrityError | sqlite3.DataError):
        return StoreOperationError(store=store, cause=cause)
    return StoreUnavailableError(store=store, cause=cause)
