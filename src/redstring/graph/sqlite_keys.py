"""The SQLite graph store's blocking-key table (ADR 0260): filing, unfiling, capped reads.

A row is `(tenant number, key, entity)`: the tenant's number in
`graph_tenants` (per file) and the entity id's 16 bytes, which sort as the id's
text, so a block is one range of the primary key (the table's only index) in
id order and a cap is a `LIMIT` on it. Each entity row lists the keys it is
filed under (`keys`, JSON): re-filing an entity writes only the keys that
changed, and removal deletes its rows by primary key.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import repeat
from uuid import UUID

from redstring.storage.damage import decoding
from redstring.storage.sqlite import rows_in

_BLOCK = "SELECT entity FROM graph_keys WHERE tenant = ? AND key = ? ORDER BY entity LIMIT ?"
#: The canonical text of the id in column `entity` (`h` holds `lower(hex(entity))`).
_ID_TEXT = (
    "substr(b.h, 1, 8) || '-' || substr(b.h, 9, 4) || '-' || substr(b.h, 13, 4)"
    " || '-' || substr(b.h, 17, 4) || '-' || substr(b.h, 21)"
)
_BODIES = (
    f"SELECT e.id, e.body FROM (SELECT entity, lower(hex(entity)) AS h FROM ({_BLOCK})) b"
    f" JOIN graph_entities e ON e.tenant_id = ? AND e.id = {_ID_TEXT} ORDER BY b.entity"
)
_COUNT = "SELECT count(*) FROM (SELECT 1 FROM graph_keys WHERE tenant = ? AND key = ? LIMIT ?)"
_DELETE = "DELETE FROM graph_keys WHERE tenant = ? AND key = ? AND entity = ?"
_INSERT = "INSERT INTO graph_keys (tenant, key, entity) VALUES (?, ?, ?)"

KeyRow = tuple[int, str, bytes]


@dataclass(frozen=True, slots=True)
class Filing:
    """The keys one entity is to be filed under (sorted, no repeats)."""

    tenant: str
    entity_id: str
    keys: tuple[str, ...]

    def listed(self) -> str:
        """The entity row's `keys` column (JSON)."""
        return json.dumps(self.keys, separators=(",", ":"))


def tenant_number(connection: sqlite3.Connection, tenant: str) -> int | None:
    """The tenant's number in this file, `None` when it has none."""
    row = connection.execute(
        "SELECT number FROM graph_tenants WHERE tenant_id = ?", (tenant,)
    ).fetchone()
    return None if row is None else int(row[0])


def numbered(connection: sqlite3.Connection, tenant: str) -> int:
    """The tenant's number in this file, given one first if it has none."""
    number = tenant_number(connection, tenant)
    if number is not None:
        return number
    row = connection.execute(
        "INSERT INTO graph_tenants (tenant_id) VALUES (?) RETURNING number", (tenant,)
    ).fetchone()
    return int(row[0])


def refile(connection: sqlite3.Connection, filings: Sequence[Filing]) -> None:
    """File each entity under its keys, removing the keys its stored row lists and it lost.

    Call before the entity rows are written: it reads the keys they list now.
    One filing per (tenant, id).
    """
    added: list[KeyRow] = []
    removed: list[KeyRow] = []
    for tenant, group in _by_tenant(filings).items():
        number = numbered(connection, tenant)
        held = _held_keys(connection, tenant, [f.entity_id for f in group])
        for filing in group:
            entity = UUID(filing.entity_id).bytes
            before = held.get(filing.entity_id)
            if before is None:
                added.extend(zip(repeat(number), filing.keys, repeat(entity)))
                continue
            old, new = set(before), set(filing.keys)
            added.extend(zip(repeat(number), new - old, repeat(entity)))
            removed.extend(zip(repeat(number), old - new, repeat(entity)))
    connection.executemany(_DELETE, sorted(removed))
    connection.executemany(_INSERT, sorted(added))  # in key order: pages filled in turn


