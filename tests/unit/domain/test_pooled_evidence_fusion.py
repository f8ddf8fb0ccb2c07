"""Rank fusion picks the candidates, their evidence orders them, exact words first (ADR 0365)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from uuid import UUID

import pytest
from hypothesis import given
from hypothesis import strategies as st

from redstring.domain.errors import InvalidArgumentError
from redstring.domain.fusion import (
    DEFAULT_FUSION,
    LONG_LEXICAL_WEIGHT,
    POOLED_LEXICAL_FLOOR,
    POOLED_LEXICAL_WEIGHT,
    POOLED_POWER,
    UNSURE_COSINE,
    UNSURE_WORDS,
    EvidenceFusion,
    IdT,
    PooledEvidenceFusion,
    ReciprocalRankFusion,
    reciprocal_rank_fusion,
    weighted_evidence,
)
from redstring.domain.fusion_dispatch import fusion_label
from redstring.domain.lexical import HOLDS_EVERY_WORD, WordCover
from redstring.domain.query import NormalizedQuery

IDS = [UUID(int=n) for n in range(1, 9)]
scores = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
channel = st.lists(st.tuples(st.sampled_from(IDS), scores), max_size=6, unique_by=lambda p: p[0])
ranked = channel.map(lambda pairs: sorted(pairs, key=lambda pair: (-pair[1], str(pair[0]))))
FUSION = PooledEvidenceFusion()


def ids(fused: list[tuple[UUID, float]]) -> list[UUID]:
    return [item for item, _ in fused]


def test_the_default_is_the_pooled_evidence_with_the_chosen_numbers() -> None:
    assert (
        PooledEvidenceFusion(
            lexical_floor=POOLED_LEXICAL_FLOOR,
            lexical_weight=POOLED_LEXICAL_WEIGHT,
            power=POOLED_POWER,
        )
        == DEFAULT_FUSION
    )
    assert (POOLED_LEXICAL_FLOOR, POOLED_LEXICAL_WEIGHT, POOLED_POWER) == (0.45, 0.85, 2.0)
    assert (UNSURE_WORDS, UNSURE_COSINE) == (3, 0.5)
    assert LONG_LEXICAL_WEIGHT == 0.6
    assert DEFAULT_FUSION.long_words == UNSURE_WORDS  # one word count for both switches


@given(ranked, ranked)
def test_every_ranked_id_comes_once_and_the_scores_fall_as_the_order_goes(
    semantic: list[tuple[UUID, float]], lexical: list[tuple[UUID, float]]
) -> None:
    fused = FUSION.fuse(semantic, lexical)
    assert sorted(ids(fused)) == sorted({i for i, _ in semantic} | {i for i, _ in lexical})
    values = [score for _, score in fused]
    assert values == sorted(values, reverse=True)


@given(ranked, ranked)
def test_an_id_holding_every_query_word_comes_before_every_other(
    semantic: list[tuple[UUID, float]], lexical: list[tuple[UUID, float]]
) -> None:
    fused = ids(FUSION.fuse(semantic, lexical))
    holders = {i for i, s in lexical if s >= HOLDS_EVERY_WORD}
    assert set(fused[: len(holders)]) == holders


SHALLOW = PooledEvidenceFusion(depth=3)


@given(ranked, ranked)
def test_the_rank_fusion_of_the_lexical_ids_above_the_floor_picks_the_first_depth(
    semantic: list[tuple[UUID, float]], lexical: list[tuple[UUID, float]]
) -> None:
    """After the holders come exactly the first `depth` of the pool, by their evidence;
    the pool and the evidence read each channel's first `depth` only."""
    read, lexical_read = semantic[: SHALLOW.depth], lexical[: SHALLOW.depth]
    holders = {i for i, s in lexical if s >= HOLDS_EVERY_WORD}
    above = [i for i, s in lexical_read if s > POOLED_LEXICAL_FLOOR]
    pool = [i for i, _ in reciprocal_rank_fusion([[i for i, _ in read], above])]
    head = [i for i in pool[: SHALLOW.depth] if i not in holders]
    fused = SHALLOW.fuse(semantic, lexical)
    assert set(ids(fused)[len(holders) : len(holders) + len(head)]) == set(head)
    evidence = dict(
        weighted_evidence(
            read,
            lexical_read,
            lexical_weight=POOLED_LEXICAL_WEIGHT,
            lexical_floor=POOLED_LEXICAL_FLOOR,
            power=POOLED_POWER,
        )
    )
    for item, score in fused[len(holders) : len(holders) + len(head)]:
        assert score == pytest.approx(4.0 + evidence[item])


