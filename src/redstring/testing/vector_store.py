"""The contract every `VectorStore` adapter satisfies.

Subclass `VectorStoreCompliance` in a test module and implement `make_store`:

    class TestMine(VectorStoreCompliance):
        async def make_store(self, dimension: int) -> VectorStore:
            return MyStore(dimension=dimension)

The suite is written against the port and the domain only.
"""

from __future__ import annotations

import math
from abc import abstractmethod

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import (
    DimensionMismatchError,
    InvalidArgumentError,
    InvalidVectorError,
)
from redstring.domain.ids import EntityId, TenantId
from redstring.domain.vector import VectorRecord
from redstring.ports.vector_store import VectorStore
from redstring.testing._support import fixed_id, fresh_tenant, property_settings
from redstring.testing.concurrency import VectorStoreConcurrency
from redstring.testing.tenant_keys import VectorTenantKeyCompliance
from redstring.testing.vector_models import VectorModelsCompliance

DIMENSION = 384


def basis(index: int, dimension: int = DIMENSION, sign: float = 1.0) -> list[float]:
    """A unit vector along one axis."""
    vector = [0.0] * dimension
    vector[index] = sign
    return vector


def mix(a: int, b: int, weight: float, dimension: int = DIMENSION) -> list[float]:
    """`weight` of axis `a` plus `1 - weight` of axis `b` (not normalised)."""
    vector = [0.0] * dimension
    vector[a] += weight
    vector[b] += 1.0 - weight
    return vector


def record(
    tenant: TenantId, entity_id: EntityId, vector: list[float], kind: str = "person"
) -> VectorRecord:
    return VectorRecord(tenant_id=tenant, entity_id=entity_id, entity_type=kind, vector=vector)


