"""The switch tried after ADR 0365: short, flat-topped queries in the lexical order (ADR 0405)."""

from __future__ import annotations

from redstring.domain.fusion import PooledEvidenceFusion
from redstring.domain.query import NormalizedQuery
from scripts.quality.fusion_trials import SwitchedPooledFusion, trial_rules

#: The model's junk sits flat and high; the lexical channel holds the answer with a modest score.
SEMANTIC = (("junk-a", 0.72), ("junk-b", 0.71), ("answer", 0.60))
LEXICAL = (("answer", 0.53), ("other", 0.29))
SWITCH = SwitchedPooledFusion(words=3, gap=0.06, ceiling=0.55)


def _first(query: str | NormalizedQuery, fusion: object = SWITCH) -> str:
    return str(fusion.fuse(SEMANTIC, LEXICAL, query=query)[0][0])  # type: ignore[attr-defined]


def test_a_short_query_over_a_flat_semantic_top_is_answered_in_the_lexical_order() -> None:
    assert str(PooledEvidenceFusion().fuse(SEMANTIC, LEXICAL, query="Mosambik")[0][0]) == "junk-a"
    assert _first("Mosambik") == "answer"
    assert _first(NormalizedQuery.of("Mosambik")) == "answer"


def test_a_long_query_a_clear_semantic_first_or_a_high_one_keeps_the_default() -> None:
    assert _first("a query of four words") == "junk-a"
    clear = SwitchedPooledFusion(words=3, gap=0.01, ceiling=0.55)
    assert _first("Mosambik", clear) == "junk-a"
    high = SwitchedPooledFusion(words=3, gap=0.06, ceiling=0.40)
    assert _first("Mosambik", high) == "junk-a"


def test_the_trials_grade_the_default_beside_the_switch_on_its_grid() -> None:
    default, switch = trial_rules()
    assert default.grid == ((),)
    assert len(switch.grid) == 3 * 5 * 5
    assert isinstance(switch.make(switch.grid[0]), SwitchedPooledFusion)
