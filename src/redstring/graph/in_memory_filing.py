"""The in-memory graph store's waiting filings: a batch's (key, id) pairs as one array segment.

A write files its whole batch as one segment of pairs sorted by key number,
built by a few numpy calls rather than an append per key (ADR 0300). The
pairs wait there until their key is next read: `take` hands the key's
waiting ids to the store's sorted block and counts them taken, `count`
counts them without taking. Each key remembers how many segments had been
written when it was last taken; its waiting ids are its entries in the
segments from there on. Segments are merged by tiers: a batch's segment is
of tier 0, and `FANOUT` segments of one tier at the end are merged into one
of the next (taken entries dropped), so at 100 batches an entry has moved
once and there are at most 15 segments a tier. How many ids wait under
each key is kept beside them, raised by `add` and zeroed by `take`, so
`count` reads no segment.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import count, islice, pairwise

import numpy as np
import numpy.typing as npt

#: How many segments of one tier are merged into one of the next.
FANOUT = 16

Keys = npt.NDArray[np.int32]
_Ids = npt.NDArray[np.object_]
_NO_KEYS: Keys = np.zeros(0, np.int32)


@dataclass(frozen=True, slots=True)
class _Segment:
    """Pairs sorted by key number: `ids[i]` is filed under key number `numbers[i]`."""

    numbers: Keys
    ids: _Ids
    tier: int


class Filing:
    """Key -> the ids filed under it since it was last taken, in no order.

    An id is an entity's number (`EntityId.int`), as the store's blocks hold it.
    """

    def __init__(self) -> None:
        #: key -> its number, handed out in order on first sight (a missing key is numbered).
        self._number: defaultdict[str, int] = defaultdict(count().__next__)
        self._text: list[str] = []
        #: key number -> the segments before this index hold nothing of it still waiting
        #: (longer than the numbers handed out: the rest is room to grow).
        self._taken_upto: npt.NDArray[np.int64] = np.zeros(0, np.int64)
        #: key number -> how many ids wait under it (as long as `_taken_upto`).
        self._held: npt.NDArray[np.int32] = np.zeros(0, np.int32)
        self._segments: list[_Segment] = []  # oldest first

    def add(self, ids: Sequence[int], keys: Sequence[Collection[str]]) -> list[Keys]:
        """File `ids[i]` under each key of `keys[i]`; returns each id's key numbers.

        The ids must be distinct and none of them waiting (taken out through
        its old keys first). The numbers are views of one array, for `texts`.
        """
        flat: list[str] = []
        sizes: list[int] = []
        for held in keys:
            flat.extend(held)
            sizes.append(len(held))
        if not flat:
            return [_NO_KEYS] * len(sizes)
        numbers = self._numbers(flat)
        owners = np.empty(len(ids), dtype=object)
        owners[:] = ids
        order = np.argsort(numbers, kind="stable")
        filed = numbers[order]
        self._segments.append(_Segment(filed, np.repeat(owners, sizes)[order], 0))
        # Each key's run of pairs in `filed`: where the runs after the first start, their lengths.
        runs = np.flatnonzero(np.diff(filed)) + 1
        lengths = np.diff(runs, prepend=0, append=len(filed))
        self._held[filed[np.r_[0, runs]]] += lengths.astype(np.int32)
        self._merge()
        bounds = np.cumsum([0, *sizes]).tolist()
        return [numbers[low:high] for low, high in pairwise(bounds)]

    def texts(self, numbers: Keys) -> list[str]:
        """The keys `add` numbered `numbers`."""
        text = self._text
        return [text[number] for number in numbers.tolist()]

    def take(self, keys: Iterable[str]) -> dict[str, list[int]]:
        """The ids waiting under each of `keys` that has any; they wait no longer."""
        return self.take_numbers(self._known(keys))

    def take_numbers(self, numbers: Keys) -> dict[str, list[int]]:
        """`take` of the keys numbered `numbers` (distinct), as `add` gave them."""
        numbers, starts = self._asked(numbers)
        if not len(numbers):
            return {}
        self._taken_upto[numbers] = len(self._segments)
        self._held[numbers] = 0
        found: dict[int, list[int]] = {}
        for _, segment, here, lows, highs in self._spans(numbers, starts):
            ids = segment.ids
            for number, low, high in zip(here, lows, highs, strict=True):
                found.setdefault(number, []).extend(ids[low:high].tolist())
        text = self._text
        return {text[number]: ids for number, ids in found.items()}

    def count(self, keys: Iterable[str]) -> dict[str, int]:
        """How many ids wait under each of `keys` that has any."""
        number = self._number
        asked = [at for at in map(number.get, dict.fromkeys(keys)) if at is not None]
        waiting = self._held[asked].tolist()
        text = self._text
        return {text[at]: held for at, held in zip(asked, waiting, strict=True) if held}

    def _known(self, keys: Iterable[str]) -> Keys:
        """The numbers of the distinct `keys` with ids waiting (read key by key: a read asks
        for tens of keys, mostly settled, where numpy's fixed cost per call would dominate)."""
        number, upto, written = self._number, self._taken_upto, len(self._segments)
        known = (number.get(key) for key in dict.fromkeys(keys))
        waiting = [at for at in known if at is not None and upto[at] < written]
        return np.array(waiting, dtype=np.int32)

    def _asked(self, numbers: Keys) -> tuple[Keys, npt.NDArray[np.int64]]:
        """The keys of `numbers` with ids waiting, and the first segment each may wait in."""
        starts = self._taken_upto[numbers]
        waiting = starts < len(self._segments)
        return numbers[waiting], starts[waiting]

    def _spans(
        self, numbers: Keys, starts: npt.NDArray[np.int64]
    ) -> Iterator[tuple[int, _Segment, list[int], list[int], list[int]]]:
        """Per segment from the earliest of `starts`: the keys waiting there, and their spans."""
        for at in range(int(starts.min(initial=len(self._segments))), len(self._segments)):
            segment = self._segments[at]
            here = numbers[starts <= at]
            lows = segment.numbers.searchsorted(here)
            highs = segment.numbers.searchsorted(here + 1)
            hit = highs > lows
            yield at, segment, here[hit].tolist(), lows[hit].tolist(), highs[hit].tolist()

    def _numbers(self, keys: list[str]) -> Keys:
        """Each key's number, numbering the keys not seen before."""
        number = self._number
        known = len(number)
        found = np.fromiter(map(number.__getitem__, keys), dtype=np.int32, count=len(keys))
        if len(number) > known:  # the newest keys are the dict's last, in number order
            fresh = list(islice(reversed(number.keys()), len(number) - known))
            self._text.extend(reversed(fresh))
            if len(number) > len(self._taken_upto):  # grown by half at least: amortised O(1)
                size = max(len(number), len(self._taken_upto) * 3 // 2)
                self._taken_upto = _grown(self._taken_upto, size)
                self._held = _grown(self._held, size)
        return found

    def _merge(self) -> None:
        """Merge the last `FANOUT` segments into one of the next tier while they share a tier."""
        segments = self._segments
        while len(segments) >= FANOUT and all(
            segment.tier == segments[-1].tier for segment in segments[-FANOUT:]
        ):
            at = len(segments) - FANOUT
            kept = [self._waiting(segments[at + i], at + i) for i in range(FANOUT)]
            numbers = np.concatenate([part[0] for part in kept])
            order = np.argsort(numbers, kind="stable")
            ids = np.concatenate([part[1] for part in kept])
            segments[at:] = [_Segment(numbers[order], ids[order], segments[-1].tier + 1)]
            np.minimum(self._taken_upto, at, out=self._taken_upto)

    def _waiting(self, segment: _Segment, at: int) -> tuple[Keys, _Ids]:
        """The entries of `segment` (the `at`-th) still waiting."""
        kept = self._taken_upto[segment.numbers] <= at
        return segment.numbers[kept], segment.ids[kept]


def _grown[Counts: (npt.NDArray[np.int64], npt.NDArray[np.int32])](
    values: Counts, size: int
) -> Counts:
    """`values` followed by zeros up to `size`."""
    grown = np.zeros(size, values.dtype)
    grown[: len(values)] = values
    return grown