@given(ranked, ranked, st.integers(min_value=0, max_value=8))
def test_reading_the_semantic_channel_deeper_only_adds_to_the_end(
    semantic: list[tuple[UUID, float]], lexical: list[tuple[UUID, float]], cut: int
) -> None:
    """The fusion of a semantic ranking cut anywhere past `depth` is a prefix of the
    fusion of the whole ranking, up to the first id the cut one ranks past it (ADR 0395)."""
    shown = max(cut, SHALLOW.depth)
    whole = SHALLOW.fuse(semantic, lexical)
    short = SHALLOW.fuse(semantic[:shown], lexical)
    enough = len({i for i, _ in semantic[:shown]} | {i for i, _ in lexical})
    n = min(shown, enough) if len(semantic) > shown else len(whole)
    assert short[:n] == whole[:n]


@given(st.lists(scores, max_size=6), st.booleans())
def test_one_channel_alone_keeps_its_own_order(values: list[float], lexical: bool) -> None:
    """LEXICAL and SEMANTIC modes go through the fusion with the other channel empty."""
    ranking = list(zip(IDS, sorted(values, reverse=True), strict=False))
    fused = FUSION.fuse([], ranking) if lexical else FUSION.fuse(ranking, [])
    assert ids(fused) == [item for item, _ in ranking]


def test_a_look_alike_both_channels_rank_does_not_pass_a_holder_at_depth_one() -> None:
    """At k=1 the pool is one id, the look-alike; the holder still comes first."""
    holder, alike = IDS[0], IDS[1]
    fused = FUSION.fuse([(alike, 0.95)], [(holder, HOLDS_EVERY_WORD), (alike, 0.89)])
    assert ids(fused) == [holder, alike]


def test_lexical_junk_below_the_floor_neither_enters_the_pool_nor_passes_semantic() -> None:
    """A description's lexical candidates score about 0.41 (ADR 0365): no evidence, last."""
    right, junk = IDS[0], IDS[1]
    fused = FUSION.fuse([(right, 0.70)], [(junk, 0.44)])
    assert ids(fused) == [right, junk]


def test_a_query_in_another_script_is_ordered_by_the_lexical_channel() -> None:
    """The model's flat answers to "Мозамбик" outvote a modest lexical match at the default
    numbers; in another script the lexical order holds, the model breaking ties."""
    noise = [(IDS[n], 0.80 - 0.01 * n) for n in range(2, 7)]  # cosines 0.56 to 0.48
    right, tied_later = IDS[0], IDS[1]
    lexical = [(right, 0.40), (tied_later, 0.30)]
    for query in ("Мозамбик", NormalizedQuery.of("Мозамбик")):
        assert ids(FUSION.fuse(noise, lexical, query=query))[:2] == [right, tied_later]
        assert FUSION.numbers_for(query, noise) == (0.0, 1.0)
    assert right not in ids(FUSION.fuse(noise, lexical, query="Mozambik"))[:5]
    off = PooledEvidenceFusion(other_scripts_lexical=False)
    assert ids(off.fuse(noise, lexical, query="Мозамбик")) == ids(FUSION.fuse(noise, lexical))
    assert off.numbers_for("Мозамбик", noise) == (0.45, 0.85)


#: Ten lexical ids, the answer last and lowest; ten semantic ids of junk.
LEXICAL_TEN = [(UUID(int=100 + n), 0.6 - 0.01 * n) for n in range(9)] + [(IDS[0], 0.3)]


def _junk(first_cosine: float) -> list[tuple[UUID, float]]:
    return [(UUID(int=200 + n), (1.0 + first_cosine - 0.01 * n) / 2.0) for n in range(10)]


