"""HYBRID passages under the default `ConvexFusion`: the first `k` of its order over
every chunk, whatever `k` asks (ADR 0440)."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redstring import ChunkRetriever, RetrievalMode
from redstring.domain.chunk import ChunkId
from redstring.domain.chunk_retrieval import ScoredChunk
from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.fusion import DEFAULT_PASSAGE_FUSION
from redstring.llm.fake_embedding import FakeEmbeddingProvider

from .test_exact_rrf_retrieval import DIMENSION, WORDS, Expected, first_n_agree, index, open_store

texts = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=24
)


def convex_order(
    semantic: list[tuple[ChunkId, float]],
    coverage: list[tuple[ChunkId, float]],
    weight: float,
    depth: int,
) -> list[tuple[ChunkId, float]]:
    """The fused order over whole channel answers, written out from the definition."""
    scores: dict[ChunkId, float] = {}
    if semantic:
        top, low = semantic[0][1], semantic[min(depth, len(semantic)) - 1][1]
        for chunk_id, score in semantic:
            stretched = 1.0 if top == low else max(0.0, (score - low) / (top - low))
            scores[chunk_id] = weight * stretched if chunk_id in dict(semantic[:depth]) else 0.0
    for chunk_id, share in coverage:
        scores[chunk_id] = scores.get(chunk_id, 0.0) + (1.0 - weight) * share
    held = sorted(((c, v) for c, v in scores.items() if v > 0.0), key=lambda p: (-p[1], p[0]))
    rest = [(c, 0.0) for c, _ in semantic if scores[c] == 0.0]
    return held + rest


def convex_answer(fusion: ConvexFusion, query: str) -> Expected:
    """The whole HYBRID answer from the two channels' whole answers: `convex_order`, and
    a one-word query's lone holder moved first, just above the best score."""

    def expected(
        semantic: list[ScoredChunk], lexical: list[ScoredChunk]
    ) -> list[tuple[ChunkId, float]]:
        order = convex_order(
            [(m.chunk.id, m.semantic) for m in semantic if m.semantic is not None],
            [(m.chunk.id, m.bm25_coverage) for m in lexical if m.bm25_coverage is not None],
            fusion.semantic_weight,
            fusion.depth,
        )
        words = set(query.split())
        holders = [m.chunk.id for m in lexical if words <= set(m.chunk.text.split())]
        if len(query.split()) == 1 and len(holders) == 1 and order[0][0] != holders[0]:
            first = (holders[0], math.nextafter(order[0][1], math.inf))
            order = [first, *(pair for pair in order if pair[0] != holders[0])]
        return order

    return expected


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@pytest.mark.parametrize("fusion", [DEFAULT_PASSAGE_FUSION, ConvexFusion(depth=3)])
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    corpus=texts,
    query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join),
    data=st.data(),
)
def test_the_first_n_of_every_k_are_the_first_n_of_the_order_over_every_chunk(
    backend: str, fusion: ConvexFusion, corpus: list[str], query: str, data: st.DataObject
) -> None:
    """Every k from 1 to past the corpus; some passages have no vector, a depth of 3
    leaves most of the semantic ranking without evidence, and a two-word query held
    by one passage alone is fused like any other."""
    embedded = data.draw(st.lists(st.booleans(), min_size=len(corpus), max_size=len(corpus)))
    answer = convex_answer(fusion, query)
    asyncio.run(first_n_agree(backend, corpus, query, embedded, fusion, answer))


def test_the_default_passage_fusion_is_convex_at_its_chosen_numbers() -> None:
    assert ConvexFusion(semantic_weight=0.25, depth=50) == DEFAULT_PASSAGE_FUSION


@pytest.mark.asyncio
async def test_the_result_says_how_hybrid_fused() -> None:
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    store = open_store("memory", Path())
    tenant = await index(store, ["engine notes", "mill river"], embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    hybrid = await retriever.retrieve_chunks("engine", tenant)
    assert hybrid.fusion == "convex semantic_weight=0.25 depth=50"
    lexical = await retriever.retrieve_chunks("engine", tenant, mode=RetrievalMode.LEXICAL)
    assert lexical.fusion is None
