"""The local model's semantic answers on both halves, recorded for the CI floors and the fit.

Embedding every corpus with the local model takes minutes on a small
machine; the HYBRID floors (`tests/quality/test_fusion_floors.py`) need only
what the semantic channel *answered*, and so does fitting the fusion
(`scripts.fit_fusion --recorded`). `record` asks a real `Retriever` /
`ChunkRetriever` in SEMANTIC mode for every graded query of both halves
(fit and holdout, so a fit needs no model either) and writes
the answers (entity keys or `(source id, chunk index)` with their scores),
the SHA-256 of every corpus file they came from and of the model, to
`RECORDED` (gzip JSON). `RecordedSemantic` and `RecordedChunks` replay them
behind the real ports, so the floors run the real lexical channel, the real
fusion and the real retrievers. The test checks a sample of the recording
against the live model, and refuses a recording whose corpora changed:

    uv run python -m scripts.fit_fusion --record
    uv run python -m scripts.fit_fusion --record passages/python  # one source; keep the rest
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from redstring import (
    ChunkRetriever,
    EntityId,
    RetrievalMode,
    Retriever,
    SourceDocument,
    TenantId,
    index_documents,
)
from redstring.domain.chunk import ChunkId, StoredChunk
from redstring.domain.chunk_retrieval import ChunkMatch
from redstring.domain.vector import VectorMatch
from redstring.llm.local_embedding import MODEL_SHA256, LocalEmbeddingProvider
from redstring.stores import InMemoryChunkStore

from .common import DATA_DIR
from .harness import (
    DEPTH,
    ENTITY_CORPORA,
    PASSAGES,
    TENANT,
    EntityCorpus,
    QualityQuery,
    build_graph,
    build_vectors,
    entity_id_of,
    load_entity_corpus,
)
from .passage_sets import (
    CHUNK_DEPTH,
    LEE_DEPTH,
    PASSAGE_SETS,
    lee_documents,
    lee_query,
    load_passage_set,
    passage_retriever,
)
from .providers import PreEmbeddedQueries

RECORDED = DATA_DIR / "semantic_answers.json.gz"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sources() -> dict[str, Path]:
    """Every corpus file a recording depends on, by name."""
    return {
        **{f"entities/{n}": p for n, p in ENTITY_CORPORA.items()},
        **{f"passages/{n}": p for n, p in PASSAGE_SETS.items()},
        "passages/lee": PASSAGES,
    }


def load_recording(path: Path = RECORDED) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(gzip.decompress(path.read_bytes()))
    return loaded


def record(path: Path = RECORDED, only: Sequence[str] | None = None) -> None:
    """Ask the local model's semantic channel every graded query of both halves; write them.

    With `only` (source names, `passages/python`), only those are asked again
    and every other source's answers are kept from `path`, which must hold
    them for the same model and the same corpus files (else `ValueError`).
    """
    names = list(sources()) if only is None else list(only)
    unknown = sorted(set(names) - set(sources()))
    if unknown:
        raise ValueError(f"no recorded source {', '.join(unknown)}; choose from {list(sources())}")
    digests = {name: digest(p) for name, p in sources().items()}
    answers: dict[str, dict[str, list[list[Any]]]] = {}
    if only is not None:
        kept = load_recording(path)
        stale = [
            name
            for name in digests
            if name not in names
            and (kept["sources"].get(name) != digests[name] or kept["model_sha256"] != MODEL_SHA256)
        ]
        if stale:
            raise ValueError(f"{', '.join(stale)} changed since {path.name}: record them too")
        answers = {name: kept["answers"][name] for name in digests if name not in names}
    answers.update(asyncio.run(_answers(names)))
    payload = {
        "model_sha256": MODEL_SHA256,
        "sources": digests,
        "answers": dict(sorted(answers.items())),
    }
    text = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))


async def _answers(names: Sequence[str]) -> dict[str, dict[str, list[list[Any]]]]:
    answers: dict[str, dict[str, list[list[Any]]]] = {}
    for name, corpus_path in ENTITY_CORPORA.items():
        if f"entities/{name}" not in names:
            continue
        corpus = load_entity_corpus(corpus_path)
        queries = [q for q in corpus.queries if q.targets]
        provider = PreEmbeddedQueries(LocalEmbeddingProvider())
        vectors = await build_vectors(corpus, provider)
        await provider.prepare([q.text for q in queries])
        key_of = {entity.id: key for key, entity in _keyed(corpus_path, corpus.entities)}
        retriever = Retriever(embeddings=provider, vectors=vectors, graph=await build_graph(corpus))
        answers[f"entities/{name}"] = {
            q.id: [
                [key_of[m.entity.id], round(m.semantic or 0.0, 6)]
                for m in (
                    await retriever.retrieve(q.text, TENANT, k=DEPTH, mode=RetrievalMode.SEMANTIC)
                ).matches
            ]
            for q in queries
        }
    for name, set_path in PASSAGE_SETS.items():
        if f"passages/{name}" not in names:
            continue
        passages = load_passage_set(set_path)
        retriever_c = await passage_retriever(passages, LocalEmbeddingProvider())
        answers[f"passages/{name}"] = {
            q.id: await _chunk_answer(retriever_c, q.text, CHUNK_DEPTH) for q in passages.queries
        }
    if "passages/lee" in names:
        answers["passages/lee"] = await _lee_answers()
    return answers


def _keyed(path: Path, entities: Sequence[Any]) -> list[tuple[str, Any]]:
    raw = json.loads(path.read_text(encoding="utf-8"))
    by_id = {entity.id: entity for entity in entities}
    return [(row["key"], by_id[entity_id_of(row["key"])]) for row in raw["entities"]]


async def _chunk_answer(retriever: ChunkRetriever, text: str, k: int) -> list[list[Any]]:
    result = await retriever.retrieve_chunks(text, TENANT, k=k, mode=RetrievalMode.SEMANTIC)
    return [[m.chunk.source_id, m.chunk.index, round(m.semantic or 0.0, 6)] for m in result.matches]


async def _lee_answers() -> dict[str, list[list[Any]]]:
    documents = lee_documents()
    provider = LocalEmbeddingProvider()
    store = InMemoryChunkStore(dimension=provider.dimension)
    await index_documents(documents, chunks=store, tenant_id=TENANT, embeddings=provider)
    retriever = ChunkRetriever(embeddings=provider, chunks=store)
    return {d.id: await _chunk_answer(retriever, lee_query(d), LEE_DEPTH) for d in documents}


class RecordedSemantic:
    """An embedding provider and vector store in one, replaying recorded entity answers.

    `embed_query` turns a query text into a one-number vector naming its
    recorded answer; `search` returns that answer (cut at `k`, filtered by
    type as a store would). `embed` refuses: nothing is embedded here.
    """

    dimension = 1

    def __init__(self, answers: dict[str, list[tuple[EntityId, str, float]]]) -> None:
        self._texts = list(answers)
        self._answers = [answers[text] for text in self._texts]

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("a recorded provider embeds nothing")

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(self._texts.index(text))] for text in texts]

    async def search(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        entity_types: Sequence[str] | None = None,
    ) -> list[VectorMatch]:
        answer = self._answers[int(vector[0])]
        kept = [
            VectorMatch(entity_id=i, entity_type=t, score=s)
            for i, t, s in answer
            if tenant_id == TENANT and (entity_types is None or t in entity_types)
        ]
        return kept[:k]


class RecordedChunks(InMemoryChunkStore):
    """A real in-memory chunk store (BM25 and all) whose semantic search replays a recording."""

    def __init__(self, answers: dict[str, list[tuple[str, int, float]]]) -> None:
        super().__init__(dimension=1)
        self._texts = list(answers)
        self._recorded = [answers[text] for text in self._texts]
        self._by_place: dict[tuple[str, int], StoredChunk] = {}

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        raise AssertionError("a recorded provider embeds nothing")

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        return [[float(self._texts.index(text))] for text in texts]

    async def search_chunks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[ChunkMatch]:
        if not self._by_place:
            chunks = await self.list_chunks(tenant_id)
            self._by_place = {(c.source_id, c.index): c for c in chunks}
        answer = self._recorded[int(vector[0])]
        kept = [
            ChunkMatch(chunk=self._by_place[(source, index)], score=score)
            for source, index, score in answer
            if source_ids is None or source in source_ids
        ]
        return kept[:k]

    async def semantic_ranking(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        *,
        k: int = 10,
        source_ids: Sequence[str] | None = None,
    ) -> list[tuple[ChunkId, float]]:
        found = await self.search_chunks(vector, tenant_id, k=k, source_ids=source_ids)
        return [(m.chunk.id, m.score) for m in found]

    async def semantic_ranks(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, tuple[int, float]]:
        found = await self.search_chunks(vector, tenant_id, k=len(self._by_place) or 10**6)
        kept = [m for m in found if source_ids is None or m.chunk.source_id in source_ids]
        places = {m.chunk.id: (rank, m.score) for rank, m in enumerate(kept, start=1)}
        return {chunk_id: places[chunk_id] for chunk_id in chunk_ids if chunk_id in places}

    async def semantic_scores(
        self,
        vector: Sequence[float],
        tenant_id: TenantId,
        chunk_ids: Sequence[ChunkId],
        *,
        source_ids: Sequence[str] | None = None,
    ) -> dict[ChunkId, float]:
        ranks = await self.semantic_ranks(vector, tenant_id, chunk_ids, source_ids=source_ids)
        return {chunk_id: score for chunk_id, (_, score) in ranks.items()}


def recorded_semantic(
    name: str, corpus: EntityCorpus, answers: dict[str, Any], queries: Sequence[QualityQuery]
) -> RecordedSemantic:
    """The recorded semantic channel of entity corpus `name` for `queries`."""
    type_of = {e.id: e.entity_type for e in corpus.entities}
    recorded = answers[f"entities/{name}"]
    return RecordedSemantic(
        {
            q.text: [
                (entity_id_of(key), type_of[entity_id_of(key)], s) for key, s in recorded[q.id]
            ]
            for q in queries
        }
    )


async def recorded_chunk_retriever(
    documents: Sequence[SourceDocument], answers: dict[str, list[list[Any]]], texts: dict[str, str]
) -> ChunkRetriever:
    """`documents` indexed for real (BM25), the semantic side replaying `answers`.

    `texts` maps each recorded query id to the text it is asked by.
    """
    chunks = RecordedChunks({texts[qid]: _places(answers[qid]) for qid in texts})
    await index_documents(documents, chunks=chunks, tenant_id=TENANT)
    return ChunkRetriever(embeddings=chunks, chunks=chunks)


def _places(answer: list[list[Any]]) -> list[tuple[str, int, float]]:
    return [(str(source), int(index), float(score)) for source, index, score in answer]
