"""The graph store's batch filing waits exactly as the per-key appends it replaced (ADR 0300).

Before ADR 0300 a write appended each entity's id to `pending[key]` for each
of its keys, one entity at a time, and a read of a key popped its list. The
`Filing` files a batch as one sorted array segment and merges segments by
tiers; these tests run any sequence of batch writes, takes and counts, in two
tenants whose entities share ids, against that reference, with merging
forced on nearly every write (`FANOUT` 2 and 3) and at its default.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from redstring.graph import in_memory_filing
from redstring.graph.in_memory_filing import Filing

KEYS = tuple(f"{namespace}:{word}" for namespace in "nwg" for word in ("ada", "alan", "grace"))
#: Id numbers (`EntityId.int`, as the store files them), the same in both tenants; hashed-like
#: high bits, so none sorts by its low bits.
IDS = tuple((((n * 0x9E3779B97F4A7C15) % (1 << 64)) << 64) | n for n in range(40))


class PerKeyAppends:
    """The filing before ADR 0300: an append per (entity, key), a pop per take."""

    def __init__(self) -> None:
        self.pending: dict[str, list[int]] = {}

    def add(self, ids: list[int], keys: list[list[str]]) -> None:
        for entity_id, held in zip(ids, keys, strict=True):
            for key in held:
                self.pending.setdefault(key, []).append(entity_id)

    def take(self, keys: list[str]) -> dict[str, list[int]]:
        taken = {key: self.pending.pop(key) for key in keys if key in self.pending}
        return {key: sorted(ids) for key, ids in taken.items()}

    def count(self, keys: list[str]) -> dict[str, int]:
        return {key: len(self.pending[key]) for key in keys if key in self.pending}


def taken(filing: Filing, keys: list[str]) -> dict[str, list[int]]:
    return {key: sorted(ids) for key, ids in filing.take(keys).items()}


@contextmanager
def fanout(value: int) -> Iterator[None]:
    kept = in_memory_filing.FANOUT
    in_memory_filing.FANOUT = value
    try:
        yield
    finally:
        in_memory_filing.FANOUT = kept


#: A batch: distinct entity numbers, each with its keys (none for some).
batches = st.dictionaries(
    st.integers(0, len(IDS) - 1), st.lists(st.sampled_from(KEYS), unique=True), max_size=12
)
steps = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.integers(0, 1), batches),
        # Keys repeat in one take: each is handed out once.
        st.tuples(st.just("take"), st.integers(0, 1), st.lists(st.sampled_from((*KEYS, "n:none")))),
    ),
    max_size=40,
)


@pytest.mark.parametrize("merged_every", [2, 3, in_memory_filing.FANOUT])
@settings(max_examples=80, deadline=None)
@given(plan=steps)
def test_any_writes_and_takes_wait_as_per_key_appends_one_entity_at_a_time(
    merged_every: int, plan: list[tuple[str, int, object]]
) -> None:
    with fanout(merged_every):
        filings, references = (Filing(), Filing()), (PerKeyAppends(), PerKeyAppends())
        filed: list[dict[int, list[str]]] = [{}, {}]
        for action, tenant, argument in plan:
            filing, reference = filings[tenant], references[tenant]
            if action == "add":
                assert isinstance(argument, dict)
                ids = [IDS[number] for number in argument]
                keys = [list(held) for held in argument.values()]
                for entity_id, held, numbers in zip(ids, keys, filing.add(ids, keys), strict=True):
                    assert sorted(filing.texts(numbers)) == sorted(held)
                    filed[tenant][entity_id] = held
                reference.add(ids, keys)
            else:
                assert isinstance(argument, list)
                assert filing.count(argument) == reference.count(argument)
                assert taken(filing, argument) == reference.take(argument)
                assert filing.count(argument) == {}
        every = [*KEYS, "n:none"]
        for filing, reference in zip(filings, references, strict=True):
            assert filing.count(every) == reference.count(every)
            assert taken(filing, every) == reference.take(every)
        assert {key for filing in filings for key in filing.count(every)} == set()


def test_a_take_between_merges_is_not_handed_out_again() -> None:
    """Entries taken before their segment merges stay taken after it."""
    with fanout(2):
        filing = Filing()
        filing.add([IDS[0]], [["w:ada"]])
        assert filing.take(["w:ada"]) == {"w:ada": [IDS[0]]}
        filing.add([IDS[1]], [["w:ada", "w:alan"]])  # two tier-0 segments: merged
        assert filing.count(["w:ada"]) == {"w:ada": 1}
        assert filing.take(["w:ada"]) == {"w:ada": [IDS[1]]}
        filing.add([IDS[2]], [["w:alan"]])
        filing.add([IDS[3]], [["w:alan"]])  # merged twice over
        assert taken(filing, ["w:alan"]) == {"w:alan": sorted([IDS[1], IDS[2], IDS[3]])}
        assert filing.take(["w:ada", "w:alan"]) == {}


@pytest.mark.parametrize("merged_every", [2, in_memory_filing.FANOUT])
@settings(max_examples=60, deadline=None)
@given(plan=steps)
def test_the_kept_counts_equal_the_waiting_ids_after_every_write_and_take(
    merged_every: int, plan: list[tuple[str, int, object]]
) -> None:
    """`count` reads counts kept beside the segments: after each step, in each tenant, every
    key's count is what the per-key appends hold, so a count a write or take left stale fails."""
    every = [*KEYS, "n:none"]
    with fanout(merged_every):
        filings, references = (Filing(), Filing()), (PerKeyAppends(), PerKeyAppends())
        for action, tenant, argument in plan:
            if action == "add":
                assert isinstance(argument, dict)
                ids = [IDS[number] for number in argument]
                keys = [list(held) for held in argument.values()]
                filings[tenant].add(ids, keys)
                references[tenant].add(ids, keys)
            else:
                assert isinstance(argument, list)
                filings[tenant].take(argument)
                references[tenant].take(argument)
            for filing, reference in zip(filings, references, strict=True):
                assert filing.count(every) == reference.count(every)
