"""Every error the library raises on purpose derives from `RedstringError`.

One error per cause. Each carries the fields a caller needs to act on it, and
its message says what went wrong and what to do about it.
"""

from __future__ import annotations


class RedstringError(Exception):
    """The root of every error redstring raises deliberately."""


class DimensionMismatchError(RedstringError, ValueError):
    """Two vector dimensions that must agree do not.

    Raised when an embedding provider and a store disagree (at construction,
    before any text is embedded) and when a vector of the wrong length reaches
    a store. `context` names what was being compared.
    """

    def __init__(self, *, expected: int, actual: int, context: str) -> None:
        self.expected = expected
        self.actual = actual
        self.context = context
        super().__init__(
            f"{context}: expected dimension {expected}, got {actual}. "
            "Use an embedding model and a store created with the same dimension."
        )


class CrossTenantReferenceError(RedstringError, ValueError):
    """A relationship names entities of different tenants, or of another tenant."""

    def __init__(self, *, tenant_id: object, detail: str) -> None:
        self.tenant_id = tenant_id
        super().__init__(
            f"tenant {tenant_id}: {detail}. Every entity a relationship joins must belong "
            "to the relationship's own tenant."
        )


class UnknownEntityError(RedstringError, LookupError):
    """An operation named an entity the store does not hold for that tenant."""

    def __init__(self, *, entity_id: object, tenant_id: object) -> None:
        self.entity_id = entity_id
        self.tenant_id = tenant_id
        super().__init__(
            f"entity {entity_id} does not exist in tenant {tenant_id}. "
            "Check the id and the tenant; ids are only meaningful within their tenant."
        )


class CompletionError(RedstringError):
    """A language model's answer could not be used."""

    def __init__(self, message: str, *, model: str | None = None) -> None:
        self.model = model
        super().__init__(message)


class EmptyCompletionError(CompletionError):
    """The model answered with nothing."""


class RefusedCompletionError(CompletionError):
    """The model declined to answer."""


class MalformedCompletionError(CompletionError):
    """The answer was not JSON, or did not satisfy the schema asked for."""


class InvalidVectorError(RedstringError, ValueError):
    """A vector with no direction (all zeros) or a non-finite component."""

    def __init__(self, *, context: str) -> None:
        self.context = context
        super().__init__(
            f"{context}: the vector is all zeros or holds NaN/infinity, so its cosine is "
            "undefined. Check the embedding model's output."
        )


class StoreError(RedstringError):
    """A persistent store could not do what was asked. `store` names the adapter."""

    def __init__(self, message: str, *, store: str) -> None:
        self.store = store
        super().__init__(message)


class StoreUnavailableError(StoreError):
    """The database behind a store cannot be reached, opened, locked or written.

    `cause` is the driver's own account. Nothing of the batch in flight was
    written: every batch is one transaction.
    """

    def __init__(self, *, store: str, cause: str) -> None:
        self.cause = cause
        super().__init__(
            f"{store}: the database is unavailable ({cause}). Nothing of the current batch "
            "was written; check that the database is reachable and writable, then retry.",
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


class SchemaVersionError(StoreError):
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