class VectorStoreCompliance(
    VectorTenantKeyCompliance, VectorModelsCompliance, VectorStoreConcurrency
):
    """Behaviour any `VectorStore` must show; see the module docstring."""

    @abstractmethod
    async def make_store(self, dimension: int) -> VectorStore:
        """A new, empty store of `dimension`."""

    @pytest.mark.asyncio
    async def test_reports_its_dimension(self) -> None:
        store = await self.make_store(DIMENSION)
        assert store.dimension == DIMENSION

    @pytest.mark.asyncio
    async def test_an_identical_vector_scores_one_and_an_opposite_one_zero(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert(
            [
                record(tenant, fixed_id(1), basis(0)),
                record(tenant, fixed_id(2), basis(0, sign=-1.0)),
            ]
        )
        matches = await store.search(basis(0), tenant, k=2)
        assert [m.entity_id for m in matches] == [fixed_id(1), fixed_id(2)]
        assert matches[0].score == pytest.approx(1.0, abs=1e-6)
        assert matches[1].score == pytest.approx(0.0, abs=1e-6)

    @pytest.mark.asyncio
    async def test_orthogonal_scores_one_half_and_magnitude_does_not_matter(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(1), [3.0 * x for x in basis(1)])])
        [match] = await store.search(basis(0), tenant, k=1)
        assert match.score == pytest.approx(0.5, abs=1e-6)

    @pytest.mark.asyncio
    async def test_results_are_best_first(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert(
            [
                record(tenant, fixed_id(1), mix(0, 1, 0.2)),
                record(tenant, fixed_id(2), mix(0, 1, 0.9)),
                record(tenant, fixed_id(3), mix(0, 1, 0.5)),
            ]
        )
        matches = await store.search(basis(0), tenant, k=3)
        assert [m.entity_id for m in matches] == [fixed_id(2), fixed_id(3), fixed_id(1)]
        assert matches[0].score > matches[1].score > matches[2].score

    @pytest.mark.asyncio
    async def test_a_wrong_length_record_is_refused_and_nothing_of_its_batch_is_written(
        self,
    ) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        with pytest.raises(DimensionMismatchError) as caught:
            await store.upsert(
                [
                    record(tenant, fixed_id(1), basis(0)),
                    record(tenant, fixed_id(2), [1.0] * (DIMENSION - 1)),
                ]
            )
        assert caught.value.expected == DIMENSION
        assert caught.value.actual == DIMENSION - 1
        assert await store.count(tenant) == 0

    @pytest.mark.asyncio
    async def test_a_wrong_length_query_is_refused(self) -> None:
        store = await self.make_store(DIMENSION)
        with pytest.raises(DimensionMismatchError):
            await store.search([1.0] * (DIMENSION + 1), fresh_tenant())

    @pytest.mark.asyncio
    async def test_a_zero_vector_is_refused(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        with pytest.raises(InvalidVectorError):
            await store.upsert([record(tenant, fixed_id(1), [0.0] * DIMENSION)])
        with pytest.raises(InvalidVectorError):
            await store.search([0.0] * DIMENSION, tenant)

    @pytest.mark.asyncio
    async def test_k_zero_returns_nothing_and_negative_k_raises(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(1), basis(0))])
        assert await store.search(basis(0), tenant, k=0) == []
        with pytest.raises(ValueError, match="k"):
            await store.search(basis(0), tenant, k=-1)

    @pytest.mark.asyncio
    async def test_a_k_or_min_score_of_another_type_is_refused_naming_it(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(1), basis(0))])
        wrong: list[dict[str, object]] = [
            {"k": "5"},
            {"k": 2.0},
            {"k": True},
            {"min_score": "0.5"},
            {"min_score": True},
            {"min_score": math.nan},
        ]
        for arguments in wrong:
            name = next(iter(arguments))
            with pytest.raises(InvalidArgumentError, match=name) as refused:
                await store.search(basis(0), tenant, **arguments)  # type: ignore[arg-type]
            assert refused.value.name == name
        assert len(await store.search(basis(0), tenant, k=5, min_score=0.5)) == 1

    @pytest.mark.asyncio
    async def test_k_one_and_k_beyond_the_corpus(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(n), mix(0, n, 0.5)) for n in range(1, 4)])
        assert len(await store.search(basis(0), tenant, k=1)) == 1
        assert len(await store.search(basis(0), tenant, k=50)) == 3

    @pytest.mark.asyncio
    async def test_entity_types_filter_applies_before_k(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert(
            [
                record(tenant, fixed_id(1), basis(0), "person"),
                record(tenant, fixed_id(2), mix(0, 1, 0.6), "place"),
            ]
        )
        matches = await store.search(basis(0), tenant, k=1, entity_types=["place"])
        assert [m.entity_id for m in matches] == [fixed_id(2)]
        assert matches[0].entity_type == "place"

    @pytest.mark.asyncio
    async def test_empty_entity_types_matches_nothing_and_none_means_no_filter(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(1), basis(0), "person")])
        assert await store.search(basis(0), tenant, entity_types=[]) == []
        assert len(await store.search(basis(0), tenant, entity_types=None)) == 1

    @pytest.mark.asyncio
    async def test_min_score_applies_before_k(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert(
            [record(tenant, fixed_id(1), basis(0)), record(tenant, fixed_id(2), basis(1))]
        )
        matches = await store.search(basis(0), tenant, k=10, min_score=0.75)
        assert [m.entity_id for m in matches] == [fixed_id(1)]
        with pytest.raises(ValueError, match="min_score"):
            await store.search(basis(0), tenant, min_score=1.5)

    @pytest.mark.asyncio
    async def test_ties_break_by_ascending_id_string(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(n), basis(0)) for n in (3, 1, 2)])
        matches = await store.search(basis(0), tenant, k=2)
        assert [m.entity_id for m in matches] == [fixed_id(1), fixed_id(2)]

    @pytest.mark.asyncio
    async def test_upsert_replaces_a_vector(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(1), basis(0))])
        assert len(await store.search(basis(1), tenant, k=5)) == 1
        await store.upsert([record(tenant, fixed_id(1), basis(1), "place")])
        [match] = await store.search(basis(1), tenant, k=5)
        assert match.score == pytest.approx(1.0, abs=1e-6)
        assert match.entity_type == "place"
        assert await store.count(tenant) == 1

    @pytest.mark.asyncio
    async def test_the_same_entity_id_in_two_tenants_never_crosses(self) -> None:
        store = await self.make_store(DIMENSION)
        first, second = fresh_tenant(), fresh_tenant()
        shared = fixed_id(7)
        await store.upsert([record(first, shared, basis(0)), record(second, shared, basis(1))])
        [in_first] = await store.search(basis(0), first, k=5)
        [in_second] = await store.search(basis(0), second, k=5)
        assert in_first.score == pytest.approx(1.0, abs=1e-6)
        assert in_second.score == pytest.approx(0.5, abs=1e-6)
        await store.delete([shared], first)
        assert await store.search(basis(0), first) == []
        assert len(await store.search(basis(0), second)) == 1

    @pytest.mark.asyncio
    async def test_delete_and_purge(self) -> None:
        store = await self.make_store(DIMENSION)
        first, second = fresh_tenant(), fresh_tenant()
        await store.upsert(
            [
                record(first, fixed_id(1), basis(0)),
                record(first, fixed_id(2), basis(1)),
                record(second, fixed_id(1), basis(0)),
            ]
        )
        assert len(await store.search(basis(0), first)) == 2
        await store.delete([fixed_id(1), fixed_id(99)], first)
        assert [m.entity_id for m in await store.search(basis(0), first)] == [fixed_id(2)]
        await store.purge_tenant(first)
        assert await store.count(first) == 0
        assert await store.count(second) == 1

    @pytest.mark.asyncio
    async def test_get_returns_stored_records_and_omits_missing(self) -> None:
        store = await self.make_store(DIMENSION)
        tenant = fresh_tenant()
        await store.upsert([record(tenant, fixed_id(1), basis(0))])
        [got] = await store.get([fixed_id(1), fixed_id(2)], tenant)
        assert got.entity_id == fixed_id(1)
        assert got.vector == pytest.approx(basis(0))
        assert await store.get([fixed_id(1)], fresh_tenant()) == []

    @pytest.mark.asyncio
    @property_settings
    @given(
        rows=st.lists(
            st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from(["person", "place"])),
            min_size=0,
            max_size=12,
        ),
        k=st.sampled_from([0, 1, 2, 5, 50]),
        types=st.sampled_from([None, [], ["person"], ["place"], ["person", "place"]]),
        other_rows=st.integers(0, 4),
    )
    async def test_search_agrees_with_a_brute_force_reference(
        self,
        rows: list[tuple[int, int, str]],
        k: int,
        types: list[str] | None,
        other_rows: int,
    ) -> None:
        """Few distinct directions force ties; another tenant shares the ids."""
        store = await self.make_store(8)
        tenant, other = fresh_tenant(), fresh_tenant()
        records = [
            record(tenant, fixed_id(n), mix(a, b + 4, 0.7, 8), kind)
            for n, (a, b, kind) in enumerate(rows)
        ]
        decoys = [record(other, fixed_id(n), basis(0, 8)) for n in range(other_rows)]
        await store.upsert(records + decoys)
        query = basis(0, 8)
        matches = await store.search(query, tenant, k=k, entity_types=types)

        def cosine(vector: list[float]) -> float:
            return sum(x * y for x, y in zip(vector, query, strict=True)) / math.sqrt(
                sum(x * x for x in vector)
            )

        eligible = [r for r in records if types is None or r.entity_type in types]
        expected = sorted(eligible, key=lambda r: (-round(cosine(r.vector), 6), str(r.entity_id)))[
            :k
        ]
        assert [m.entity_id for m in matches] == [r.entity_id for r in expected]
        for match, reference in zip(matches, expected, strict=True):
            assert match.score == pytest.approx((1 + cosine(reference.vector)) / 2, abs=1e-5)
