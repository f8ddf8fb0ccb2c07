"""Reciprocal rank fusion."""

from __future__ import annotations

from uuid import UUID

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from redstring.domain.fusion import RRF_K, reciprocal_rank_fusion

# String order equals letter order, so tie-break expectations are readable.
A = UUID("00000000-0000-4000-8000-00000000000a")
B = UUID("00000000-0000-4000-8000-00000000000b")
C = UUID("00000000-0000-4000-8000-00000000000c")


def test_an_entity_in_both_rankings_at_the_same_rank_beats_one_in_either_alone() -> None:
    """Only a sum (not a max) gives A, first in both lists, twice a first place."""
    fused = dict(reciprocal_rank_fusion([[A], [A, B]]))
    assert fused[A] == pytest.approx(2 / (RRF_K + 1))
    assert fused[B] == pytest.approx(1 / (RRF_K + 2))


def test_rank_is_one_based_so_the_first_element_is_not_a_division_by_k() -> None:
    fused = dict(reciprocal_rank_fusion([[A, B]]))
    assert fused[A] == pytest.approx(1 / 61)
    assert fused[B] == pytest.approx(1 / 62)


def test_ties_break_by_ascending_id_string() -> None:
    assert [item for item, _ in reciprocal_rank_fusion([[B], [A]])] == [A, B]


def test_an_empty_ranking_contributes_nothing_and_does_not_shift_ranks() -> None:
    assert reciprocal_rank_fusion([[A, B], []]) == reciprocal_rank_fusion([[A, B]])
    assert reciprocal_rank_fusion([[], [A, B]]) == reciprocal_rank_fusion([[A, B]])


def test_no_rankings_at_all_is_empty() -> None:
    assert reciprocal_rank_fusion([]) == []


def test_a_repeated_id_within_one_ranking_counts_once_at_its_best_rank() -> None:
    fused = dict(reciprocal_rank_fusion([[A, B, A]]))
    assert fused[A] == pytest.approx(1 / 61)
    assert fused[B] == pytest.approx(1 / 62)


def test_the_constant_is_the_published_sixty() -> None:
    assert RRF_K == 60


@given(st.lists(st.sampled_from([A, B, C]), unique=True, max_size=3))
@example([])
@example([A])
def test_every_id_present_appears_exactly_once_in_the_output(ids: list[UUID]) -> None:
    fused = reciprocal_rank_fusion([ids])
    assert sorted(item for item, _ in fused) == sorted(ids)


@given(st.permutations([A, B, C]), st.permutations([A, B, C]))
def test_the_order_is_total_so_no_two_results_are_interchangeable(
    first: list[UUID], second: list[UUID]
) -> None:
    fused = reciprocal_rank_fusion([first, second[:2]])
    keys = [(-score, str(item)) for item, score in fused]
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)
