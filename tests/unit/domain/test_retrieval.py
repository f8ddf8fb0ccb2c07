"""The retrieval result types."""

from __future__ import annotations

import pytest

from redstring.domain.retrieval import RetrievalMode, RetrievalResult, ScoredEntity
from tests.factories import make_entity


def test_a_channel_that_did_not_rank_is_none_not_zero() -> None:
    unranked = ScoredEntity(entity=make_entity(), score=0.5, semantic=None, lexical=0.9)
    ranked_zero = ScoredEntity(entity=make_entity(), score=0.5, semantic=0.0, lexical=0.9)
    assert unranked.semantic is None
    assert ranked_zero.semantic == 0.0
    assert unranked.semantic != ranked_zero.semantic


def test_component_scores_default_to_none() -> None:
    scored = ScoredEntity(entity=make_entity(), score=0.5)
    assert (scored.semantic, scored.lexical) == (None, None)


@pytest.mark.parametrize("bad", [-0.01, 1.01])
@pytest.mark.parametrize("field", ["semantic", "lexical"])
def test_a_component_score_outside_zero_to_one_is_rejected(bad: float, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        ScoredEntity.model_validate({"entity": make_entity(), "score": 0.5, field: bad})


def test_the_fused_score_is_not_bounded_to_one() -> None:
    assert ScoredEntity(entity=make_entity(), score=7.5).score == 7.5


def test_a_result_keeps_the_query_it_answered() -> None:
    result = RetrievalResult(query="ada", matches=[])
    assert (result.query, result.matches) == ("ada", [])


def test_the_modes_are_their_own_strings() -> None:
    assert [RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL, RetrievalMode.HYBRID] == [
        "semantic",
        "lexical",
        "hybrid",
    ]
