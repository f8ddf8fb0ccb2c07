"""The fusion strategies the retrievers choose between (ADR 0060, 0355, 0365)."""

from __future__ import annotations

from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.fusion import (
    DEFAULT_FUSION,
    DEFAULT_PASSAGE_FUSION,
    EVIDENCE_LEXICAL_FLOOR,
    EVIDENCE_POWER,
    EvidenceFusion,
    ReciprocalRankFusion,
    reciprocal_rank_fusion,
)

# String order equals letter order, so tie-break expectations are readable.
A = UUID("00000000-0000-4000-8000-00000000000a")
B = UUID("00000000-0000-4000-8000-00000000000b")
C = UUID("00000000-0000-4000-8000-00000000000c")
D = UUID("00000000-0000-4000-8000-00000000000d")

scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def ids(fused: list[tuple[UUID, float]]) -> list[UUID]:
    return [item for item, _ in fused]


def test_rrf_fuses_by_rank_alone_whatever_the_channel_scores() -> None:
    # B is first lexically and second semantically: 1/61 + 1/62 beats A's 1/61 and C's 1/62.
    expected = [(B, 1 / 61 + 1 / 62), (A, 1 / 61), (C, 1 / 62)]
    for high, low in ((0.99, 0.01), (0.01, 0.99)):
        fused = ReciprocalRankFusion().fuse([(A, high), (B, low)], [(B, high), (C, low)])
        assert ids(fused) == [B, A, C]
        assert [score for _, score in fused] == pytest.approx([s for _, s in expected])


@given(
    st.permutations([A, B, C, D]).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, 4))),
    st.permutations([A, B, C, D]).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, 4))),
)
def test_plain_rrf_is_exactly_the_seeds_rank_fusion(
    semantic: tuple[list[UUID], int], lexical: tuple[list[UUID], int]
) -> None:
    sem_ids, lex_ids = semantic[0][: semantic[1]], lexical[0][: lexical[1]]
    fused = ReciprocalRankFusion().fuse([(i, 0.9) for i in sem_ids], [(i, 0.1) for i in lex_ids])
    assert fused == reciprocal_rank_fusion([sem_ids, lex_ids])


def test_a_weak_lexical_candidate_does_not_outvote_a_confident_semantic_one() -> None:
    """The failure measured on the corpus: plain RRF puts B, in both lists, first."""
    semantic = [(A, 0.92), (B, 0.80)]
    lexical = [(B, 0.70)]  # below the floor: a string that merely looks alike
    assert ids(ReciprocalRankFusion().fuse(semantic, lexical))[0] == B
    assert ids(EvidenceFusion().fuse(semantic, lexical)) == [A, B]


def test_a_near_exact_lexical_match_outranks_a_mediocre_semantic_top() -> None:
    semantic = [(A, 0.85), (B, 0.80)]
    lexical = [(B, 0.99)]
    assert ids(EvidenceFusion().fuse(semantic, lexical)) == [B, A]


def test_both_certainties_make_full_evidence_and_one_alone_makes_half() -> None:
    fused = dict(EvidenceFusion().fuse([(A, 1.0), (B, 1.0)], [(A, 1.0)]))
    assert fused[A] == pytest.approx(1.0)
    assert fused[B] == pytest.approx(0.5)


def test_lexical_evidence_is_zero_at_the_floor_and_positive_just_above() -> None:
    at_floor = dict(EvidenceFusion().fuse([], [(A, EVIDENCE_LEXICAL_FLOOR)]))
    above = dict(EvidenceFusion().fuse([], [(A, EVIDENCE_LEXICAL_FLOOR + 0.05)]))
    assert at_floor[A] == 0.0
    assert above[A] == pytest.approx(0.5 * (0.05 / (1 - EVIDENCE_LEXICAL_FLOOR)) ** EVIDENCE_POWER)