@pytest.mark.parametrize(
    ("first_cosine", "answer_in_ten"),
    [(UNSURE_COSINE, True), (0.2, True), (UNSURE_COSINE + 0.02, False)],
)
def test_in_another_script_a_model_unsure_of_its_first_lets_the_whole_lexical_ten_lead(
    first_cosine: float, answer_in_ten: bool
) -> None:
    """Rank fusion's first ten would be half the model's junk, leaving the lexical tenth out;
    when the model is unsure too, every lexical id of the first `depth` comes first."""
    order = ids(FUSION.fuse(_junk(first_cosine), LEXICAL_TEN, query="Мозамбик"))
    assert (order[:10] == [i for i, _ in LEXICAL_TEN]) is answer_in_ten
    assert (IDS[0] in order[:10]) is answer_in_ten
    off = PooledEvidenceFusion(other_scripts_lexical=False)
    assert IDS[0] not in ids(off.fuse(_junk(first_cosine), LEXICAL_TEN, query="Мозамбик"))[:10]
    latin = ids(FUSION.fuse(_junk(0.2), LEXICAL_TEN, query="Mozambique Mozambique Mozambique"))
    assert IDS[0] not in latin[:10]  # a Latin query of three words or more: no switch


def test_in_the_lexical_order_a_lexical_candidate_scoring_zero_still_joins_the_pool() -> None:
    """Spelled in ASCII an Arabic name may share no trigram with its entity yet still be
    found; in the lexical order it joins the pool instead of trailing every semantic id."""
    found = [(IDS[0], 0.0), (IDS[1], 0.0)]
    order = ids(FUSION.fuse(_junk(UNSURE_COSINE + 0.04), found, query="إسبانيا"))
    assert FUSION.numbers_for("إسبانيا", _junk(UNSURE_COSINE + 0.04)) == (0.0, 1.0)
    assert {IDS[0], IDS[1]} <= set(order[:10])
    assert order[10:] == [i for i, _ in _junk(0.0)[8:]]


@pytest.mark.parametrize(
    ("query", "first_cosine", "switched"),
    [
        ("Mosambik", UNSURE_COSINE, True),  # the model finds nothing closer than 0.5
        ("dolar kajmanski", 0.40, True),
        ("Mosambik", UNSURE_COSINE + 0.02, False),  # the model is surer
        ("the legal tender of Mozambique", 0.40, False),  # more than three words
        ("MZN", 0.40, False),  # a code: the model reads codes better than the names do
        ("mzn", 0.40, False),  # three characters: a code too
    ],
)
def test_a_short_query_the_model_is_unsure_of_is_ordered_by_the_lexical_channel(
    query: str, first_cosine: float, switched: bool
) -> None:
    semantic = [(IDS[n], (1.0 + first_cosine - 0.01 * (n - 2)) / 2.0) for n in range(2, 7)]
    right = IDS[0]
    lexical = [(right, 0.40)]
    numbers = FUSION.numbers_for(query, semantic)
    unswitched = (0.45, 0.6 if len(query.split()) >= 3 else 0.85)
    assert numbers == ((0.0, 1.0) if switched else unswitched)
    assert (ids(FUSION.fuse(semantic, lexical, query=query))[0] == right) is switched
    off = PooledEvidenceFusion(unsure_words=0)
    assert off.numbers_for(query, semantic) == unswitched


@pytest.mark.parametrize(
    ("query", "weight"),
    [
        ("renal liposarcoma", 0.85),  # two words
        ("malignant tumour of brainstem", 0.6),
        ("tumour of brainstem", 0.6),  # three words, the model sure of its first
        ("Moz Ambique", 0.85),
    ],
)
def test_a_query_of_three_words_or_more_weighs_the_lexical_channel_less(
    query: str, weight: float
) -> None:
    """A lexical look-alike outvotes a close semantic first at 0.85 but not at 0.6."""
    close, lookalike = IDS[0], IDS[1]
    semantic = [(close, 0.9), (IDS[2], 0.7)]  # cosines 0.8 and 0.4
    lexical = [(lookalike, 0.7), (IDS[3], 0.5)]  # below every word held (0.9)
    assert FUSION.numbers_for(query, semantic) == (0.45, weight)
    first = ids(FUSION.fuse(semantic, lexical, query=query))[0]
    assert first == (close if weight == 0.6 else lookalike)
    off = PooledEvidenceFusion(long_words=0)
    assert off.numbers_for(query, semantic) == (0.45, 0.85)
    assert ids(off.fuse(semantic, lexical, query=query))[0] == lookalike
    assert fusion_label(FUSION, semantic, lexical, query=query) == (
        f"pooled_evidence lexical_floor=0.45 lexical_weight={weight:g} power=2 depth=10"
    )


