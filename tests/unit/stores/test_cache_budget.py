"""The matrix caches are bounded by bytes, one budget per database (B42, ADR 0135).

Over budget the least recently used entry of either store goes first, a value
larger than the budget is never kept, a value loaded under an old token is
never served, and two tenants with the same ids never share an entry.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import Entity, StoredChunk, new_tenant_id
from redstring.domain.ids import EntityId, TenantId
from redstring.errors import InvalidArgumentError
from redstring.ports import VectorRecord
from redstring.storage.tenant_cache import CacheBudget, TenantCache
from redstring.stores import open_sqlite


def test_the_budget_evicts_the_least_recently_used_entry_of_any_cache() -> None:
    budget = CacheBudget(100)
    vectors, chunks = TenantCache[bytes](budget, len), TenantCache[bytes](budget, len)
    loads: list[str] = []

    def load(name: str, size: int) -> bytes:
        loads.append(name)
        return b"x" * size

    vectors.get("a", "t", lambda: load("va", 40))
    chunks.get("a", "t", lambda: load("ca", 40))  # the same tenant key: its own entry
    vectors.get("a", "t", lambda: load("va again", 40))  # a hit, and now the most recent
    chunks.get("b", "t", lambda: load("cb", 40))  # 120 > 100: the oldest (chunks "a") goes
    assert loads == ["va", "ca", "cb"]
    assert (len(vectors), len(chunks), budget.used) == (1, 1, 80)
    chunks.get("a", "t", lambda: load("ca again", 40))
    assert loads[-1] == "ca again"
    assert budget.used <= budget.max_bytes


def test_a_value_larger_than_the_budget_is_served_but_never_kept() -> None:
    budget = CacheBudget(10)
    cache = TenantCache[bytes](budget, len)
    assert cache.get("a", "t", lambda: b"x" * 11) == b"x" * 11
    assert (len(cache), budget.used) == (0, 0)
    nothing = TenantCache[bytes](CacheBudget(0), len)
    nothing.get("a", "t", lambda: b"")
    assert len(nothing) == 1  # an empty value costs nothing, even at budget 0
    assert budget.used == 0


def test_a_new_token_reloads_and_the_old_value_is_never_served() -> None:
    budget = CacheBudget(100)
    cache = TenantCache[bytes](budget, len)
    assert cache.get("a", "one", lambda: b"old") == b"old"
    assert cache.get("a", "two", lambda: b"newer") == b"newer"
    assert cache.get("a", "two", lambda: b"never") == b"newer"
    assert budget.used == len(b"newer")


@pytest.mark.parametrize("bad", [-1, 2.5, True, "256"])
def test_a_budget_that_is_not_a_whole_number_of_bytes_is_refused(bad: object) -> None:
    with pytest.raises(InvalidArgumentError) as refused:
        CacheBudget(bad)  # type: ignore[arg-type]
    assert refused.value.name == "cache_bytes"


def _unit(n: int) -> list[float]:
    vector = [0.0] * 4
    vector[n % 4] = 1.0
    return vector


@pytest.mark.asyncio
async def test_stores_over_budget_stay_correct_per_tenant_and_within_it(tmp_path: Path) -> None:
    """Two tenants hold the *same* entity id and chunk text (a forced collision)."""
    same = EntityId(Entity(tenant_id=new_tenant_id(), entity_type="person", name="Ada").id)
    tenants: list[TenantId] = [new_tenant_id() for _ in range(3)]
    one_tenant = 1_000  # bytes: more than one tenant's two small matrices, less than three
    stores = open_sqlite(tmp_path / "budget.db", dimension=4, cache_bytes=one_tenant)
    try:
        for n, tenant in enumerate(tenants):
            record = VectorRecord(
                tenant_id=tenant, entity_id=same, entity_type="person", vector=_unit(n)
            )
            await stores.vectors.upsert([record])
            text = "Ada wrote notes."
            chunk = StoredChunk(
                tenant_id=tenant, source_id="doc", text=text, index=0, start=0,
                end=len(text), embedding=_unit(n),
            )  # fmt: skip
            await stores.chunks.upsert_chunks([chunk])
        budget = stores.vectors._cache._budget
        assert budget is stores.chunks._cache._budget  # one setting, one budget
        for _ in range(2):
            for n, tenant in enumerate(tenants):
                [hit] = await stores.vectors.search(_unit(n), tenant, k=1)
                assert (hit.entity_id, hit.score) == (same, pytest.approx(1.0))
                [match] = await stores.chunks.search_chunks(_unit(n), tenant, k=1)
                assert match.chunk.tenant_id == tenant
                assert match.score == pytest.approx(1.0)
                assert budget.used <= one_tenant
        assert len(stores.vectors._cache) + len(stores.chunks._cache) < 2 * len(tenants)
        moved = VectorRecord(
            tenant_id=tenants[2], entity_id=same, entity_type="person", vector=_unit(0)
        )
        await stores.vectors.upsert([moved])  # a write to the cached tenant: never stale
        [hit] = await stores.vectors.search(_unit(0), tenants[2], k=1)
        assert hit.score == pytest.approx(1.0)
    finally:
        await stores.close()


def test_an_update_patches_only_the_value_of_its_token_and_counts_its_new_size() -> None:
    budget = CacheBudget(10)
    cache = TenantCache[list[int]](budget, len)
    held = cache.get("a", "one", lambda: [1, 2])
    cache.update("a", "one", "two", lambda value: value.append(3))
    assert cache.get("a", "two", lambda: pytest.fail("loaded again")) is held
    assert (held, budget.used) == ([1, 2, 3], 3)
    cache.update("a", "stale", "three", lambda value: pytest.fail("patched"))  # another token
    assert (len(cache), budget.used) == (0, 0)
    cache.update("a", None, "four", lambda value: pytest.fail("patched"))  # nothing cached
    cache.get("b", "one", lambda: [0])
    cache.update("b", "one", "two", lambda value: value.extend(range(20)))  # now too big
    assert (len(cache), budget.used) == (0, 0)


def test_remeasure_counts_a_value_grown_in_place_and_drops_it_past_the_budget() -> None:
    budget = CacheBudget(10)
    cache = TenantCache[list[int]](budget, len)
    held = cache.get("a", "t", lambda: [1])
    held.extend([2, 3])
    cache.remeasure("a")
    assert (len(cache), budget.used) == (1, 3)
    held.extend(range(20))
    cache.remeasure("a")
    assert (len(cache), budget.used) == (0, 0)
    cache.remeasure("nobody")
    assert budget.used == 0
