"""ChunkRetriever: semantic and BM25 channels over the chunk corpus, fused by a strategy."""

from __future__ import annotations

from pathlib import Path

import pytest

from redstring import (
    ChunkRetriever,
    RetrievalMode,
    SourceDocument,
    StoredChunk,
    TenantId,
    index_documents,
    new_tenant_id,
)
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.composition.chunk_retrieval import CHANNEL_DEPTH
from redstring.domain.chunk_retrieval import bm25_relative
from redstring.domain.fusion import (
    DEFAULT_PASSAGE_FUSION,
    EvidenceFusion,
    ReciprocalRankFusion,
    weighted_evidence,
)
from redstring.errors import DimensionMismatchError
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryChunkStore
from tests.unit.composition.support import (
    RecordingEmbeddings,
    RendezvousChunkStore,
    VanishingChunkStore,
)

DIMENSION = 32
PRIMARY = r"ChunkRetriever\(embeddings=\.\.\., chunks=\.\.\.\)"

#: One chunk per document (the texts are shorter than the window); the same
#: corpus as the hand-computed BM25 fixture in tests/unit/domain/test_bm25.py.
FIXTURE = {
    "d1": "engine engine notes",
    "d2": "The engine",
    "d3": "notes about babbage difference machine",
    "d4": "Ada Lovelace",
}


async def indexed(
    texts: dict[str, str], *, embed: bool = True, tenant: TenantId | None = None
) -> tuple[InMemoryChunkStore, RecordingEmbeddings, TenantId]:
    store = InMemoryChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = tenant or new_tenant_id()
    await index_documents(
        [SourceDocument(id=source, text=text) for source, text in texts.items()],
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings if embed else None,
    )
    return store, embeddings, tenant


def sources(matches: list[StoredChunk]) -> list[str]:
    return [chunk.source_id for chunk in matches]


@pytest.mark.asyncio
async def test_lexical_scores_are_the_hand_computed_bm25_figures() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    result = await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(
        "engine", tenant, mode=RetrievalMode.LEXICAL
    )
    assert [m.chunk.source_id for m in result.matches] == ["d2", "d1"]
    assert [m.bm25 for m in result.matches] == pytest.approx([0.425956, 0.422417], abs=1e-6)
    assert [m.lexical for m in result.matches] == pytest.approx(
        [0.425956 / 1.425956, 0.422417 / 1.422417], abs=1e-6
    )
    assert all(m.semantic is None for m in result.matches)
    assert result.mode is RetrievalMode.LEXICAL


@pytest.mark.asyncio
async def test_hybrid_fuses_both_channels_and_keeps_both_component_scores() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=ReciprocalRankFusion())
    result = await retriever.retrieve_chunks("Ada Lovelace", tenant, k=4)
    assert result.mode is RetrievalMode.HYBRID
    [best, *rest] = result.matches
    assert best.chunk.source_id == "d4"
    assert best.semantic == pytest.approx(1.0, abs=1e-6)
    assert best.bm25 is not None
    assert best.bm25 > 0
    assert best.score == pytest.approx(2 / 61)
    assert len(rest) == 3
    assert all(m.bm25 is None and m.semantic is not None for m in rest)
    assert [m.score for m in result.matches] == sorted(
        (m.score for m in result.matches), reverse=True
    )
    assert embeddings.query_batches == [1]


def test_the_default_passage_fusion_is_the_one_the_retriever_holds() -> None:
    assert (
        ChunkRetriever(
            embeddings=RecordingEmbeddings(dimension=DIMENSION),
            chunks=InMemoryChunkStore(dimension=DIMENSION),
        )._fusion
        is DEFAULT_PASSAGE_FUSION
    )