def test_a_semantic_score_at_or_below_orthogonal_is_no_evidence_never_negative() -> None:
    """0.5 is cosine 0 on the vector scale; 0.2 is a negative cosine, still zero evidence."""
    fused = dict(EvidenceFusion().fuse([(A, 0.5), (B, 0.2)], [(B, 0.9)]))
    assert fused[A] == 0.0
    lexical = (0.9 - EVIDENCE_LEXICAL_FLOOR) / (1 - EVIDENCE_LEXICAL_FLOOR)
    assert fused[B] == pytest.approx(0.5 * lexical**EVIDENCE_POWER)


def test_equal_evidence_breaks_by_rank_fusion_before_id() -> None:
    """Both below the floor (zero evidence): the channel's own order must survive, not id order."""
    fused = EvidenceFusion().fuse([], [(B, 0.55), (A, 0.5)])
    assert ids(fused) == [B, A]
    assert [score for _, score in fused] == [0.0, 0.0]


def test_equal_evidence_and_equal_rank_break_by_ascending_id() -> None:
    fused = EvidenceFusion().fuse([(B, 0.2)], [(A, 0.3)])
    assert ids(fused) == [A, B]


def test_an_id_repeated_within_a_channel_counts_once_at_its_best_score() -> None:
    fused = dict(EvidenceFusion(power=1.0).fuse([(A, 0.9), (A, 0.6)], []))
    assert fused[A] == pytest.approx(0.5 * 0.8)


def test_empty_channels_fuse_to_nothing() -> None:
    assert EvidenceFusion().fuse([], []) == []


@given(st.lists(scores, max_size=4), st.booleans())
def test_one_channel_alone_keeps_its_own_order(values: list[float], lexical: bool) -> None:
    """So SEMANTIC and LEXICAL modes rank exactly as their channel does."""
    ranking = list(zip([A, B, C, D], sorted(values, reverse=True), strict=False))
    fused = EvidenceFusion().fuse([], ranking) if lexical else EvidenceFusion().fuse(ranking, [])
    assert ids(fused) == [item for item, _ in ranking]


@given(
    st.lists(st.tuples(st.sampled_from([A, B, C, D]), scores), max_size=6),
    st.lists(st.tuples(st.sampled_from([A, B, C, D]), scores), max_size=6),
)
def test_every_ranked_id_appears_once_with_non_increasing_scores(
    semantic: list[tuple[UUID, float]], lexical: list[tuple[UUID, float]]
) -> None:
    fused = EvidenceFusion().fuse(semantic, lexical)
    assert sorted(ids(fused)) == sorted({i for i, _ in semantic + lexical})
    values = [score for _, score in fused]
    assert values == sorted(values, reverse=True)
    assert all(0.0 <= value <= 1.0 for value in values)


@pytest.mark.parametrize(
    ("floor", "power"), [(-0.1, 4.0), (1.0, 4.0), (0.8, 0.0), (0.8, -1.0), (0.8, float("nan"))]
)
def test_parameters_outside_their_range_are_refused(floor: float, power: float) -> None:
    with pytest.raises(InvalidArgumentError, match=r"lexical_floor|power"):
        EvidenceFusion(lexical_floor=floor, power=power)


# ----------------------------------------------------------------- the defaults

queries = st.sampled_from(
    ["Ada Lovelace", "the currency of Japan", "Москва", "route 66", "a, b; c", "x"]
)


@given(st.lists(scores, max_size=4), st.booleans(), queries)
def test_the_default_fusions_keep_one_channel_s_own_order(
    values: list[float], lexical: bool, query: str
) -> None:
    ranking = list(zip([A, B, C, D], sorted(values, reverse=True), strict=False))
    for fusion in (DEFAULT_FUSION, DEFAULT_PASSAGE_FUSION, EvidenceFusion()):
        fused = (
            fusion.fuse([], ranking, query=query)
            if lexical
            else fusion.fuse(ranking, [], query=query)
        )
        assert ids(fused) == [item for item, _ in ranking]
