"""`confidence` on every result and `min_confidence` on both retrievers (ADR 0170)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import pytest

from redstring import ChunkRetriever, RetrievalMode, Retriever
from redstring.domain.bm25 import idf
from redstring.domain.confidence import (
    ENTITY_CONFIDENCE,
    PASSAGE_CONFIDENCE,
    ChannelCalibration,
    ConfidenceCalibration,
)
from redstring.domain.errors import InvalidArgumentError
from redstring.domain.query import NormalizedQuery
from tests.factories import make_entity
from tests.unit.composition.test_chunk_retrieval import FIXTURE, indexed
from tests.unit.composition.test_retrieval import TENANT, populated


@dataclass(frozen=True)
class WorstFirst:
    """A fusion ranking every id by its worse-looking best channel score first."""

    def fuse[IdT: Hashable](
        self,
        semantic: Sequence[tuple[IdT, float]],
        lexical: Sequence[tuple[IdT, float]],
        *,
        query: str | NormalizedQuery,
    ) -> list[tuple[IdT, float]]:
        best: dict[IdT, float] = {}
        for item, score in (*semantic, *lexical):
            best[item] = max(best.get(item, 0.0), score)
        return sorted(((i, -s) for i, s in best.items()), key=lambda p: (-p[1], str(p[0])))


#: Only a near-exact lexical match is confident; the fake provider's cosines never are.
STRICT = ConfidenceCalibration(
    semantic=ChannelCalibration(midpoint=0.999, slope=50.0),
    lexical=ChannelCalibration(midpoint=0.95, slope=50.0),
)


@pytest.mark.asyncio
async def test_every_entity_result_carries_the_confidence_of_its_channel_scores() -> None:
    stores = await populated()
    for mode in RetrievalMode:
        result = await stores.retriever().retrieve("Grace Hoper", TENANT, mode=mode)
        assert result.matches, mode
        for m in result.matches:
            expected = ENTITY_CONFIDENCE.confidence(semantic=m.semantic, lexical=m.lexical)
            assert m.confidence == pytest.approx(expected), mode


@pytest.mark.asyncio
async def test_whether_nothing_matches_is_read_over_every_candidate_before_k() -> None:
    stores = await populated()
    await stores.add(make_entity("Grace Hopkins", tenant_id=TENANT))
    # WorstFirst fuses the unsure semantic guess first, the exact name last.
    retriever = Retriever(
        embeddings=stores.embeddings,
        vectors=stores.vectors,
        graph=stores.graph,
        fusion=WorstFirst(),
        confidence=STRICT,
    )
    # k = 1: each channel ranks its best one; only the unsure one is within k.
    query = "Grace Hopper!"  # the fake provider's nearest is Grace Hopkins; lexically exact
    everything = await retriever.retrieve(query, TENANT, k=1)
    [shown] = everything.matches
    assert shown.entity.name == "Grace Hopkins"
    assert shown.confidence is not None
    assert shown.confidence < 0.5
    # The exact name beyond k is confident, so the answer stands, unchanged.
    assert await retriever.retrieve(query, TENANT, k=1, min_confidence=0.5) == everything


@pytest.mark.asyncio
async def test_an_unrelated_entity_query_is_answered_empty_only_when_asked() -> None:
    stores = await populated()
    retriever = Retriever(
        embeddings=stores.embeddings, vectors=stores.vectors, graph=stores.graph, confidence=STRICT
    )
    loose = await retriever.retrieve("Grace Hopkinson", TENANT)
    assert loose.matches
    assert all(m.confidence is not None and m.confidence < 0.5 for m in loose.matches)
    assert (await retriever.retrieve("Grace Hopkinson", TENANT, min_confidence=0.5)).matches == []
    # A confident best match keeps the whole answer, its unsure tail included.
    exact = await retriever.retrieve("Grace Hopper", TENANT, min_confidence=0.5)
    assert exact == await retriever.retrieve("Grace Hopper", TENANT)
    assert exact.matches[0].entity.name == "Grace Hopper"
    assert any(m.confidence is not None and m.confidence < 0.5 for m in exact.matches)


@pytest.mark.asyncio
async def test_min_confidence_zero_and_none_give_the_whole_answer() -> None:
    stores = await populated()
    retriever = stores.retriever()
    plain = await retriever.retrieve("Ada", TENANT)
    assert plain == await retriever.retrieve("Ada", TENANT, min_confidence=None)
    assert plain == await retriever.retrieve("Ada", TENANT, min_confidence=0.0)


@pytest.mark.asyncio
@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", True])
async def test_both_retrievers_refuse_a_bad_min_confidence_naming_it(bad: object) -> None:
    stores = await populated()
    with pytest.raises(InvalidArgumentError, match="min_confidence"):
        await stores.retriever().retrieve("Ada", TENANT, min_confidence=bad)  # type: ignore[arg-type]
    store, embeddings, tenant = await indexed(FIXTURE)
    with pytest.raises(InvalidArgumentError, match="min_confidence"):
        await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(
            "engine",
            tenant,
            min_confidence=bad,  # type: ignore[arg-type]
        )
    assert embeddings.query_batches == []  # refused before anything was embedded


@pytest.mark.asyncio
async def test_bm25_coverage_is_bm25_over_the_sum_of_the_query_terms_idf() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    query = "engine notes zebra"
    result = await retriever.retrieve_chunks(query, tenant, mode=RetrievalMode.LEXICAL)
    # four chunks; "engine" in d1 and d2, "notes" in d1 and d3, "zebra" in none
    ceiling = idf(2, 4) + idf(2, 4) + idf(0, 4)
    assert result.matches
    for m in result.matches:
        assert m.bm25 is not None
        assert m.bm25_coverage == pytest.approx(m.bm25 / ceiling)


@pytest.mark.asyncio
async def test_a_source_filter_narrows_the_candidates_but_not_the_coverage() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    lexical = RetrievalMode.LEXICAL
    whole = await retriever.retrieve_chunks("engine notes", tenant, mode=lexical)
    narrowed = await retriever.retrieve_chunks(
        "engine notes", tenant, mode=lexical, source_ids=["d3"]
    )
    [d3] = narrowed.matches
    assert d3.bm25_coverage == next(
        m.bm25_coverage for m in whole.matches if m.chunk.source_id == "d3"
    )


@pytest.mark.asyncio
async def test_every_chunk_result_carries_the_confidence_of_its_channel_scores() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    for mode in RetrievalMode:
        result = await retriever.retrieve_chunks("notes about the engine", tenant, mode=mode)
        assert result.matches, mode
        for m in result.matches:
            assert (m.bm25 is None) == (m.bm25_coverage is None)
            expected = PASSAGE_CONFIDENCE.confidence(semantic=m.semantic, lexical=m.bm25_coverage)
            assert m.confidence == pytest.approx(expected), mode


@pytest.mark.asyncio
async def test_a_chunk_answer_stands_or_falls_by_its_surest_candidate_before_k() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(
        embeddings=embeddings,
        chunks=store,
        fusion=WorstFirst(),
        confidence=ConfidenceCalibration(
            semantic=STRICT.semantic, lexical=ChannelCalibration(midpoint=0.3, slope=50.0)
        ),
    )
    lexical = RetrievalMode.LEXICAL
    everything = (await retriever.retrieve_chunks("notes babbage", tenant, mode=lexical)).matches
    assert everything[-1].chunk.source_id == "d3"  # worst first: the best-covered chunk last
    assert everything[-1].confidence is not None
    assert everything[-1].confidence > 0.5
    one = await retriever.retrieve_chunks("notes babbage", tenant, k=1, mode=lexical)
    [unsure] = one.matches
    assert unsure.confidence is not None
    assert unsure.confidence < 0.5
    kept = await retriever.retrieve_chunks(
        "notes babbage", tenant, k=1, mode=lexical, min_confidence=0.5
    )
    assert kept == one  # d3, beyond k, is confident: the answer stands
    unrelated = await retriever.retrieve_chunks("zebra umbrella", tenant)
    assert unrelated.matches  # the semantic channel always answers something
    empty = await retriever.retrieve_chunks("zebra umbrella", tenant, min_confidence=0.5)
    assert empty.matches == []
    assert empty.mode is RetrievalMode.HYBRID


@pytest.mark.asyncio
async def test_every_retriever_constructor_takes_another_calibration() -> None:
    stores = await populated()
    store, embeddings, tenant = await indexed(FIXTURE)
    entity_retrievers = [
        Retriever(
            embeddings=stores.embeddings,
            vectors=stores.vectors,
            graph=stores.graph,
            confidence=STRICT,
        ),
        Retriever.lexical_only(graph=stores.graph, confidence=STRICT),
    ]
    chunk_retrievers = [
        ChunkRetriever(embeddings=embeddings, chunks=store, confidence=STRICT),
        ChunkRetriever.lexical_only(chunks=store, confidence=STRICT),
    ]
    # (semantic, lexical score, confidence, the default calibration) of every result
    scored: list[tuple[float | None, float | None, float | None, ConfidenceCalibration]] = []
    for retriever in entity_retrievers:
        result = await retriever.retrieve("Grace Hoper", TENANT)
        assert result.matches
        scored += [(m.semantic, m.lexical, m.confidence, ENTITY_CONFIDENCE) for m in result.matches]
    for chunk_retriever in chunk_retrievers:
        found = await chunk_retriever.retrieve_chunks("notes about the engine", tenant)
        assert found.matches
        scored += [
            (c.semantic, c.bm25_coverage, c.confidence, PASSAGE_CONFIDENCE) for c in found.matches
        ]
    for semantic, lexical, confidence, default in scored:
        assert confidence == pytest.approx(STRICT.confidence(semantic=semantic, lexical=lexical))
        assert confidence != pytest.approx(default.confidence(semantic=semantic, lexical=lexical))


@pytest.mark.asyncio
@pytest.mark.parametrize("bad", [None, STRICT.semantic, {"semantic": 0.5}])
async def test_every_retriever_constructor_refuses_what_is_not_a_calibration_naming_it(
    bad: object,
) -> None:
    stores = await populated()
    store, embeddings, _ = await indexed(FIXTURE)
    graph, vectors = stores.graph, stores.vectors
    builds = [
        lambda: Retriever(
            embeddings=stores.embeddings, vectors=vectors, graph=graph, confidence=bad
        ),
        lambda: Retriever.lexical_only(graph=graph, confidence=bad),
        lambda: ChunkRetriever(embeddings=embeddings, chunks=store, confidence=bad),
        lambda: ChunkRetriever.lexical_only(chunks=store, confidence=bad),
    ]
    for build, default in zip(builds, ["ENTITY", "ENTITY", "PASSAGE", "PASSAGE"], strict=True):
        with pytest.raises(InvalidArgumentError, match="confidence") as refused:
            build()
        assert refused.value.name == "confidence"
        assert f"{default}_CONFIDENCE" in str(refused.value)
