"""One SQLite database file shared by several stores.

`SqliteDatabase` owns the only connection to the file, in WAL mode with
foreign keys on. Work runs in a worker thread (`asyncio.to_thread`) under a
lock, because a sqlite3 connection must not be used by two threads at once.
`write` runs its work as one `BEGIN IMMEDIATE` transaction, so a batch is all
or nothing, also when the process dies mid-batch. Opening checks schema
versions and settings in a read transaction and writes only what is missing,
so opening an up-to-date file never takes the write lock; `batch` makes every
write of one task, to any store on the file, one transaction (ADR 0256); `read_only=True`
opens the file with `mode=ro` and never writes (ADR 0130). Driver errors leave
as `StoreUnavailableError` or `StoreOperationError`.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import Future
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from pathlib import Path

from redstring.domain.errors import (
    DamagedRowError,
    DatabaseOpenError,
    DimensionMismatchError,
    ReadOnlyDatabaseError,
)
from redstring.domain.validation import require_seconds
from redstring.storage.damage import named
from redstring.storage.schema import Schema, pending_migrations, positive_setting
from redstring.storage.sqlite_apart import ApartReads
from redstring.storage.sqlite_errors import translate_sqlite_error

#: SQLite refuses statements with more host parameters than this (3.32+ allows 32766).
MAX_PARAMETERS = 900

_META = (
    "CREATE TABLE IF NOT EXISTS redstring_schema ("
    " component TEXT PRIMARY KEY, version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS redstring_settings ("
    " component TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,"
    " PRIMARY KEY (component, name))",
)


#: The page size of files this library creates (SQLite's default is 4096).
PAGE_SIZE = 8192
#: The connection's page cache, in KiB (SQLite's default is 2,000 KiB): a bulk write's
#: B-tree pages stay cached between statements (ADR 0215). Allocated only as pages are read.
CACHE_KIB = 65536


#: The batches (`SqliteDatabase.batch`) the running task is inside, by their tokens.
_BATCHES: ContextVar[tuple[object, ...]] = ContextVar("redstring_sqlite_batches", default=())


def chunked[T](items: Sequence[T], size: int = MAX_PARAMETERS) -> Iterator[Sequence[T]]:
    """`items` in consecutive slices of at most `size`."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def placeholders(count: int) -> str:
    """`?, ?, ...` with `count` marks, for an `IN (...)` list."""
    return ", ".join("?" * count)


def rows_in(
    connection: sqlite3.Connection, statement: str, tenant: str, ids: Sequence[str]
) -> list[tuple[object, ...]]:
    """The rows of `statement` + ` IN (...)` over `ids` in slices, `tenant` its first parameter.

    `statement` ends with the column the ids are matched on ("... AND id").
    """
    rows: list[tuple[object, ...]] = []
    for part in chunked(ids):
        marks = placeholders(len(part))
        rows.extend(connection.execute(f"{statement} IN ({marks})", (tenant, *part)))
    return rows