#: How the lexical first covers the query's words (ADR 0540).
LACKS_HELD = WordCover(holds=True, lacks_held=True, lacks_unheld=False)
LACKS_ONLY_UNHELD = WordCover(holds=True, lacks_held=False, lacks_unheld=True)
HOLDS_NONE = WordCover(holds=False, lacks_held=False, lacks_unheld=True)
HOLDS_ALL = WordCover(holds=True, lacks_held=False, lacks_unheld=False)
UNKNOWN = WordCover(holds=False, lacks_held=False, lacks_unheld=True, unknown=True)


@pytest.mark.parametrize(
    ("query", "cover", "weight"),
    [
        ("renal liposarcoma", LACKS_HELD, 0.6),  # two words: the count alone said 0.85
        ("malignant tumour of brainstem", LACKS_HELD, 0.6),
        ("nuevo dolar taiwanes oficial", HOLDS_NONE, 0.85),  # the count alone said 0.6
        ("malignant tumour of brainstem", HOLDS_ALL, 0.85),
        ("Sotho meridional language name", LACKS_ONLY_UNHELD, 0.85),  # four words: no switch
        ("renal liposarcoma", None, 0.85),  # not known: ADR 0460's word count
        ("malignant tumour of brainstem", None, 0.6),
    ],
)
def test_a_lexical_first_lacking_a_word_the_tenant_holds_weighs_the_lexical_channel_less(
    query: str, cover: WordCover | None, weight: float
) -> None:
    """ADR 0540: a look-alike lacks a word another entity holds; a query in another language
    has words no entity holds, and its lexical first is the best the tenant's names give."""
    close, lookalike = IDS[0], IDS[1]
    semantic = [(close, 0.9), (IDS[2], 0.7)]  # cosines 0.8 and 0.4: no unsure switch
    lexical = [(lookalike, 0.7), (IDS[3], 0.5)]
    assert FUSION.numbers_for(query, semantic, lexical=lexical, cover=cover) == (0.45, weight)
    first = ids(FUSION.fuse(semantic, lexical, query=query, cover=cover))[0]
    assert first == (close if weight == 0.6 else lookalike)
    off = PooledEvidenceFusion(long_words=0)
    assert off.numbers_for(query, semantic, lexical=lexical, cover=cover) == (0.45, 0.85)
    assert fusion_label(FUSION, semantic, lexical, query=query, cover=cover) == (
        f"pooled_evidence lexical_floor=0.45 lexical_weight={weight:g} power=2 depth=10"
    )


