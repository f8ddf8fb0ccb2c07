"""Schemas a PostgreSQL test module made, emptied after each test and handed out again.

The compliance suites ask for a new, empty store many times per test (once
per hypothesis example). Creating a schema's tables is most of what that
costs (about 0.18 s a schema, 0.47 s partitioned, against 0.07 s to open an
existing one). A schema handed back after its test is emptied row by row
(every table but the schema version and settings), and given again only to
an `open` asking for the same dimension and options, and only if its
version and settings rows are still the ones it was created with: a test
that moved them (another language recorded, say) leaves its schema out.
What a store reads of an emptied schema is what it reads of a new one:
no tenant, no row, the same recorded settings (the stores keep no
sequences, and every cache lives in the store object, which is new).
"""

from __future__ import annotations

import uuid
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg import sql

#: Bookkeeping a store reads when it opens; kept, and compared before a schema is reused.
KEPT = ("redstring_schema", "redstring_settings")


def _bookkeeping(connection: psycopg.Connection[Any], schema: str) -> list[Any]:
    rows: list[Any] = []
    for table in KEPT:
        rows.append(
            sorted(
                connection.execute(
                    sql.SQL("SELECT * FROM {}.{}").format(
                        sql.Identifier(schema), sql.Identifier(table)
                    )
                ).fetchall()
            )
        )
    return rows


def _data_tables(connection: psycopg.Connection[Any], schema: str) -> list[str]:
    """Every table of `schema` but the bookkeeping, partitions left to their parents."""
    return [
        name
        for (name,) in connection.execute(
            "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
            " ORDER BY c.relname",
            (schema,),
        )
        if name not in KEPT
    ]


@dataclass
class SchemaPool:
    """One module's schemas, free ones by the key they were opened with."""

    url: str
    free: dict[Hashable, list[str]] = field(default_factory=dict)
    #: What each schema's bookkeeping held when it was created.
    created: dict[str, list[Any]] = field(default_factory=dict)
    created_count: int = 0
    reused_count: int = 0

    def take(self, key: Hashable) -> tuple[str, bool]:
        """A schema name for `key`: `(name, True)` for an emptied one, else a new name."""
        names = self.free.get(key)
        if names:
            self.reused_count += 1
            return names.pop(), True
        self.created_count += 1
        return f"t_{uuid.uuid4().hex[:12]}", False

    def record_created(self, name: str) -> None:
        """Note what the new schema `name`'s bookkeeping holds, to compare on its return."""
        with psycopg.connect(self.url, autocommit=True) as connection:
            self.created[name] = _bookkeeping(connection, name)

    def give_back(self, name: str, key: Hashable) -> None:
        """Empty `name` and free it for `key`, unless its bookkeeping moved since it was made."""
        if name not in self.created:  # never opened: nothing was made
            return
        with psycopg.connect(self.url, autocommit=True) as connection:
            if _bookkeeping(connection, name) != self.created[name]:
                return
            with connection.transaction():
                for table in _data_tables(connection, name):
                    connection.execute(
                        sql.SQL("DELETE FROM {}.{}").format(
                            sql.Identifier(name), sql.Identifier(table)
                        )
                    )
        self.free.setdefault(key, []).append(name)