class SqliteDatabase:
    """The connection to one database file, shared by every store opened on it.

    `busy_timeout` is how long a statement waits for another process's lock
    (a writer's, or a reader's during recovery) before `DatabaseBusyError`, in
    seconds, zero or more (`InvalidArgumentError` otherwise, before the file is
    touched). With `read_only=True` the file is opened
    `mode=ro` (and `immutable` when its folder cannot hold the WAL index), and
    every write raises `ReadOnlyDatabaseError`. Raises `StoreUnavailableError`
    when the file cannot be opened or is not a SQLite database.
    """

    def __init__(
        self, path: str | Path, *, busy_timeout: float = 5.0, read_only: bool = False
    ) -> None:
        busy_timeout = require_seconds("busy_timeout", busy_timeout)  # before the file
        self.path = Path(path)
        self.read_only = read_only
        self.name = f"SqliteDatabase({self.path})"
        self._lock = threading.Condition()
        #: The token of the batch holding the connection's transaction, if any.
        self._owner: object | None = None
        #: The file as a read-only connection of its own opens it (`read_apart`).
        self._uri = self.path.resolve().as_uri() + "?mode=ro"
        try:
            self._connection = self._connect(busy_timeout)
        except sqlite3.Error as error:
            raise self._unopenable(error) from error
        try:
            self._configure()
        except sqlite3.Error as error:
            self._connection.close()
            raise self._unopenable(error) from error
        self._apart = ApartReads(self._uri, busy_timeout)

    def _unopenable(self, error: sqlite3.Error) -> Exception:
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            return translate_sqlite_error(error, store=self.name)  # a writer: wait, retry
        cause = f"{type(error).__name__}: {error}"
        return DatabaseOpenError(store=self.name, path=str(self.path), cause=cause)

    def _connect(self, busy_timeout: float) -> sqlite3.Connection:
        def connect(target: str, *, uri: bool) -> sqlite3.Connection:
            return sqlite3.connect(
                target,
                timeout=busy_timeout,
                isolation_level=None,
                check_same_thread=False,
                uri=uri,
            )

        if not self.read_only:
            return connect(str(self.path), uri=False)
        connection = connect(self._uri, uri=True)
        try:
            connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            connection.close()
            if Path(f"{self.path}-wal").exists():
                raise
            # No WAL to read, and SQLite cannot create the shared-memory index
            # beside the file (a read-only folder): no writer can exist there
            # either, so the file is read as immutable.
            self._uri += "&immutable=1"
            connection = connect(self._uri, uri=True)
        return connection

    def _configure(self) -> None:
        if self.read_only:
            self._connection.execute("PRAGMA query_only=ON")
        else:
            # Takes effect only on a new, empty file: rows of a 384-float embedding (1.5 kB)
            # fill 8 kB pages five to a page, 4 kB pages two to a page (ADR 0220).
            self._connection.execute(f"PRAGMA page_size={PAGE_SIZE}")
            mode = self._connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise sqlite3.OperationalError(f"could not switch to WAL mode (got {mode})")
        self._connection.execute("PRAGMA foreign_keys=ON")
        self._connection.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        # WAL + NORMAL survives a process crash; only power loss can lose the last commits.
        self._connection.execute("PRAGMA synchronous=NORMAL")

    @property
    def total_changes(self) -> int:
        """The rows this connection has inserted, changed or deleted since it opened."""
        with self._lock:
            return self._connection.total_changes

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for tests and diagnostics only."""
        return self._connection

    def define_function(
        self, name: str, function: Callable[..., str | bytes | None], *, arity: int = 2
    ) -> None:
        """Make a deterministic Python function of `arity` arguments SQL-callable (migrations)."""
        with self._lock, self._translated(self.name):
            self._connection.create_function(name, arity, function, deterministic=True)

    def close(self) -> None:
        """Stop the `read_apart` reads still running and wait for them, then close the
        connection; later calls raise `StoreUnavailableError`."""
        self._apart.close()
        with self._lock:
            self._connection.close()

    def read_now[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """Run `work` in one read transaction (one consistent snapshot), blocking.

        Inside this task's `batch` it reads the batch's own writes; another
        task's batch is waited for.
        """
        with self._lock, self._translated(store):
            if self._settled():
                return work(self._connection)
            self._connection.execute("BEGIN")
            try:
                return work(self._connection)
            finally:
                self._connection.execute("COMMIT")

    def write_now[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """Run `work` as one write transaction, blocking; any exception rolls it all back.

        Inside this task's `batch` it is a savepoint of the batch's transaction
        instead (rolled back alone on an exception; committed with the batch).
        Raises `ReadOnlyDatabaseError` on a database opened `read_only`.
        """
        if self.read_only:
            raise ReadOnlyDatabaseError(store=store, path=str(self.path))
        with self._lock, self._translated(store):
            inside = self._settled()
            self._connection.execute("SAVEPOINT work" if inside else "BEGIN IMMEDIATE")
            try:
                result = work(self._connection)
                self._connection.execute("RELEASE work" if inside else "COMMIT")
            except BaseException:
                if inside:
                    self._connection.execute("ROLLBACK TO work")
                    self._connection.execute("RELEASE work")
                elif self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                raise
            return result

    def _settled(self) -> bool:
        """Wait (holding `_lock`) until no other task's batch holds the connection; whether
        this task's does."""
        while self._owner is not None and self._owner not in _BATCHES.get():
            self._lock.wait()
        return self._owner is not None

    @asynccontextmanager
    async def batch(self, *, store: str) -> AsyncIterator[None]:
        """Every `write` this task makes inside, by any store on this file, as one transaction.

        Committed when the block ends, rolled back whole when it raises, so a
        crash leaves all of it or none. Other tasks' reads and
        writes wait for it; a batch inside this task's batch joins it.
        """
        if self._owner is not None and self._owner in _BATCHES.get():
            yield
            return
        token = object()
        # A task cancelled while a worker begins or ends the transaction (Ctrl-C, `close`)
        # stops waiting, but the worker still runs: one that began is rolled back when it
        # is done, and an end is never dropped, else the transaction would hold the file.
        beginning = asyncio.ensure_future(asyncio.to_thread(self._begin, token, store))
        try:
            await asyncio.shield(beginning)
        except asyncio.CancelledError:
            beginning.add_done_callback(lambda begun: self._end_begun(begun, store))
            raise
        entered = _BATCHES.set((*_BATCHES.get(), token))
        try:
            yield
        except BaseException:
            await asyncio.shield(asyncio.to_thread(self._end, store, commit=False))
            raise
        else:
            await asyncio.shield(asyncio.to_thread(self._end, store, commit=True))
        finally:
            _BATCHES.reset(entered)

    def _end_begun(self, begun: asyncio.Future[None], store: str) -> None:
        """Roll back the transaction a cancelled `batch` began after it stopped waiting."""
        if not begun.cancelled() and begun.exception() is None:
            self._end(store, commit=False)

    def _begin(self, token: object, store: str) -> None:
        if self.read_only:
            raise ReadOnlyDatabaseError(store=store, path=str(self.path))
        with self._lock, self._translated(store):
            self._settled()
            self._connection.execute("BEGIN IMMEDIATE")
            self._owner = token

    def _end(self, store: str, *, commit: bool) -> None:
        with self._lock:
            try:
                with self._translated(store):
                    self._connection.execute("COMMIT" if commit else "ROLLBACK")
            finally:
                if self._connection.in_transaction:
                    self._connection.execute("ROLLBACK")
                self._owner = None
                self._lock.notify_all()

    async def read[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """`read_now` in a worker thread."""
        return await asyncio.to_thread(self.read_now, work, store=store)

    async def read_quick[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """`read_now` on this thread when the connection is free at once, else `read`.

        For work of microseconds (values already in memory, a token checked):
        it holds the event loop while it runs, and spares a worker thread's
        hand-off (about 0.1 ms).
        """
        if not self._lock.acquire(blocking=False):
            return await self.read(work, store=store)
        try:
            free = self._owner is None or self._owner in _BATCHES.get()
            if free:
                return self.read_now(work, store=store)
        finally:
            self._lock.release()
        return await self.read(work, store=store)

    def read_apart[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> Future[T]:
        """`work` in one read transaction of a read-only connection of its own, in a thread
        of its own (`ApartReads`): it sees committed rows only, and nothing waits for it."""
        return self._apart.read(work, store=store)

    async def write[T](self, work: Callable[[sqlite3.Connection], T], *, store: str) -> T:
        """`write_now` in a worker thread."""
        return await asyncio.to_thread(self.write_now, work, store=store)

    def ensure_schema(self, schema: Schema, *, migrate: bool, store: str) -> None:
        """Create `schema`'s tables, or upgrade them when `migrate`; see `pending_migrations`.

        The version is checked in a read transaction first: a file already at
        `schema.version` is not written (nor write-locked). Anything else
        raises `ReadOnlyDatabaseError` on a read-only database.
        """
        found = self.schema_version(schema.component, store=store)
        if found == schema.version:
            return
        if self.read_only:
            pending_migrations(schema, found, migrate=False, store=store)
            raise ReadOnlyDatabaseError(store=store, path=str(self.path), missing=schema.component)

        def work(connection: sqlite3.Connection) -> None:
            for statement in _META:
                connection.execute(statement)
            found = _schema_version(connection, schema.component)
            for migration in pending_migrations(schema, found, migrate=migrate, store=store):
                for statement in migration:
                    connection.execute(statement)
            connection.execute(
                "INSERT INTO redstring_schema (component, version) VALUES (?, ?) "
                "ON CONFLICT (component) DO UPDATE SET version = excluded.version",
                (schema.component, schema.version),
            )

        self.write_now(work, store=store)

    def schema_version(self, component: str, *, store: str) -> int | None:
        """The recorded version of `component`'s tables; `None` if the file has none."""
        return self.read_now(lambda c: _schema_version(c, component), store=store)

    def ensure_setting(self, component: str, name: str, value: str, *, store: str) -> str:
        """The stored value of a setting, recording `value` first if there is none.

        Read first; only a missing setting takes the write lock (and raises
        `ReadOnlyDatabaseError` on a read-only database).
        """
        stored = self.stored_setting(component, name, store=store)
        if stored is not None:
            return stored
        if self.read_only:
            raise ReadOnlyDatabaseError(
                store=store, path=str(self.path), missing=f"{component} {name}"
            )

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
        recorded = self.ensure_setting(component, "dimension", str(dimension), store=store)
        stored = self._positive_setting(component, "dimension", recorded, store=store)
        if stored != dimension:
            raise DimensionMismatchError(
                expected=stored, actual=dimension, context=f"{store} holds {holds} of"
            )
        return dimension

    def stored_dimension(self, component: str, *, store: str) -> int | None:
        """`component`'s recorded vector dimension, `None` when there is none.

        Raises `CorruptSettingError` for a value that is not a positive integer.
        """
        recorded = self.stored_setting(component, "dimension", store=store)
        if recorded is None:
            return None
        return self._positive_setting(component, "dimension", recorded, store=store)

    def _positive_setting(self, component: str, name: str, value: str, *, store: str) -> int:
        return positive_setting(
            value, store=store, path=str(self.path), setting=f"{component} {name}"
        )

    def foreign_tables(self, *, store: str) -> list[str]:
        """The tables of another application: all of them when the file has no redstring schema.

        Empty for a new or empty file and for any file redstring initialised.
        """

        def work(connection: sqlite3.Connection) -> list[str]:
            if _has_table(connection, "redstring_schema"):
                return []
            rows = connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"
            ).fetchall()
            return [str(row[0]) for row in rows]

        return self.read_now(work, store=store)

    def holds_data(self, *, store: str) -> bool:
        """Whether any table but the schema versions and settings holds a row (one snapshot)."""

        def work(connection: sqlite3.Connection) -> bool:
            tables = connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT IN ('redstring_schema', 'redstring_settings')"
            ).fetchall()
            return any(
                connection.execute(f'SELECT EXISTS (SELECT 1 FROM "{name}")').fetchone()[0]
                for (name,) in tables
            )

        return self.read_now(work, store=store)

    def stored_setting(self, component: str, name: str, *, store: str) -> str | None:
        """A setting's stored value, or `None` when the file holds none."""

        def work(connection: sqlite3.Connection) -> str | None:
            if not _has_table(connection, "redstring_settings"):
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
        except DamagedRowError as error:
            renamed = named(error, store)
            if renamed is error:
                raise
            raise renamed from error.__cause__


def _has_table(connection: sqlite3.Connection, table: str) -> bool:
    row = connection.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).fetchone()
    return row is not None


def _schema_version(connection: sqlite3.Connection, component: str) -> int | None:
    """`component`'s recorded schema version; `None` when it (or the version table) is absent."""
    if not _has_table(connection, "redstring_schema"):
        return None
    row = connection.execute(
        "SELECT version FROM redstring_schema WHERE component = ?", (component,)
    ).fetchone()
    return None if row is None else int(row[0])
