"""Floors the LEXICAL channel may not fall below on the committed quality corpus.

Measured on tests/data/quality/entity_corpus.json (both halves, 1,441
queries) with `Retriever.lexical_only` over `InMemoryGraphStore`, with the
rarity-weighted score and the exact-word guarantee of ADR 0350 (on the
exact-name and trigram candidates of ADR 0115 and the per-token keys of ADR
0070); the floors sit about 0.02 below these figures so only a real
regression crosses them:

    shape            n    hit@10  MRR    empty   (ADR 0115: hit@10, MRR, empty)
    exact            150  1.000   1.000  0.000   (1.000, 1.000, 0.000)
    typo             200  1.000   1.000  0.000   (1.000, 1.000, 0.000)
    surname_only     150  1.000   0.992  0.000   (1.000, 0.997, 0.000)
    first_name_only  150  1.000   0.997  0.000   (1.000, 0.997, 0.000)
    reordered        150  1.000   1.000  0.000   (1.000, 1.000, 0.000)
    initials         150  1.000   1.000  0.000   (1.000, 1.000, 0.000)
    abbreviation     146  0.979   0.955  0.000   (0.979, 0.961, 0.000)
    alias            195  0.549   0.496  0.369   (0.549, 0.509, 0.369)
    no_match         150  —       —      0.020   (empty 0.020)

The small MRR losses are ties and near-ties the rarity weights reorder: a
surname several people carry now scores every one of them at least 0.9, ranked
by how much of each name the query covers, no longer by string likeness.

A query that matches nothing almost always gets *something* back (a shared
first name is a real partial match), so the no_match guard is on confidence
instead: the share whose best lexical score reaches 0.9 (measured 0.000:
only an identical form scores 1.0 and only a name holding every query word
0.9 or more, ADR 0350; 0.087 under ADR 0070).

Re-measure with `uv run python -m scripts.evaluate_retrieval --provider fake`
(the lexical columns do not depend on the provider; the report splits them
into the fit and holdout halves, these figures pool both) and move a floor
only with the change that earns it.
"""

from __future__ import annotations

import asyncio
from functools import cache

import pytest

from redstring import RetrievalMode, Retriever
from scripts.quality.harness import (
    EntityCorpus,
    Metrics,
    Ranked,
    build_graph,
    load_entity_corpus,
    measure_by_shape,
    rank_all,
)

#: shape -> (hit@10 floor, MRR floor)
HIT_FLOORS = {
    "exact": (1.0, 1.0),
    "typo": (0.98, 0.98),
    "surname_only": (0.98, 0.98),
    "first_name_only": (0.98, 0.98),
    "reordered": (0.98, 0.98),
    "initials": (0.98, 0.98),
    "abbreviation": (0.96, 0.94),
    "alias": (0.53, 0.49),
}
#: shape -> the largest share of queries answered with nothing
EMPTY_CEILINGS = {
    "exact": 0.0,
    "typo": 0.01,
    "surname_only": 0.02,
    "first_name_only": 0.02,
    "reordered": 0.02,
    "initials": 0.02,
    "abbreviation": 0.01,
    "alias": 0.39,
}
#: A query that matches nothing may get partial matches, but rarely a confident one.
NO_MATCH_CONFIDENT = 0.9
NO_MATCH_CONFIDENT_CEILING = 0.02


@cache
def lexical_answers() -> tuple[EntityCorpus, list[Ranked]]:
    async def answer() -> tuple[EntityCorpus, list[Ranked]]:
        corpus = load_entity_corpus()
        retriever = Retriever.lexical_only(graph=await build_graph(corpus))
        return corpus, await rank_all(retriever, corpus.queries, RetrievalMode.LEXICAL)

    return asyncio.run(answer())


@cache
def lexical_quality() -> dict[str, Metrics]:
    corpus, ranked = lexical_answers()
    return measure_by_shape(corpus.queries, [answer.ids for answer in ranked])


@pytest.mark.parametrize("shape", sorted(HIT_FLOORS))
def test_lexical_hit_at_10_and_mrr_stay_above_their_floors(shape: str) -> None:
    hit_floor, mrr_floor = HIT_FLOORS[shape]
    measured = lexical_quality()[shape]
    assert measured.hit10 >= hit_floor, f"{shape}: hit@10 {measured.hit10:.3f} < {hit_floor}"
    assert measured.mrr >= mrr_floor, f"{shape}: MRR {measured.mrr:.3f} < {mrr_floor}"


@pytest.mark.parametrize("shape", sorted(EMPTY_CEILINGS))
def test_lexical_empty_answers_stay_below_their_ceilings(shape: str) -> None:
    measured = lexical_quality()[shape]
    assert measured.empty <= EMPTY_CEILINGS[shape], (
        f"{shape}: {measured.empty:.3f} of queries got nothing (ceiling {EMPTY_CEILINGS[shape]})"
    )


def test_queries_that_match_nothing_rarely_get_a_confident_answer() -> None:
    corpus, ranked = lexical_answers()
    best = [
        max(answer.lexical.values(), default=0.0)
        for query, answer in zip(corpus.queries, ranked, strict=True)
        if query.shape == "no_match"
    ]
    confident = sum(score >= NO_MATCH_CONFIDENT for score in best) / len(best)
    assert confident <= NO_MATCH_CONFIDENT_CEILING, f"no_match confident {confident:.3f}"


def test_the_corpus_is_the_committed_one() -> None:
    """The floors above mean nothing against another corpus: pin its size per shape."""
    counts = {shape: m.n for shape, m in lexical_quality().items()}
    assert counts == {
        "exact": 150,
        "typo": 200,
        "surname_only": 150,
        "first_name_only": 150,
        "reordered": 150,
        "initials": 150,
        "abbreviation": 146,
        "alias": 195,
        "no_match": 150,
        "all": 1291,
    }
