"""Schema versions: the one mechanism both backends use to create and upgrade tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from redstring.domain.errors import (
    CorruptSettingError,
    SchemaMigrationRequiredError,
    SchemaTooNewError,
)


@dataclass(frozen=True)
class Schema:
    """The tables one component (graph, vector, ...) owns, as ordered migrations.

    `migrations[i]` holds the statements that take the component from version
    `i` to `i + 1`, so the current version is `len(migrations)`. A migration,
    once released, is never edited: a change is a new migration appended.
    """

    component: str
    migrations: Sequence[Sequence[str]]

    @property
    def version(self) -> int:
        """The version this library writes."""
        return len(self.migrations)


def pending_migrations(
    schema: Schema, found: int | None, *, migrate: bool, store: str
) -> list[Sequence[str]]:
    """The migrations to run on a database whose recorded version is `found`.

    `None` (the component was never created) gives all of them. An older
    version gives the missing ones when `migrate` is true and raises
    `SchemaMigrationRequiredError` otherwise; a newer one raises
    `SchemaTooNewError`. Nothing is ever applied silently to an existing schema.
    """
    if found is None:
        return list(schema.migrations)
    if found > schema.version:
        raise SchemaTooNewError(
            store=store, component=schema.component, found=found, expected=schema.version
        )
    if found < schema.version and not migrate:
        raise SchemaMigrationRequiredError(
            store=store, component=schema.component, found=found, expected=schema.version
        )
    return list(schema.migrations[found:])


def positive_setting(value: str, *, store: str, path: str, setting: str) -> int:
    """A stored setting redstring writes as a positive integer (a vector dimension).

    Raises `CorruptSettingError` naming the setting for anything else, so a
    damaged database never surfaces as `int()`'s message.
    """
    if value.isascii() and value.isdigit() and int(value) > 0:
        return int(value)
    raise CorruptSettingError(
        store=store, path=path, setting=setting, value=value, expected="a positive integer"
    )
