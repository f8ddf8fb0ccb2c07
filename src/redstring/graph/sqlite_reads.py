"""What a SQLite graph store has read of one tenant under one generation token (ADR 0450).

A block's count and its capped members (by key and cap) and an entity's
names (by id text) stay as read while the tenant's token in
`graph_generations` stays: every write to the tenant replaces the token in
its own transaction. `TenantReads` holds them for `SqliteGraphStore`, which
keeps one per tenant in a `TenantCache` tagged with the token it was read
under, so a write through any connection or process retires it. Only what a
read asks and the tenant lacks is read from the file. Once the token has
stood for `MIRROR_AFTER_READS` reads, the whole tenant is read into a
`TenantMirror` (ADR 0455) when it fits, and every later read under that token
is served from it. Each value handed out is a new list: a caller changing it
changes nothing held.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Mapping, Sequence

from redstring.graph.sqlite_keys import id_numbers
from redstring.graph.sqlite_mirror import TenantMirror

#: The bytes one tenant's reads may hold (about); past it they start over empty.
MAX_TENANT_READS_BYTES = 64 * 1024 * 1024
#: The reads served under one token before the whole tenant is read into a mirror: a
#: tenant written more often than this is read per key, and never read whole.
MIRROR_AFTER_READS = 1000


class TenantReads:
    """A tenant's block counts, capped blocks and entity names as read, and about their bytes.

    `counts` and `blocks` are keyed by `(key, cap)`: a block counted or cut at
    another cap is another read. A block is held as its members' 16-byte ids
    joined (`sqlite_keys.capped_ids`), a third of what their numbers take.
    `names` is keyed by the id's number and holds only entities that were found.
    `reads` counts the reads served; `mirror`, once `hold` is given one,
    answers every read and the rest is emptied.
    """

    __slots__ = ("blocks", "counts", "mirror", "names", "nbytes", "reads", "refused")

    def __init__(self) -> None:
        self.counts: dict[tuple[str, int], int] = {}
        self.blocks: dict[tuple[str, int], bytes] = {}
        self.names: dict[int, list[str]] = {}
        self.nbytes = 0
        self.reads = 0
        self.mirror: TenantMirror | None = None
        self.refused = False

    def wants_mirror(self) -> bool:
        """Whether the token has stood long enough to read the tenant whole, not yet tried."""
        return self.mirror is None and not self.refused and self.reads >= MIRROR_AFTER_READS

    def hold(self, mirror: TenantMirror | None) -> None:
        """Serve every read from `mirror`, dropping what was read per key; `None`: never try
        again under this token (the tenant did not fit)."""
        if mirror is None:
            self.refused = True
            return
        self.mirror = mirror
        self.counts, self.blocks, self.names = {}, {}, {}
        self.nbytes = mirror.nbytes

    def counts_of(
        self, keys: Sequence[str], cap: int, read: Callable[[list[str]], Mapping[str, int]]
    ) -> dict[str, int]:
        """Each of `keys` (distinct) with its block counted to `cap`; `read` counts the rest."""
        self.reads += 1
        if self.mirror is not None:
            return self.mirror.counts_of(keys, cap)
        held = _through(self, self.counts, [(key, cap) for key in keys], _keyed(read), _count_bytes)
        return {key: held[key, cap] for key in keys}

    def blocks_of(
        self, keys: Sequence[str], cap: int, read: Callable[[list[str]], Mapping[str, bytes]]
    ) -> dict[str, list[int]]:
        """Each of `keys` (distinct) with its block's id numbers cut at `cap`; `read` reads
        those not held."""
        self.reads += 1
        if self.mirror is not None:
            return self.mirror.blocks_of(keys, cap)
        held = _through(self, self.blocks, [(key, cap) for key in keys], _keyed(read), _block_bytes)
        return {key: id_numbers(held[key, cap]) for key in keys}

    def names_of(
        self, numbers: Sequence[int], read: Callable[[list[int]], Mapping[int, list[str]]]
    ) -> dict[int, list[str]]:
        """The names of each of `numbers` (`EntityId.int`) the tenant holds, in their order;
        `read` reads those not held (a number it does not return is not held by the tenant)."""
        self.reads += 1
        if self.mirror is not None:
            return self.mirror.names_of(numbers)
        asked = list(dict.fromkeys(numbers))
        held = _through(self, self.names, asked, read, _names_bytes)
        return {number: list(held[number]) for number in asked if number in held}


def _through[K: Hashable, V](
    reads: TenantReads,
    held: dict[K, V],
    wanted: Sequence[K],
    read: Callable[[list[K]], Mapping[K, V]],
    size: Callable[[K, V], int],
) -> dict[K, V]:
    """`wanted`'s values: those `held`, and `read`'s for the rest (then held, their bytes
    counted); a key neither holds is left out."""
    missing = [key for key in wanted if key not in held]
    found = read(missing) if missing else {}
    answer = {key: found[key] for key in missing if key in found}
    answer.update((key, held[key]) for key in wanted if key in held)
    if reads.nbytes > MAX_TENANT_READS_BYTES:
        reads.counts.clear()
        reads.blocks.clear()
        reads.names.clear()
        reads.nbytes = 0
    for key, value in found.items():
        held[key] = value
        reads.nbytes += size(key, value)
    return answer


def _keyed[V](
    read: Callable[[list[str]], Mapping[str, V]],
) -> Callable[[list[tuple[str, int]]], dict[tuple[str, int], V]]:
    """`read` over the keys of `(key, cap)` pairs of one cap, its answer keyed by the pairs."""

    def by_pair(pairs: list[tuple[str, int]]) -> dict[tuple[str, int], V]:
        found = read([key for key, _ in pairs])
        return {(key, cap): found[key] for key, cap in pairs}

    return by_pair


def _count_bytes(pair: tuple[str, int], count: int) -> int:
    return sys.getsizeof(pair) + sys.getsizeof(pair[0]) + sys.getsizeof(count)


def _block_bytes(pair: tuple[str, int], block: bytes) -> int:
    return sys.getsizeof(pair) + sys.getsizeof(pair[0]) + sys.getsizeof(block)


def _names_bytes(number: int, names: list[str]) -> int:
    return sys.getsizeof(number) + sys.getsizeof(names) + sum(map(sys.getsizeof, names))