@pytest.mark.asyncio
async def test_a_weighted_fused_score_is_explained_by_the_two_channel_scores() -> None:
    """Recompute every fused score from what the result carries: cosine, BM25, the weight."""
    store, embeddings, tenant = await indexed(FIXTURE)
    fusion = EvidenceFusion(lexical_floor=0.0, power=1.0)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=fusion)
    query = "notes about the engine"
    result = await retriever.retrieve_chunks(query, tenant, k=10)
    assert len(result.matches) == 4  # the whole corpus: every ranked chunk is shown
    top = max(m.bm25 for m in result.matches if m.bm25 is not None)
    semantic = sorted(
        ((m.chunk.id, m.semantic) for m in result.matches if m.semantic is not None),
        key=lambda pair: -pair[1],
    )
    lexical = sorted(
        ((m.chunk.id, bm25_relative(m.bm25, top)) for m in result.matches if m.bm25 is not None),
        key=lambda pair: -pair[1],
    )
    expected = weighted_evidence(
        semantic, lexical, lexical_weight=0.5, lexical_floor=0.0, power=1.0
    )
    assert [m.chunk.id for m in result.matches] == [item for item, _ in expected]
    assert [m.score for m in result.matches] == pytest.approx([score for _, score in expected])


@pytest.mark.asyncio
async def test_hybrid_over_a_partly_embedded_corpus_answers_the_rest_lexically() -> None:
    store, embeddings, tenant = await indexed({"bare": "the analytical engine notes"}, embed=False)
    await index_documents(
        [SourceDocument(id="embedded", text="Ada Lovelace wrote notes")],
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings,
    )
    result = await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(
        "analytical engine", tenant
    )
    by_source = {m.chunk.source_id: m for m in result.matches}
    assert set(by_source) == {"bare", "embedded"}
    assert by_source["bare"].semantic is None
    assert by_source["bare"].bm25 is not None
    assert by_source["embedded"].semantic is not None
    assert by_source["embedded"].bm25 is None
    assert result.matches[0].chunk.source_id in {"bare", "embedded"}


@pytest.mark.asyncio
async def test_semantic_mode_runs_only_the_semantic_channel() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    result = await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(
        "engine", tenant, mode=RetrievalMode.SEMANTIC, k=2
    )
    assert len(result.matches) == 2
    assert all(m.semantic is not None and m.bm25 is None for m in result.matches)


@pytest.mark.asyncio
async def test_the_channels_run_concurrently_in_hybrid() -> None:
    """Each store call waits for the other to start; run one after the other, this times out."""
    store = RendezvousChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    await index_documents(
        [SourceDocument(id="d", text="engine notes")],
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings,
    )
    result = await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(
        "engine", tenant
    )
    assert len(result.matches) == 1


@pytest.mark.asyncio
async def test_the_source_filter_applies_before_k_in_every_channel() -> None:
    store, embeddings, tenant = await indexed(
        {"a": "engine engine engine", "b": "engine and a much longer passage about other things"}
    )
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    for mode in RetrievalMode:
        unfiltered = await retriever.retrieve_chunks("engine", tenant, k=1, mode=mode)
        assert [m.chunk.source_id for m in unfiltered.matches] == ["a"]
        result = await retriever.retrieve_chunks("engine", tenant, k=1, mode=mode, source_ids=["b"])
        assert [m.chunk.source_id for m in result.matches] == ["b"], mode
        nothing = await retriever.retrieve_chunks("engine", tenant, mode=mode, source_ids=[])
        assert nothing.matches == []


@pytest.mark.asyncio
async def test_a_single_string_as_source_ids_is_refused() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    with pytest.raises(ValueError, match=r"\['d1'\]"):
        await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(
            "engine", tenant, source_ids="d1"
        )


@pytest.mark.asyncio
async def test_k_zero_one_beyond_the_corpus_and_negative() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    for mode in RetrievalMode:
        assert (
            await retriever.retrieve_chunks("engine notes", tenant, k=0, mode=mode)
        ).matches == []
        assert (
            len((await retriever.retrieve_chunks("engine notes", tenant, k=1, mode=mode)).matches)
            == 1
        )
        with pytest.raises(ValueError, match="k must be zero or more"):
            await retriever.retrieve_chunks("engine", tenant, k=-1, mode=mode)
    lexical = await retriever.retrieve_chunks(
        "engine notes", tenant, k=50, mode=RetrievalMode.LEXICAL
    )
    assert len(lexical.matches) == 3
    hybrid = await retriever.retrieve_chunks("engine notes", tenant, k=50)
    assert len(hybrid.matches) == 4
    assert embeddings.query_batches.count(1) == len(embeddings.query_batches)


