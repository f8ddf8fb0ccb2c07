"""A tenant's vectors as unit rows by slot, written in place (ADR 0265).

The in-memory and SQLite vector stores search this structure: a write puts
rows into their entities' slots (a new entity takes a freed slot or a new
one) and a delete frees slots, so a write never rebuilds the matrix, and an
index over the slots (`RowIndex`) is told exactly which slots changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from redstring.domain.exact_search import FloatMatrix, top_k

Slots = npt.NDArray[np.int64]
Hits = list[tuple[int, float]]

#: A freed slot's type code: no type filter and no unfiltered search keeps it.
FREE = -1
#: The row buffer grows by `1 / GROWTH_DIVISOR` of itself when full: a quarter
#: rather than double, so a large tenant's first new row after a load does not
#: double its memory.
GROWTH_DIVISOR = 4
#: Bytes a slot holds beside its row, estimated for the cache budget: its id
#: string (85), the list and dict entries naming it, and its type code.
SLOT_OVERHEAD_BYTES = 200


class RowIndex(Protocol):
    """An index over a `TenantRows`' slots, told of each write as it happens."""

    def put(self, slots: Slots, rows: FloatMatrix, replaced: Slots) -> None:
        """`rows` were written at `slots`; the `replaced` ones among them held rows before."""
        ...

    def drop(self, slots: Slots) -> None:
        """The rows at `slots` were removed."""
        ...

    @property
    def nbytes(self) -> int:
        """The bytes the index holds."""
        ...


