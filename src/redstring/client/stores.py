"""Opening the stores a `--db` value names: a SQLite file, or a PostgreSQL URL.

Composes `open_sqlite` and `open_postgres` behind one `StoreOpener`, so every
command opens its database the same way whatever the backend. A value
starting with `postgresql://` or `postgres://` is a PostgreSQL URL (needs the
`postgres` extra); `:memory:` is a database held in this process and gone
at close; anything else is a SQLite file path.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from redstring.chunks.in_memory import InMemoryChunkStore
from redstring.client.embeddings import UNEMBEDDED_DIMENSION
from redstring.client.errors import DATABASE_ARGUMENT
from redstring.client.store_set import StoreSet
from redstring.composition.rebuild import lagging_tenants
from redstring.composition.sqlite_stores import SqliteStores, open_sqlite
from redstring.domain.errors import (
    DatabaseNotFoundError,
    DimensionRequiredError,
    InvalidArgumentError,
    MissingExtraError,
    RedstringError,
)
from redstring.domain.tokenize import DEFAULT_LANGUAGE
from redstring.events.in_memory import InMemoryEventLog
from redstring.graph.in_memory import InMemoryGraphStore
from redstring.vector.in_memory import InMemoryVectorStore

if TYPE_CHECKING:  # PostgreSQL's stores need the optional extra
    from redstring.composition.postgres_stores import PostgresStores

POSTGRES_PREFIXES = ("postgresql://", "postgres://")
#: The `db` value of a database held in memory, as SQLite spells it.
IN_MEMORY = ":memory:"


def require_db(db: object) -> str:
    """`db` as text when it names a database (a path, a `PathLike` or a URL, not blank);
    else `InvalidArgumentError` naming `db`. The client's check, and the --db flag's."""
    if not isinstance(db, str | os.PathLike) or not os.fspath(db).strip():
        raise InvalidArgumentError(
            name="db", value=db, requirement="a SQLite file path or a postgresql:// URL"
        )
    return os.fspath(db)


@asynccontextmanager
async def open_store_set(
    db: str,
    *,
    dimension: int | None,
    create: bool,
    migrate: bool,
    language: str | None = None,
    catch_up: bool = True,
    writable: bool = False,
) -> AsyncIterator[StoreSet]:
    """The stores of `db`, closed when the `async with` ends.

    An existing database opens at the dimension it records when `dimension`
    is `None`; a new one uses `dimension`, or `UNEMBEDDED_DIMENSION` when it
    is `None` (a command that only reads refuses a new PostgreSQL schema
    with `DimensionRequiredError`). With
    `create=False` a SQLite path that does not exist raises
    `DatabaseNotFoundError` (and no file is created), and a SQLite file is
    opened read-only unless `migrate` (ADR 0130): a command that only reads
    never takes the write lock, and can read a file it cannot write; only a
    file whose stores lag its event log (a crash between append and fold) and
    that this process may write is reopened writable and caught up first
    (B132), unless `catch_up` is false (`redstring check`, which must change
    nothing, reads such a file as it is). `writable` opens an existing SQLite
    file to write even with `create=False`: a command that changes a database
    it must not make (`rekey`, `rebuild`, `remove`, `undo`) is refused a
    missing one and writes an existing one, in one open. What the stores raise
    passes through: `SchemaMigrationRequiredError`, `SchemaTooNewError`,
    `StoreUnavailableError`, `DimensionMismatchError`, `AnalysisMismatchError`
    (`language` other than the one a database holding passages records). A
    SQLite file this call created is deleted at the end when nothing was
    written to it, so a first call that fails leaves no empty database behind.
    """
    if db == IN_MEMORY:
        size = dimension or UNEMBEDDED_DIMENSION
        yield StoreSet(
            backend="memory",
            graph=InMemoryGraphStore(),
            vectors=InMemoryVectorStore(dimension=size),
            chunks=InMemoryChunkStore(dimension=size, language=language or DEFAULT_LANGUAGE),
            events=InMemoryEventLog(),
        )
        return
    if db.startswith(POSTGRES_PREFIXES):
        async with _postgres(
            db, dimension=dimension, create=create, migrate=migrate, language=language
        ) as stores:
            yield stores
        return
    path = Path(db)
    if path.is_dir():  # noqa: ASYNC240 (one stat before opening the file)
        raise InvalidArgumentError(
            name="db",
            value=db,
            requirement=f"a SQLite file's path, and {db} is a folder: name a file in it, "
            f"e.g. {path / 'redstring.db'}",
        )
    exists = os.path.exists(path)  # noqa: ASYNC240 (one stat before opening the file)
    if not exists and not create:
        raise DatabaseNotFoundError(path=db, fix=DATABASE_ARGUMENT)
    # An existing file opens at the dimension it records; a provider of another
    # dimension is then refused by whatever composes the two, naming both.
    try:
        sqlite = open_sqlite(
            path,
            dimension=None if exists else (dimension or UNEMBEDDED_DIMENSION),
            migrate=migrate,
            read_only=not (create or migrate or writable),
            language=language,
        )
    except DimensionRequiredError:
        if not create:
            raise
        # An empty file, given to a command that writes: initialise it as a new one.
        sqlite = open_sqlite(
            path, dimension=dimension or UNEMBEDDED_DIMENSION, migrate=migrate, language=language
        )
    if catch_up and sqlite.database.read_only and await _lags_and_writable(sqlite, path):
        # A crash left the stores behind the log: a writable open folds the
        # missing events first (ADR 0134), so a reader never sees the lag (B132).
        await sqlite.close()
        sqlite = open_sqlite(path, language=language)
    # A file this open made and nobody wrote to is not left behind (ADR 0560).
    unwritten = None if exists else sqlite.database.total_changes
    try:
        yield _store_set("SQLite", sqlite)
    finally:
        untouched = unwritten is not None and _unwritten(sqlite, unwritten)
        await sqlite.close()
        if untouched and _unshared(path):
            _remove_database(path)


def _unwritten(sqlite: SqliteStores, changes: int) -> bool:
    """Whether this connection made no more than `changes` changes and no table holds data,
    whoever wrote it; `False` when the file cannot say (it is then kept)."""
    try:
        return sqlite.database.total_changes == changes and not sqlite.database.holds_data(
            store="database"
        )
    except RedstringError:
        return False


def _unshared(path: Path) -> bool:
    """Whether no connection still has the SQLite file at `path` open, once ours has closed.

    The last connection to close a WAL database removes its `-wal` file; one
    left means another connection (in any process) may still read or write.
    """
    return not Path(f"{path}-wal").exists()


def _remove_database(path: Path) -> None:
    """Delete the SQLite file at `path` and the journal files beside it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


