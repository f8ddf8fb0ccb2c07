"""Fusing the channels' best-first rankings into one.

`reciprocal_rank_fusion` uses only position: the seeds' choice, because the
channels' scores share a range (0..1) but no unit. Measured on the quality
corpus it let a weak channel's confident-looking junk outvote a strong
channel, so the retriever's default is now `EvidenceFusion`, which reads each
score on its stated scale (ADR 0060); `ReciprocalRankFusion` keeps the seeds'
behaviour reachable.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

#: The k of 1/(k + rank), from Cormack, Clarke and Buettcher, "Reciprocal Rank
#: Fusion Outperforms Condorcet and Individual Rank Learning Methods" (SIGIR 2009).
RRF_K = 60


def reciprocal_rank_fusion[IdT: Hashable](
    rankings: Sequence[Sequence[IdT]],
) -> list[tuple[IdT, float]]:
    """Fuse best-first `rankings` into `(id, score)` pairs, best first.

    score(id) = sum over rankings containing id of 1 / (RRF_K + rank), with
    one-based ranks. An id repeated within one ranking counts once, at its best
    rank. An empty ranking contributes nothing and shifts no other ranking.
    Ties break by ascending `str(id)` (for a UUID, its canonical lowercase
    hyphenated form), so the order is total.
    """
    scores: dict[IdT, float] = {}
    for ranking in rankings:
        seen: set[IdT] = set()
        for position, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (RRF_K + position)
    return sorted(scores.items(), key=lambda pair: (-pair[1], str(pair[0])))


#: The id type a strategy fuses (module-level so signatures resolve at run time).
#: A channel's answer reaches a strategy as `(id, score)` pairs best first,
#: each score on that channel's stated 0..1 scale.
IdT = TypeVar("IdT", bound=Hashable)


class FusionStrategy(Protocol):
    """How the retriever turns its two channels' rankings into one (see docs/adr)."""

    def fuse(
        self, semantic: Sequence[tuple[IdT, float]], lexical: Sequence[tuple[IdT, float]]
    ) -> list[tuple[IdT, float]]:
        """Every id either channel ranked, once, best first, with its fused score.

        The fused score is ordinal: comparable within one call only. An empty
        channel contributes nothing. The order is total (ties by `str(id)`).
        """
        ...


@dataclass(frozen=True)
class ReciprocalRankFusion:
    """The seeds' fusion: `reciprocal_rank_fusion` of the two id orders, scores ignored."""

    def fuse(
        self, semantic: Sequence[tuple[IdT, float]], lexical: Sequence[tuple[IdT, float]]
    ) -> list[tuple[IdT, float]]:
        """`reciprocal_rank_fusion([semantic ids, lexical ids])`."""
        return reciprocal_rank_fusion([[i for i, _ in semantic], [i for i, _ in lexical]])


#: Lexical similarity at or below which a lexical candidate is no evidence at
#: all. Fitted on the quality corpus's fit half (ADR 0060; refitted in ADR 0071
#: for the token-aware lexical channel).
EVIDENCE_LEXICAL_FLOOR = 0.6
#: The exponent that sharpens each channel's evidence (ADR 0060, refitted in 0071).
EVIDENCE_POWER = 3.0


@dataclass(frozen=True)
class EvidenceFusion:
    """Score-aware fusion on the two stated 0..1 scales, rank fusion breaking ties.

    Each channel's score becomes evidence on 0..1: semantic
    `max(0, 2s - 1) ** power` (the cosine, zero at orthogonal), lexical
    `max(0, (s - lexical_floor) / (1 - lexical_floor)) ** power`. The fused
    score is the mean of the two evidences, a channel that did not rank an id
    contributing 0; ties (including all-zero evidence) break by the
    `reciprocal_rank_fusion` score, then by `str(id)`. Raises `ValueError` for
    a floor outside 0..1 (exclusive of 1) or a power that is not positive.
    """

    lexical_floor: float = EVIDENCE_LEXICAL_FLOOR
    power: float = EVIDENCE_POWER

    def __post_init__(self) -> None:
        if not 0.0 <= self.lexical_floor < 1.0:
            raise ValueError(
                f"lexical_floor must be in [0, 1), got {self.lexical_floor}: "
                "it is the lexical similarity that counts as no evidence"
            )
        if not self.power > 0.0:
            raise ValueError(f"power must be positive, got {self.power}")

    def fuse(
        self, semantic: Sequence[tuple[IdT, float]], lexical: Sequence[tuple[IdT, float]]
    ) -> list[tuple[IdT, float]]:
        """Ids best first by mean evidence; see the class docstring."""
        evidence: dict[IdT, float] = {}
        for channel, to_evidence in (
            (semantic, self._semantic_evidence),
            (lexical, self._lexical_evidence),
        ):
            best: dict[IdT, float] = {}
            for item, score in channel:
                best[item] = max(best.get(item, 0.0), to_evidence(score))
            for item, value in best.items():
                evidence[item] = evidence.get(item, 0.0) + value / 2.0
        rank_scores = dict(
            reciprocal_rank_fusion([[i for i, _ in semantic], [i for i, _ in lexical]])
        )
        ordered = sorted(
            evidence, key=lambda item: (-evidence[item], -rank_scores[item], str(item))
        )
        return [(item, evidence[item]) for item in ordered]

    def _semantic_evidence(self, score: float) -> float:
        return float(max(0.0, 2.0 * score - 1.0) ** self.power)

    def _lexical_evidence(self, score: float) -> float:
        stretched = (score - self.lexical_floor) / (1.0 - self.lexical_floor)
        return float(max(0.0, stretched) ** self.power)


#: What `Retriever` fuses with unless told otherwise (ADR 0060).
DEFAULT_FUSION: FusionStrategy = EvidenceFusion()
