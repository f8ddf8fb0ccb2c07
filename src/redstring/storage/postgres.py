"""One PostgreSQL schema shared by several stores: a pool, transactions, schema versions.

`PostgresDatabase` owns a psycopg `AsyncConnectionPool`. Table names in the
SQL handed to it are written `{schema}.table` and qualified with the
configured schema. `write` runs its work as one transaction; `read` runs its
work as one REPEATABLE READ, READ ONLY transaction, so every statement of a
read sees the same snapshot (ADR 0131). Driver errors
leave as `StoreUnavailableError` (cannot reach or keep the server) or
`StoreOperationError` (the server rejected a statement).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from contextvars import ContextVar
from typing import Any

import psycopg
from psycopg import AsyncConnection, sql
from psycopg_pool import AsyncConnectionPool

from redstring.domain.errors import (
    DimensionMismatchError,
    StoreOperationError,
    StoreUnavailableError,
)
from redstring.storage.schema import Schema, pending_migrations, positive_setting

type Connection = AsyncConnection[Any]
type Configure = Callable[[Connection], Awaitable[None]]

#: The connections of the batches (`PostgresDatabase.batch`) the running task is inside.
_BATCHES: ContextVar[tuple[tuple[object, Connection], ...]] = ContextVar(
    "redstring_postgres_batches", default=()
)

_META = (
    "CREATE TABLE IF NOT EXISTS {schema}.redstring_schema ("
    " component text PRIMARY KEY, version integer NOT NULL)",
    "CREATE TABLE IF NOT EXISTS {schema}.redstring_settings ("
    " component text NOT NULL, name text NOT NULL, value text NOT NULL,"
    " PRIMARY KEY (component, name))",
)


_SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"


class PostgresDatabase:
    """A pool of connections to one database, and the schema the stores live in.

    Build it with `await PostgresDatabase.connect(...)`; `close()` it when done.
    """

    def __init__(self, pool: AsyncConnectionPool[Connection], *, schema: str, name: str) -> None:
        self.pool = pool
        self.schema = schema
        self.name = name

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        schema: str = "redstring",
        extensions: Sequence[str] = (),
        configure: Configure | None = None,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
    ) -> PostgresDatabase:
        """Create `extensions` and `schema` if missing, then open a pool of connections.

        `configure` runs on every new pooled connection (registering types,
        say). Raises `StoreUnavailableError` when the server cannot be reached
        within `connect_timeout` seconds.
        """
        name = f"PostgresDatabase(schema={schema})"
        timeout = max(1, round(connect_timeout))
        with _translated(name, writing=False):  # nothing was written: say so, and what to check
            first = await psycopg.AsyncConnection.connect(
                url, autocommit=True, connect_timeout=timeout
            )
        with _translated(name):
            async with first as connection:
                for extension in extensions:
                    await connection.execute(
                        sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(
                            sql.Identifier(extension)
                        )
                    )
                await connection.execute(
                    sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema))
                )
            pool: AsyncConnectionPool[Connection] = AsyncConnectionPool(
                url,
                min_size=min_size,
                max_size=max_size,
                timeout=connect_timeout,
                kwargs={"autocommit": True, "connect_timeout": timeout},
                configure=configure,
                check=AsyncConnectionPool.check_connection,
                open=False,
            )
            try:
                await pool.open(wait=True, timeout=connect_timeout)
            except BaseException:
                await pool.close()
                raise
        return cls(pool, schema=schema, name=name)

    async def close(self) -> None:
        """Close every pooled connection."""
        await self.pool.close()

    def sql(self, template: str) -> sql.Composed:
        """`template` with `{schema}` replaced by the quoted schema name."""
        return sql.SQL(template).format(schema=sql.Identifier(self.schema))

    async def read[T](self, work: Callable[[Connection], Awaitable[T]], *, store: str) -> T:
        """Run `work` on a pooled connection in one read-only snapshot transaction.

        Every statement `work` issues sees the database as of the first one,
        so a multi-statement read is consistent with one committed state.
        Inside this task's `batch` it reads on the batch's connection, its writes included.
        """
        held = self._held()
        with _translated(store, writing=held is not None):
            if held is not None:
                return await work(held)
            async with self.pool.connection() as connection, connection.transaction():
                await connection.execute(_SNAPSHOT)
                return await work(connection)

    async def write[T](self, work: Callable[[Connection], Awaitable[T]], *, store: str) -> T:
        """Run `work` as one transaction on a pooled connection; any exception rolls it back.

        Inside this task's `batch` it is a savepoint of the batch's transaction.
        """
        held = self._held()
        with _translated(store):
            if held is not None:
                async with held.transaction():
                    return await work(held)
            async with self.pool.connection() as connection, connection.transaction():
                return await work(connection)

    @asynccontextmanager
    async def batch(self, *, store: str) -> AsyncIterator[None]:
        """Every `read` and `write` this task makes inside, by any store on this database,
        on one connection as one transaction: committed when the block ends, rolled
        back whole when it raises. A batch inside this task's batch joins it.
        """
        if self._held() is not None:
            yield
            return
        with _translated(store):
            async with self.pool.connection() as connection, connection.transaction():
                entered = _BATCHES.set((*_BATCHES.get(), (self, connection)))
                try:
                    yield
                finally:
                    _BATCHES.reset(entered)

    def _held(self) -> Connection | None:
        """The connection of this task's batch on this database, if it is inside one."""
        for database, connection in _BATCHES.get():
            if database is self:
                return connection
        return None

    async def foreign_tables(self, *, store: str) -> list[str]:
        """The schema's tables when it has no redstring schema table: another application's.

        Empty for a new or empty schema and for any schema redstring initialised.
        """

        async def work(connection: Connection) -> list[str]:
            cursor = await connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = %s"
                " ORDER BY table_name",
                (self.schema,),
            )
            tables = [str(row[0]) for row in await cursor.fetchall()]
            return [] if "redstring_schema" in tables else tables

        return await self.read(work, store=store)

    async def ensure_dimension(
        self, component: str, dimension: int, *, store: str, holds: str
    ) -> int:
        """Record `component`'s vector `dimension` on first open; refuse another later.

        Raises `DimensionMismatchError` when the schema records a different one,
        `CorruptSettingError` when it records something that is not a positive integer.
        """
        recorded = await self.ensure_setting(component, "dimension", str(dimension), store=store)
        stored = self._positive(component, recorded, store=store)
        if stored != dimension:
            raise DimensionMismatchError(
                expected=stored, actual=dimension, context=f"{store} holds {holds} of"
            )
        return dimension

    async def stored_dimension(self, component: str, *, store: str) -> int | None:
        """`component`'s recorded vector dimension, `None` when there is none.

        Raises `CorruptSettingError` for a value that is not a positive integer.
        """
        recorded = await self.stored_setting(component, "dimension", store=store)
        return None if recorded is None else self._positive(component, recorded, store=store)

    def _positive(self, component: str, value: str, *, store: str) -> int:
        return positive_setting(
            value, store=store, path=f"schema {self.schema!r}", setting=f"{component} dimension"
        )

    async def ensure_schema(self, schema: Schema, *, migrate: bool, store: str) -> None:
        """Create `schema`'s tables, or upgrade them when `migrate`; see `pending_migrations`.

        Runs under a transaction-scoped advisory lock, so two processes opening
        the same database at once do not both migrate it.
        """

        async def work(connection: Connection) -> None:
            await connection.execute(
                "SELECT pg_advisory_xact_lock(hashtext(%s))", (f"redstring:{self.schema}",)
            )
            for statement in _META:
                await connection.execute(self.sql(statement))
            cursor = await connection.execute(
                self.sql("SELECT version FROM {schema}.redstring_schema WHERE component = %s"),
                (schema.component,),
            )
            row = await cursor.fetchone()
            found = None if row is None else int(row[0])
            for migration in pending_migrations(schema, found, migrate=migrate, store=store):
                for statement in migration:
                    await connection.execute(self.sql(statement))
            await connection.execute(
                self.sql(
                    "INSERT INTO {schema}.redstring_schema (component, version) VALUES (%s, %s)"
                    " ON CONFLICT (component) DO UPDATE SET version = excluded.version"
                ),
                (schema.component, schema.version),
            )

        await self.write(work, store=store)

    async def stored_setting(self, component: str, name: str, *, store: str) -> str | None:
        """A setting's stored value, or `None` when the schema holds none."""

        async def work(connection: Connection) -> str | None:
            cursor = await connection.execute(
                "SELECT 1 FROM information_schema.tables"
                " WHERE table_schema = %s AND table_name = 'redstring_settings'",
                (self.schema,),
            )
            if await cursor.fetchone() is None:
                return None
            cursor = await connection.execute(
                self.sql(
                    "SELECT value FROM {schema}.redstring_settings"
                    " WHERE component = %s AND name = %s"
                ),
                (component, name),
            )
            row = await cursor.fetchone()
            return None if row is None else str(row[0])

        return await self.read(work, store=store)

    async def ensure_setting(self, component: str, name: str, value: str, *, store: str) -> str:
        """The stored value of a setting, recording `value` first if there is none."""

        async def work(connection: Connection) -> str:
            await connection.execute(
                self.sql(
                    "INSERT INTO {schema}.redstring_settings (component, name, value)"
                    " VALUES (%s, %s, %s) ON CONFLICT (component, name) DO NOTHING"
                ),
                (component, name, value),
            )
            cursor = await connection.execute(
                self.sql(
                    "SELECT value FROM {schema}.redstring_settings"
                    " WHERE component = %s AND name = %s"
                ),
                (component, name),
            )
            row = await cursor.fetchone()
            assert row is not None  # written just above in this transaction
            return str(row[0])

        return await self.write(work, store=store)


@contextmanager
def _translated(store: str, *, writing: bool = True) -> Iterator[None]:
    try:
        yield
    except psycopg.Error as error:
        raise translate_postgres_error(error, store=store, writing=writing) from error


def translate_postgres_error(
    error: psycopg.Error, *, store: str, writing: bool = True
) -> Exception:
    """The `StoreError` a psycopg exception (pool timeouts included) stands for; `writing`
    is whether a batch was in flight, which an unavailable database's message says."""
    cause = f"{type(error).__name__}: {str(error).strip().splitlines()[0] if str(error) else ''}"
    if isinstance(error, psycopg.OperationalError | psycopg.InterfaceError):
        return StoreUnavailableError(store=store, cause=cause, writing=writing)
    return StoreOperationError(store=store, cause=cause)