@pytest.mark.asyncio
@pytest.mark.parametrize("query", ["", "   ", "\n\t"])
async def test_a_blank_query_is_refused_before_anything_is_embedded(query: str) -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    with pytest.raises(ValueError, match="query must not be blank"):
        await ChunkRetriever(embeddings=embeddings, chunks=store).retrieve_chunks(query, tenant)
    assert embeddings.query_batches == []


@pytest.mark.asyncio
async def test_a_query_of_stopwords_ranks_nothing_lexically_without_raising() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    lexical = await retriever.retrieve_chunks("the of and", tenant, mode=RetrievalMode.LEXICAL)
    hybrid = await retriever.retrieve_chunks("the of and", tenant)
    assert lexical.matches == []
    assert all(m.bm25 is None for m in hybrid.matches)


def test_a_provider_and_store_of_different_dimensions_are_refused_at_construction() -> None:
    with pytest.raises(DimensionMismatchError) as caught:
        ChunkRetriever(
            embeddings=RecordingEmbeddings(dimension=8), chunks=InMemoryChunkStore(dimension=16)
        )
    assert (caught.value.expected, caught.value.actual) == (16, 8)


@pytest.mark.asyncio
async def test_lexical_only_needs_no_provider_and_refuses_the_other_modes() -> None:
    store, _, tenant = await indexed(FIXTURE, embed=False)
    retriever = ChunkRetriever.lexical_only(chunks=store)
    assert retriever.default_mode is RetrievalMode.LEXICAL
    result = await retriever.retrieve_chunks("engine", tenant)
    assert result.mode is RetrievalMode.LEXICAL
    assert [m.chunk.source_id for m in result.matches] == ["d2", "d1"]
    for mode in (RetrievalMode.SEMANTIC, RetrievalMode.HYBRID):
        with pytest.raises(ValueError, match=PRIMARY):
            await retriever.retrieve_chunks("engine", tenant, mode=mode)
        with pytest.raises(ValueError, match=PRIMARY):
            await retriever.retrieve_chunks("engine", tenant, mode=mode, k=0)


@pytest.mark.asyncio
async def test_the_primary_constructor_defaults_to_hybrid() -> None:
    store, embeddings, _ = await indexed(FIXTURE)
    assert ChunkRetriever(embeddings=embeddings, chunks=store).default_mode is RetrievalMode.HYBRID


@pytest.mark.asyncio
async def test_tenants_with_colliding_chunk_ids_never_see_each_other() -> None:
    first, second = new_tenant_id(), new_tenant_id()
    store, embeddings, _ = await indexed({"doc": "engine notes"}, tenant=first)
    await index_documents(
        [SourceDocument(id="doc", text="engine notes"), SourceDocument(id="x", text="engine")],
        chunks=store,
        tenant_id=second,
        embeddings=embeddings,
    )
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    for mode in RetrievalMode:
        mine = await retriever.retrieve_chunks("engine", first, mode=mode)
        assert [m.chunk.tenant_id for m in mine.matches] == [first]
        theirs = await retriever.retrieve_chunks("engine", second, mode=mode)
        assert {m.chunk.tenant_id for m in theirs.matches} == {second}
        assert len(theirs.matches) == 2
    [lone] = (await retriever.retrieve_chunks("engine", first, mode=RetrievalMode.LEXICAL)).matches
    [same] = [
        m
        for m in (
            await retriever.retrieve_chunks("engine", second, mode=RetrievalMode.LEXICAL)
        ).matches
        if m.chunk.source_id == "doc"
    ]
    assert lone.chunk.id == same.chunk.id
    assert lone.bm25 != same.bm25  # each tenant's own corpus statistics


@pytest.mark.asyncio
@pytest.mark.parametrize("names", [("p", "q"), ("q", "p")])
async def test_fused_ties_break_by_ascending_chunk_id_string(names: tuple[str, str]) -> None:
    """One chunk first lexically only, another first semantically only: equal fused scores."""
    lexical_source, semantic_source = names
    store, embeddings, tenant = await indexed({lexical_source: "engine"}, embed=False)
    await index_documents(
        [SourceDocument(id=semantic_source, text="steam")],
        chunks=store,
        tenant_id=tenant,
        embeddings=embeddings,
    )
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=ReciprocalRankFusion())
    result = await retriever.retrieve_chunks("engine", tenant)
    assert len(result.matches) == 2
    assert result.matches[0].score == result.matches[1].score == pytest.approx(1 / 61)
    ids = [str(m.chunk.id) for m in result.matches]
    assert ids == sorted(ids)
    [only] = (await retriever.retrieve_chunks("engine", tenant, k=1)).matches
    assert str(only.chunk.id) == ids[0]


