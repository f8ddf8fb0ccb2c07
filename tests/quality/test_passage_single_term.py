"""The best passage for a one-term query is found however many passages hold the term.

A store that capped the postings it reads (the first N chunks holding a
term, say) would answer correctly on a small corpus and miss the best
passage on a large one. The best passage is written last and given the id
that sorts last, so neither insertion order nor id order can carry it in.
"""

from __future__ import annotations

import pytest

from redstring import ChunkRetriever, RetrievalMode, SourceDocument, index_documents
from redstring.stores import InMemoryChunkStore
from tests.factories import DEFAULT_TENANT

FILLER = "the committee met again on tuesday and discussed the budget for the coming year"


def ordinary(n: int) -> SourceDocument:
    """A passage that mentions the term once, among many other words."""
    return SourceDocument(id=f"a-{n:05d}", text=f"{FILLER} with one note on the turbine {n}")


BEST = SourceDocument(id="z-best", text="turbine turbine turbine blades")


@pytest.mark.asyncio
@pytest.mark.parametrize("holders", [0, 1, 99, 1000, 3000])
async def test_the_densest_passage_ranks_first_whatever_the_number_of_holders(
    holders: int,
) -> None:
    store = InMemoryChunkStore(dimension=8)
    documents = [ordinary(n) for n in range(holders)] + [BEST]
    await index_documents(documents, chunks=store, tenant_id=DEFAULT_TENANT)
    result = await ChunkRetriever.lexical_only(chunks=store).retrieve_chunks(
        "turbine", DEFAULT_TENANT, k=1, mode=RetrievalMode.LEXICAL
    )
    assert [match.chunk.source_id for match in result.matches] == ["z-best"]
    everything = await ChunkRetriever.lexical_only(chunks=store).retrieve_chunks(
        "turbine", DEFAULT_TENANT, k=holders + 5, mode=RetrievalMode.LEXICAL
    )
    assert len(everything.matches) == holders + 1  # every holder ranked, none dropped
