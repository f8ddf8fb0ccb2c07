"""The channel answers the fusion is fitted on: each graded query asked of each channel alone.

Entities: every graded query of every entity corpus (`ENTITY_CORPORA`),
through a real `Retriever` in SEMANTIC and LEXICAL modes at k = `DEPTH`
(what HYBRID fuses at k = 10). Passages: every graded passage set
(`PASSAGE_SETS`) at `CHUNK_DEPTH` chunks per channel, as the report ranks
them, and the Lee documents' first sentences at k = 200, as the Lee check
does; BM25 reaches the fusion as `bm25_relative`, exactly as
`ChunkRetriever` hands it over. The local MiniLM model embeds, or
(`recorded=True`) the semantic channel replays `recorded.RECORDED`, the
model's answers to every graded query of both halves, so a fit needs no
model and runs the real lexical channel. Each entity case keeps the lexical
first's `WordCover` as `Retriever` hands it to the fusion (ADR 0540).
Answers can be kept in a cache directory (pickle) between runs; delete it
when a channel or a corpus changes.
"""

from __future__ import annotations

import asyncio
import pickle
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from redstring import ChunkRetriever, RetrievalMode, Retriever, index_documents
from redstring.composition.lexical_channel import answer_lexically
from redstring.domain.chunk_retrieval import ScoredChunk, bm25_relative
from redstring.domain.lexical import WordCover
from redstring.domain.query import NormalizedQuery
from redstring.llm.local_embedding import LocalEmbeddingProvider
from redstring.stores import InMemoryChunkStore

from .common import split_of
from .fusion_fit import Case
from .harness import (
    DEPTH,
    ENTITY_CORPORA,
    TENANT,
    build_graph,
    build_vectors,
    load_entity_corpus,
    rank_all,
)
from .passage_sets import (
    CHUNK_DEPTH,
    LEE_DEPTH,
    PASSAGE_SETS,
    lee_documents,
    lee_grades,
    lee_query,
    load_passage_set,
    passage_retriever,
)
from .providers import PreEmbeddedQueries
from .recorded import load_recording, recorded_chunk_retriever, recorded_semantic

Pairs = tuple[tuple[str, float], ...]


def cached(name: str, cache: str | None, collect: Callable[[], list[Case]]) -> list[Case]:
    """`collect()`, or what an earlier run kept under `cache`."""
    if cache is None:
        return collect()
    path = Path(cache) / f"{name}.pkl"
    if path.exists():
        kept: list[Case] = pickle.loads(path.read_bytes())
        return kept
    cases = collect()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(cases))
    return cases


def entity_cases(cache: str | None, recorded: bool = False) -> list[Case]:
    """Every entity corpus's graded queries, families named `corpus/shape`."""
    tag = "-recorded" if recorded else ""
    return [
        case
        for name in ENTITY_CORPORA
        for case in cached(
            f"entities-{name}{tag}", cache, lambda n=name: asyncio.run(_entities(n, recorded))
        )
    ]


async def _entities(name: str, recorded: bool) -> list[Case]:
    corpus = load_entity_corpus(ENTITY_CORPORA[name])
    queries = [q for q in corpus.queries if q.targets]
    graph = await build_graph(corpus)
    if recorded:
        replayed = recorded_semantic(name, corpus, load_recording()["answers"], queries)
        retriever = Retriever(embeddings=replayed, vectors=replayed, graph=graph)
    else:
        provider = PreEmbeddedQueries(LocalEmbeddingProvider())
        vectors = await build_vectors(corpus, provider)
        await provider.prepare([q.text for q in queries])
        retriever = Retriever(embeddings=provider, vectors=vectors, graph=graph)
    semantic = await rank_all(retriever, queries, RetrievalMode.SEMANTIC, DEPTH)
    lexical = await rank_all(retriever, queries, RetrievalMode.LEXICAL, DEPTH)
    covers = [
        (await answer_lexically(graph, NormalizedQuery.of(q.text), TENANT, None)).cover
        for q in queries
    ]
    return [
        Case(
            family=f"{name}/{q.shape}",
            split=q.split,
            query=q.text,
            semantic=tuple((str(i), s.semantic[i]) for i in s.ids),
            lexical=tuple((str(i), lx.lexical[i]) for i in lx.ids),
            targets=frozenset(str(t) for t in q.targets),
            source=q.source,
            cover=_with_text_ids(cover),
        )
        for q, s, lx, cover in zip(queries, semantic, lexical, covers, strict=True)
    ]