@pytest.mark.asyncio
async def test_mutating_a_result_changes_nothing_stored() -> None:
    store, embeddings, tenant = await indexed(FIXTURE)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    first = await retriever.retrieve_chunks("engine", tenant)
    first.matches[0].chunk.metadata["changed"] = True
    first.matches.clear()
    again = await retriever.retrieve_chunks("engine", tenant)
    assert again.matches
    assert all(m.chunk.metadata == {} for m in again.matches)


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", [RetrievalMode.LEXICAL, RetrievalMode.HYBRID])
async def test_a_chunk_deleted_after_ranking_is_skipped_without_backfill(
    mode: RetrievalMode,
) -> None:
    """`gone` ranks in the fused top 2 and vanishes before it is fetched: one match, not two."""
    store = VanishingChunkStore(dimension=DIMENSION)
    embeddings = RecordingEmbeddings(dimension=DIMENSION)
    tenant = new_tenant_id()
    lexical_only = [
        SourceDocument(id="gone", text="engine engine"),
        SourceDocument(id="kept", text="engine"),
    ]
    semantic_only = [
        SourceDocument(id="sem-1", text="steam"),
        SourceDocument(id="sem-2", text="boiler"),
    ]
    await index_documents(lexical_only, chunks=store, tenant_id=tenant)
    await index_documents(semantic_only, chunks=store, tenant_id=tenant, embeddings=embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    result = await retriever.retrieve_chunks("engine", tenant, k=2, mode=mode)
    assert "gone" not in [m.chunk.source_id for m in result.matches]
    assert len(result.matches) == 1


@pytest.mark.asyncio
@pytest.mark.parametrize("query", ["engine notes", "Ada Lovelace", "babbage engine"])
async def test_asking_for_fewer_matches_never_changes_the_fused_order(query: str) -> None:
    # Each channel ranks at least CHANNEL_DEPTH before fusion, so the top k of
    # a small k are the top k of a large one (the MCP tool asks k=1).
    texts = {f"s{i}": f"{FIXTURE[f'd{i % 4 + 1}']} extra words {i}" for i in range(12)}
    store, embeddings, tenant = await indexed(texts)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    full = await retriever.retrieve_chunks(query, tenant, k=CHANNEL_DEPTH)
    for k in range(1, CHANNEL_DEPTH):
        part = await retriever.retrieve_chunks(query, tenant, k=k)
        assert [m.chunk.id for m in part.matches] == [m.chunk.id for m in full.matches][:k]
        assert [m.score for m in part.matches] == [m.score for m in full.matches][:k]


async def lexical_sources(store: InMemoryChunkStore | SqliteChunkStore, query: str) -> list[str]:
    tenant = new_tenant_id()
    await index_documents(
        [
            SourceDocument(id="stems", text="The engines were running all night."),
            SourceDocument(id="other", text="A quiet mill by the river."),
        ],
        chunks=store,
        tenant_id=tenant,
    )
    result = await ChunkRetriever.lexical_only(chunks=store).retrieve_chunks(query, tenant)
    return sources([m.chunk for m in result.matches])


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_a_query_is_analysed_as_the_store_analysed_its_passages(
    backend: str, tmp_path: Path
) -> None:
    """Stemmed passages are found by another form of the word only if the query is
    stemmed too; words as written only by the words as written."""

    def store(language: str) -> InMemoryChunkStore | SqliteChunkStore:
        if backend == "memory":
            return InMemoryChunkStore(dimension=DIMENSION, language=language)
        path = tmp_path / f"{language}.db"
        return SqliteChunkStore(SqliteDatabase(path), dimension=DIMENSION, language=language)

    assert await lexical_sources(store("english"), "engine runs") == ["stems"]
    assert await lexical_sources(store("none"), "engines") == ["stems"]
    assert await lexical_sources(store("none"), "engine runs") == []
