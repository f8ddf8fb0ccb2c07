"""How likely a result is right: a confidence on 0..1, and a threshold.

The fused score orders one answer and means nothing across queries; a
result's `confidence` is the chance that it is an acceptable answer, the
same across queries and tenants, so a caller can ask for "nothing, when
nothing here is likely right" (`min_confidence`). Each
channel's score is read on its own scale:

- semantic: the cosine on the 0..1 match scale (0.5 = orthogonal);
- lexical, entities: the lexical similarity on 0..1 (`domain/lexical.py`);
- lexical, passages: `bm25_coverage`, the chunk's BM25 over `bm25_ceiling`
  of the query (the sum of its terms' idf, once per repeat, which no chunk reaches:
  a term's share tends to its idf as its count grows), so it lies on 0..1
  and says how much of the query's weight the chunk matches.

A `ChannelCalibration` maps one channel's score through a logistic fitted on
the fit half of the quality corpora (ADR 0170): 0.5 at `midpoint`, the
channel score at which a best answer is as likely to come from a query with
a match as from one without (at equal priors). The surer channel's logit
(a channel that did not rank the result has no say) then goes through a
second logistic, fitted on whether first results were right (ADR 0390), so
0.7 means right about 7 times in 10. Both maps rise with each channel's
score, so the most confident candidate is a channel's best.
`min_confidence=c` decides per answer (`nothing_matches`): the answer is
empty unless some candidate's confidence reaches `c`. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from redstring.domain.bm25 import LexicalCandidates
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.validation import real_number


@dataclass(frozen=True)
class ChannelCalibration:
    """One channel's score onto confidence: `1 / (1 + exp(-slope * (score - midpoint)))`.

    Raises `InvalidArgumentError` for a non-finite midpoint or a slope that is not a
    positive finite number (confidence must rise with the score).
    """

    midpoint: float
    slope: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.midpoint):
            raise InvalidArgumentError(
                name="midpoint",
                value=self.midpoint,
                requirement="finite",
                message=f"midpoint must be finite, got {self.midpoint}",
            )
        if not (math.isfinite(self.slope) and self.slope > 0.0):
            raise InvalidArgumentError(
                name="slope",
                value=self.slope,
                requirement="a positive finite number",
                message=f"slope must be a positive finite number, got {self.slope}",
            )

    def confidence(self, score: float) -> float:
        """The confidence of a result this channel scored `score`, on 0..1."""
        return 0.5 * (1.0 + math.tanh(0.5 * self.slope * (score - self.midpoint)))

    def score_at(self, confidence: float) -> float:
        """The channel score whose confidence is `confidence` (in (0, 1)): the inverse map."""
        if not 0.0 < confidence < 1.0:
            raise InvalidArgumentError(
                name="confidence",
                value=confidence,
                requirement="strictly between 0 and 1",
                message=f"confidence must lie strictly between 0 and 1, got {confidence}",
            )
        return self.midpoint + math.log(confidence / (1.0 - confidence)) / self.slope


@dataclass(frozen=True)
class ConfidenceCalibration:
    """Both channels' maps, then the chance that a result so evidenced is right.

    `evidence` is the surer channel's logit, `slope * (score - midpoint)`
    (its log-odds of "this query has a match"); `confidence` is
    `1 / (1 + exp(-(intercept + scale * evidence)))`, a logistic (Platt) map
    fitted on whether first results were right. The defaults (0, 1) leave the
    surer channel's own map. Raises `InvalidArgumentError` for a non-finite
    `intercept` or a `scale` that is not a positive finite number (confidence
    must rise with each channel's score).
    """

    semantic: ChannelCalibration
    lexical: ChannelCalibration
    intercept: float = 0.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        if not math.isfinite(self.intercept):
            raise InvalidArgumentError(
                name="intercept",
                value=self.intercept,
                requirement="finite",
                message=f"intercept must be finite, got {self.intercept}",
            )
        if not (math.isfinite(self.scale) and self.scale > 0.0):
            raise InvalidArgumentError(
                name="scale",
                value=self.scale,
                requirement="a positive finite number",
                message=f"scale must be a positive finite number, got {self.scale}",
            )

    def evidence(self, *, semantic: float | None, lexical: float | None) -> float:
        """The surer channel's logit among those that ranked the result (not `None`).

        `-inf` when neither did. `lexical` is the lexical similarity for
        entities and `bm25_coverage` for passages.
        """
        found = [
            calibration.slope * (score - calibration.midpoint)
            for calibration, score in ((self.semantic, semantic), (self.lexical, lexical))
            if score is not None
        ]
        return max(found, default=-math.inf)

    def confidence(self, *, semantic: float | None, lexical: float | None) -> float:
        """The chance that a result with these channel scores is right, on 0..1.

        A result neither channel ranked has confidence 0.0.
        """
        z = self.evidence(semantic=semantic, lexical=lexical)
        if z == -math.inf:
            return 0.0
        logit = self.intercept + self.scale * z
        return 0.5 * (1.0 + math.tanh(0.5 * logit))


# The channel maps: fitted on the fit half only by `uv run python -m
# scripts.fit_confidence` (local MiniLM model; names + world corpora and the
# no-match queries for entities, element passages for passages; ADR 0170).
# `intercept` and `scale`: fitted on the fit half's first HYBRID results by
# `uv run python -m scripts.calibration --fit` (recorded answers; ADR 0390; entities
# refitted in ADR 0430, 0435, 0460 and 0605, passages in ADR 0440 and 0495).
# Holdout figures: docs/benchmarks.md ("Confidence and nothing matches").
#: Entities (`Retriever`): semantic score and lexical similarity.
ENTITY_CONFIDENCE = ConfidenceCalibration(
    semantic=ChannelCalibration(midpoint=0.739, slope=14.2),
    lexical=ChannelCalibration(midpoint=0.547, slope=8.4),
    intercept=-0.803,
    scale=1.028,
)
#: Passages (`ChunkRetriever`): semantic score and `bm25_coverage`.
PASSAGE_CONFIDENCE = ConfidenceCalibration(
    semantic=ChannelCalibration(midpoint=0.645, slope=37.5),
    lexical=ChannelCalibration(midpoint=0.098, slope=14.6),
    intercept=-1.543,
    scale=0.286,
)
#: What `min_confidence` is unless given (ADR 0170): `None`, no threshold.
DEFAULT_MIN_CONFIDENCE: float | None = None
#: The threshold suggested to a caller (an agent's tool) that prefers an empty answer to
#: an unrelated one; the CI floors hold its figures. 0.5 before ADR 0390 rescaled
#: confidence to the chance of being right, where that threshold reads 0.163 for entities
#: and 0.125 for passages; 0.15 lies between.
SUGGESTED_MIN_CONFIDENCE = 0.15


def require_min_confidence(value: object, *, name: str = "min_confidence") -> float | None:
    """`value` as a threshold: `None` (no threshold) or a number in [0, 1].

    Raises `InvalidArgumentError` naming `name` for anything else (a bool,
    a string, NaN, a number outside 0..1).
    """
    if value is None:
        return None
    threshold = real_number(value)
    if threshold is None or not 0.0 <= threshold <= 1.0:
        raise InvalidArgumentError(
            name=name,
            value=value,
            requirement="None (no threshold) or a number from 0 to 1, "
            "such as 0.5 (results more likely right than not)",
        )
    return threshold


def require_calibration(value: object, *, default: str) -> ConfidenceCalibration:
    """`value` as a retriever's calibration; `InvalidArgumentError` naming `confidence` otherwise.

    `default` names the calibration the retriever uses unless given one.
    """
    if not isinstance(value, ConfidenceCalibration):
        raise InvalidArgumentError(
            name="confidence",
            value=value,
            requirement=f"a ConfidenceCalibration (redstring.fusion), such as {default} or "
            "one refitted for another model with python -m scripts.fit_confidence",
        )
    return value


def nothing_matches(confidences: Iterable[float], min_confidence: float | None) -> bool:
    """Whether an answer is to be empty: no candidate reaches `min_confidence`.

    `confidences` are every candidate's, before any cut at `k`; `None` never
    empties. The whole answer stands or falls together (ADR 0170: dropping
    single results below the threshold lost twice the hit@10 for the same
    share of no-match queries answered empty).
    """
    if min_confidence is None:
        return False
    return max(confidences, default=0.0) < min_confidence


def bm25_ceiling(found: LexicalCandidates) -> float:
    """The sum of `idf` over the query's terms, once per repeat: a bound no chunk's BM25 reaches."""
    return sum(found.term_weights())


def bm25_coverage(score: float, ceiling: float) -> float:
    """`score / ceiling` on 0..1: the share of the query's BM25 weight a chunk matches.

    A `ceiling` of 0 (no terms) gives 0. Raises `ValueError` for a negative
    score or one above the ceiling, which BM25 cannot produce.
    """
    if score < 0.0 or score > ceiling:
        raise ValueError(f"a BM25 score lies in [0, ceiling], got {score} with {ceiling}")
    return score / ceiling if ceiling > 0.0 else 0.0
