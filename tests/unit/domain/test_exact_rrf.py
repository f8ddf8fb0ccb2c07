"""certified_rrf: the first k of the full rankings' RRF, or None until what was read proves it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.exact_rrf import certified_rrf
from redstring.domain.fusion import reciprocal_rank_fusion

rankings = st.lists(st.sampled_from("abcdefghijklmnop"), unique=True, max_size=16)


@given(semantic=rankings, lexical=rankings, k=st.integers(0, 18), data=st.data())
def test_a_certified_answer_is_the_first_k_of_the_full_rankings_fusion(
    semantic: list[str], lexical: list[str], k: int, data: st.DataObject
) -> None:
    depths = [data.draw(st.integers(0, len(r) + 1)) for r in (semantic, lexical)]
    prefixes = [(r[:d], d > len(r)) for r, d in zip((semantic, lexical), depths, strict=True)]
    answer = certified_rrf(prefixes, k=k)
    if answer is not None:
        assert answer == reciprocal_rank_fusion([semantic, lexical])[:k]


@given(semantic=rankings, lexical=rankings, k=st.integers(0, 18))
def test_whole_rankings_are_always_certified(
    semantic: list[str], lexical: list[str], k: int
) -> None:
    answer = certified_rrf([(semantic, True), (lexical, True)], k=k)
    assert answer == reciprocal_rank_fusion([semantic, lexical])[:k]


def test_a_lone_lexical_candidate_is_first_before_its_semantic_rank_is_read() -> None:
    # 'z' is lexical's only id; semantic read to 'a' only, 'z' somewhere below.
    assert certified_rrf([(["a"], False), (["z"], True)], k=1) is None  # 'z' may tie 'a' at 1/61
    assert certified_rrf([(["a", "z"], False), (["z"], True)], k=1) == [
        ("z", pytest.approx(1 / 61 + 1 / 62))
    ]


def test_fewer_than_k_only_when_every_channel_is_complete() -> None:
    assert certified_rrf([(["a"], False), ([], True)], k=2) is None
    assert certified_rrf([(["a"], True), ([], True)], k=2) == [("a", 1 / 61)]


def test_negative_k_is_refused() -> None:
    with pytest.raises(ValueError, match="k must be zero or more"):
        certified_rrf([], k=-1)


def test_an_id_below_the_last_one_that_could_still_tie_it_defers_the_answer() -> None:
    # 'm' is lexical's second (1/62) and semantic has not shown it past depth 2,
    # so it may still gain 1/63 and tie 'z' (1/62 + 1/63), winning on its id.
    read = [(["a", "z"], False), (["a", "m", "z"], True)]
    assert certified_rrf(read, k=2) is None
    whole = [(["a", "z", "m"], True), (["a", "m", "z"], True)]
    assert [item for item, _ in certified_rrf(whole, k=2) or []] == ["a", "m"]
