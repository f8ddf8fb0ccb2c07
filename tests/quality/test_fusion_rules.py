"""A rule's numbers are chosen without the family it is graded on, by the worst (ADR 0365)."""

from __future__ import annotations

import numpy as np

import scripts.quality.fusion_rules as fr
from scripts.quality.fusion_fit import Case


def _case(family: str, split: str, n: int, right: str) -> Case:
    """A query both channels answer; `right` ("semantic" or "lexical") ranks the target first."""
    target, junk = f"{family}-{n}-t", f"{family}-{n}-j"
    first, second = ((target, 0.9), (junk, 0.8)), ((junk, 0.9), (target, 0.8))
    semantic, lexical = (first, second) if right == "semantic" else (second, first)
    return Case(family, split, f"q{n}", semantic, lexical, frozenset({target}), source="a")


def _cases(family: str, fit: int, holdout: int, right: str) -> list[Case]:
    return [_case(family, "fit", n, right) for n in range(fit)] + [
        _case(family, "holdout", fit + n, right) for n in range(holdout)
    ]


#: A rule with one number: 0 keeps the semantic order, 1 the lexical.
PICK = fr.Rule("pick", 1, ((0.0,), (1.0,)), lambda p: fr.Channel("lexical" if p[0] else "semantic"))


def test_each_left_out_family_is_graded_at_the_numbers_chosen_without_it() -> None:
    cases = [*_cases("w/lex", 6, 5, "lexical"), *_cases("w/sem", 4, 7, "semantic")]
    rows = {(r.group, r.rule): r for r in fr.leave_one_out(cases, [PICK])}
    # Left out, w/lex is graded at the number w/sem alone chose (semantic), and the reverse.
    assert rows[("w/lex", "pick")].chosen == (0.0,)
    assert rows[("w/sem", "pick")].chosen == (1.0,)
    assert rows[("w/lex", "pick")].n == 5
    assert rows[("w/lex", "pick")].figures == {"hit10": 1.0, "mrr": 0.5}
    assert rows[("w/lex", "pick")].below_better == -0.5
    table = fr.rules_table(list(rows.values()))
    assert "| w/lex | 5 | 1.000 / 0.500 |" in table
    assert "| pick | w/lex | -0.500 | 2 of 2 | 2 of 2 | (0.0,), (1.0,) |" in table


def test_the_choice_is_the_best_worst_group_not_the_best_mean() -> None:
    """Column 0 is better on the mean over families, column 1 on the worst family."""
    table = {
        "mrr": np.array([[1.0, 0.8]] * 9 + [[0.5, 0.6]]),
        "hit10": np.ones((10, 2)),
    }
    zero = {m: np.zeros((10, 1)) for m in fr.METRICS}
    groups = {"big": np.arange(9), "small": np.array([9])}
    assert (1.0 + 0.5) / 2 > (0.8 + 0.6) / 2
    assert fr.choose(table, {"RRF": zero}, groups) == 1


def _sourced(family: str, source: str, fit: int, holdout: int) -> list[Case]:
    return [
        Case(family, split, f"q{n}", (), (), frozenset({"t"}), source=source)
        for split, count in (("fit", fit), ("holdout", holdout))
        for n in range(count)
    ]


def test_groups_are_families_and_the_big_sources_of_a_mixed_family() -> None:
    big = fr.MIN_LEFT_OUT
    cases = [
        *_sourced("w/mixed", "a", 3, big),
        *_sourced("w/mixed", "b", 3, big),
        *_sourced("w/mixed", "tiny", 3, big - 1),
        *_sourced("w/one", "a", 3, big),
        *_sourced("w/one_big", "a", 3, big),
        *_sourced("w/one_big", "small", 30, big - 1),  # the fit count does not count
        *_sourced("p/no_match", "", 3, big),
    ]
    groups = fr.left_out_groups(cases)
    assert list(groups) == ["w/mixed", "w/mixed|a", "w/mixed|b", "w/one", "w/one_big"]
    assert sum(groups["w/mixed|b"](c) for c in cases) == 3 + big
    assert sum(groups["w/mixed"](c) for c in cases) == 3 * (3 + big) - 1
