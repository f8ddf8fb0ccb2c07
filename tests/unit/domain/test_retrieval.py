"""The retrieval result types."""

from __future__ import annotations

import pytest

from redstring.domain.retrieval import (
    RetrievalMode,
    RetrievalResult,
    ScoredEntity,
    require_k,
    require_query,
    resolve_mode,
)
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


@pytest.mark.parametrize("blank", ["", "   ", "\t\n"])
def test_a_blank_query_is_refused_with_what_to_do(blank: str) -> None:
    with pytest.raises(ValueError, match="must not be blank"):
        require_query(blank)


def test_k_zero_is_allowed_and_negative_k_is_refused() -> None:
    require_k(0)
    require_k(1)
    with pytest.raises(ValueError, match="k must be zero or more, got -1"):
        require_k(-1)


def test_none_resolves_to_the_retrievers_default() -> None:
    assert (
        resolve_mode(
            None, default=RetrievalMode.HYBRID, semantic_available=True, primary_constructor="X()"
        )
        is RetrievalMode.HYBRID
    )
    assert (
        resolve_mode(
            "lexical",
            default=RetrievalMode.HYBRID,
            semantic_available=True,
            primary_constructor="X()",
        )  # type: ignore[arg-type]
        is RetrievalMode.LEXICAL
    )


@pytest.mark.parametrize("mode", [RetrievalMode.SEMANTIC, RetrievalMode.HYBRID])
def test_a_lexical_only_retriever_refuses_modes_that_need_embeddings(mode: RetrievalMode) -> None:
    with pytest.raises(ValueError, match=r"Construct it with Retriever\(embeddings=...\)"):
        resolve_mode(
            mode,
            default=RetrievalMode.LEXICAL,
            semantic_available=False,
            primary_constructor="Retriever(embeddings=...)",
        )
    assert (
        resolve_mode(
            None, default=RetrievalMode.LEXICAL, semantic_available=False, primary_constructor="X"
        )
        is RetrievalMode.LEXICAL
    )


@pytest.mark.parametrize("blank", ["", " ", "\t\n "])
def test_require_query_refuses_a_blank_query(blank: str) -> None:
    with pytest.raises(ValueError, match="blank"):
        require_query(blank)
    require_query(" ada ")


def test_require_k_allows_zero_and_refuses_a_negative() -> None:
    require_k(0)
    require_k(1)
    with pytest.raises(ValueError, match="-1"):
        require_k(-1)


def test_resolve_mode_uses_the_default_only_when_none_is_asked_for() -> None:
    kwargs = {"semantic_available": True, "primary_constructor": "Primary(...)"}
    assert resolve_mode(None, default=RetrievalMode.HYBRID, **kwargs) is RetrievalMode.HYBRID
    assert (
        resolve_mode(RetrievalMode.SEMANTIC, default=RetrievalMode.HYBRID, **kwargs)
        is RetrievalMode.SEMANTIC
    )


@pytest.mark.parametrize("mode", [RetrievalMode.SEMANTIC, RetrievalMode.HYBRID, None])
def test_resolve_mode_refuses_what_a_lexical_only_retriever_cannot_run(
    mode: RetrievalMode | None,
) -> None:
    """HYBRID is refused, not narrowed; a default of HYBRID is refused the same way."""
    with pytest.raises(ValueError, match=r"Primary\(\.\.\.\)"):
        resolve_mode(
            mode,
            default=RetrievalMode.HYBRID,
            semantic_available=False,
            primary_constructor="Primary(...)",
        )
    lexical = resolve_mode(
        RetrievalMode.LEXICAL,
        default=RetrievalMode.HYBRID,
        semantic_available=False,
        primary_constructor="Primary(...)",
    )
    assert lexical is RetrievalMode.LEXICAL
