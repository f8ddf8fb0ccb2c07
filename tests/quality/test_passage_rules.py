"""Passage fusion rules: held share, weighted fusion, numbers chosen without the graded family."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

import scripts.quality.passage_rules as pr
from redstring.domain.bm25 import CorpusStats, LexicalCandidate, LexicalCandidates
from redstring.domain.chunk import ChunkId
from redstring.domain.convex_fusion import ConvexFusion
from scripts.quality import passage_trials


def _found(*holdings: dict[str, int]) -> LexicalCandidates:
    frequencies = {"a": 1, "b": 5}
    stats = CorpusStats(document_count=10, average_length=5.0, document_frequencies=frequencies)
    candidates = [
        LexicalCandidate(chunk_id=ChunkId(f"c{n}"), length=5, term_frequencies=held)
        for n, held in enumerate(holdings)
    ]
    return LexicalCandidates.of(stats, candidates)


def test_the_held_share_is_the_largest_idf_share_one_candidate_holds() -> None:
    rare, common = math.log(1 + 9.5 / 1.5), math.log(1 + 5.5 / 5.5)
    assert pr.held_share(_found({"a": 1}, {"b": 3})) == pytest.approx(rare / (rare + common))
    assert pr.held_share(_found({"b": 1}, {"a": 2, "b": 1})) == pytest.approx(1.0)
    assert pr.held_share(_found()) == 0.0


def _case(family: str, split: str, n: int, right: str) -> pr.Case:
    """One query; `right` ("semantic" or "lexical") ranks the target's chunk first."""
    target, junk = f"{family}{n}t", f"{family}{n}j"
    first, second = (target, junk), (junk, target)
    semantic, lexical = (first, second) if right == "semantic" else (second, first)
    return pr.Case(
        family=family,
        split=split,
        semantic=semantic,
        lexical=lexical,
        held=0.5,
        coverage=0.5,
        terms=3,
        document_of={target: f"doc-{target}", junk: f"doc-{junk}"},
        grades={f"doc-{target}": 1.0},
        graded_by="hit",
    )


def _cases(family: str, fit: int, holdout: int, right: str) -> list[pr.Case]:
    return [_case(family, "fit", n, right) for n in range(fit)] + [
        _case(family, "holdout", fit + n, right) for n in range(holdout)
    ]


def test_the_weighted_fusion_maps_chunks_to_documents_in_weighted_rrf_order() -> None:
    case = _case("f", "fit", 0, "semantic")
    assert pr.fused_documents(case, 1.0, 0.0) == ["doc-f0t", "doc-f0j"]
    assert pr.fused_documents(case, 0.0, 1.0) == ["doc-f0j", "doc-f0t"]
    assert pr.fused_documents(case, 1.0, 0.5) == ["doc-f0t", "doc-f0j"]
    assert pr.figures(case, pr.fused_documents(case, 0.0, 1.0)) == {"hit@10": 1.0, "mrr": 0.5}


#: 0 keeps the semantic order, 1 the lexical one.
PICK = pr.Rule("pick", lambda c, p: (1.0 - p[0], p[0]), ((0.0,), (1.0,)))


def test_each_left_out_family_is_graded_at_the_numbers_chosen_without_it() -> None:
    cases = [*_cases("lex", 6, 5, "lexical"), *_cases("sem", 4, 7, "semantic")]
    graded = pr.leave_one_out(cases, PICK)
    # Left out, each family is graded at the number the other alone chose.
    assert graded.left_out["lex"] == ((0.0,), -0.5)
    assert graded.left_out["sem"] == ((1.0,), -0.5)
    assert graded.worst == ("lex", -0.5)
    assert PICK.numbers == 1


def _scored_case(seed: int) -> pr.Case:
    """A query over 80 chunks of 40 documents: 60 semantic and 30 lexical answers, scored."""
    rng = np.random.default_rng(seed)
    chunks = [f"c{n:02d}" for n in range(80)]
    semantic = tuple(str(c) for c in rng.permutation(chunks)[:60])
    lexical = tuple(str(c) for c in rng.permutation(chunks)[:30])
    return pr.Case(
        family="f",
        split="fit",
        semantic=semantic,
        lexical=lexical,
        held=0.5,
        coverage=0.5,
        terms=3,
        document_of={c: f"d{int(c[1:]) // 2}" for c in chunks},
        grades={"d0": 1.0},
        graded_by="hit",
        semantic_scores=tuple(np.sort(rng.uniform(0.5, 0.9, 60))[::-1].tolist()),
        coverages=tuple(np.sort(rng.uniform(0.05, 0.8, 30))[::-1].tolist()),
    )