@pytest.mark.parametrize(
    ("query", "cover", "switched"),
    [
        ("Sotho meridional", LACKS_ONLY_UNHELD, True),
        ("dolar kajmanski", LACKS_ONLY_UNHELD, True),
        ("Sotho meridional", HOLDS_NONE, False),  # holds none of the query's words
        ("dolar nowozelandzki", UNKNOWN, True),  # ... and the tenant knows none, even by stem
        ("lipodsystrophic syndromes", HOLDS_NONE, False),  # "syndrome" held: known by stem
        ("the dolar of new zealand", UNKNOWN, False),  # more than three words
        ("NZD", UNKNOWN, False),  # a code
        ("Sotho meridional", LACKS_HELD, False),  # another entity holds a word it lacks
        ("Sotho meridional", HOLDS_ALL, False),
        ("the southern Sotho meridional", LACKS_ONLY_UNHELD, False),  # more than three words
        ("SSM", LACKS_ONLY_UNHELD, False),  # a code
        ("Sotho meridional", None, False),  # not known
    ],
)
def test_a_short_query_whose_lexical_first_lacks_only_unheld_words_follows_the_lexical_channel(
    query: str, cover: WordCover | None, switched: bool
) -> None:
    """ADR 0540: the model is sure enough of a wrong first (cosine 0.62, above
    `UNSURE_COSINE`), the lexical first holds every word the tenant's names hold."""
    semantic = [(IDS[n], (1.0 + 0.62 - 0.01 * (n - 2)) / 2.0) for n in range(2, 7)]
    right = IDS[0]
    lexical = [(right, 0.49), (IDS[7], 0.46)]
    numbers = FUSION.numbers_for(query, semantic, lexical=lexical, cover=cover)
    assert (numbers == (0.0, 1.0)) is switched
    assert (ids(FUSION.fuse(semantic, lexical, query=query, cover=cover))[0] == right) is switched
    off = PooledEvidenceFusion(unsure_words=0)
    assert off.numbers_for(query, semantic, lexical=lexical, cover=cover) != (0.0, 1.0)
    # The model's first among the lexical candidates: the channels meet, no switch.
    met = [*lexical, (IDS[2], 0.30)]
    assert FUSION.numbers_for(query, semantic, lexical=met, cover=cover) != (0.0, 1.0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"lexical_floor": 1.0},
        {"lexical_floor": -0.1},
        {"lexical_weight": 1.1},
        {"lexical_weight": -0.1},
        {"power": 0.0},
        {"unsure_words": -1},
        {"unsure_cosine": 1.5},
        {"long_words": -1},
        {"long_words": True},
        {"long_lexical_weight": 1.5},
        {"depth": 0},
        {"depth": True},
    ],
)
def test_parameters_outside_their_range_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(
        InvalidArgumentError, match=r"lexical_floor|lexical_weight|power|unsure|long_words|depth"
    ):
        PooledEvidenceFusion(**kwargs)


def test_the_label_names_each_fusion_and_the_numbers_it_used() -> None:
    semantic, lexical = [(IDS[0], 0.9)], [(IDS[1], 0.8)]
    labels = [
        fusion_label(fusion, semantic, lexical, query="Ada")
        for fusion in (
            FUSION,
            ReciprocalRankFusion(),
            EvidenceFusion(lexical_floor=0.6, power=3.0),
            Channelless(),
        )
    ]
    assert fusion_label(FUSION, semantic, lexical, query="Ада") == (
        "pooled_evidence lexical_floor=0 lexical_weight=1 power=2 depth=10"
    )
    assert labels == [
        "pooled_evidence lexical_floor=0.45 lexical_weight=0.85 power=2 depth=10",
        "rrf k=60",
        "evidence lexical_floor=0.6 lexical_weight=0.5 power=3",
        "Channelless",
    ]


class Channelless:
    """A strategy the label knows nothing of (a caller's own): the semantic channel alone."""

    def fuse(
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery = "",
    ) -> list[tuple[IdT, float]]:
        return list(semantic)


def test_the_models_first_holding_a_word_the_lexical_first_lacks_leads_when_both_back_it() -> None:
    """ADR 0580: for "hypercholesterolemia, familial, 2" the lexical first ("familial
    hypocalciuric hypercalcemia") lacks "hypercholesterolemia", which the model's first holds
    and the lexical channel scores above its floor: both channels back it, so it leads; a
    holder of every word still comes first."""
    query = "hypercholesterolemia, familial, 2"
    close, lookalike, holder = IDS[0], IDS[1], IDS[5]
    semantic = [(close, 0.9), (lookalike, 0.88), (IDS[2], 0.7)]
    lexical = [(lookalike, 0.75), (close, 0.55), (IDS[3], 0.5)]
    filled = WordCover(
        holds=True, lacks_held=True, lacks_unheld=False, filled_by=frozenset({close})
    )
    assert ids(FUSION.fuse(semantic, lexical, query=query, cover=LACKS_HELD))[0] == lookalike
    assert ids(FUSION.fuse(semantic, lexical, query=query, cover=filled))[:2] == [close, lookalike]
    fused = FUSION.fuse(semantic, lexical, query=query, cover=filled)
    assert [s for _, s in fused] == sorted((s for _, s in fused), reverse=True)
    # The lexical channel scores the model's first at its floor or below: only the model backs it.
    unbacked = [(lookalike, 0.75), (close, 0.45), (IDS[3], 0.5)]
    assert ids(FUSION.fuse(semantic, unbacked, query=query, cover=filled))[0] == lookalike
    # Another candidate filling the word is no reason to move the model's first.
    other = replace(filled, filled_by=frozenset({IDS[3]}))
    assert ids(FUSION.fuse(semantic, lexical, query=query, cover=other))[0] == lookalike
    # A holder of every query word stays first.
    held = [(holder, HOLDS_EVERY_WORD), *lexical]
    assert ids(FUSION.fuse(semantic, held, query=query, cover=filled))[:2] == [holder, close]


