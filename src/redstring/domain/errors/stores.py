"""Errors of the stores and their databases."""

from __future__ import annotations

from redstring.domain.errors.arguments import InvalidArgumentError
from redstring.domain.errors.base import RedstringError


class StoreError(RedstringError):
    """A persistent store could not do what was asked. `store` names the adapter."""

    def __init__(self, message: str, *, store: str) -> None:
        self.store = store
        super().__init__(message)


class StoreUnavailableError(StoreError):
    """The database behind a store cannot be reached, opened, locked or written.

    `cause` is the driver's own account. Nothing of the batch in flight was
    written: every batch is one transaction. `writing` is whether a write (a
    batch) was in flight: when none was (a read, or connecting to a server),
    the message says nothing was written and to check the URL and the server.
    """

    def __init__(self, *, store: str, cause: str, writing: bool = True) -> None:
        self.cause = cause
        self.writing = writing
        then = (
            "Nothing of the current batch was written; check that the database is reachable "
            "and writable, then retry."
            if writing
            else "Nothing was written; check the database URL and that the server is running "
            "and reachable from here, then retry."
        )
        super().__init__(f"{store}: the database is unavailable ({cause}). {then}", store=store)


#: How a caller of `open_sqlite` waits longer for another writer, said by `DatabaseBusyError`.
WAIT_LONGER = (
    "To wait longer for it, open the stores with `open_sqlite(path, busy_timeout=SECONDS)`."
)


class DatabaseBusyError(StoreUnavailableError):
    """Another connection or process was writing to the database, and the wait for it ran out.

    SQLite lets one writer at a time; a statement waits for the others' write
    up to the busy timeout, then fails. Nothing of the batch in flight was
    written. `cause` is the driver's account, and `fix` says how to wait
    longer where the caller can (`open_sqlite`'s `busy_timeout`, by default).
    """

    def __init__(self, *, store: str, cause: str, fix: str = WAIT_LONGER) -> None:
        self.cause = cause
        self.fix = fix
        StoreError.__init__(
            self,
            f"{store}: another connection or process is writing to this database now, and "
            f"the wait for it ran out ({cause}). Nothing of the current batch was written; "
            f"retry when that write finishes. {fix}".rstrip(),
            store=store,
        )


class DatabaseOpenError(StoreUnavailableError):
    """A database file could not be opened at all (not a batch that failed).

    `cause` is the driver's account: not a SQLite file, a folder, no
    permission. Nothing was read or written.
    """

    def __init__(self, *, store: str, path: str, cause: str) -> None:
        self.path = path
        self.cause = cause
        StoreError.__init__(
            self,
            f"{store}: could not open {path} ({cause}); nothing was changed. Check that the "
            "path names a redstring SQLite file (or a new path) that this process may read, and "
            "write for a command that writes.",
            store=store,
        )


class IncompatibleStoreError(StoreError):
    """A database redstring may not use as it is: another program's, or another schema version's."""


class DamagedStoreError(StoreError):
    """A database holds what redstring never writes: restore it, or build it again."""


class DamagedRowError(DamagedStoreError):
    """A stored row does not decode: a chunk body, postings block, vector or entity JSON damaged.

    `table`, `tenant` and `row` name it (`row` is its id, or the key of a
    packed row: a term and block); `problem` says what is wrong with it.
    Nothing was changed. `redstring check` (or the client's `check()`) lists
    every damaged row of a file without stopping at the first.
    """

    def __init__(self, *, store: str, table: str, tenant: str, row: str, problem: str) -> None:
        self.table = table
        self.tenant = tenant
        self.row = row
        self.problem = problem
        super().__init__(
            f"{store}: table {table}, tenant {tenant}, {row}: damaged ({problem}); "
            "nothing was changed. Run `redstring check --db PATH` to list every damaged row, "
            "then restore the file from a backup, or index the documents again into a new path.",
            store=store,
        )


class InconsistentCorpusError(DamagedStoreError):
    """A chunk store's lexical answer contradicts itself.

    Raised by the BM25 scorer when a chunk is offered twice (duplicate
    postings) or when a candidate contains a term whose document frequency is
    missing or impossible. It points at a bug in the store adapter, not in
    the caller's input. `term` is the term concerned, if one is.
    """

    def __init__(self, *, term: str | None, detail: str) -> None:
        self.term = term
        about = f"term {term!r}: " if term is not None else ""
        super().__init__(
            f"inconsistent lexical statistics: {about}{detail}. The chunk store's postings "
            "or statistics are wrong; check its adapter against ChunkStoreCompliance.",
            store="chunk store",
        )