@pytest.mark.parametrize("seed", range(20))
def test_a_trial_changing_nothing_orders_as_the_default_convex_fusion(seed: int) -> None:
    """The trials' shared combination, at `ConvexFusion`'s scales and weight, is the
    library's order: each trial then differs from the default in what it names only."""
    case = _scored_case(seed)
    default = ConvexFusion()
    ours = passage_trials.convex_documents(case, default.semantic_weight)
    assert ours == pr.strategy_documents(case, default)


def test_the_default_is_set_against_each_channel_query_by_query_on_the_holdout() -> None:
    """Each line is the mean per-query difference of the default and a channel on the
    family's holdout, inside its own paired interval; fit queries are left out."""
    held = [dataclasses.replace(_scored_case(seed), split="holdout") for seed in range(30)]
    fit = [dataclasses.replace(_scored_case(seed), grades={"d1": 1.0}) for seed in range(30, 40)]
    lines = pr.default_intervals([*held, *fit])
    assert len(lines) == 4  # hit@10 and MRR, minus SEMANTIC and minus LEXICAL
    ours = [pr.figures(c, pr.strategy_documents(c, ConvexFusion())) for c in held]
    semantic = [pr.figures(c, pr.order_documents(c, c.semantic)) for c in held]
    expected = np.mean([o["mrr"] - s["mrr"] for o, s in zip(ours, semantic, strict=True)])
    [line] = [line for line in lines if "mrr minus SEMANTIC" in line]
    mean, low, high = (float(x) for x in re.findall(r"[-+]\d\.\d{3}", line))
    assert mean == pytest.approx(expected, abs=5e-4)
    assert low <= mean <= high
    assert line.endswith("over 30 queries")


def test_the_agreement_is_the_semantic_evidence_of_the_lexical_first_chunks() -> None:
    """Stretched between the semantic first (1) and 50th (0); a chunk the model did not
    rank in its first 50 counts 0."""
    case = _scored_case(3)
    scores = np.asarray(case.semantic_scores)
    unit = (scores - scores[49]) / (scores[0] - scores[49])
    stretched = dict(zip(case.semantic, unit, strict=True))
    expected = np.mean([max(0.0, stretched.get(c, 0.0)) for c in case.lexical[:3]])
    assert passage_trials.agreement(case, 3) == pytest.approx(expected)
    agreeing = dataclasses.replace(case, lexical=(case.semantic[0], *case.lexical))
    assert passage_trials.agreement(agreeing, 1) == 1.0
    unranked = dataclasses.replace(case, lexical=("c79-not-ranked",))
    assert passage_trials.agreement(unranked, 3) == 0.0
    assert passage_trials.agreement(dataclasses.replace(case, lexical=()), 3) == 0.0


@pytest.mark.parametrize("seed", range(5))
def test_the_disagreement_trial_lowers_each_chunk_by_its_two_scores_distance(seed: int) -> None:
    """Each chunk scores the combination less g * |semantic - lexical|, both on
    `ConvexFusion`'s scales (a chunk one channel did not rank is 0 there)."""
    case = _scored_case(seed)
    scores = np.asarray(case.semantic_scores)
    semantic = dict(
        zip(
            case.semantic,
            np.clip((scores - scores[49]) / (scores[0] - scores[49]), 0, None),
            strict=True,
        )
    )
    lexical = dict(zip(case.lexical, case.coverages, strict=True))
    fused = {
        chunk: 0.55 * semantic.get(chunk, 0.0)
        + 0.45 * lexical.get(chunk, 0.0)
        - 0.3 * abs(semantic.get(chunk, 0.0) - lexical.get(chunk, 0.0))
        for chunk in {*semantic, *lexical}
        if semantic.get(chunk, 0.0) > 0 or chunk in lexical
    }
    expected = sorted(fused, key=lambda chunk: (-fused[chunk], chunk))
    ours = passage_trials.convex_documents(case, 0.55, disagreement=0.3)
    assert ours == pr.order_documents(case, expected)
    assert ours != passage_trials.convex_documents(case, 0.55)
