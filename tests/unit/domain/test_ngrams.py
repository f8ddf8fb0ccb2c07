"""Trigram keys, their weights, rare-first reading and the trigram similarity (ADR 0115)."""

from __future__ import annotations

import math
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.ids import EntityId
from redstring.domain.lexical import NGRAM_MIX, lexical_score, lexical_scores, name_similarity
from redstring.domain.ngrams import (
    NGRAM_DF_CAP,
    NGRAM_MIN_SHARE,
    ngram_keys_of_form,
    ngram_similarity,
    ngram_total,
    ngram_weight,
    ngram_weights,
    rank_by_ngrams,
    rarest_first,
)
from redstring.domain.normalization import matching_form
from redstring.domain.query import NormalizedQuery
from tests.factories import make_entity


def ids(*numbers: int) -> list[EntityId]:
    return [EntityId(UUID(int=n)) for n in numbers]


def grams(text: str) -> frozenset[str]:
    return ngram_keys_of_form(matching_form(text))


def test_a_form_is_padded_once_each_side_and_cut_into_distinct_trigrams() -> None:
    assert grams("Ada") == {"g: ad", "g:ada", "g:da "}
    assert grams("ab") == {"g: ab", "g:ab "}
    assert grams("a") == {"g: a "}
    assert grams(" ,. ") == frozenset()
    assert grams("aaaa") == {"g: aa", "g:aaa", "g:aa "}  # a repeat counts once
    assert "g:a l" in grams("Ada Lovelace")  # across the token boundary


def test_a_rarer_trigram_weighs_more_and_the_count_is_clamped() -> None:
    assert ngram_weight(0) == ngram_weight(1) == pytest.approx(math.log1p(NGRAM_DF_CAP))
    assert ngram_weight(1) > ngram_weight(10) > ngram_weight(100) > ngram_weight(NGRAM_DF_CAP)
    assert (
        ngram_weight(NGRAM_DF_CAP) == ngram_weight(10 * NGRAM_DF_CAP) == pytest.approx(math.log(2))
    )
    assert ngram_weights({"g:abc": 1, "g:xyz": NGRAM_DF_CAP}) == {
        "g:abc": ngram_weight(1),
        "g:xyz": ngram_weight(NGRAM_DF_CAP),
    }


def test_postings_are_read_rarest_first_within_the_budget() -> None:
    counts = {"g:c": 900, "g:a": 5, "g:b": 5, "g:d": 0, "g:e": 2000}
    assert rarest_first(counts, budget=1000) == ["g:a", "g:b", "g:c"]
    assert rarest_first(counts, budget=10) == ["g:a", "g:b"]
    assert rarest_first({"g:e": 2000}, budget=10) == ["g:e"]  # the rarest is always read
    assert rarest_first({"g:d": 0}, budget=10) == []


def test_candidates_rank_by_summed_weight_then_ascending_id() -> None:
    one, two, three, four = ids(1, 2, 3, 4)
    weights = {"g:rar": 5.0, "g:com": 1.0, "g:mid": 2.0, "g:unread": 0.0}
    postings = {"g:com": [one, two, three, three], "g:rar": [four], "g:mid": [two, three]}
    assert rank_by_ngrams(postings, weights, 10) == [four, two, three]  # one: 1.0 < 0.3 * 8
    assert rank_by_ngrams(postings, weights, 1) == [four]
    assert rank_by_ngrams(postings, weights, 0) == []
    assert rank_by_ngrams({}, weights, 5) == []


def test_a_candidate_must_hold_the_minimum_share_of_the_query_weight() -> None:
    [one] = ids(1)
    weights = {"g:aaa": 1.0, "g:bbb": 1.0, "g:ccc": 1.0, "g:ddd": 1.0}
    assert 0.25 < NGRAM_MIN_SHARE <= 0.5  # one of four trigrams is too few, two are enough
    assert rank_by_ngrams({"g:aaa": [one]}, weights, 5) == []
    assert rank_by_ngrams({"g:aaa": [one], "g:bbb": [one]}, weights, 5) == [one]


def _ranked_one_id_at_a_time(
    postings: dict[str, list[int]], weights: dict[str, float], limit: int
) -> list[int]:
    """The ranking as its contract reads: each id's weights added key by key, in order."""
    floor = NGRAM_MIN_SHARE * sum(weights.values())
    totals: dict[int, float] = {}
    for key, listed in postings.items():
        for number in set(listed):
            totals[number] = totals.get(number, 0.0) + weights[key]
    held = sorted((-total, number) for number, total in totals.items() if total >= floor)
    return [number for _, number in held[: max(limit, 0)]]


@given(
    postings=st.dictionaries(
        st.sampled_from([f"g:{c}{c}{c}" for c in "abcdef"]),
        st.lists(st.integers(0, 40), max_size=30),
        max_size=6,
    ),
    # Few weights, one the sum of two others: ids under other keys tie on their totals.
    drawn=st.lists(st.sampled_from([0.5, 1.0, 1.5, 0.1, 0.2, 0.30000000000000004]), min_size=6),
    limit=st.integers(-1, 45),
    high=st.booleans(),
)
def test_ranking_by_groups_of_ids_equals_summing_one_id_at_a_time(
    postings: dict[str, list[int]], drawn: list[float], limit: int, high: bool
) -> None:
    weights = {f"g:{c}{c}{c}": weight for c, weight in zip("abcdef", drawn, strict=False)}
    if high:  # ids as far apart as uuids' numbers, differing in their first bits
        postings = {key: [n << 122 | n for n in listed] for key, listed in postings.items()}
    assert rank_by_ngrams(postings, weights, limit) == _ranked_one_id_at_a_time(
        postings, weights, limit
    )