class ForeignDatabaseError(IncompatibleStoreError):
    """A SQLite file holds another application's tables and no redstring schema."""

    def __init__(self, *, store: str, path: str, tables: list[str]) -> None:
        self.path = path
        self.tables = tables
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        super().__init__(
            f"{store}: {path} is a SQLite database of another application (tables {shown}) "
            "and holds no redstring data; nothing was changed. Point at a new path (it is "
            "created) or at a redstring database; redstring never writes into another "
            "application's file.",
            store=store,
        )


class ForeignSchemaError(IncompatibleStoreError):
    """A PostgreSQL schema holds another application's tables and no redstring schema."""

    def __init__(self, *, store: str, schema: str, tables: list[str]) -> None:
        self.schema = schema
        self.tables = tables
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        super().__init__(
            f"{store}: PostgreSQL schema {schema!r} holds another application's tables "
            f"({shown}) and no redstring data; nothing was changed. Pass another schema "
            "(schema=... or --schema; a new one is created) or the schema redstring wrote; "
            "redstring never writes into another application's schema.",
            store=store,
        )


class CorruptSettingError(DamagedStoreError):
    """A setting the database records has a value redstring never writes."""

    def __init__(self, *, store: str, path: str, setting: str, value: str, expected: str) -> None:
        self.path = path
        self.setting = setting
        self.value = value
        super().__init__(
            f"{store}: {path} records {setting} = {value!r}, which is not {expected}; the file "
            "was edited or damaged, and nothing was changed. Restore it from a backup, or "
            "index the documents again into a new path.",
            store=store,
        )


class StoreOperationError(StoreError):
    """The database rejected a statement for a reason other than availability."""

    def __init__(self, *, store: str, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"{store}: the database rejected the operation ({cause}). Nothing of the current "
            "batch was written.",
            store=store,
        )


class ReadOnlyDatabaseError(StoreUnavailableError):
    """A database opened read-only was asked to write, or lacks something only a write creates."""

    def __init__(self, *, store: str, path: str, missing: str | None = None) -> None:
        self.path = path
        self.missing = missing
        what = (
            "was asked to write"
            if missing is None
            else f"holds no {missing!r} (a new database, or one written by another program)"
        )
        self.cause = f"read-only: {what}"
        StoreError.__init__(
            self,
            f"{store}: {path} is open read-only and {what}. Nothing was written. Open it "
            "writable, from a process that may write the file and its folder: a client made "
            "without create=False, open_sqlite without read_only=True, or a command that "
            "writes such as `redstring index`.",
            store=store,
        )


class DimensionRequiredError(InvalidArgumentError):
    """A database that records no vector dimension was opened without one."""

    def __init__(self, *, store: str, path: str) -> None:
        self.path = path
        self.store = store
        super().__init__(
            name="dimension",
            value=None,
            requirement="the length of your embedding vectors",
            message=f"{store}: {path} holds no redstring data yet (it is new or empty), so "
            "there is nothing to read and no vector dimension to open it at; nothing was "
            "created. Write to it first (the command line's index or build; from Python, "
            "dimension=N, the length of your embedding vectors), or point at a redstring "
            "database.",
        )


class SchemaVersionError(IncompatibleStoreError):
    """A database's recorded schema version is not the one this library writes."""

    def __init__(
        self, message: str, *, store: str, component: str, found: int, expected: int
    ) -> None:
        self.component = component
        self.found = found
        self.expected = expected
        super().__init__(message, store=store)


class SchemaTooNewError(SchemaVersionError):
    """The database was written by a newer redstring; this one refuses to touch it."""

    def __init__(self, *, store: str, component: str, found: int, expected: int) -> None:
        super().__init__(
            f"{store}: schema '{component}' is at version {found}, newer than the {expected} "
            "this redstring knows. Upgrade redstring to open this database; it was not modified.",
            store=store,
            component=component,
            found=found,
            expected=expected,
        )


class SchemaMigrationRequiredError(SchemaVersionError):
    """The database is at an older schema version and was opened without `migrate=True`."""

    def __init__(self, *, store: str, component: str, found: int, expected: int) -> None:
        super().__init__(
            f"{store}: schema '{component}' is at version {found}; this redstring needs "
            f"{expected}. Back the database up, then open it with migrate=True (for example "
            "open_sqlite(path, migrate=True) or open_postgres(url, migrate=True)) to upgrade "
            "it in place. It was not modified.",
            store=store,
            component=component,
            found=found,
            expected=expected,
        )


class AnalysisMismatchError(IncompatibleStoreError, ValueError):
    """A chunk index holding passages was opened with another `language` than it was built in."""

    def __init__(self, *, store: str, stored: str, asked: str) -> None:
        self.stored = stored
        self.asked = asked
        super().__init__(
            f"{store}: its passages were indexed with language={stored!r}, and "
            f"language={asked!r} was asked; nothing was changed. Open it without language "
            f"(queries are then analysed as {stored!r}), or index the documents into a new "
            f"database to use {asked!r}.",
            store=store,
        )