async def _lags_and_writable(sqlite: SqliteStores, path: Path) -> bool:
    """Whether some store of `sqlite` lags its event log and this process may write the file.

    The folder must be writable too: SQLite writes its journal beside the file.
    """
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return False
    lagging = await lagging_tenants(
        sqlite.events, graph=sqlite.graph, vectors=sqlite.vectors, chunks=sqlite.chunks
    )
    return bool(lagging)


@asynccontextmanager
async def _postgres(
    url: str, *, dimension: int | None, create: bool, migrate: bool, language: str | None
) -> AsyncIterator[StoreSet]:
    try:
        from redstring.composition.postgres_stores import (  # noqa: PLC0415 (optional extra)
            open_postgres,
        )
    except ImportError:
        raise MissingExtraError(extra="postgres", missing="psycopg and pgvector") from None

    # An existing schema opens at the dimension it records, as a SQLite file does; a
    # provider of another dimension is then refused by whatever embeds with it.
    try:
        postgres = await open_postgres(url, dimension=None, migrate=migrate, language=language)
    except DimensionRequiredError:
        if not create:
            raise
        # A new database, made by a command that writes: the provider's, or unembedded.
        postgres = await open_postgres(
            url, dimension=dimension or UNEMBEDDED_DIMENSION, migrate=migrate, language=language
        )
    try:
        yield _store_set("PostgreSQL", postgres)
    finally:
        await postgres.close()


def _store_set(backend: str, stores: SqliteStores | PostgresStores) -> StoreSet:
    """The set of an opened database's stores."""
    return StoreSet(backend, stores.graph, stores.vectors, stores.chunks, stores.events)