def test_ids_of_two_key_sets_summing_alike_are_ordered_by_id_together() -> None:
    weights = {"g:aaa": 1.0, "g:bbb": 2.0, "g:ccc": 3.0}
    postings = {"g:aaa": [9, 4], "g:bbb": [9, 4, 1], "g:ccc": [5, 2]}  # 9, 4 and 5, 2: 3.0 each
    assert rank_by_ngrams(postings, weights, 10) == [2, 4, 5, 9, 1]
    assert rank_by_ngrams(postings, weights, 3) == [2, 4, 5]


def test_the_similarity_is_the_harmonic_mean_of_weighted_recall_and_plain_precision() -> None:
    query, name = grams("Ada"), grams("Adam")  # 3 and 4 trigrams, 2 shared
    assert ngram_similarity(query, name, None) == pytest.approx(
        2 * (2 / 3) * (2 / 4) / (2 / 3 + 2 / 4)
    )
    weights = {"g: ad": 1.0, "g:ada": 1.0, "g:da ": 8.0}  # the unshared one is rare
    recall = 2 / 10
    expected = 2 * recall * (2 / 4) / (recall + 2 / 4)
    assert ngram_similarity(query, name, weights) == pytest.approx(expected)
    assert ngram_similarity(query, query, weights) == 1.0
    assert ngram_similarity(query, grams("Zebra"), weights) == 0.0
    assert ngram_similarity(frozenset(), name, None) == 0.0


def test_a_shared_rare_trigram_counts_more_than_a_shared_common_one() -> None:
    query = NormalizedQuery.of("Tchaikovsky")
    common_shared = {key: 0.7 for key in query.ngrams}
    rare_shared = dict(common_shared)
    for key in grams("Chaikovsky") & query.ngrams:
        rare_shared[key] = 6.0
    form = matching_form("Chaikovsky")
    assert name_similarity(query, form, rare_shared) > name_similarity(query, form, common_shared)


def test_a_name_sharing_characters_but_no_whole_token_scores_through_the_trigrams() -> None:
    query = NormalizedQuery.of("Chaikovskiy")
    target = make_entity("Tchaikovsky")
    trigram = ngram_similarity(query.ngrams, grams("Tchaikovsky"), None)
    assert trigram > 0.5
    unrelated = lexical_score(query, make_entity("Charlemagne"))
    assert lexical_score(query, target) > unrelated
    assert NGRAM_MIX > 0.0  # the trigram reading takes part in the score


@given(query=st.text(max_size=20), name=st.text(max_size=20))
def test_the_similarity_stays_within_zero_and_one(query: str, name: str) -> None:
    weights = {key: float(len(key)) for key in grams(query)}
    for given_weights in (None, weights):
        assert 0.0 <= ngram_similarity(grams(query), grams(name), given_weights) <= 1.0


@given(query=st.text(max_size=20), name=st.text(max_size=20))
def test_a_query_total_read_once_gives_the_same_similarity(query: str, name: str) -> None:
    weights = {key: float(len(key)) for key in grams(query) | grams(name)}
    for given_weights in (None, weights, {}):
        total = ngram_total(grams(query), given_weights)
        alone = ngram_similarity(grams(query), grams(name), given_weights)
        assert ngram_similarity(grams(query), grams(name), given_weights, total) == alone


@given(
    query=st.text(max_size=20),
    names=st.lists(
        st.tuples(st.text(min_size=1, max_size=20).filter(str.strip), st.text(max_size=20)),
        max_size=5,
    ),
)
def test_scoring_entities_together_scores_each_as_alone(
    query: str, names: list[tuple[str, str]]
) -> None:
    normalized = NormalizedQuery.of(query)
    entities = [make_entity(name, properties={"note": note}) for name, note in names]
    weights = {key: float(len(key)) for key in normalized.ngrams}
    for given_weights in (None, weights):
        together = lexical_scores(normalized, entities, given_weights)
        alone = [lexical_score(normalized, entity, given_weights) for entity in entities]
        assert together == alone
        assert lexical_scores(normalized, entities[::-1], given_weights) == together[::-1]


@given(text=st.text(max_size=30))
def test_a_normalised_query_holds_the_form_its_tokens_and_trigrams(text: str) -> None:
    query = NormalizedQuery.of(text)
    assert query.form == matching_form(text)
    assert query.tokens == tuple(query.form.split())
    assert query.ngrams == ngram_keys_of_form(query.form)


def test_only_a_short_all_capitals_query_has_an_acronym() -> None:
    assert NormalizedQuery.of("UCI Corp").acronym == "uci"
    assert NormalizedQuery.of("uci corp").acronym is None
    assert NormalizedQuery.of("UCIXABC").acronym is None
    assert NormalizedQuery.of("UCI IBM").acronym is None
