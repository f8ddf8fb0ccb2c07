"""The passage-set harness maps chunks to documents and grades them, checked on a tiny set."""

from __future__ import annotations

import math

import pytest

from redstring import RetrievalMode, SourceDocument
from redstring.providers import FakeEmbeddingProvider
from scripts.quality.passage_sets import (
    PassageQuery,
    PassageSet,
    passage_report,
    passage_retriever,
    rank_documents,
)

DOCUMENTS = [
    SourceDocument(id="element:Fe", title="Iron", text="Iron is a silvery metallic element."),
    SourceDocument(id="element:He", title="Helium", text="Helium is a light noble gas."),
    # Long enough for several chunks, each holding the query's words.
    SourceDocument(
        id="element:Au", title="Gold", text=" ".join(["Gold is a soft yellow metal."] * 120)
    ),
]


def query(qid: str, text: str, shape: str, **grades: float) -> PassageQuery:
    return PassageQuery(id=qid, shape=shape, split="fit", text=text, grades=grades)


@pytest.mark.asyncio
async def test_a_document_ranks_by_its_chunks_and_is_graded_by_the_query() -> None:
    queries = [
        query("q1", "a light noble gas", "lay", **{"element:He": 2.0}),
        query("q2", "soft yellow metal", "lay", **{"element:Au": 2.0}),
        query("q3", "zzzz qqqq", "no_match"),
    ]
    passages = PassageSet(documents=DOCUMENTS, queries=queries)
    retriever = await passage_retriever(passages, FakeEmbeddingProvider(dimension=32))
    ranked = await rank_documents(retriever, queries, RetrievalMode.LEXICAL)
    assert ranked[0].ids[0] == "element:He"
    assert ranked[1].ids[0] == "element:Au"
    assert len(ranked[1].ids) == len(set(ranked[1].ids))  # one entry per document
    assert ranked[2].ids == []
    report = passage_report(queries, {"lexical": ranked})["fit"]["lexical"]
    assert report["lay"]["hit@1"] == 1.0
    assert report["lay"]["ndcg@10"] == pytest.approx(1.0)
    assert report["no_match"]["empty"] == 1.0
    assert math.isnan(report["no_match"]["ndcg@10"])
    assert report["all"]["n"] == 2  # the no-match query is not graded