def _with_text_ids(cover: WordCover | None) -> WordCover | None:
    """`cover` with its `filled_by` ids as the text a case holds its ids in (ADR 0580)."""
    if cover is None:
        return None
    return replace(cover, filled_by=frozenset(str(i) for i in cover.filled_by))  # type: ignore[arg-type]


def passage_cases(cache: str | None, recorded: bool = False) -> list[Case]:
    """Every graded passage set's queries (`set/shape`) and the Lee queries (`lee`)."""
    tag = "-recorded" if recorded else ""
    cases = [
        case
        for name in PASSAGE_SETS
        for case in cached(
            f"passages-{name}{tag}", cache, lambda n=name: asyncio.run(_passages(n, recorded))
        )
    ]
    return cases + cached(f"passages-lee{tag}", cache, lambda: asyncio.run(_lee(recorded)))


def _channels(
    semantic: list[ScoredChunk], lexical: list[ScoredChunk]
) -> tuple[
    tuple[tuple[str, float], ...], tuple[tuple[str, float], ...], tuple[tuple[str, str], ...]
]:
    """Both answers as the fusion sees them, and each chunk's document."""
    top = lexical[0].bm25 or 0.0 if lexical else 0.0
    doc_of = {str(m.chunk.id): m.chunk.source_id for m in semantic + lexical}
    return (
        tuple((str(m.chunk.id), m.semantic or 0.0) for m in semantic),
        tuple((str(m.chunk.id), bm25_relative(m.bm25 or 0.0, top)) for m in lexical),
        tuple(sorted(doc_of.items())),
    )


async def _ask(
    retriever: ChunkRetriever, text: str, k: int
) -> tuple[list[ScoredChunk], list[ScoredChunk]]:
    answers = [
        (await retriever.retrieve_chunks(text, TENANT, k=k, mode=mode)).matches
        for mode in (RetrievalMode.SEMANTIC, RetrievalMode.LEXICAL)
    ]
    return answers[0], answers[1]


async def _passages(name: str, recorded: bool) -> list[Case]:
    passages = load_passage_set(PASSAGE_SETS[name])
    if recorded:
        retriever = await recorded_chunk_retriever(
            passages.documents,
            load_recording()["answers"][f"passages/{name}"],
            {q.id: q.text for q in passages.queries},
        )
    else:
        retriever = await passage_retriever(passages, LocalEmbeddingProvider())
    cases = []
    for query in passages.queries:
        semantic, lexical, doc_of = _channels(*await _ask(retriever, query.text, CHUNK_DEPTH))
        cases.append(
            Case(
                family=f"{name}/{query.shape}",
                split=query.split,
                query=query.text,
                semantic=semantic,
                lexical=lexical,
                targets=query.targets,
                doc_of=doc_of,
                grades=tuple(sorted(query.grades.items())),
                source=query.source,
            )
        )
    return cases


async def _lee(recorded: bool) -> list[Case]:
    documents = lee_documents()
    if recorded:
        retriever = await recorded_chunk_retriever(
            documents,
            load_recording()["answers"]["passages/lee"],
            {d.id: lee_query(d) for d in documents},
        )
    else:
        provider = LocalEmbeddingProvider()
        store = InMemoryChunkStore(dimension=provider.dimension)
        await index_documents(documents, chunks=store, tenant_id=TENANT, embeddings=provider)
        retriever = ChunkRetriever(embeddings=provider, chunks=store)
    cases = []
    for document in documents:
        query = lee_query(document)
        semantic, lexical, doc_of = _channels(*await _ask(retriever, query, LEE_DEPTH))
        cases.append(
            Case(
                family="lee",
                split=split_of(document.id),
                query=query,
                semantic=semantic,
                lexical=lexical,
                doc_of=doc_of,
                grades=tuple(sorted(lee_grades(document.id).items())),
                own_doc=document.id,
            )
        )
    return cases
