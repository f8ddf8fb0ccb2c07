"""The confidence that a result is right: each channel's map (ADR 0170), then Platt's (ADR 0390)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.bm25 import CorpusStats, LexicalCandidate, LexicalCandidates, idf, rank_chunks
from redstring.domain.confidence import (
    DEFAULT_MIN_CONFIDENCE,
    ENTITY_CONFIDENCE,
    PASSAGE_CONFIDENCE,
    ChannelCalibration,
    ConfidenceCalibration,
    bm25_ceiling,
    bm25_coverage,
    nothing_matches,
    require_min_confidence,
)
from redstring.domain.errors import InvalidArgumentError

scores = st.floats(min_value=0.0, max_value=1.0)
slopes = st.floats(min_value=0.5, max_value=60.0)


@given(midpoint=scores, slope=slopes)
def test_confidence_is_one_half_at_the_midpoint(midpoint: float, slope: float) -> None:
    assert ChannelCalibration(midpoint, slope).confidence(midpoint) == pytest.approx(0.5)


@given(midpoint=scores, slope=slopes, a=scores, b=scores)
def test_confidence_rises_with_the_channel_score(
    midpoint: float, slope: float, a: float, b: float
) -> None:
    calibration = ChannelCalibration(midpoint, slope)
    low, high = sorted((a, b))
    assert 0.0 <= calibration.confidence(low) <= calibration.confidence(high) <= 1.0


@given(midpoint=scores, slope=slopes, wanted=st.floats(min_value=0.01, max_value=0.99))
def test_score_at_is_the_inverse_of_confidence(
    midpoint: float, slope: float, wanted: float
) -> None:
    calibration = ChannelCalibration(midpoint, slope)
    assert calibration.confidence(calibration.score_at(wanted)) == pytest.approx(wanted)


def test_the_score_at_confidence_one_half_is_the_midpoint_a_threshold_on_the_channel_scale() -> (
    None
):
    calibration = ChannelCalibration(midpoint=0.8, slope=25.0)
    assert calibration.score_at(0.5) == pytest.approx(0.8)
    assert calibration.confidence(0.79) < 0.5 < calibration.confidence(0.81)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.1, 1.5])
def test_score_at_refuses_a_confidence_no_score_reaches(confidence: float) -> None:
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        ChannelCalibration(0.5, 10.0).score_at(confidence)


@pytest.mark.parametrize(
    ("midpoint", "slope", "message"),
    [
        (0.5, 0.0, "slope"),
        (0.5, -3.0, "slope"),
        (0.5, math.inf, "slope"),
        (math.nan, 1.0, "midpoint"),
    ],
)
def test_a_calibration_that_does_not_rise_is_refused(
    midpoint: float, slope: float, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        ChannelCalibration(midpoint, slope)


SURE = ConfidenceCalibration(
    semantic=ChannelCalibration(midpoint=0.7, slope=20.0),
    lexical=ChannelCalibration(midpoint=0.9, slope=20.0),
)


@given(semantic=scores, lexical=scores)
def test_a_result_is_as_confident_as_its_surer_channel(semantic: float, lexical: float) -> None:
    both = SURE.confidence(semantic=semantic, lexical=lexical)
    assert both == max(SURE.semantic.confidence(semantic), SURE.lexical.confidence(lexical))


def test_a_channel_that_did_not_rank_has_no_say_and_none_is_not_zero() -> None:
    # A calibration whose confidence at score 0 is far from 0 tells None from 0.0 apart.
    generous = ConfidenceCalibration(
        semantic=ChannelCalibration(midpoint=0.0, slope=1.0),
        lexical=ChannelCalibration(midpoint=0.0, slope=1.0),
    )
    assert generous.confidence(semantic=0.0, lexical=None) == pytest.approx(0.5)
    assert generous.confidence(semantic=None, lexical=0.0) == pytest.approx(0.5)
    assert generous.confidence(semantic=None, lexical=None) == 0.0
    assert SURE.confidence(semantic=None, lexical=1.0) == SURE.lexical.confidence(1.0)
    assert SURE.confidence(semantic=1.0, lexical=None) == SURE.semantic.confidence(1.0)


def test_orthogonal_vectors_read_as_wrong_and_an_exact_name_or_the_whole_query_as_right() -> None:
    # 0.5 is the semantic scale's "orthogonal" (no evidence at all).
    assert ENTITY_CONFIDENCE.confidence(semantic=0.5, lexical=None) < 0.05
    assert PASSAGE_CONFIDENCE.confidence(semantic=0.5, lexical=None) < 0.05
    assert ENTITY_CONFIDENCE.confidence(semantic=None, lexical=1.0) > 0.9
    assert PASSAGE_CONFIDENCE.confidence(semantic=None, lexical=1.0) > 0.9
    # Half the query's BM25 weight is right about half the time, no longer "surely related".
    assert 0.4 < PASSAGE_CONFIDENCE.confidence(semantic=None, lexical=0.5) < 0.7


PLATT = ConfidenceCalibration(
    semantic=SURE.semantic, lexical=SURE.lexical, intercept=-1.5, scale=0.5
)


@given(semantic=scores, lexical=scores)
def test_the_platt_map_reads_the_surer_channels_logit(semantic: float, lexical: float) -> None:
    z = PLATT.evidence(semantic=semantic, lexical=lexical)
    assert z == max(20.0 * (semantic - 0.7), 20.0 * (lexical - 0.9))
    expected = 1.0 / (1.0 + math.exp(-(-1.5 + 0.5 * z)))
    assert PLATT.confidence(semantic=semantic, lexical=lexical) == pytest.approx(expected)


@given(low=scores, high=scores)
def test_the_platt_map_rises_with_each_channels_score(low: float, high: float) -> None:
    low, high = sorted((low, high))
    for channel in ("semantic", "lexical"):
        other = "lexical" if channel == "semantic" else "semantic"
        below = PLATT.confidence(**{channel: low, other: None})
        assert below <= PLATT.confidence(**{channel: high, other: None})


def test_without_a_platt_map_a_result_has_its_surer_channels_confidence() -> None:
    assert (SURE.intercept, SURE.scale) == (0.0, 1.0)
    assert PLATT.confidence(semantic=None, lexical=None) == 0.0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("intercept", math.nan),
        ("intercept", math.inf),
        ("scale", 0.0),
        ("scale", -1.0),
        ("scale", math.nan),
    ],
)
def test_a_platt_map_that_is_not_finite_or_does_not_rise_is_refused(
    field: str, value: float
) -> None:
    with pytest.raises(InvalidArgumentError, match=field):
        ConfidenceCalibration(semantic=SURE.semantic, lexical=SURE.lexical, **{field: value})


@pytest.mark.parametrize("value", [None, 0, 1, 0.0, 0.5, 1.0])
def test_min_confidence_accepts_none_or_a_number_from_0_to_1(value: float | None) -> None:
    got = require_min_confidence(value)
    assert got == value
    assert got is None or isinstance(got, float)


@pytest.mark.parametrize("value", [True, False, "0.5", math.nan, -0.01, 1.01, math.inf, [0.5]])
def test_min_confidence_refuses_anything_else_naming_the_argument(value: object) -> None:
    with pytest.raises(InvalidArgumentError, match=r"min_confidence=.*a number from 0 to 1"):
        require_min_confidence(value)


def test_an_answer_is_empty_only_when_no_candidate_reaches_the_threshold() -> None:
    assert nothing_matches([0.2, 0.4], 0.5)
    assert not nothing_matches([0.2, 0.4, 0.6], 0.5)
    assert not nothing_matches([0.5], 0.5)  # reaching it is enough
    assert not nothing_matches([0.0, 0.1], None)
    assert nothing_matches([], 0.5)


@given(st.lists(scores, max_size=5))
def test_by_default_no_answer_is_emptied_however_unsure(confidences: list[float]) -> None:
    assert not nothing_matches([*confidences, 0.0], DEFAULT_MIN_CONFIDENCE)


def test_the_bm25_ceiling_is_the_sum_of_the_query_terms_idf_once_per_repeat() -> None:
    stats = CorpusStats(
        document_count=10, average_length=3.0, document_frequencies={"a": 0, "b": 3, "c": 10}
    )
    found = LexicalCandidates.empty(["a", "b", "c"], stats)
    assert bm25_ceiling(found) == pytest.approx(idf(0, 10) + idf(3, 10) + idf(10, 10))
    twice = found.asked_by(["b", "a", "b", "c"])
    assert bm25_ceiling(twice) == pytest.approx(idf(0, 10) + 2 * idf(3, 10) + idf(10, 10))
    assert bm25_ceiling(LexicalCandidates.empty([], stats)) == 0.0


def test_coverage_is_the_share_of_the_ceiling_and_refuses_what_bm25_cannot_produce() -> None:
    assert bm25_coverage(1.5, 3.0) == pytest.approx(0.5)
    assert bm25_coverage(0.0, 0.0) == 0.0
    for score, ceiling in ((-0.1, 3.0), (3.1, 3.0)):
        with pytest.raises(ValueError, match="BM25 score lies in"):
            bm25_coverage(score, ceiling)


@given(
    st.lists(
        st.tuples(
            st.integers(min_value=1, max_value=40),
            st.lists(st.integers(0, 9), min_size=3, max_size=3),
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(min_value=0, max_value=30),
)
def test_no_chunk_reaches_the_ceiling(rows: list[tuple[int, list[int]]], extra: int) -> None:
    terms = ("alpha", "beta", "gamma")
    candidates = [
        LexicalCandidate(chunk_id=f"c{n}", length=length + sum(tf),
                         term_frequencies=dict(zip(terms, tf, strict=True)))
        for n, (length, tf) in enumerate(rows)
    ]  # fmt: skip
    count = len(rows) + extra
    frequencies = {t: sum(1 for _, tf in rows if tf[j] > 0) for j, t in enumerate(terms)}
    total = sum(c.length for c in candidates) + 5 * extra
    stats = CorpusStats.from_totals(
        document_count=count, total_length=total, document_frequencies=frequencies
    )
    found = LexicalCandidates.of(stats, candidates, terms=terms).asked_by(
        ["alpha", "gamma", "alpha"][: 1 + extra % 3]
    )
    ceiling = bm25_ceiling(found)
    for _, score in rank_chunks(found, k=len(rows)):
        assert 0.0 <= bm25_coverage(score, ceiling) < 1.0
