"""Fusing the channels' best-first rankings into one.

`reciprocal_rank_fusion` reads positions only; `EvidenceFusion` reads each
score on its stated scale (ADR 0060). `PooledEvidenceFusion` is `Retriever`'s
default (ADR 0365): rank fusion picks the candidates, the two channels'
evidence orders them, an entity holding every query word comes first, and a
query the model cannot read (another script, a short unsure one, a form the
tenant knows no word of) is ordered by the lexical channel (ADR 0430, 0435,
0540, 0580, 0595). `Retriever` hands it the lexical first's `WordCover`
(`fuse_entities`, in `domain/fusion_dispatch.py`). `ChunkRetriever` fuses by
`ConvexFusion` (`domain/convex_fusion.py`, ADR 0440, 0495).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.lexical import HOLDS_EVERY_WORD, WordCover
from redstring.domain.query import NormalizedQuery

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
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery,
    ) -> list[tuple[IdT, float]]:
        """Every id either channel ranked, once, best first, with its fused score.

        `query` is the text both channels answered, or its `NormalizedQuery`
        (the retrievers pass the one they built, so it is normalised once); a
        strategy may read it or not (`PooledEvidenceFusion` reads its script). The fused
        score is ordinal: comparable within one call only. An empty channel
        contributes nothing. The order is total (ties by `str(id)`).
        """
        ...


@dataclass(frozen=True)
class ReciprocalRankFusion:
    """The seeds' fusion: `reciprocal_rank_fusion` of the two id orders, scores ignored."""

    def fuse(
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        """`reciprocal_rank_fusion([semantic ids, lexical ids])`; `query` is not read."""
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
        _require_evidence_parameters(self.lexical_floor, self.power)

    def fuse(
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        """Ids best first by mean evidence; see the class docstring. `query` is not read."""
        return weighted_evidence(
            semantic,
            lexical,
            lexical_weight=0.5,
            lexical_floor=self.lexical_floor,
            power=self.power,
        )


def _require_evidence_parameters(lexical_floor: float, power: float) -> None:
    if not 0.0 <= lexical_floor < 1.0:
        raise InvalidArgumentError(
            name="lexical_floor",
            value=lexical_floor,
            requirement="a number from 0 up to (not including) 1: "
            "the lexical similarity that counts as no evidence",
        )
    if not power > 0.0:
        raise InvalidArgumentError(name="power", value=power, requirement="a positive number")


def _backed[IdT: Hashable](
    semantic: Sequence[tuple[IdT, float]], above: Sequence[IdT], cover: WordCover | None
) -> IdT | None:
    """The semantic first when the lexical channel backs it over its own first (ADR 0580): it
    holds a word of the query the lexical first lacks (`WordCover.filled_by`) and is among the
    lexical ids `above` the floor; else `None`."""
    if cover is None or not semantic:
        return None
    first = semantic[0][0]
    return first if first in cover.filled_by and first in above else None


def weighted_evidence[IdT: Hashable](
    semantic: Sequence[tuple[IdT, float]],
    lexical: Sequence[tuple[IdT, float]],
    *,
    lexical_weight: float,
    lexical_floor: float,
    power: float,
    semantic_floor: float = 0.0,
) -> list[tuple[IdT, float]]:
    """Every ranked id, best first, by `(1 - w) * semantic + w * lexical` evidence.

    `w` is `lexical_weight`. Evidence stretches a score above its floor onto
    0..1 and sharpens it: semantic `max(0, (c - semantic_floor) / (1 -
    semantic_floor)) ** power` with `c = 2s - 1` the cosine, lexical
    `max(0, (s - lexical_floor) / (1 - lexical_floor)) ** power`. An id a
    channel did not rank gets 0 from it; an id ranked twice by one channel
    counts once, at its best score. Ties break by the `reciprocal_rank_fusion`
    score, then by `str(id)`.
    """
    evidence: dict[IdT, float] = {}
    for channel, weight, floor, cosine in (
        (semantic, 1.0 - lexical_weight, semantic_floor, True),
        (lexical, lexical_weight, lexical_floor, False),
    ):
        best: dict[IdT, float] = {}
        for item, score in channel:
            unit = 2.0 * score - 1.0 if cosine else score
            stretched = max(0.0, (unit - floor) / (1.0 - floor))
            best[item] = max(best.get(item, 0.0), float(stretched**power))
        for item, value in best.items():
            evidence[item] = evidence.get(item, 0.0) + weight * value
    rank_scores = dict(reciprocal_rank_fusion([[i for i, _ in semantic], [i for i, _ in lexical]]))
    ordered = sorted(evidence, key=lambda item: (-evidence[item], -rank_scores[item], str(item)))
    return [(item, evidence[item]) for item in ordered]


#: The lexical score at or below which a lexical candidate is no evidence (ADR 0365:
#: chosen with the weight by the worst family left out of the choice).
POOLED_LEXICAL_FLOOR = 0.45
#: The weight of the lexical evidence against the semantic (ADR 0365).
POOLED_LEXICAL_WEIGHT = 0.85
#: The exponent that sharpens each channel's evidence (ADR 0205, kept in ADR 0365).
POOLED_POWER = 2.0
#: How many of the semantic ranking the pool reads, and how many of the pool
#: evidence orders, whatever `k` asks (ADR 0395).
POOLED_DEPTH = 10
#: The lexical floor and weight a query the model cannot read is ordered at: the
#: lexical order over the pool (ADR 0430, 0435). Not fitted.
LEXICAL_ORDER_NUMBERS = (0.0, 1.0)
#: A query of at most this many words (split at spaces), not a code, whose
#: closest entity is at most `UNSURE_COSINE` from it, is ordered at
#: `LEXICAL_ORDER_NUMBERS` (ADR 0435: chosen with `UNSURE_COSINE` by the worst
#: family left out of the choice; 39 of 44 folds chose both).
UNSURE_WORDS = 3
#: The cosine of the semantic first at or below which the model is unsure (ADR 0435).
UNSURE_COSINE = 0.5
#: The lexical weight of a query whose lexical first lacks a word the tenant holds (ADR
#: 0540), or without that reading of `UNSURE_WORDS` words or more (ADR 0460), that no switch
#: orders by the lexical channel: chosen by the worst family left out of the choice.
LONG_LEXICAL_WEIGHT = 0.6


@dataclass(frozen=True)
class PooledEvidenceFusion:
    """Rank fusion picks the candidates, their evidence orders them, exact words first.

    Only each channel's first `depth` ids count as its evidence and votes,
    whatever `k` the retriever answers (the lexical pool's size does not
    depend on `k`; the semantic channel is read to at least `depth`). In order:

    1. every id of the lexical first `depth` whose lexical score reaches
       `HOLDS_EVERY_WORD` (its name or an alias holds every query word
       whole), by evidence; then every such id past `depth`, lexically;
    2. the pool's first `depth` ids, by evidence, where the pool is
       `reciprocal_rank_fusion` of the first `depth` semantic ids and of the
       first `depth` lexical ids scoring above `lexical_floor`;
    3. the rest of the pool in rank-fusion order;
    4. the lexical ids past `depth` scoring above the floor, lexically;
    5. the semantic ids past `depth`, in the semantic order;
    6. the other lexical ids, in the lexical order.

    Two kinds of query are ordered at `LEXICAL_ORDER_NUMBERS` instead, floor
    0 and lexical weight 1 (every lexical candidate of the first `depth`
    joins the pool and the lexical score orders it, the semantic order
    breaking ties), because the model's answers to them are close to noise:

    - one written mostly in another script (`NormalizedQuery.other_script`:
      "Москва", "ルワンダ"): the library's local model reads English, while
      the lexical channel reads the name's ASCII spelling;
      `other_scripts_lexical=False` turns this off (a multilingual model);
    - a short one the model is unsure of: its semantic first has a cosine
      of at most `unsure_cosine`, and it has at most `unsure_words` words
      and is no code (no all-capitals acronym, more than 3 characters:
      "Mosambik", "dolar kajmański"), or, given a `cover`, it is an
      abbreviated word (lower-case letters, at most 3, no word the tenant
      knows, its lexical first above the floor: "hr", "sec");
      `unsure_words=0` turns this off.

    When both hold for one query (another script, and a semantic first at
    most `unsure_cosine`), group 2 orders the whole pool, not its first
    `depth`: rank fusion would keep half the model's noise in the first
    `depth` and push the lexical ids ranked 6 to 10 out. In the lexical order
    a lexical candidate scoring 0 joins the pool too.

    `cover` (the lexical first's `WordCover`, which `Retriever` reads from
    the tenant's word counts) adds a third kind: a query of at most
    `unsure_words` words, not a code, whose semantic first is none of
    the lexical first `depth` (the model's answer shares no key with the
    query), whatever the model's cosine, and whose lexical first lacks only
    words no entity holds: it holds the others ("Sotho meridional": no name
    holds "meridional"), or the query's words are all `WordCover.unknown`,
    none held whole or by its stem ("dolar nowozelandzki"; not "lipodsystrophic
    syndromes", whose "syndrome" the candidates hold).

    Any other query is ordered at `long_lexical_weight` instead of
    `lexical_weight` when its lexical first lacks a word some entity of the
    tenant holds: another entity answers that word, so the first is a
    look-alike ("round cell liposarcoma" for "renal liposarcoma"), and the
    model reads the words in their sense; a lexical first lacking only words
    no name holds ("nuevo dólar taiwanés") keeps `lexical_weight`. Without a
    `cover` (a caller of `fuse` who has none), a query of at least
    `long_words` words (by default `unsure_words`) is ordered at
    `long_lexical_weight`. `long_words=0` turns the lower weight off.

    Outside the lexical order, a `cover` also puts the semantic
    first at the head of group 2 when it holds a query word or number the
    lexical first lacks (`WordCover.filled_by`) and is among the lexical
    first `depth` above the floor; and lets every lexical id of the first
    `depth` join the pool of a query of at most `unsure_words` words, no
    acronym, none of whose words the tenant knows (`WordCover.unknown`: "ppi").

    Nothing but group 5 reads the semantic ranking past its first `depth`,
    and group 5 is a prefix of that ranking's rest, so the first n fused ids,
    and their scores, are the same however deep past `depth` the semantic
    channel was read; group 6 shows only when the semantic ranking ran out.
    Evidence is `weighted_evidence` at `lexical_weight`, `lexical_floor` and
    `power` (semantic floor 0), ties broken by the rank-fusion score, then by
    `str(id)`. The fused score is ordinal: the group's number plus the
    evidence or a rank-fusion score, so it falls as the order goes. Raises
    `ValueError` for a floor outside 0..1 (exclusive of 1), a weight outside
    0..1, a power that is not positive, a depth below 1, `unsure_words` or
    `long_words` below 0 or `unsure_cosine` outside -1..1.
    """

    lexical_floor: float = POOLED_LEXICAL_FLOOR
    lexical_weight: float = POOLED_LEXICAL_WEIGHT
    power: float = POOLED_POWER
    depth: int = POOLED_DEPTH
    other_scripts_lexical: bool = True
    unsure_words: int = UNSURE_WORDS
    unsure_cosine: float = UNSURE_COSINE
    long_words: int = UNSURE_WORDS
    long_lexical_weight: float = LONG_LEXICAL_WEIGHT

    def __post_init__(self) -> None:
        _require_evidence_parameters(self.lexical_floor, self.power)
        for name, weight in (
            ("lexical_weight", self.lexical_weight),
            ("long_lexical_weight", self.long_lexical_weight),
        ):
            if not 0.0 <= weight <= 1.0:
                raise InvalidArgumentError(
                    name=name,
                    value=weight,
                    requirement="a number from 0 to 1: the lexical evidence's share of the whole",
                )
        if isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1:
            raise InvalidArgumentError(
                name="depth",
                value=self.depth,
                requirement="an int of at least 1: how many semantic ids the pool reads",
            )
        for name, words, meaning in (
            ("unsure_words", self.unsure_words, "the most words an unsure query has"),
            ("long_words", self.long_words, "the fewest words a long query has"),
        ):
            if isinstance(words, bool) or not isinstance(words, int) or words < 0:
                raise InvalidArgumentError(
                    name=name, value=words, requirement=f"an int of at least 0: {meaning} (0: off)"
                )
        if not -1.0 <= self.unsure_cosine <= 1.0:
            raise InvalidArgumentError(
                name="unsure_cosine",
                value=self.unsure_cosine,
                requirement="a cosine from -1 to 1: the semantic first's at or below which "
                "the model is unsure",
            )

    def fuse(
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
        cover: WordCover | None = None,
    ) -> list[tuple[IdT, float]]:
        """Ids in the groups of the class docstring, each with its group-ordered score;
        `cover` is the lexical first's `WordCover` (`None`: not known)."""
        normalized = query if isinstance(query, NormalizedQuery) else NormalizedQuery.of(query)
        floor, weight = self.numbers_for(normalized, semantic, lexical=lexical, cover=cover)
        lexical_order = (floor, weight) == LEXICAL_ORDER_NUMBERS
        read, lexical_read = semantic[: self.depth], lexical[: self.depth]
        evidence = dict(
            weighted_evidence(
                read, lexical_read, lexical_weight=weight, lexical_floor=floor, power=self.power
            )
        )
        read_ids = [i for i, _ in read]
        rank = dict(reciprocal_rank_fusion([read_ids, [i for i, _ in lexical_read]]))
        best_lexical: dict[IdT, float] = {}
        for item, score in lexical:
            best_lexical[item] = max(best_lexical.get(item, 0.0), score)
        holders = {i for i, _ in lexical_read if best_lexical[i] >= HOLDS_EVERY_WORD}
        every = lexical_order or self._unknown_form(normalized, cover)
        above = [i for i, _ in lexical_read if best_lexical[i] > floor or every]
        pool = [i for i, _ in reciprocal_rank_fusion([read_ids, above])]
        ordered = len(pool) if self._unread(normalized, semantic) else self.depth
        placed = set(pool) | holders
        # Past `depth`, each channel's ids keep their own order: (group, position, id).
        later: list[tuple[int, int, IdT]] = []
        for group, start, channel, wanted in (
            (5, self.depth + 1, lexical[self.depth :], HOLDS_EVERY_WORD),
            (2, self.depth + 1, lexical[self.depth :], math.nextafter(floor, 2.0)),
            (1, self.depth + 1, semantic[self.depth :], 0.0),
            (0, 1, lexical, 0.0),
        ):
            for position, (item, _) in enumerate(channel, start=start):
                if item not in placed and best_lexical.get(item, 0.0) >= wanted:
                    placed.add(item)
                    later.append((group, position, item))

        def by_evidence(items: Iterable[IdT]) -> list[IdT]:
            return sorted(items, key=lambda i: (-evidence[i], -rank[i], str(i)))

        fused = [(i, 6.0 + evidence[i]) for i in by_evidence(holders)]
        fused += [(i, 5.0 + 1.0 / (RRF_K + p)) for g, p, i in later if g == 5]
        head = [i for i in by_evidence(pool[:ordered]) if i not in holders]
        backed = None if lexical_order else _backed(read, above, cover)
        if backed is not None and backed in head[1:]:
            # Both channels back the model's first over the evidence's (ADR 0580): it leads
            # at the score of the id it passes, so the scores still fall as the order goes.
            head.remove(backed)
            fused.append((backed, 4.0 + evidence[head[0]]))
        fused += [(i, 4.0 + evidence[i]) for i in head]
        fused += [(i, 3.0 + rank[i]) for i in pool[ordered:] if i not in holders]
        fused += [(i, g + 1.0 / (RRF_K + p)) for g, p, i in later if g < 5]
        return fused

    def _unknown_form(self, query: NormalizedQuery, cover: WordCover | None) -> bool:
        """Whether every lexical id of the first `depth` joins the pool (ADR 0580): a query of
        at most `unsure_words` words the tenant knows no word of (`WordCover.unknown`), no
        acronym (which `acronym_similarity` reads against initials): a lower-case form ("ppi",
        "hr") whose only lexical readings, trigrams and initials, fall below the floor."""
        words = len(query.text.split())
        unknown = cover is not None and cover.unknown and 0 < words <= self.unsure_words
        return unknown and query.acronym is None

    def _abbreviation(
        self,
        query: NormalizedQuery,
        lexical: Sequence[tuple[Hashable, float]],
        cover: WordCover | None,
    ) -> bool:
        """Whether `query` reads as an abbreviated word (ADR 0595): a `short` form of lower-case
        letters ("hr", "sec", "kn") the tenant knows no word of (`WordCover.unknown`), whose
        lexical first scores above the floor; a symbol ("Sr", "m3", "GBP") is not one."""
        text = query.text.strip()
        return (
            self.unsure_words > 0
            and query.short
            and text.isalpha()
            and text.islower()
            and cover is not None
            and cover.unknown
            and bool(lexical)
            and lexical[0][1] > self.lexical_floor
        )

    def _stranger(
        self,
        semantic: Sequence[tuple[Hashable, float]],
        lexical: Sequence[tuple[Hashable, float]],
    ) -> bool:
        """Whether the semantic first is none of the lexical first `depth`: the model's answer
        shares no key with the query, so nothing the tenant's names hold backs it."""
        return bool(semantic) and semantic[0][0] not in {i for i, _ in lexical[: self.depth]}

    def _unread(self, query: NormalizedQuery, semantic: Sequence[tuple[Hashable, float]]) -> bool:
        """Whether the model can read `query` neither by its script nor by its answer: one
        written mostly in another script whose semantic first has a cosine of at most
        `unsure_cosine`. Its whole pool, not the pool's first `depth`, is ordered."""
        return (
            self.other_scripts_lexical
            and query.other_script
            and bool(semantic)
            and 2.0 * semantic[0][1] - 1.0 <= self.unsure_cosine
        )

    def numbers_for(
        self,
        query: str | NormalizedQuery,
        semantic: Sequence[tuple[Hashable, float]] = (),
        *,
        lexical: Sequence[tuple[Hashable, float]] = (),
        cover: WordCover | None = None,
    ) -> tuple[float, float]:
        """The `(lexical_floor, lexical_weight)` this fusion orders `query` at, given the
        channels' answers to it (best first, on the 0..1 match scales) and the lexical
        first's `WordCover` (`None`: not known)."""
        normalized = query if isinstance(query, NormalizedQuery) else NormalizedQuery.of(query)
        if self.other_scripts_lexical and normalized.other_script:
            return LEXICAL_ORDER_NUMBERS
        words = len(normalized.text.split())
        short_name = (
            0 < words <= self.unsure_words and normalized.acronym is None and not normalized.short
        )
        unsure = bool(semantic) and 2.0 * semantic[0][1] - 1.0 <= self.unsure_cosine
        if unsure and (short_name or self._abbreviation(normalized, lexical, cover)):
            return LEXICAL_ORDER_NUMBERS
        if cover is None:
            long = 0 < self.long_words <= words
        elif (
            short_name
            and (cover.lacks_only_unheld or cover.unknown)
            and self._stranger(semantic, lexical)
        ):
            return LEXICAL_ORDER_NUMBERS
        else:
            long = self.long_words > 0 and cover.lacks_held
        return self.lexical_floor, self.long_lexical_weight if long else self.lexical_weight


#: What `Retriever` fuses with unless told otherwise (ADR 0365; was `AdaptiveFusion`, ADR 0121).
DEFAULT_FUSION: FusionStrategy = PooledEvidenceFusion()
#: What `ChunkRetriever` fuses with unless told otherwise: a convex combination of the
#: channels' stretched scores, which `ChunkRetriever` computes over every chunk (ADR 0440;
#: was plain RRF, ADR 0355, which trailed SEMANTIC on lay questions).
DEFAULT_PASSAGE_FUSION: FusionStrategy = ConvexFusion()