NOISE = [UUID(int=100 + n) for n in range(10)]


@pytest.mark.parametrize(
    ("query", "cover", "found"),
    [
        ("ppi", UNKNOWN, True),  # a lower-case form no name holds: its lexical readings join
        ("PPI", UNKNOWN, False),  # an acronym, read against names' initials: the floor holds
        ("ppi", HOLDS_NONE, False),  # known by stem: the floor holds
        ("ppi", None, False),  # not known
        ("pixels per inch given", UNKNOWN, False),  # more than `unsure_words` words
    ],
)
def test_a_short_form_the_tenant_does_not_know_pools_every_lexical_candidate(
    query: str, cover: WordCover | None, found: bool
) -> None:
    """ADR 0580: "ppi" finds "pixels per inch" at lexical 0.37, below the floor, behind ten
    of the model's answers it is surer of than `unsure_cosine` (a short form is no unsure
    switch's): only when every lexical candidate joins the pool is it among the first 10."""
    target = IDS[0]
    semantic = [(i, (1.0 + 0.55 - 0.001 * n) / 2.0) for n, i in enumerate(NOISE)]
    lexical = [(IDS[1], 0.53), (IDS[2], 0.43), (target, 0.37)]
    first_ten = ids(FUSION.fuse(semantic, lexical, query=query, cover=cover))[:10]
    assert (target in first_ten) is found
    off = PooledEvidenceFusion(unsure_words=0)
    assert target not in ids(off.fuse(semantic, lexical, query=query, cover=cover))[:10]


@pytest.mark.parametrize(
    ("query", "cover", "lexical_score", "cosine", "switched"),
    [
        ("hr", UNKNOWN, 0.51, 0.38, True),  # an abbreviated word: "hour" by its letters
        ("sec", UNKNOWN, 0.53, 0.37, True),
        (" kn ", UNKNOWN, 0.52, 0.50, True),  # at `unsure_cosine`, spaces aside
        ("Sr", UNKNOWN, 0.51, 0.38, False),  # a symbol: a capital letter
        ("m3", UNKNOWN, 0.51, 0.38, False),  # a symbol: not letters only
        ("GBP", UNKNOWN, 0.51, 0.38, False),  # a code
        ("hr", UNKNOWN, 0.45, 0.38, False),  # the lexical first at the floor: no reading
        ("hr", UNKNOWN, 0.51, 0.52, False),  # the model is sure enough
        ("hr", HOLDS_NONE, 0.51, 0.38, False),  # the tenant knows its word by stem
        ("hr", None, 0.51, 0.38, False),  # not known
    ],
)
def test_an_abbreviated_word_the_model_is_unsure_of_follows_the_lexical_channel(
    query: str, cover: WordCover | None, lexical_score: float, cosine: float, switched: bool
) -> None:
    """ADR 0595: "hr" finds "hour" first lexically at 0.51, while the model's ten answers are
    places it is unsure of (cosine 0.38); at the default weight the model's first leads."""
    right = IDS[0]
    semantic = [(i, (1.0 + cosine - 0.001 * n) / 2.0) for n, i in enumerate(NOISE)]
    lexical = [(right, lexical_score), (IDS[1], 0.43)]
    numbers = FUSION.numbers_for(query, semantic, lexical=lexical, cover=cover)
    assert (numbers == (0.0, 1.0)) is switched
    assert (ids(FUSION.fuse(semantic, lexical, query=query, cover=cover))[0] == right) is switched
    off = PooledEvidenceFusion(unsure_words=0)
    assert off.numbers_for(query, semantic, lexical=lexical, cover=cover) == (0.45, 0.85)
