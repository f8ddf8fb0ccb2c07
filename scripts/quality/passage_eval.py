"""Passage retrieval checks: the Lee corpus against human similarity (nDCG@10)."""

from __future__ import annotations

import json
from collections.abc import Callable

from redstring import SourceDocument
from redstring.ports import EmbeddingProvider

from .harness import MODES, PASSAGES, TENANT, ndcg_at
from .passage_sets import PassageSet, passage_retriever


async def passage_check(make: Callable[[], EmbeddingProvider]) -> dict[str, float]:
    """Mean nDCG@10 of the other 49 Lee documents for each document's first sentence.

    Gains are the human similarity of each document to the query's own
    document; the query's document is left out of both ranking and ideal.
    """
    raw = json.loads(PASSAGES.read_text(encoding="utf-8"))
    texts = [doc["text"] for doc in raw["documents"]]
    similarity = raw["similarity"]
    documents = [SourceDocument(id=str(i), text=text) for i, text in enumerate(texts)]
    retriever = await passage_retriever(PassageSet(documents=documents, queries=[]), make())
    scores: dict[str, float] = {}
    for mode in MODES:
        total = 0.0
        for i, text in enumerate(texts):
            query = text.split(". ")[0]
            result = await retriever.retrieve_chunks(query, TENANT, k=200, mode=mode)
            order: list[int] = []
            for match in result.matches:
                doc = int(match.chunk.source_id)
                if doc != i and doc not in order:
                    order.append(doc)
            gains = {j: float(similarity[i][j]) for j in range(len(texts)) if j != i}
            total += ndcg_at(order, gains)
        scores[mode.value] = total / len(texts)
    return scores
