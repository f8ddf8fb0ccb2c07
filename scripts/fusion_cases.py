"""The channel answers `fit_fusion.py` fits on: each graded query asked of each channel alone.

Entities: every graded query of the committed corpus, through a real
`Retriever` in SEMANTIC and LEXICAL modes (k = 10, what HYBRID fuses at
k = 10). Passages: the Lee documents' first sentences through a real
`ChunkRetriever` in both modes (k = 200, as the passage check in
`evaluate_retrieval.py`), BM25 turned into `bm25_relative` as the retriever
hands it to its fusion. The local MiniLM model embeds; answers can be kept in
a cache directory (pickle) between runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import pickle
from collections.abc import Callable
from pathlib import Path

from evaluate_retrieval import PreEmbeddedQueries
from fit_fusion import Case
from redstring import (
    ChunkRetriever,
    InMemoryChunkStore,
    RetrievalMode,
    Retriever,
    SourceDocument,
    index_documents,
)
from redstring.domain.chunk_retrieval import bm25_relative
from redstring.llm.local_embedding import LocalEmbeddingProvider
from retrieval_quality import (
    PASSAGES,
    TENANT,
    build_graph,
    build_vectors,
    load_entity_corpus,
    rank_all,
)

PASSAGE_DEPTH = 200


def split_of(key: str) -> str:
    """The corpus's rule: the first 32 bits of sha256(key), even -> fit."""
    return "fit" if int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 2 == 0 else "holdout"


def cached(name: str, cache: str | None, collect: Callable[[], list[Case]]) -> list[Case]:
    if cache is None:
        return collect()
    path = Path(cache) / f"{name}.pkl"
    if path.exists():
        loaded: list[Case] = pickle.loads(path.read_bytes())
        return loaded
    cases = collect()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(pickle.dumps(cases))
    return cases


def entity_cases(cache: str | None) -> list[Case]:
    return cached("entities", cache, lambda: asyncio.run(_entity_cases()))


async def _entity_cases() -> list[Case]:
    corpus = load_entity_corpus()
    queries = [q for q in corpus.queries if q.targets]
    provider = PreEmbeddedQueries(LocalEmbeddingProvider())
    vectors = await build_vectors(corpus, provider)
    await provider.prepare([q.text for q in queries])
    retriever = Retriever(embeddings=provider, vectors=vectors, graph=await build_graph(corpus))
    semantic = await rank_all(retriever, queries, RetrievalMode.SEMANTIC)
    lexical = await rank_all(retriever, queries, RetrievalMode.LEXICAL)
    return [
        Case(
            family=q.shape,
            split=q.split,
            query=q.text,
            semantic=tuple((str(i), s.semantic[i]) for i in s.ids),
            lexical=tuple((str(i), lx.lexical[i]) for i in lx.ids),
            targets=frozenset(str(t) for t in q.targets),
        )
        for q, s, lx in zip(queries, semantic, lexical, strict=True)
    ]


def passage_cases(cache: str | None) -> list[Case]:
    return cached("passages", cache, lambda: asyncio.run(_lee_cases()))


async def _lee_cases() -> list[Case]:
    raw = json.loads(PASSAGES.read_text(encoding="utf-8"))
    texts = [doc["text"] for doc in raw["documents"]]
    provider = LocalEmbeddingProvider()
    store = InMemoryChunkStore(dimension=provider.dimension)
    documents = [SourceDocument(id=str(i), text=text) for i, text in enumerate(texts)]
    await index_documents(documents, chunks=store, tenant_id=TENANT, embeddings=provider)
    retriever = ChunkRetriever(embeddings=provider, chunks=store)
    cases = []
    for i, (doc, text) in enumerate(zip(raw["documents"], texts, strict=True)):
        query = text.split(". ")[0]
        sem = await retriever.retrieve_chunks(
            query, TENANT, k=PASSAGE_DEPTH, mode=RetrievalMode.SEMANTIC
        )
        lex = await retriever.retrieve_chunks(
            query, TENANT, k=PASSAGE_DEPTH, mode=RetrievalMode.LEXICAL
        )
        top = lex.matches[0].bm25 if lex.matches else 0.0
        doc_of = {str(m.chunk.id): int(m.chunk.source_id) for m in sem.matches + lex.matches}
        cases.append(
            Case(
                family="lee",
                split=split_of(doc["id"]),
                query=query,
                semantic=tuple((str(m.chunk.id), m.semantic or 0.0) for m in sem.matches),
                lexical=tuple(
                    (str(m.chunk.id), bm25_relative(m.bm25 or 0.0, top or 0.0)) for m in lex.matches
                ),
                doc_of=tuple(sorted(doc_of.items())),
                gains=tuple(
                    0.0 if j == i else float(raw["similarity"][i][j]) for j in range(len(texts))
                ),
                own_doc=i,
            )
        )
    return cases
