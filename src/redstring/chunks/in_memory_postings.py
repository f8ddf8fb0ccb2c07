"""The in-memory chunk store's postings: per term, the slots holding it and its counts, as arrays.

A chunk is filed under a slot number handed out in ascending order, so
appending keeps each term's slots ascending (ADR 0188). Taking a chunk out
only counts its terms' entries as dead: they stay in the lists, and
`arrays` skips them through the mask of live slots, until `renumber` drops
them. A posting costs two list pointers (a chunk's slot is one int object
shared by all its terms, counts are mostly cached small ints), where a dict
entry per posting held several times as much (B101).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt


class _Posting:
    """Ascending slots and the term's count in each; `dead` of them are taken out."""

    __slots__ = ("counts", "dead", "slots")

    def __init__(self, slots: list[int], counts: list[int]) -> None:
        self.slots = slots
        self.counts = counts
        self.dead = 0


class Postings:
    """Term -> (ascending slots, counts) of the chunks holding it; a term held by none is gone."""

    def __init__(self) -> None:
        self._by_term: dict[str, _Posting] = {}

    def add(self, slot: int, counts: Mapping[str, int]) -> tuple[str, ...]:
        """File `slot` (above every slot filed so far) under each term with its count.

        Returns the terms, interned, so the rows keeping them share one string per term.
        """
        by_term = self._by_term
        for term, count in counts.items():
            posting = by_term.get(term)
            if posting is None:
                by_term[sys.intern(term)] = _Posting([slot], [count])
            else:
                posting.slots.append(slot)
                posting.counts.append(count)
        return tuple(map(sys.intern, counts))

    def drop(self, terms: Iterable[str]) -> None:
        """One chunk holding each of `terms` (distinct) is gone: count its entries dead."""
        by_term = self._by_term
        for term in terms:
            posting = by_term[term]
            posting.dead += 1
            if posting.dead == len(posting.slots):
                del by_term[term]

    def frequency(self, term: str) -> int:
        """How many live chunks hold `term`."""
        posting = self._by_term.get(term)
        return 0 if posting is None else len(posting.slots) - posting.dead

    def arrays(
        self, term: str, live: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(ascending live slots holding `term`, its count in each): fresh arrays."""
        posting = self._by_term.get(term)
        if posting is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        slots = np.array(posting.slots, dtype=np.int64)
        counts = np.array(posting.counts, dtype=np.int64)
        if not posting.dead:
            return slots, counts
        kept = live[slots]
        return slots[kept], counts[kept]

    def renumber(self, new_slot: npt.NDArray[np.int64]) -> None:
        """Move each entry to `new_slot[slot]`, dropping those whose new slot is negative.

        `new_slot` must keep the live slots' order, so the arrays stay ascending.
        """
        for posting in self._by_term.values():
            moved = new_slot[np.array(posting.slots, dtype=np.int64)]
            kept = moved >= 0
            posting.slots = moved[kept].tolist()
            posting.counts = np.array(posting.counts, dtype=np.int64)[kept].tolist()
            posting.dead = 0
