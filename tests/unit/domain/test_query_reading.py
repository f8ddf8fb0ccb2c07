"""How a query reads and how sure a channel is: the features `AdaptiveFusion` weighs."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.query import NormalizedQuery
from redstring.domain.query_reading import (
    FEATURE_NAMES,
    LENGTH_CAP,
    ChannelConfidence,
    QueryReading,
    channel_confidence,
    fusion_features,
    read_query,
)


def test_a_name_reads_as_a_name() -> None:
    assert read_query("Kirra White") == QueryReading(
        words=2,
        function_share=0.0,
        capital_share=1.0,
        upper_share=0.2,
        non_latin_share=0.0,
        punctuated=False,
    )


def test_a_description_reads_as_prose() -> None:
    reading = read_query("the currency of Japan")
    assert reading.words == 4
    assert reading.function_share == pytest.approx(0.5)  # "the", "of"
    assert reading.capital_share == pytest.approx(0.25)


@pytest.mark.parametrize(
    ("query", "share"),
    [("Москва", 1.0), ("東京", 1.0), ("Zürich", 0.0), ("Łódź", 0.0), ("Tokyo 東京", 2 / 7)],
)
def test_letters_outside_the_latin_script_are_counted(query: str, share: float) -> None:
    assert read_query(query).non_latin_share == pytest.approx(share)


@pytest.mark.parametrize(
    ("query", "share"),
    [("GBP", 1.0), ("kWh", 1 / 3), ("Smith", 0.2), ("route 66", 0.0), ("東京 GB", 1.0)],
)
def test_the_share_of_upper_case_letters_counts_cased_letters_only(
    query: str, share: float
) -> None:
    assert read_query(query).upper_share == pytest.approx(share)


def test_clause_punctuation_is_read() -> None:
    assert read_query("Lovelace, Ada").punctuated
    assert not read_query("A.B. O'Brien-Smith").punctuated  # name punctuation


@pytest.mark.parametrize("query", ["", "   ", "?!", "..."])
def test_a_query_without_words_reads_as_zeros_without_raising(query: str) -> None:
    reading = read_query(query)
    assert (reading.words, reading.function_share, reading.capital_share) == (0, 0.0, 0.0)
    assert (reading.upper_share, reading.non_latin_share) == (0.0, 0.0)


def test_channel_confidence_is_the_top_score_and_the_gap_to_the_second() -> None:
    assert channel_confidence([]) == ChannelConfidence(top=0.0, gap=0.0)
    assert channel_confidence([("a", 0.8)]) == ChannelConfidence(top=0.8, gap=0.0)
    assert channel_confidence([("a", 0.8), ("b", 0.5), ("c", 0.1)]) == ChannelConfidence(
        top=0.8, gap=pytest.approx(0.3)
    )


def test_the_features_name_each_entry_and_cap_the_length() -> None:
    long_query = " ".join(["word"] * (LENGTH_CAP * 2))
    features = dict(
        zip(
            FEATURE_NAMES,
            fusion_features(long_query, [("a", 0.9), ("b", 0.6)], [("a", 0.7)]),
            strict=True,
        )
    )
    assert features["bias"] == 1.0
    assert features["length"] == 1.0
    assert features["semantic_top"] == 0.9
    assert features["semantic_gap"] == pytest.approx(0.3)
    assert features["lexical_top"] == 0.7
    assert features["lexical_gap"] == 0.0
    assert features["agree"] == 1.0
    assert features["short"] == features["short_lexical_top"] == 0.0


def test_a_code_reads_as_short_and_carries_the_lexical_top_score() -> None:
    """ADR 0205: a code is told apart from a name, and its lexical top read on its own."""
    short, top = FEATURE_NAMES.index("short"), FEATURE_NAMES.index("short_lexical_top")
    code = fusion_features("GBP", [("a", 0.7)], [("b", 0.6), ("c", 0.3)])
    assert (code[short], code[top]) == (1.0, 0.6)
    assert fusion_features(NormalizedQuery.of("hr"), [], [("b", 0.4)])[top] == 0.4
    assert fusion_features("hr", [], [])[top] == 0.0
    name = fusion_features("Gbar", [("a", 0.7)], [("b", 0.6)])
    assert (name[short], name[top]) == (0.0, 0.0)
    assert name[FEATURE_NAMES.index("lexical_top")] == 0.6


def test_agreement_needs_both_channels_and_the_same_first_id() -> None:
    agree = FEATURE_NAMES.index("agree")
    assert fusion_features("q", [("a", 0.9)], [("b", 0.9)])[agree] == 0.0
    assert fusion_features("q", [("a", 0.9)], [])[agree] == 0.0
    assert fusion_features("q", [], [])[agree] == 0.0


@given(
    st.text(max_size=40),
    st.lists(st.floats(0.0, 1.0), max_size=5).map(lambda v: sorted(v, reverse=True)),
    st.lists(st.floats(0.0, 1.0), max_size=5).map(lambda v: sorted(v, reverse=True)),
)
def test_every_feature_is_on_zero_to_one_for_any_text_and_scores(
    query: str, semantic: list[float], lexical: list[float]
) -> None:
    features = fusion_features(
        query, list(enumerate(semantic)), [(n + 10, s) for n, s in enumerate(lexical)]
    )
    assert len(features) == len(FEATURE_NAMES)
    assert all(0.0 <= value <= 1.0 for value in features)


@pytest.mark.parametrize("text", ["Lovelace, Ada!", "the currency of Japan", "東京", "  "])
def test_a_normalized_query_reads_as_its_text(text: str) -> None:
    """The retriever hands its `NormalizedQuery` over; it must read as the raw text does."""
    assert read_query(NormalizedQuery.of(text)) == read_query(text)
