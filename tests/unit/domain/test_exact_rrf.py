"""rrf_of_ranks: reciprocal rank fusion from each id's rank, equal to fusing the lists."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.exact_rrf import rrf_of_ranks
from redstring.domain.fusion import reciprocal_rank_fusion

rankings = st.lists(st.sampled_from("abcdefghijklmnop"), unique=True, max_size=16)


def ranks(ranking: list[str]) -> dict[str, int]:
    return {item: rank for rank, item in enumerate(ranking, start=1)}


@given(semantic=rankings, lexical=rankings, k=st.integers(0, 18))
def test_the_fusion_of_ranks_is_the_fusion_of_the_lists_to_the_float(
    semantic: list[str], lexical: list[str], k: int
) -> None:
    fused = rrf_of_ranks([ranks(semantic), ranks(lexical)], k=k)
    assert fused == reciprocal_rank_fusion([semantic, lexical])[:k]


def test_ties_break_by_the_id_string() -> None:
    # 'z' first semantically, 'a' first lexically: equal scores, 'a' first.
    assert rrf_of_ranks([{"z": 1}, {"a": 1}], k=2) == [("a", 1 / 61), ("z", 1 / 61)]


def test_negative_k_is_refused() -> None:
    with pytest.raises(ValueError, match="k must be zero or more"):
        rrf_of_ranks([], k=-1)
