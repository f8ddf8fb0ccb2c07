"""HYBRID passages under the default `ConvexFusion`: the first `k` of its order over
every chunk, whatever `k` asks (ADR 0440)."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redstring import ChunkRetriever, RetrievalMode
from redstring.domain.chunk import ChunkId
from redstring.domain.convex_fusion import ConvexFusion
from redstring.domain.fusion import DEFAULT_PASSAGE_FUSION
from redstring.llm.fake_embedding import FakeEmbeddingProvider

from .test_exact_rrf_retrieval import DIMENSION, WORDS, index, open_store

texts = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=24
)


def convex_order(
    semantic: list[tuple[ChunkId, float]],
    bm25: list[tuple[ChunkId, float]],
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
    for chunk_id, score in bm25:
        scores[chunk_id] = scores.get(chunk_id, 0.0) + (1.0 - weight) * score / bm25[0][1]
    held = sorted(((c, v) for c, v in scores.items() if v > 0.0), key=lambda p: (-p[1], p[0]))
    rest = [(c, 0.0) for c, _ in semantic if scores[c] == 0.0]
    return held + rest


async def first_n_agree(
    backend: str, corpus: list[str], query: str, embedded: list[bool], fusion: ConvexFusion
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(backend, Path(folder))
        embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
        tenant = await index(store, corpus, embeddings, embedded=embedded)
        retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=fusion)
        everything = len(corpus) + 2
        semantic = await retriever.retrieve_chunks(
            query, tenant, k=everything, mode=RetrievalMode.SEMANTIC
        )
        lexical = await retriever.retrieve_chunks(
            query, tenant, k=everything, mode=RetrievalMode.LEXICAL
        )
        expected = convex_order(
            [(m.chunk.id, m.semantic) for m in semantic.matches if m.semantic is not None],
            [(m.chunk.id, m.bm25) for m in lexical.matches if m.bm25 is not None],
            fusion.semantic_weight,
            fusion.depth,
        )
        holders = [
            m.chunk.id for m in lexical.matches if set(query.split()) <= set(m.chunk.text.split())
        ]
        if len(query.split()) == 1 and len(holders) == 1:  # a one-word query's lone holder
            expected = [(holders[0], 2.0)] + [p for p in expected if p[0] != holders[0]]
        whole = await retriever.retrieve_chunks(query, tenant, k=everything)
        assert [m.chunk.id for m in whole.matches] == [c for c, _ in expected]
        assert [m.score for m in whole.matches[1:]] == pytest.approx([v for _, v in expected[1:]])
        for n in range(1, len(corpus) + 1):
            part = await retriever.retrieve_chunks(query, tenant, k=n)
            assert part.matches == whole.matches[:n]


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
    asyncio.run(first_n_agree(backend, corpus, query, embedded, fusion))  # type: ignore[arg-type]


def test_the_default_passage_fusion_is_convex_at_its_chosen_numbers() -> None:
    assert ConvexFusion(semantic_weight=0.55, depth=50) == DEFAULT_PASSAGE_FUSION


@pytest.mark.asyncio
async def test_the_result_says_how_hybrid_fused() -> None:
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    store = open_store("memory", Path())
    tenant = await index(store, ["engine notes", "mill river"], embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    hybrid = await retriever.retrieve_chunks("engine", tenant)
    assert hybrid.fusion == "convex semantic_weight=0.55 depth=50"
    lexical = await retriever.retrieve_chunks("engine", tenant, mode=RetrievalMode.LEXICAL)
    assert lexical.fusion is None
