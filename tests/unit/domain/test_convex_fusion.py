"""`ConvexFusion`: stretched semantic evidence and the lexical score as given, at one weight."""

from __future__ import annotations

import pytest

from redstring.domain.convex_fusion import CONVEX_DEPTH, CONVEX_SEMANTIC_WEIGHT
from redstring.domain.fusion_dispatch import fusion_label
from redstring.errors import InvalidArgumentError
from redstring.fusion import ConvexFusion


def test_the_chosen_numbers_are_the_defaults() -> None:
    assert (CONVEX_SEMANTIC_WEIGHT, CONVEX_DEPTH) == (0.25, 50)
    assert ConvexFusion() == ConvexFusion(semantic_weight=0.25, depth=50)


def test_semantic_evidence_runs_from_the_first_score_to_the_depth_th() -> None:
    fusion = ConvexFusion(semantic_weight=0.5, depth=3)
    fused = fusion.fuse([("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6)], [])
    assert fused == [("a", 0.5), ("b", pytest.approx(0.25)), ("c", 0.0), ("d", 0.0)]


def test_lexical_evidence_is_the_score_as_given_not_stretched_to_the_firsts() -> None:
    fusion = ConvexFusion(semantic_weight=0.5, depth=3)
    fused = fusion.fuse([("a", 0.9), ("b", 0.8), ("c", 0.7)], [("c", 0.3), ("z", 0.4)])
    assert fused == [
        ("a", 0.5),
        ("b", pytest.approx(0.25)),
        ("z", pytest.approx(0.2)),
        ("c", pytest.approx(0.15)),
    ]


def test_ties_go_to_the_id_string_and_ids_without_evidence_follow_in_the_semantic_order() -> None:
    fusion = ConvexFusion(semantic_weight=1.0, depth=2)
    fused = fusion.fuse([("b", 0.9), ("a", 0.9), ("y", 0.5), ("x", 0.4)], [("q", 0.7)])
    assert fused == [("a", 1.0), ("b", 1.0), ("y", 0.0), ("x", 0.0), ("q", 0.0)]


def test_an_empty_channel_contributes_nothing() -> None:
    fusion = ConvexFusion()
    assert fusion.fuse([], []) == []
    lexical = fusion.fuse([], [("b", 0.6), ("a", 0.2)])
    assert lexical == [("b", pytest.approx(0.45)), ("a", pytest.approx(0.15))]
    assert fusion.fuse([("a", 0.7)], []) == [("a", 0.25)]


def test_the_label_names_the_weight_and_depth() -> None:
    label = fusion_label(ConvexFusion(), [], [], query="q")
    assert label == "convex semantic_weight=0.25 depth=50"


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ({"semantic_weight": -0.1}, "semantic_weight"),
        ({"semantic_weight": 1.5}, "semantic_weight"),
        ({"semantic_weight": float("nan")}, "semantic_weight"),
        ({"depth": 1}, "depth"),
        ({"depth": True}, "depth"),
        ({"depth": 2.5}, "depth"),
    ],
)
def test_a_number_out_of_range_is_refused_by_name(arguments: dict[str, object], name: str) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        ConvexFusion(**arguments)  # type: ignore[arg-type]
    assert raised.value.name == name


@pytest.mark.parametrize("score", [1.7, -0.1, float("nan")])
def test_a_lexical_score_off_the_unit_scale_is_refused_by_name(score: float) -> None:
    """A raw BM25 score handed as evidence would outvote every semantic one."""
    with pytest.raises(InvalidArgumentError) as raised:
        ConvexFusion().fuse([("a", 0.9)], [("a", 0.5), ("b", score)])
    assert raised.value.name == "lexical"
    assert "bm25_coverage" in str(raised.value)
