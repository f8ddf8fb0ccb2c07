"""The quality harness's grading, checked on hand-made cases."""

from __future__ import annotations

import math
from uuid import UUID

import pytest

from redstring import EntityId
from redstring.projections.vectors import embedding_text
from redstring.providers import FakeEmbeddingProvider
from scripts.quality.harness import (
    EntityCorpus,
    QualityQuery,
    build_vectors,
    first_hit,
    measure,
    ndcg_at,
)
from tests.factories import make_entity


def eid(n: int) -> EntityId:
    return EntityId(UUID(f"00000000-0000-4000-8000-{n:012x}"))


def query(*targets: int, shape: str = "exact") -> QualityQuery:
    return QualityQuery(
        id="q", shape=shape, split="fit", text="x", targets=frozenset(eid(t) for t in targets)
    )


def test_first_hit_is_one_based_and_takes_any_acceptable_target() -> None:
    assert first_hit([eid(5), eid(2), eid(3)], frozenset({eid(3), eid(2)})) == 2
    assert first_hit([eid(1)], frozenset({eid(1)})) == 1
    assert first_hit([eid(1)], frozenset({eid(9)})) is None


def test_a_target_beyond_rank_ten_is_a_miss() -> None:
    ids = [eid(n) for n in range(1, 12)]
    assert first_hit(ids, frozenset({eid(11)})) is None
    assert first_hit(ids, frozenset({eid(10)})) == 10


def test_measure_averages_hits_over_graded_queries_and_empties_over_all() -> None:
    metrics = measure(
        [
            (query(1), [eid(1), eid(2)]),  # hit at 1
            (query(2), [eid(1), eid(2)]),  # hit at 2
            (query(3), []),  # empty, miss
            (query(), [eid(4)]),  # no target: counts for empty share only
        ]
    )
    assert metrics.n == 4
    assert metrics.hit1 == pytest.approx(1 / 3)
    assert metrics.hit10 == pytest.approx(2 / 3)
    assert metrics.mrr == pytest.approx((1 + 1 / 2 + 0) / 3)
    assert metrics.empty == pytest.approx(1 / 4)


def test_only_ungraded_queries_give_nan_hits_but_a_real_empty_share() -> None:
    metrics = measure([(query(), []), (query(), [eid(1)])])
    assert math.isnan(metrics.hit10)
    assert metrics.empty == pytest.approx(0.5)


def test_ndcg_is_one_for_the_ideal_order_and_less_for_a_worse_one() -> None:
    gains = {0: 0.0, 1: 3.0, 2: 2.0, 3: 1.0}
    assert ndcg_at([1, 2, 3], gains) == pytest.approx(1.0)
    worse = ndcg_at([3, 2, 1], gains)
    expected = (1 / 1 + 2 / math.log2(3) + 3 / 2) / (3 / 1 + 2 / math.log2(3) + 1 / 2)
    assert worse == pytest.approx(expected)
    assert ndcg_at([1], {0: 0.0, 1: 0.0}) == 0.0
    assert ndcg_at([7, 1], gains) == pytest.approx(
        3 / math.log2(3) / (3 + 2 / math.log2(3) + 1 / 2)
    )


@pytest.mark.asyncio
async def test_corpus_entities_are_embedded_from_the_write_paths_text() -> None:
    """A descriptive query can only find what the write path embeds: name, type, description."""
    entity = make_entity("Yen", entity_type="currency", description="legal tender in Japan")
    provider = FakeEmbeddingProvider(dimension=16)
    vectors = await build_vectors(EntityCorpus(entities=[entity], queries=[]), provider)
    [expected] = await provider.embed([embedding_text(entity)])
    [found] = await vectors.search(expected, entity.tenant_id, k=1)
    assert found.entity_id == entity.id
    assert found.score == pytest.approx(1.0)
    assert "legal tender in Japan" in embedding_text(entity)
