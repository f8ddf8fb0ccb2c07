"""The in-memory chunk store's array postings hold what per-term lists of postings held (ADR 0290).

The reference is the structure they replaced: per term, a list of (slot,
count) appended one chunk at a time, entries of chunks taken out skipped,
renumbering moving every live slot. Writes of any size, more of them than
`MAX_SEGMENTS` so segments merge, removals and renumberings (which forget
terms no live chunk holds) in any order; every term's arrays and frequency
must equal the reference's after each step.
"""

from __future__ import annotations

from collections import Counter
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.chunks import in_memory_postings
from redstring.chunks.in_memory_postings import MAX_SEGMENTS, Postings

WORDS = [f"w{n}" for n in range(12)]
CHUNKS = st.lists(
    st.dictionaries(st.sampled_from(WORDS), st.integers(min_value=1, max_value=5), max_size=6),
    max_size=5,
)
STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), CHUNKS),
        st.tuples(st.just("drop"), st.integers(min_value=0)),
        st.tuples(st.just("renumber"), st.none()),
    ),
    min_size=1,
    max_size=3 * MAX_SEGMENTS,
)


@settings(max_examples=80, deadline=None)
@given(STEPS, st.sampled_from([1, 2, MAX_SEGMENTS]))
def test_array_postings_equal_per_term_lists_after_any_writes(
    steps: list[tuple[str, object]], most: int
) -> None:
    """`most` segments before merging: 1 and 2 merge on nearly every write."""
    with patch.object(in_memory_postings, "MAX_SEGMENTS", most):
        _check(steps)


def _check(steps: list[tuple[str, object]]) -> None:
    postings = Postings()
    lists: dict[str, list[tuple[int, int]]] = {}
    live: dict[int, tuple[Counter[str], np.ndarray]] = {}  # slot -> (its counts, its numbers)
    next_slot = 0
    for kind, arg in steps:
        if kind == "add":
            batch = [Counter(held) for held in arg]  # type: ignore[attr-defined]
            numbers = postings.add(next_slot, batch)
            assert len(numbers) == len(batch)
            for slot, (held, mine) in enumerate(zip(batch, numbers, strict=True), next_slot):
                live[slot] = (held, mine)
                for term, count in held.items():
                    lists.setdefault(term, []).append((slot, count))
            next_slot += len(batch)
        elif kind == "drop" and live:
            slot = sorted(live)[int(arg) % len(live)]  # type: ignore[call-overload]
            postings.drop(live.pop(slot)[1])
        elif kind == "renumber":
            new_slot = np.full(next_slot, -1, dtype=np.int64)
            order = sorted(live)
            new_slot[order] = np.arange(len(order))
            renamed = postings.renumber(new_slot)
            live = {
                int(new_slot[slot]): (held, mine if renamed is None else renamed[mine])
                for slot, (held, mine) in live.items()
            }
            lists = {
                term: [(int(new_slot[s]), c) for s, c in entries if new_slot[s] >= 0]
                for term, entries in lists.items()
            }
            next_slot = len(order)
        mask = np.zeros(next_slot, dtype=np.bool_)
        mask[list(live)] = True
        for term in WORDS:
            expected = [(s, c) for s, c in lists.get(term, []) if s in live]
            slots, counts = postings.arrays(term, mask)
            assert list(zip(slots.tolist(), counts.tolist(), strict=True)) == expected
            assert postings.frequency(term) == len(expected)
