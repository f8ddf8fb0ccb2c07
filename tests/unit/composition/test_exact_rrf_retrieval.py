"""HYBRID passages under `ReciprocalRankFusion`: the RRF of both channels' full rankings,
whatever `k` asks (ADR 0355)."""

from __future__ import annotations

import asyncio
import random
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from redstring import (
    ChunkRetriever,
    RetrievalMode,
    SourceDocument,
    TenantId,
    index_documents,
    new_tenant_id,
)
from redstring.chunks.sqlite import SqliteChunkStore
from redstring.domain.chunk import ChunkId
from redstring.domain.chunk_retrieval import ScoredChunk
from redstring.domain.fusion import (
    DEFAULT_PASSAGE_FUSION,
    EvidenceFusion,
    FusionStrategy,
    ReciprocalRankFusion,
)
from redstring.domain.fusion import reciprocal_rank_fusion as full_rrf
from redstring.llm.fake_embedding import FakeEmbeddingProvider
from redstring.storage.sqlite import SqliteDatabase
from redstring.stores import InMemoryChunkStore

DIMENSION = 16
RRF = ReciprocalRankFusion()
WORDS = ["engine", "mill", "river", "notes", "widget", "lamp", "stone", "gear", "wheel", "salt"]

texts = st.lists(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join), min_size=1, max_size=24
)


def open_store(backend: str, folder: Path) -> InMemoryChunkStore | SqliteChunkStore:
    if backend == "memory":
        return InMemoryChunkStore(dimension=DIMENSION)
    return SqliteChunkStore(SqliteDatabase(folder / "chunks.db"), dimension=DIMENSION)


async def index(
    store: InMemoryChunkStore | SqliteChunkStore,
    corpus: Sequence[str],
    embeddings: FakeEmbeddingProvider,
    *,
    embedded: Sequence[bool] | None = None,
) -> TenantId:
    tenant = new_tenant_id()
    documents = [SourceDocument(id=f"s{i:03d}", text=text) for i, text in enumerate(corpus)]
    with_vectors = [d for i, d in enumerate(documents) if embedded is None or embedded[i]]
    without = [d for d in documents if d not in with_vectors]
    for batch, provider in ((with_vectors, embeddings), (without, None)):
        if batch:
            await index_documents(batch, chunks=store, tenant_id=tenant, embeddings=provider)
    return tenant


Expected = Callable[[list[ScoredChunk], list[ScoredChunk]], list[tuple[ChunkId, float]]]


async def first_n_agree(
    backend: str,
    corpus: list[str],
    query: str,
    embedded: list[bool],
    fusion: FusionStrategy,
    expected_of: Expected,
) -> None:
    """HYBRID's whole answer is `expected_of` the whole SEMANTIC and LEXICAL answers
    (ids in order, scores), and every k's first n are the whole answer's."""
    with tempfile.TemporaryDirectory() as folder:
        store = open_store(backend, Path(folder))
        embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
        tenant = await index(store, corpus, embeddings, embedded=embedded)
        retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=fusion)
        everything = len(corpus) + 2
        semantic, lexical = [
            (await retriever.retrieve_chunks(query, tenant, k=everything, mode=mode)).matches
            for mode in (RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL)
        ]
        expected = expected_of(semantic, lexical)
        whole = await retriever.retrieve_chunks(query, tenant, k=everything)
        assert [m.chunk.id for m in whole.matches] == [chunk_id for chunk_id, _ in expected]
        assert [m.score for m in whole.matches] == pytest.approx([v for _, v in expected])
        for n in range(1, len(corpus) + 1):
            part = await retriever.retrieve_chunks(query, tenant, k=n)
            assert part.matches == whole.matches[:n]


def full_rankings_rrf(
    semantic: list[ScoredChunk], lexical: list[ScoredChunk]
) -> list[tuple[ChunkId, float]]:
    return full_rrf([[m.chunk.id for m in semantic], [m.chunk.id for m in lexical]])


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(corpus=texts, query=st.sampled_from(WORDS), data=st.data())
def test_the_first_n_of_every_k_are_the_first_n_of_the_full_rankings_rrf(
    backend: str, corpus: list[str], query: str, data: st.DataObject
) -> None:
    """Every k from 1 to past the corpus, so the store ranks lexical candidates
    below the first k; some passages have no vector, so the semantic channel is
    short of the corpus."""
    embedded = data.draw(st.lists(st.booleans(), min_size=len(corpus), max_size=len(corpus)))
    asyncio.run(first_n_agree(backend, corpus, query, embedded, RRF, full_rankings_rrf))