def rebuild(connection: sqlite3.Connection, tenant: str, filings: Sequence[Filing]) -> None:
    """Replace every key row of the tenant with these filings' (its whole index)."""
    number = numbered(connection, tenant)
    connection.execute("DELETE FROM graph_keys WHERE tenant = ?", (number,))
    rows = [(number, key, UUID(f.entity_id).bytes) for f in filings for key in f.keys]
    connection.executemany(_INSERT, sorted(rows))


def unfile(connection: sqlite3.Connection, tenant: str, entity_ids: Sequence[str]) -> None:
    """Remove every key row of these entities (call before their rows are deleted)."""
    number = tenant_number(connection, tenant)
    if number is None:
        return
    held = _held_keys(connection, tenant, entity_ids)
    connection.executemany(
        _DELETE,
        sorted(
            (number, key, UUID(entity_id).bytes) for entity_id, keys in held.items() for key in keys
        ),
    )


def forget_tenant(connection: sqlite3.Connection, tenant: str) -> None:
    """Remove the tenant's key rows and its number."""
    number = tenant_number(connection, tenant)
    if number is not None:
        connection.execute("DELETE FROM graph_keys WHERE tenant = ?", (number,))
        connection.execute("DELETE FROM graph_tenants WHERE number = ?", (number,))


def capped_ids(
    connection: sqlite3.Connection, tenant: str, keys: Sequence[str], limit: int
) -> dict[str, bytes]:
    """Per key (each once) its first `limit` members' 16-byte ids, by id, joined (`id_numbers`).

    One prepared statement per key, each one range of the primary key read in
    index order and cut by `LIMIT`, so a large block is never read whole. One
    compound SELECT over every key cost two to three times as much (its outer
    `ORDER BY` sorted every row, each carrying its key's text; B206(c)).
    """
    number, lim = tenant_number(connection, tenant), limit
    if number is None:
        return dict.fromkeys(keys, b"")
    return {
        key: b"".join([raw for (raw,) in connection.execute(_BLOCK, (number, key, lim))])
        for key in keys
    }


def id_numbers(block: bytes) -> list[int]:
    """The id numbers (`EntityId.int`) of a `capped_ids` block: each 16 bytes read big-endian.

    Read as pairs of 64-bit halves, so no `UUID` and no per-id `bytes` is built.
    """
    halves = array("Q")
    halves.frombytes(block)
    if sys.byteorder == "little":
        halves.byteswap()
    return [high << 64 | low for high, low in zip(halves[::2], halves[1::2], strict=True)]


def capped_bodies(
    connection: sqlite3.Connection, tenant: str, keys: Sequence[str], limit: int
) -> dict[str, list[tuple[str, str]]]:
    """`capped_ids` with each member's stored body (JSON), as `(id, body)`, in the same order."""
    number = tenant_number(connection, tenant)
    if number is None:
        return {key: [] for key in keys}
    return {
        key: [(i, body) for i, body in connection.execute(_BODIES, (number, key, limit, tenant))]
        for key in keys
    }


def counted_blocks(
    connection: sqlite3.Connection, tenant: str, keys: Sequence[str], limit: int
) -> dict[str, int]:
    """Per key (each once), how many members its block holds, counted no further than `limit`."""
    number = tenant_number(connection, tenant)
    if number is None:
        return dict.fromkeys(keys, 0)
    return {key: connection.execute(_COUNT, (number, key, limit)).fetchone()[0] for key in keys}


def _held_keys(
    connection: sqlite3.Connection, tenant: str, entity_ids: Sequence[str]
) -> dict[str, list[str]]:
    """The keys each of these stored entities lists; absent ids are left out."""
    rows = rows_in(
        connection,
        "SELECT id, keys FROM graph_entities WHERE tenant_id = ? AND id",
        tenant,
        entity_ids,
    )
    held: dict[str, list[str]] = {}
    for entity_id, keys in rows:
        with decoding(table="graph_entities", tenant=tenant, row=f"entity {entity_id}"):
            held[str(entity_id)] = [str(key) for key in json.loads(str(keys))]
    return held


def _by_tenant(filings: Sequence[Filing]) -> dict[str, list[Filing]]:
    grouped: dict[str, list[Filing]] = {}
    for filing in filings:
        grouped.setdefault(filing.tenant, []).append(filing)
    return grouped