class TenantRows:
    """One tenant's unit rows, its entities' id strings and types, by slot.

    `rows[slot]` is the entity's vector scaled to length one, `ids[slot]` its
    id string (`""` for a free slot), `codes[slot]` its normalised type's code
    (`FREE` for a free slot). `index`, when set, is kept in step with every
    write. The same writes in the same order give the same slots.
    """

    def __init__(self, dimension: int) -> None:
        self._buffer = np.zeros((0, dimension), dtype=np.float32)
        self._codes = np.zeros(0, dtype=np.int32)
        self.ids: list[str] = []
        self.types: list[str] = []
        self._slot_of: dict[str, int] = {}
        self._code_of: dict[str, int] = {}
        self._free: list[int] = []
        self.index: RowIndex | None = None

    @property
    def rows(self) -> FloatMatrix:
        """The used slots' rows (free slots included)."""
        return self._buffer[: len(self.ids)]

    @property
    def codes(self) -> npt.NDArray[np.int32]:
        """The used slots' type codes, `FREE` for a free slot."""
        return self._codes[: len(self.ids)]

    @property
    def live(self) -> int:
        """How many entities the tenant holds."""
        return len(self._slot_of)

    def slot(self, entity_id: str) -> int | None:
        """The slot holding entity `entity_id`, if the tenant holds it."""
        return self._slot_of.get(entity_id)

    @property
    def nbytes(self) -> int:
        """About the bytes held, the index's included, for a cache budget."""
        index = 0 if self.index is None else self.index.nbytes
        slots = len(self._codes)
        return self._buffer.nbytes + self._codes.nbytes + slots * SLOT_OVERHEAD_BYTES + index

    @classmethod
    def of(
        cls,
        ids: Sequence[str],
        types: Sequence[str],
        normalized: Sequence[str],
        unit: FloatMatrix,
    ) -> TenantRows:
        """Rows loaded whole: what `put` into empty rows gives, for distinct `ids`, in bulk.

        Row `i` takes slot `i`; `unit` is kept, not copied.
        """
        part = cls(unit.shape[1])
        part._buffer = unit
        part.ids, part.types = list(ids), list(types)
        part._slot_of = dict(zip(ids, range(len(ids)), strict=True))
        part._code_of = {name: code for code, name in enumerate(dict.fromkeys(normalized))}
        codes = [part._code_of[name] for name in normalized]
        part._codes = np.asarray(codes, dtype=np.int32).reshape(len(ids))
        return part

    def put(
        self,
        ids: Sequence[str],
        types: Sequence[str],
        normalized: Sequence[str],
        unit: FloatMatrix,
    ) -> None:
        """Write `unit[i]` as entity `ids[i]` of type `types[i]`; a repeated id keeps its last."""
        last = {entity_id: at for at, entity_id in enumerate(ids)}
        self._reserve(len(self.ids) + len(last))
        slot_of, free = self._slot_of, self._free
        slots: list[int] = []
        replaced: list[int] = []
        for entity_id in last:
            slot = slot_of.get(entity_id)
            if slot is None:
                slot = free.pop() if free else self._new_slot()
                slot_of[entity_id] = slot
                self.ids[slot] = entity_id
            else:
                replaced.append(slot)
            slots.append(slot)
        chosen = list(last.values())
        for slot, at in zip(slots, chosen, strict=True):
            self.types[slot] = types[at]
        code_of = self._code_of
        codes = [code_of.setdefault(normalized[at], len(code_of)) for at in chosen]
        where = np.asarray(slots, dtype=np.int64)
        self._codes[where] = codes
        self._buffer[where] = unit[chosen]
        if self.index is not None and where.size:
            self.index.put(where, self._buffer[where], np.asarray(replaced, dtype=np.int64))

    def remove(self, ids: Iterable[str]) -> None:
        """Free the slots of those of `ids` the tenant holds."""
        freed = [
            self._slot_of.pop(entity_id)
            for entity_id in dict.fromkeys(ids)
            if entity_id in self._slot_of
        ]
        for slot in freed:
            self.ids[slot] = ""
            self.types[slot] = ""
            self._codes[slot] = FREE
        self._free.extend(freed)
        if self.index is not None and freed:
            self.index.drop(np.asarray(freed, dtype=np.int64))

    def eligible(self, wanted: Sequence[str] | None) -> npt.NDArray[np.bool_] | None:
        """The slots a search may return: of a `wanted` normalised type, and held.

        `None` (every slot) when nothing is wanted in particular and no slot is free.
        """
        if wanted is None:
            return self.codes != FREE if self._free else None
        codes = [self._code_of[name] for name in dict.fromkeys(wanted) if name in self._code_of]
        return np.isin(self.codes, codes)

    def search_exactly(
        self,
        query: FloatMatrix,
        *,
        k: int,
        eligible: npt.NDArray[np.bool_] | None,
        min_score: float | None,
    ) -> Hits:
        """`(slot, score)` of the `k` best eligible rows by exact cosine, ties by ascending id."""
        return top_k(self.rows, query, self.ids, k=k, eligible=eligible, min_score=min_score)

    def _new_slot(self) -> int:
        self.ids.append("")
        self.types.append("")
        return len(self.ids) - 1

    def _reserve(self, slots: int) -> None:
        """Room for `slots` rows, growing by a quarter so appends cost amortised O(1)."""
        if slots <= len(self._codes):
            return
        size = max(slots, len(self._codes) + len(self._codes) // GROWTH_DIVISOR)
        buffer = np.zeros((size, self._buffer.shape[1]), dtype=np.float32)
        buffer[: len(self.ids)] = self.rows
        codes = np.full(size, FREE, dtype=np.int32)
        codes[: len(self.ids)] = self.codes
        self._buffer, self._codes = buffer, codes


class RowSearch(Protocol):
    """How a store searches a tenant's rows: exactly, or through an index."""

    def search(
        self,
        part: TenantRows,
        query: FloatMatrix,
        *,
        k: int,
        wanted: Sequence[str] | None,
        min_score: float | None,
    ) -> Hits:
        """`(slot, score)` of the `k` best rows of a `wanted` normalised type (any if `None`)."""
        ...


class ExactSearch:
    """Every eligible row scored: the exact floor (ADR 0004)."""

    def search(
        self,
        part: TenantRows,
        query: FloatMatrix,
        *,
        k: int,
        wanted: Sequence[str] | None,
        min_score: float | None,
    ) -> Hits:
        return part.search_exactly(query, k=k, eligible=part.eligible(wanted), min_score=min_score)
