"""The in-memory chunk store's postings: (term, slot, count) entries sorted by term, as arrays.

A chunk is filed under a slot number handed out in ascending order (ADR
0188). A write files its whole batch as one segment of entries sorted by
term number, then slot, built by a few numpy calls rather than an append per
posting (ADR 0290); a read gathers a term's entries from every segment, in
slot order. Past `MAX_SEGMENTS` segments the newest are merged while they
are no smaller than the one before, so segments stay few and each entry is
moved a logarithmic number of times. Merging a segment whose slots are all
above another's is an insertion after each of its terms' entries: order
needs no comparison of slots.

Taking a chunk out only lowers its terms' frequencies and counts its entries
dead: they stay, `arrays` skips them through the mask of live slots, and
`renumber` drops them with the terms no live chunk holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

#: The most segments kept before the newest are merged.
MAX_SEGMENTS = 16

_Ints = npt.NDArray[np.int64]
Terms = npt.NDArray[np.int32]
_NO_TERMS: Terms = np.zeros(0, np.int32)


@dataclass(frozen=True, slots=True)
class _Entries:
    """Entries sorted by term number, then by slot."""

    terms: Terms
    slots: _Ints
    counts: Terms

    def then(self, later: _Entries) -> _Entries:
        """These entries and `later`'s, sorted, when every slot of `later` is above these."""
        at = np.searchsorted(self.terms, later.terms, side="right")
        return _Entries(
            np.insert(self.terms, at, later.terms),
            np.insert(self.slots, at, later.slots),
            np.insert(self.counts, at, later.counts),
        )


def _joined(parts: Sequence[_Entries]) -> _Entries:
    """One sorted run of `parts`, each of whose slots are all above the part before's."""
    if len(parts) == 1:
        return parts[0]
    terms = np.concatenate([part.terms for part in parts])
    order = np.argsort(terms, kind="stable")  # slots ascend within a term: parts are in slot order
    return _Entries(
        terms[order],
        np.concatenate([part.slots for part in parts])[order],
        np.concatenate([part.counts for part in parts])[order],
    )


class Postings:
    """Term -> (ascending slots, counts) of the chunks holding it, and how many live ones do."""

    def __init__(self) -> None:
        self._number: dict[str, int] = {}
        self._frequency: _Ints = np.zeros(0, np.int64)
        self._segments: list[_Entries] = []  # oldest (lowest slots) first
        self._dead = 0

    def add(self, first_slot: int, counts: Sequence[Mapping[str, int]]) -> list[Terms]:
        """File the chunks of `counts` (each its terms' counts) at slots `first_slot`, `+1`, ...

        `first_slot` must be above every slot filed so far. Returns each chunk's
        term numbers, for `drop` (views of one array per call).
        """
        terms: list[str] = []
        tfs: list[int] = []
        sizes: list[int] = []
        for held in counts:
            terms.extend(held)
            tfs.extend(held.values())
            sizes.append(len(held))
        if not terms:
            return [_NO_TERMS] * len(sizes)
        numbers = self._numbers(terms)
        slots = np.repeat(np.arange(first_slot, first_slot + len(sizes), dtype=np.int64), sizes)
        order = np.argsort(numbers, kind="stable")
        self._frequency += np.bincount(numbers, minlength=len(self._frequency))
        segments = self._segments
        segments.append(
            _Entries(numbers[order], slots[order], np.array(tfs, dtype=np.int32)[order])
        )
        if len(segments) > MAX_SEGMENTS:
            while len(segments) > 1 and (
                len(segments) > MAX_SEGMENTS or len(segments[-2].terms) <= len(segments[-1].terms)
            ):
                later = segments.pop()
                segments[-1] = segments[-1].then(later)
        return np.split(numbers, np.cumsum(sizes[:-1]))

    def _numbers(self, terms: list[str]) -> Terms:
        """Each term's number, numbering the terms not seen before."""
        number = self._number
        found = list(map(number.get, terms))
        if None in found:
            for term in dict.fromkeys(terms).keys() - number.keys():
                number[term] = len(number)
            grown = len(number) - len(self._frequency)
            self._frequency = np.concatenate([self._frequency, np.zeros(grown, np.int64)])
            found = list(map(number.__getitem__, terms))
        return np.array(found, dtype=np.int32)

    def drop(self, numbers: Terms) -> None:
        """A chunk is gone: `numbers` are its terms' as `add` (or `renumber`) gave them."""
        self._frequency[numbers] -= 1
        self._dead += len(numbers)

    def frequency(self, term: str) -> int:
        """How many live chunks hold `term`."""
        number = self._number.get(term)
        return 0 if number is None else int(self._frequency[number])

    def arrays(
        self, term: str, live: npt.NDArray[np.bool_]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(ascending live slots holding `term`, its count in each): fresh arrays."""
        number = self._number.get(term)
        if number is None:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        # The probe in the segments' own dtype: a Python list would be int64, and numpy
        # would convert each whole int32 segment to search it (O(postings) per term).
        probe = np.array([number, number + 1], dtype=np.int32)
        spans = [(part, part.terms.searchsorted(probe)) for part in self._segments]
        slots = np.concatenate([part.slots[low:high] for part, (low, high) in spans])
        counts = np.concatenate([part.counts[low:high] for part, (low, high) in spans])
        counts = counts.astype(np.int64)
        if not self._dead:
            return slots, counts
        kept = live[slots]
        return slots[kept], counts[kept]

    def renumber(self, new_slot: _Ints) -> Terms | None:
        """Move each entry to `new_slot[slot]`, dropping those whose new slot is negative.

        `new_slot` must keep the live slots' order and be negative for every
        dead one. Terms no live chunk holds are forgotten and the others
        numbered again: returns each old number's new one (`None` if none
        changed), for the term numbers `add` handed out.
        """
        if not self._segments:
            return None
        entries = _joined(self._segments)
        moved = new_slot[entries.slots]
        kept = moved >= 0
        held = self._frequency > 0
        new_number = (np.cumsum(held) - 1).astype(np.int32)
        self._segments = [
            _Entries(new_number[entries.terms[kept]], moved[kept], entries.counts[kept])
        ]
        renamed, keep = new_number.tolist(), held.tolist()
        self._number = {term: renamed[n] for term, n in self._number.items() if keep[n]}
        self._frequency = self._frequency[held]
        self._dead = 0
        return None if all(keep) else new_number
