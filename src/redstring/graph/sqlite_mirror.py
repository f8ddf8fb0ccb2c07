"""A whole tenant's blocks and names held in memory, read once under one token (ADR 0455).

`TenantMirror` holds every blocking key of one tenant with its members (a
compressed sparse row: the keys' hashes sorted, where each key's members
start, how many, and the members as places in the tenant's ids sorted) and
every entity's names. A block count, a capped block or a name read from it
equals what the file's statements would answer under the same token, and
nothing is read from the file. `load_mirror` reads it in one read transaction;
`TenantReads` serves from it once loaded.
"""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterable, Sequence, Set

import numpy as np
from numpy.typing import NDArray

from redstring.domain.ids import ID_NUMBER_LIMIT, EntityId, entity_id_from_int
from redstring.graph.sqlite_keys import tenant_number
from redstring.storage.sqlite import chunked, placeholders

#: An entity row's name and aliases (a damaged body gives NULLs, not an error).
_NAME_COLUMNS = (
    "CASE WHEN json_valid(body) THEN json_extract(body, '$.name') END,"
    " CASE WHEN json_valid(body) THEN json_extract(body, '$.aliases') END"
)
#: The id, name and aliases of the tenant's entities.
NAMES = f"SELECT id, {_NAME_COLUMNS} FROM graph_entities WHERE tenant_id = ?"
#: The key rows `_places` reads and places at a time.
_SLICE = 65_536
#: Fewer bytes than any entity costs a mirror (its number, its names' list, its map entry).
_ENTITY_BYTES = 200


def names_from(name: object, aliases: object) -> list[str]:
    """An entity's name then aliases from its `NAMES` row; `ValueError` when damaged."""
    if aliases == "[]" and isinstance(name, str):  # most names: nothing to decode
        return [name]
    listed = json.loads(str(aliases))
    if not isinstance(name, str) or not isinstance(listed, list):
        raise ValueError("its JSON holds no name or no list of aliases")
    return [name, *map(str, listed)]


class TenantMirror:
    """Every blocking key and name of one tenant as read under one token, and their bytes.

    Keys are found by their hash (`hash` of the text, this process's) and
    then compared as text, so two keys of one hash stay two keys. Each
    entity's row number (`rowid`) is held too, to read its row without the
    id's index (`entity_rows`).
    """

    __slots__ = (
        "_ends",
        "_hashes",
        "_members",
        "_names",
        "_numbers",
        "_rowids",
        "_sizes",
        "_starts",
        "_texts",
        "nbytes",
    )

    def __init__(
        self, keys: list[str], sizes: list[int], members: NDArray[np.int32], numbers: list[int]
    ) -> None:
        """`keys` (distinct) with their block `sizes`, `members` their places in `numbers`
        (the tenant's id numbers, ascending), each block's in id order, blocks in `keys`'
        order."""
        hashes = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
        order = np.argsort(hashes, kind="stable")
        starts = np.cumsum([0, *sizes[:-1]], dtype=np.int64)
        encoded = [keys[at].encode() for at in order.tolist()]
        self._hashes = hashes[order]
        self._starts = starts[order]
        self._sizes = np.asarray(sizes, dtype=np.int64)[order]
        self._texts = b"".join(encoded)
        self._ends = np.cumsum([len(text) for text in encoded], dtype=np.int64)
        self._members = members
        self._numbers = np.array(numbers, dtype=object)
        self._names: dict[int, list[str]] = {}
        self._rowids: dict[int, int] = {}
        self.nbytes = sum(
            int(a.nbytes) for a in (self._hashes, self._starts, self._sizes, self._ends, members)
        )
        self.nbytes += sys.getsizeof(self._texts) + self._numbers.nbytes
        self.nbytes += sum(map(sys.getsizeof, numbers))

    def name(self, number: int, rowid: int, names: list[str]) -> None:
        """Hold `names` and `rowid` as the entity's of id number `number`."""
        self._names[number] = names
        self._rowids[number] = rowid
        self.nbytes += 192 + sys.getsizeof(names) + sum(map(sys.getsizeof, names))

    def rowids_of(self, ids: Iterable[EntityId]) -> list[int]:
        """The row numbers of each of `ids` the tenant holds."""
        held = self._rowids
        return [held[i.int] for i in ids if i.int in held]

    def counts_of(self, keys: Sequence[str], cap: int) -> dict[str, int]:
        """Each of `keys` with its block's size, counted no further than `cap`."""
        blocks = self._blocks(keys)
        return {key: min(size, cap) for key, (_, size) in zip(keys, blocks, strict=True)}

    def blocks_of(self, keys: Sequence[str], cap: int) -> dict[str, list[int]]:
        """Each of `keys` with its block's first `cap` id numbers, in id order."""
        answer: dict[str, list[int]] = {}
        for key, (start, size) in zip(keys, self._blocks(keys), strict=True):
            places = self._members[start : start + min(size, cap)]
            answer[key] = self._numbers[places].tolist()
        return answer

    def names_of(self, numbers: Sequence[int]) -> dict[int, list[str]]:
        """The names of each of `numbers` (`EntityId.int`) the tenant holds, in their order."""
        held = self._names
        found = ((number, held.get(number)) for number in numbers)
        return {number: list(names) for number, names in found if names is not None}

    def _blocks(self, keys: Sequence[str]) -> list[tuple[int, int]]:
        """Where each key's members start and how many; `(0, 0)` for a key no entity holds.

        The keys' hashes are placed among the held ones in one search; each key is then
        compared as text with the held keys of its hash.
        """
        wanted = np.fromiter(map(hash, keys), dtype=np.int64, count=len(keys))
        hashes, ends, count = self._hashes, self._ends, len(self._hashes)
        found: list[tuple[int, int]] = []
        for key, first, mine in zip(
            keys, np.searchsorted(hashes, wanted).tolist(), wanted.tolist(), strict=True
        ):
            text, block, at = key.encode(), (0, 0), first
            while at < count and hashes.item(at) == mine:
                if self._texts[ends.item(at - 1) if at else 0 : ends.item(at)] == text:
                    block = (self._starts.item(at), self._sizes.item(at))
                    break
                at += 1
            found.append(block)
        return found


