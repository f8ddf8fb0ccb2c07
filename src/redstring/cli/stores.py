"""Opening the stores a `--db` value names: a SQLite file, or a PostgreSQL URL.

Interim: the persistent adapters are not on this branch yet, so every
database is refused with a message saying so (a missing file for a read is
still reported as missing). Replaced when the SQLite and PostgreSQL stores
are merged.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from redstring.cli.errors import DatabaseNotFoundError
from redstring.cli.store_set import StoreSet
from redstring.domain.errors import RedstringError

POSTGRES_PREFIXES = ("postgresql://", "postgres://")


class NoPersistentStoresError(RedstringError):
    """This build of redstring has no persistent store adapters."""

    def __init__(self, *, db: str) -> None:
        super().__init__(
            f"cannot open {db}: this build of redstring has no persistent stores yet. "
            "Install a release with the SQLite stores."
        )


@asynccontextmanager
async def open_store_set(
    db: str, *, dimension: int | None, create: bool, migrate: bool
) -> AsyncIterator[StoreSet]:
    """Refuses every database; see the module docstring."""
    if not db.startswith(POSTGRES_PREFIXES) and not create and not os.path.exists(db):  # noqa: ASYNC240
        raise DatabaseNotFoundError(path=db)
    raise NoPersistentStoresError(db=db)
    yield  # pragma: no cover
