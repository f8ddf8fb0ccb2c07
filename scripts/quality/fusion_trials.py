"""Entity fusion rules tried after ADR 0365, beside the adopted one, kept so their table reruns.

    uv run python -m scripts.fit_fusion --recorded --leave-one-out --trials

`SwitchedPooledFusion` answers a short query whose semantic channel is flat
(its first two cosines within `gap`, its first at most `ceiling`) in the
lexical order over the rank-fusion pool of both channels' first 10
(`PooledEvidenceFusion` at floor 0 and lexical weight 1), and every other
query with `PooledEvidenceFusion`'s two numbers and no unsure switch. As
ADR 0405 tried it, it also switched codes ("JPY"), where the model is right
and the lexical match is junk; with codes left alone (`codes=False`) it holds
better, and ADR 0435 adopted its simplest form inside `PooledEvidenceFusion`
(`unsure_words`, `unsure_cosine`: the gap adds nothing left out).

Tried after ADR 0435 and not taken (B62, B360): a query in another script
listing every lexical id of the first 10 before the ids only the model found
(`WholePoolInAnotherScript`), and the unsure switch for 3-character forms
("ppi", "hr"; `UnsureShortForms`). ADR 0460 adopted a lower lexical weight for
a query of `long_words` or more (`long_lexical_weight`), the word count shared
with the unsure switch; every row before it turns that off (`long_words=0`).
Every row builds today's `PooledEvidenceFusion`, so each includes ADR 0520's
whole pool for a query in another script the model is unsure of. The rows
before ADR 0540 build it blind to the lexical first's `WordCover`
(`EarlierReading`, reading nothing), as they were; the later rows read as
much of it as their rule did (`EarlierReading.reads`): ADR 0540 as first
written and as adopted, ADR 0580's two readings, and last the adopted rule,
which also orders an abbreviated word ("hr", "sec") lexically (ADR 0595).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Literal

from redstring.domain.fusion import LEXICAL_ORDER_NUMBERS, PooledEvidenceFusion
from redstring.domain.lexical import WordCover
from redstring.domain.query import SHORT_QUERY_LENGTH, NormalizedQuery

from .fusion_rules import Rule

#: The switched order: every lexical candidate joins the pool, ordered by its lexical score.
LEXICAL_ORDER = PooledEvidenceFusion(
    lexical_floor=0.0, lexical_weight=1.0, unsure_words=0, long_words=0
)
#: Every other query's order: the two fitted numbers, no unsure switch.
DEFAULT_ORDER = PooledEvidenceFusion(unsure_words=0, long_words=0)
GAPS = (0.02, 0.04, 0.06, 0.08, 1.0)
CEILINGS = (0.45, 0.5, 0.55, 0.6, 1.0)
WORDS = (2, 3, 4)
LONG_WEIGHTS = (0.4, 0.5, 0.6, 0.7, 0.85)
#: The word counts, unsure cosines and long weights of ADR 0460's and 0540's rows.
LONG_GRID = tuple((float(w), c, x) for w in WORDS for c in CEILINGS for x in LONG_WEIGHTS)


@dataclass(frozen=True)
class SwitchedPooledFusion:
    """`DEFAULT_ORDER`, or `LEXICAL_ORDER` for a short query over a flat semantic top."""

    words: int
    gap: float
    ceiling: float
    codes: bool = True

    def switched(self, query: str, semantic: Sequence[tuple[Hashable, float]]) -> bool:
        """Whether `query` has at most `words` words (and is no code, unless `codes`) and
        the semantic top is flat and low."""
        if len(query.split()) > self.words or len(semantic) < 2:
            return False
        normalized = NormalizedQuery.of(query)
        if not self.codes and (normalized.acronym is not None or normalized.short):
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


@dataclass(frozen=True)
class WholePoolInAnotherScript:
    """`PooledEvidenceFusion` at the switch's numbers, but a query in another script lists
    the lexical first `depth` scoring above 0 (by lexical score) before any id only the model
    found, then the rest of each channel, lexical first."""

    words: int
    cosine: float

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        fusion = PooledEvidenceFusion(
            unsure_words=self.words, unsure_cosine=self.cosine, long_words=0
        )
        normalized = query if isinstance(query, NormalizedQuery) else NormalizedQuery.of(query)
        if not normalized.other_script:
            return fusion.fuse(semantic, lexical, query=normalized)
        depth = fusion.depth
        scored = [pair for pair in lexical[:depth] if pair[1] > 0.0]  # as the pool's floor 0
        first = [*scored, *semantic[:depth], *lexical, *semantic[depth:]]
        order = list(dict.fromkeys(item for item, _ in first))
        return [(item, float(len(order) - at)) for at, item in enumerate(order)]


#: What of the lexical first's `WordCover` an earlier rule read (`EarlierReading`).
Reading = Literal["nothing", "cover", "unknown", "backing", "pool"]


@dataclass(frozen=True)
class EarlierReading(PooledEvidenceFusion):
    """`PooledEvidenceFusion` reading the lexical first's `WordCover` as an earlier rule did.

    `reads`: `nothing` (before ADR 0540); `cover` (ADR 0540 as first written:
    `unknown` unread); `unknown` (ADR 0540 as adopted: neither reading of ADR
    0580); `backing` (ADR 0580's model-backed first, without the pool of a short
    form the tenant does not know); `pool` (ADR 0580 as adopted). None reads a
    form as an abbreviated word (ADR 0595).
    """

    reads: Reading = "backing"

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
        cover: WordCover | None = None,
    ) -> list[tuple[IdT, float]]:
        return super().fuse(semantic, lexical, query=query, cover=self._seen(cover))

    def _seen(self, cover: WordCover | None) -> WordCover | None:
        if cover is None or self.reads == "nothing":
            return None
        if self.reads in ("backing", "pool"):
            return cover
        unknown = cover.unknown and self.reads != "cover"
        return replace(cover, unknown=unknown, filled_by=frozenset())

    def _unknown_form(self, query: NormalizedQuery, cover: WordCover | None) -> bool:
        return self.reads not in ("unknown", "backing") and super()._unknown_form(query, cover)

    def _abbreviation(
        self,
        query: NormalizedQuery,
        lexical: Sequence[tuple[Hashable, float]],
        cover: WordCover | None,
    ) -> bool:
        return False


@dataclass(frozen=True)
class UnsureShortForms(EarlierReading):
    """The adopted unsure switch, applied to a form of 3 characters too (not an acronym)."""

    reads: Reading = "nothing"

    def numbers_for(
        self,
        query: str | NormalizedQuery,
        semantic: Sequence[tuple[Hashable, float]] = (),
        *,
        lexical: Sequence[tuple[Hashable, float]] = (),
        cover: WordCover | None = None,
    ) -> tuple[float, float]:
        normalized = query if isinstance(query, NormalizedQuery) else NormalizedQuery.of(query)
        if (
            normalized.short
            and len(normalized.form) == SHORT_QUERY_LENGTH
            and normalized.acronym is None
            and semantic
            and 2.0 * semantic[0][1] - 1.0 <= self.unsure_cosine
        ):
            return LEXICAL_ORDER_NUMBERS
        return super().numbers_for(normalized, semantic, lexical=lexical, cover=cover)


def trial_rules() -> list[Rule]:
    """The default without its switches, ADR 0405's switch, the same sparing codes, ADR
    0435's unsure switch, the two rules tried after it, ADR 0460's lower weight for a long
    query, and the readings of the lexical first's cover (ADR 0540, 0580, 0595) in the order
    they were adopted; each switch's numbers on a grid."""
    full = tuple((float(w), g, c) for w in WORDS for g in GAPS for c in CEILINGS)
    return [
        Rule("PooledEvidenceFusion, no unsure switch", 2, ((),), lambda p: DEFAULT_ORDER),
        Rule(
            "switched to the lexical order (ADR 0405)",
            5,
            full,
            lambda p: SwitchedPooledFusion(words=int(p[0]), gap=p[1], ceiling=p[2]),
        ),
        Rule(
            "the same, codes left alone",
            5,
            full,
            lambda p: SwitchedPooledFusion(int(p[0]), gap=p[1], ceiling=p[2], codes=False),
        ),
        Rule(
            "unsure switch: words, cosine (ADR 0435)",
            4,
            tuple((float(w), c) for w in WORDS for c in CEILINGS),
            lambda p: EarlierReading(
                unsure_words=int(p[0]), unsure_cosine=p[1], long_words=0, reads="nothing"
            ),
        ),
        Rule(
            "the same, a query in another script by its whole pool",
            4,
            tuple((float(w), c) for w in WORDS for c in CEILINGS),
            lambda p: WholePoolInAnotherScript(words=int(p[0]), cosine=p[1]),
        ),
        Rule(
            "the same, 3-character forms switched too",
            4,
            tuple((float(w), c) for w in WORDS for c in CEILINGS),
            lambda p: UnsureShortForms(unsure_words=int(p[0]), unsure_cosine=p[1], long_words=0),
        ),
        *(
            Rule(
                name,
                5,
                LONG_GRID,
                lambda p, kind=kind: kind(
                    unsure_words=int(p[0]),
                    unsure_cosine=p[1],
                    long_words=int(p[0]),
                    long_lexical_weight=p[2],
                ),
            )
            for name, kind in (
                (
                    "the same, a query of as many words or more at long_lexical_weight (ADR 0460)",
                    partial(EarlierReading, reads="nothing"),
                ),
                (
                    "the same, reading the lexical first's cover (ADR 0540 as first written)",
                    partial(EarlierReading, reads="cover"),
                ),
                (
                    "the same, a short query of words the tenant does not know too (ADR 0540)",
                    partial(EarlierReading, reads="unknown"),
                ),
                (
                    "the same, the model's first backed by both channels first (ADR 0580)",
                    partial(EarlierReading, reads="backing"),
                ),
                (
                    "the same, every lexical id in a short unknown form's pool (ADR 0580)",
                    partial(EarlierReading, reads="pool"),
                ),
                (
                    "the same, an abbreviated word in the lexical order (adopted, ADR 0595)",
                    PooledEvidenceFusion,
                ),
            )
        ),
    ]
