"""Leave-one-out refits see everything but the group they leave out, and grade only that group.

ADR 0280: `fit_fusion.py --leave-one-out` estimates how the fusion does on a
query distribution its fit never saw.
"""

from __future__ import annotations

import numpy as np
import pytest

import scripts.quality.fusion_loo as loo
from redstring.domain.fusion import PASSAGE_ADAPTIVE_FUSION, AdaptiveFusion
from redstring.domain.query_reading import FEATURE_NAMES
from scripts.quality.fusion_fit import (
    W_GRID,
    Case,
    Problem,
    Tables,
    constants_of,
    fusion_of,
    objective,
    problem_of,
)


def _case(family: str, split: str, source: str, n: int, right: str) -> Case:
    """A query both channels answer; `right` ("semantic" or "lexical") ranks the target first."""
    target, junk = f"{family}-{n}-t", f"{family}-{n}-j"
    first, second = ((target, 0.9), (junk, 0.8)), ((junk, 0.9), (target, 0.8))
    semantic, lexical = (first, second) if right == "semantic" else (second, first)
    return Case(
        family=family,
        split=split,
        query=f"query {n}",
        semantic=semantic,
        lexical=lexical,
        targets=frozenset({target}),
        source=source,
    )


def _cases(family: str, source: str, fit: int, holdout: int, right: str) -> list[Case]:
    return [_case(family, "fit", source, n, right) for n in range(fit)] + [
        _case(family, "holdout", source, fit + n, right) for n in range(holdout)
    ]


def test_groups_are_families_and_the_big_sources_of_a_mixed_family() -> None:
    big = loo.MIN_LEFT_OUT
    cases = [
        *_cases("w/mixed", "a", 3, big, "lexical"),
        *_cases("w/mixed", "b", 3, big, "semantic"),
        *_cases("w/mixed", "tiny", 3, big - 1, "semantic"),
        *_cases("w/one", "a", 3, big, "lexical"),
        *_cases("w/one_big", "a", 3, big, "lexical"),
        *_cases("w/one_big", "small", 30, big - 1, "lexical"),  # fit count does not count
        *_cases("p/no_match", "", 3, big, "lexical"),
    ]
    assert list(loo.left_out_groups(cases)) == [
        "w/mixed",
        "w/mixed|a",
        "w/mixed|b",
        "w/one",
        "w/one_big",
    ]
    members = loo.left_out_groups(cases)
    assert sum(members["w/mixed|b"](c) for c in cases) == 3 + big
    assert sum(members["w/mixed"](c) for c in cases) == 3 * (3 + big) - 1


def test_each_refit_searches_without_its_group_and_is_graded_on_it_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cases = [
        *_cases("w/lex", "a", 4, 5, "lexical"),
        *_cases("w/sem", "a", 6, 7, "semantic"),
    ]
    searched: list[tuple[frozenset[str], int]] = []

    def fake_search(problem: Problem, tables: Tables) -> tuple[np.ndarray, float]:
        searched.append((frozenset(problem.members), len(problem.features)))
        assert tables.grades["mrr"].shape == (len(problem.features), len(W_GRID))
        theta = np.zeros(len(FEATURE_NAMES))
        theta[0] = -20.0  # w about 0: the semantic channel's order
        return theta, 0.0

    monkeypatch.setattr(loo, "search", fake_search)
    rows = {row.group: row for row in loo.leave_one_out("entities", cases, progress=False)}
    # The whole fit half first, then each group left out of its own search.
    assert searched == [
        (frozenset({"w/lex", "w/sem"}), 10),
        (frozenset({"w/sem"}), 6),
        (frozenset({"w/lex"}), 4),
    ]
    assert rows["w/lex"].counts == {"fit": 4, "holdout": 5}
    assert rows["w/sem"].counts == {"fit": 6, "holdout": 7}
    lex, sem = rows["w/lex"].figures["holdout"], rows["w/sem"].figures["holdout"]
    assert lex["lexical"]["mrr"] == 1.0
    assert lex["semantic"]["mrr"] == 0.5
    assert lex["left out"]["mrr"] == 0.5
    assert sem["left out"]["mrr"] == 1.0
    assert rows["w/lex"].shortfall("holdout") == -0.5
    assert not rows["w/lex"].holds()
    assert rows["w/sem"].holds()
    table = loo.loo_table(list(rows.values()))
    assert "| w/lex | 5 | LEXICAL 1.000 / 1.000 |" in table
    assert table.splitlines()[2].endswith("| -0.500 | -0.500 | **no** |")


@pytest.mark.parametrize("fusion", [AdaptiveFusion(), PASSAGE_ADAPTIVE_FUSION])
def test_a_fusion_is_rebuilt_from_its_constants_and_coefficients(fusion: AdaptiveFusion) -> None:
    assert fusion_of(np.array(fusion.coefficients), constants_of(fusion)) == fusion


def test_the_centre_price_prefers_the_weight_that_leaves_both_channels_a_say() -> None:
    cases = _cases("w/any", "a", 4, 0, "lexical")
    problem = problem_of(cases, [True] * len(FEATURE_NAMES), ridge=0.0, centre=0.01)
    flat = Tables((0.5, 0.0, 2.0, 0.5), {m: np.ones((4, len(W_GRID))) for m in ("mrr", "hit10")})
    flat.grades["ndcg10"] = np.full((4, len(W_GRID)), np.nan)
    central, leaning = np.zeros(len(FEATURE_NAMES)), np.zeros(len(FEATURE_NAMES))
    leaning[0] = 3.0  # the bias: no ridge price on it, so only the centre price tells
    assert objective(problem, flat, central) == pytest.approx(1.0)
    assert objective(problem, flat, leaning) == pytest.approx(1.0 - 0.01 * 9.0)


def test_the_rows_of_a_table_are_the_cases_asked_for_in_that_order() -> None:
    grades = {"mrr": np.arange(12.0).reshape(4, 3)}
    picked = Tables((0.5, 0.0, 2.0, 0.4), grades).rows([2, 0])
    assert picked.constants == (0.5, 0.0, 2.0, 0.4)
    assert picked.grades["mrr"].tolist() == [[6.0, 7.0, 8.0], [0.0, 1.0, 2.0]]
