"""Entity fusion rules tried after ADR 0365 and not adopted; kept so their table can be rerun.

    uv run python -m scripts.fit_fusion --recorded --leave-one-out --trials

`SwitchedPooledFusion` answers a short query whose semantic channel is flat
(its first two cosines within `gap`, its first at most `ceiling`) in the
lexical order over the rank-fusion pool of both channels' first 10
(`PooledEvidenceFusion` at floor 0 and lexical weight 1), and every other
query with `PooledEvidenceFusion`'s defaults. It is what the other-language
and alias families ask for, and what the currency-code and biomedical
synonym families are hurt by (ADR 0405).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from redstring.domain.fusion import PooledEvidenceFusion
from redstring.domain.query import NormalizedQuery

from .fusion_rules import Rule

#: The switched order: every lexical candidate joins the pool, ordered by its lexical score.
LEXICAL_ORDER = PooledEvidenceFusion(lexical_floor=0.0, lexical_weight=1.0)
#: Every other query's order.
DEFAULT_ORDER = PooledEvidenceFusion()


@dataclass(frozen=True)
class SwitchedPooledFusion:
    """`PooledEvidenceFusion`, or `LEXICAL_ORDER` for a short query over a flat semantic top."""

    words: int
    gap: float
    ceiling: float

    def switched(self, query: str, semantic: Sequence[tuple[Hashable, float]]) -> bool:
        """Whether `query` has at most `words` words and the semantic top is flat and low."""
        if len(query.split()) > self.words or len(semantic) < 2:
            return False
        first, second = (2.0 * score - 1.0 for _, score in semantic[:2])
        return first - second <= self.gap and first <= self.ceiling

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        text = query.text if isinstance(query, NormalizedQuery) else query
        chosen = LEXICAL_ORDER if self.switched(text, semantic) else DEFAULT_ORDER
        return chosen.fuse(semantic, lexical, query=query)


def trial_rules() -> list[Rule]:
    """The adopted default beside the switch, its three numbers on a grid."""
    grid = tuple(
        (float(words), gap, ceiling)
        for words in (2, 3, 4)
        for gap in (0.02, 0.04, 0.06, 0.08, 1.0)
        for ceiling in (0.45, 0.5, 0.55, 0.6, 1.0)
    )
    return [
        Rule("PooledEvidenceFusion (defaults)", 2, ((),), lambda p: DEFAULT_ORDER),
        Rule(
            "switched to the lexical order",
            5,
            grid,
            lambda p: SwitchedPooledFusion(words=int(p[0]), gap=p[1], ceiling=p[2]),
        ),
    ]