def id_texts(numbers: Iterable[int]) -> dict[str, int]:
    """The id text of each of `numbers` that is an id's number, mapped back to the number."""
    return {str(entity_id_from_int(n)): n for n in numbers if 0 <= n < ID_NUMBER_LIMIT}


def load_mirror(connection: sqlite3.Connection, tenant: str, max_bytes: int) -> TenantMirror | None:
    """The tenant's mirror as the file holds it now (call inside a read transaction);
    `None` when it would hold more than `max_bytes`, holds no key or a damaged name."""
    number = tenant_number(connection, tenant)
    [(entities,)] = connection.execute(
        "SELECT count(*) FROM graph_entities WHERE tenant_id = ?", (tenant,)
    ).fetchall()
    if number is None or entities * _ENTITY_BYTES > max_bytes:
        return None
    rows = connection.execute(
        f"SELECT id, rowid, {_NAME_COLUMNS} FROM graph_entities WHERE tenant_id = ? ORDER BY id",
        (tenant,),
    ).fetchall()
    counted = connection.execute(
        "SELECT key, count(*) FROM graph_keys WHERE tenant = ? GROUP BY key ORDER BY key",
        (number,),
    ).fetchall()
    numbers = [int(str(entity_id).replace("-", ""), 16) for entity_id, *_ in rows]
    total = sum(size for _, size in counted)
    if len(counted) * 40 + total * 4 + len(rows) * _ENTITY_BYTES > max_bytes:
        return None
    places = _places(connection, number, numbers, total)
    if places is None:
        return None
    mirror = TenantMirror([k for k, _ in counted], [s for _, s in counted], places, numbers)
    try:
        for entity_number, (_, rowid, name, aliases) in zip(numbers, rows, strict=True):
            mirror.name(entity_number, int(rowid), names_from(name, aliases))
    except ValueError:  # a damaged row: the reads of the file name it when asked
        return None
    return None if mirror.nbytes > max_bytes else mirror


def _places(
    connection: sqlite3.Connection, number: int, numbers: list[int], total: int
) -> NDArray[np.int32] | None:
    """Every key row's entity (by key, then id) as its place in `numbers`; `None` when a row
    names an entity the tenant does not hold.

    Read and placed a slice of rows at a time: a load runs beside the queries of its
    process (ADR 0465), and no single step holds the interpreter for more than milliseconds.
    """
    held = np.frombuffer(b"".join(n.to_bytes(16, "big") for n in numbers), dtype="S16")
    if not len(held):
        return None
    rows = connection.execute(
        "SELECT entity FROM graph_keys WHERE tenant = ? ORDER BY key, entity", (number,)
    )
    parts: list[NDArray[np.int32]] = [np.zeros(0, dtype=np.int32)]
    while part := rows.fetchmany(_SLICE):
        members = np.frombuffer(b"".join([raw for (raw,) in part]), dtype="S16")
        places = np.minimum(np.searchsorted(held, members), len(held) - 1)
        if not bool((held[places] == members).all()):
            return None
        parts.append(places.astype(np.int32))
    places = np.concatenate(parts)
    return places if len(places) == total else None


def entity_rows(
    connection: sqlite3.Connection, tenant: str, rowids: Sequence[int], ids: Set[str]
) -> list[tuple[object, ...]] | None:
    """`(tenant, id, body)` of the entity rows at `rowids`; `None` unless each is a row of
    `tenant` whose id is one of `ids` (a `VACUUM` may renumber rows under a standing token)."""
    rows: list[tuple[object, ...]] = []
    for part in chunked(rowids):
        rows.extend(
            connection.execute(
                "SELECT tenant_id, id, body FROM graph_entities"
                f" WHERE rowid IN ({placeholders(len(part))})",
                part,
            )
        )
    found = {row[1] for row in rows if row[0] == tenant}
    return rows if len(found) == len(rows) == len(rowids) and found <= ids else None