@pytest.mark.asyncio
async def test_the_result_says_how_hybrid_fused() -> None:
    embeddings = FakeEmbeddingProvider(dimension=DIMENSION)
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = await index(store, ["engine notes", "mill river"], embeddings)
    rrf = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=RRF)
    weighted = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=EvidenceFusion())
    assert (await rrf.retrieve_chunks("engine", tenant)).fusion == "rrf k=60"
    lexical = await rrf.retrieve_chunks("engine", tenant, mode=RetrievalMode.LEXICAL)
    assert lexical.fusion is None
    weighed = (await weighted.retrieve_chunks("engine", tenant)).fusion
    assert weighed == "evidence lexical_floor=0.6 lexical_weight=0.5 power=3"


class IdentifierBlindEmbeddings(FakeEmbeddingProvider):
    """A model that reads an identifier as noise: the passage holding it points
    away from the query, and every other passage close to it (cosine about 0.95)."""

    def __init__(self, *, dimension: int, identifier: str) -> None:
        super().__init__(dimension=dimension)
        self._identifier = identifier

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        [query] = np.array(await super().embed([self._identifier]))
        vectors = []
        for text, own in zip(texts, np.array(await super().embed(texts)), strict=True):
            vector = -query if self._identifier in text else query + 0.3 * own
            vectors.append((vector / np.linalg.norm(vector)).tolist())
        return vectors

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await super().embed(texts)


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@pytest.mark.parametrize("fusion", [RRF, DEFAULT_PASSAGE_FUSION], ids=["rrf", "default"])
async def test_an_identifier_in_exactly_one_passage_is_hybrids_first_result(
    backend: str, fusion: FusionStrategy, tmp_path: Path
) -> None:
    """The identifier splits into terms ('frobnic', 'widget', 'v2') that no
    other passage holds, and the semantic channel ranks its passage last of
    400, every other passage reading close to the query: it is the only
    lexical candidate. RRF puts it first; the default fusion puts a one-word
    query's lone holder first."""
    identifier = "frobnicate_widget_v2"
    rng = random.Random(7)
    filler = ["engine", "mill", "river", "notes", "lamp", "stone", "gear", "wheel", "salt"]
    corpus = [" ".join(rng.choices(filler, k=12)) for _ in range(400)]
    corpus[rng.randrange(len(corpus))] = f"call {identifier} before the mill opens"
    embeddings = IdentifierBlindEmbeddings(dimension=DIMENSION, identifier=identifier)
    store = open_store(backend, tmp_path)
    tenant = await index(store, corpus, embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=fusion)
    semantic = await retriever.retrieve_chunks(
        identifier, tenant, k=len(corpus), mode=RetrievalMode.SEMANTIC
    )
    assert identifier in semantic.matches[-1].chunk.text  # the model gives it nothing
    for k in (1, 10):
        result = await retriever.retrieve_chunks(identifier, tenant, k=k)
        assert identifier in result.matches[0].chunk.text


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
@pytest.mark.parametrize("identifier", ["max_connections", "max.connections", "Max_Connections"])
async def test_an_identifier_of_common_words_is_hybrids_first_result(
    backend: str, identifier: str, tmp_path: Path
) -> None:
    """Every passage holds the identifier's words apart, one holds them joined: the
    compound term only that one holds makes it the one-word query's lone holder,
    though the semantic channel ranks it last of 400."""
    rng = random.Random(5)
    filler = ["engine", "mill", "river", "notes", "lamp", "stone", "gear", "wheel", "salt"]
    corpus = [" ".join([*rng.choices(filler, k=10), "max", "connections"]) for _ in range(400)]
    corpus[rng.randrange(len(corpus))] = f"set {identifier} before the mill opens"
    embeddings = IdentifierBlindEmbeddings(dimension=DIMENSION, identifier=identifier)
    store = open_store(backend, tmp_path)
    tenant = await index(store, corpus, embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    semantic = await retriever.retrieve_chunks(
        identifier, tenant, k=len(corpus), mode=RetrievalMode.SEMANTIC
    )
    assert identifier in semantic.matches[-1].chunk.text
    for mode in (RetrievalMode.HYBRID, RetrievalMode.LEXICAL):
        for k in (1, 10):
            result = await retriever.retrieve_chunks(identifier, tenant, k=k, mode=mode)
            assert identifier in result.matches[0].chunk.text


@pytest.mark.asyncio
@pytest.mark.parametrize("backend", ["memory", "sqlite"])
async def test_an_identifier_in_several_passages_of_one_document_puts_its_best_first(
    backend: str, tmp_path: Path
) -> None:
    """A long document writes the identifier at its start and its end, so two of its
    passages hold it and neither alone; the semantic channel ranks both last. That
    document's passage with the higher BM25 comes first, for every `k`."""
    identifier = "max_connections"
    rng = random.Random(9)
    filler = ["engine", "mill", "river", "notes", "lamp", "stone", "gear", "wheel", "salt"]
    corpus = [" ".join([*rng.choices(filler, k=10), "max", "connections"]) for _ in range(300)]
    middle = " ".join(rng.choices(filler, k=900))
    corpus[17] = f"set {identifier} first. {middle} then {identifier} again, {identifier}."
    embeddings = IdentifierBlindEmbeddings(dimension=DIMENSION, identifier=identifier)
    store = open_store(backend, tmp_path)
    tenant = await index(store, corpus, embeddings)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store)
    lexical = await retriever.retrieve_chunks(identifier, tenant, k=3, mode=RetrievalMode.LEXICAL)
    holding = [m for m in lexical.matches if identifier in m.chunk.text]
    assert [m.chunk.source_id for m in holding] == ["s017", "s017"]  # two passages, one document
    semantic = await retriever.retrieve_chunks(
        identifier, tenant, k=400, mode=RetrievalMode.SEMANTIC
    )
    assert {m.chunk.id for m in semantic.matches[-2:]} == {m.chunk.id for m in holding}
    best = max(holding, key=lambda match: match.bm25 or 0.0)
    assert best.bm25 != min(match.bm25 or 0.0 for match in holding)
    for k in (1, 10):
        for mode in (RetrievalMode.HYBRID, RetrievalMode.LEXICAL):
            result = await retriever.retrieve_chunks(identifier, tenant, k=k, mode=mode)
            assert result.matches[0].chunk.id == best.chunk.id


class WordBlindEmbeddings(FakeEmbeddingProvider):
    """A model that does not see `word` in a passage, so how near a passage
    reads to a query of that word has nothing to do with its BM25 score."""

    def __init__(self, *, dimension: int, word: str) -> None:
        super().__init__(dimension=dimension)
        self._word = word

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await super().embed([text.replace(self._word, "") for text in texts])

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return await super().embed(texts)


@pytest.mark.asyncio
@pytest.mark.parametrize(("size", "embedded_every"), [(40, 13), (3000, 1)])
async def test_a_semantic_answer_deep_in_the_lexical_ranking_keeps_its_lexical_part(
    size: int, embedded_every: int
) -> None:
    """Every passage holds the query word, so the lexical ranking is as long as
    the corpus, and the semantic channel's best lie anywhere in it: with few
    passages embedded (fewer than k, so no candidate is asked for its rank)
    and with 3,000 (deeper than any candidate could still reach the answer).
    HYBRID's first k are the full rankings' RRF, scores included."""
    rng = random.Random(11)
    filler = ["engine", "mill", "river", "notes", "lamp", "stone", "gear", "wheel"]
    corpus = [" ".join(["salt", *rng.choices(filler, k=rng.randrange(1, 30))]) for _ in range(size)]
    embedded = [n % embedded_every == 0 for n in range(size)]
    embeddings = WordBlindEmbeddings(dimension=DIMENSION, word="salt")
    store = InMemoryChunkStore(dimension=DIMENSION)
    tenant = await index(store, corpus, embeddings, embedded=embedded)
    retriever = ChunkRetriever(embeddings=embeddings, chunks=store, fusion=RRF)
    full = {
        mode: await retriever.retrieve_chunks("salt", tenant, k=size, mode=mode)
        for mode in (RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL)
    }
    expected = full_rrf([[m.chunk.id for m in answer.matches] for answer in full.values()])
    for k in (1, 3, 10, 30, 100):
        result = await retriever.retrieve_chunks("salt", tenant, k=k)
        assert [(m.chunk.id, m.score) for m in result.matches] == expected[:k]
